//! A lesson's steps without a terminal: build each step's lab, pause it, watch what
//! the learner does, judge it. The terminal's coach and the tests both drive this.

use std::time::{Duration, Instant};

#[cfg(test)]
use super::Act;
use super::lessons::LESSONS;
use super::watch::{Memo, Watch};
use super::{Lesson, Step, Verdict};
use crate::lab::Lab;
#[cfg(test)]
use crate::lab::dials::DIALS;

/// How long a step's lab runs before its setup.
const SETTLE: Duration = Duration::from_millis(100);

/// Where a step is.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Phase {
    /// Paused at the step's moment, its text on screen.
    Reading,
    /// The world runs; the learner tries what was asked. The words say what is missing
    /// or what the watch saw so far.
    Doing(String),
    /// Paused again: what the learner's change caused, in measured numbers.
    Checked(Vec<String>),
    /// Every step of the lesson done.
    Complete,
}

/// One lesson being taken.
pub(crate) struct Runner {
    pub(crate) lesson: usize,
    pub(crate) step: usize,
    /// The virtual time every step's lab starts at, so each step repeats exactly.
    base: Instant,
    pub(crate) phase: Phase,
    /// What the step said at its pause.
    pub(crate) said: Vec<String>,
    watch: Option<Watch>,
    memo: Memo,
}

impl Runner {
    pub(crate) fn new(lesson: usize, step: usize, base: Instant) -> Runner {
        Runner {
            lesson,
            step,
            base,
            phase: Phase::Reading,
            said: Vec::new(),
            watch: None,
            memo: Memo::default(),
        }
    }

    pub(crate) fn lesson(&self) -> &'static Lesson {
        &LESSONS[self.lesson]
    }

    pub(crate) fn current(&self) -> &'static Step {
        &self.lesson().steps[self.step]
    }

    /// Builds the step's lab afresh in `lab`, sets it up, runs its lead, and pauses
    /// there with its words.
    pub(crate) fn enter(&mut self, lab: &mut Lab) -> anyhow::Result<()> {
        let lesson = self.lesson();
        let step = self.current();
        *lab = Lab::new(&lesson.scenario.config(), self.base)?;
        // The client's session starts a few ms in; a switch before that is ignored.
        lab.run_until(self.base + SETTLE);
        (step.setup)(lab);
        lab.run_until(self.base + Duration::from_millis(step.lead_ms));
        self.said = (step.say)(lab);
        self.phase = Phase::Reading;
        self.watch = None;
        Ok(())
    }

    /// "Go on": from the reading pause into the task, or to the next step. True when
    /// the world should run.
    pub(crate) fn go_on(&mut self, lab: &mut Lab) -> anyhow::Result<bool> {
        match (&self.phase, &self.current().task) {
            (Phase::Reading, Some(_)) => {
                self.phase = Phase::Doing(String::new());
                self.watch = None;
                Ok(true)
            }
            (Phase::Complete, _) => Ok(false),
            (Phase::Doing(_), _) => Ok(true),
            _ => self.next(lab).map(|()| false),
        }
    }

    /// The next step, or the lesson complete after the last.
    pub(crate) fn next(&mut self, lab: &mut Lab) -> anyhow::Result<()> {
        if self.step + 1 < self.lesson().steps.len() {
            self.step += 1;
            self.enter(lab)
        } else {
            self.phase = Phase::Complete;
            Ok(())
        }
    }

    /// The step before (or this one again at the first).
    pub(crate) fn back(&mut self, lab: &mut Lab) -> anyhow::Result<()> {
        self.step = self.step.saturating_sub(1);
        self.enter(lab)
    }

    /// Watches the lab now; true when the step was just checked (the world pauses).
    pub(crate) fn observe(&mut self, lab: &mut Lab) -> bool {
        let Phase::Doing(_) = self.phase else {
            return false;
        };
        let Some(task) = &self.current().task else {
            return false;
        };
        if let Err(why) = (task.wants)(lab) {
            self.phase = Phase::Doing(why);
            self.watch = None;
            return false;
        }
        let watch = self.watch.get_or_insert_with(|| {
            lab.restart_motion();
            Watch::new(lab)
        });
        watch.observe(lab);
        let window = Duration::from_millis(task.window_ms);
        if watch.elapsed() < window {
            self.phase = Phase::Doing(format!(
                "set: watching for {:.1} s of {:.1} s",
                watch.elapsed().as_secs_f64(),
                window.as_secs_f64()
            ));
            return false;
        }
        match (task.judge)(lab, watch, &mut self.memo) {
            Verdict::Pass(lines) => {
                self.phase = Phase::Checked(lines);
                true
            }
            Verdict::NotYet(why) => {
                self.phase = Phase::Doing(why);
                false
            }
            Verdict::Again(why) => {
                self.phase = Phase::Doing(why);
                self.watch = None;
                false
            }
        }
    }

    /// Whether the step is checked or the lesson complete.
    pub(crate) fn checked(&self) -> bool {
        matches!(self.phase, Phase::Checked(_) | Phase::Complete)
    }
}

#[cfg(test)]
/// Does what a learner's action does to client 1 (the keys' paths: `Lab::act`,
/// `Lab::set_dial`, `Lab::hold`).
pub(crate) fn act(lab: &mut Lab, a: Act) {
    match a {
        Act::Do(action) => {
            lab.act(0, action);
        }
        Act::Dial(name, v) => {
            if let Some(d) = DIALS.iter().position(|d| d.name == name) {
                lab.set_dial(d, 0, v);
            }
        }
        Act::Hold(keys) => lab.hold(0, keys),
    }
}

#[cfg(test)]
/// Runs a step's world for `ms` as a learner who does `script` (ms after the start,
/// what), observing every 10 ms as the terminal does every frame. Stops early once
/// checked.
pub(crate) fn play(runner: &mut Runner, lab: &mut Lab, script: &[(u64, Act)], ms: u64) {
    let start = lab.now();
    let mut next = 0;
    let mut t = 0;
    while t < ms {
        while let Some(&(at, a)) = script.get(next) {
            if at > t {
                break;
            }
            act(lab, a);
            next += 1;
        }
        t += 10;
        lab.run_until(start + Duration::from_millis(t));
        lab.frame();
        if runner.observe(lab) {
            return;
        }
    }
}
