//! A lesson's steps without a terminal: build each step's lab (and lab B beside it for
//! an A/B step), pause it, watch what the learner does, judge it. The terminal's coach
//! and the tests both drive this.

use std::time::{Duration, Instant};

#[cfg(test)]
use super::Act;
use super::lessons::LESSONS;
use super::watch::{Memo, Setup, Watch};
use super::{Judge, Lesson, Say, Step, Verdict};
use crate::lab::Lab;
use crate::lab::compare::{self, Setting};
#[cfg(test)]
use crate::lab::dials::DIALS;
use crate::lab::terminal::Twin;

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
    /// The watch of lab A, and of lab B in an A/B step.
    watch: Option<(Watch, Option<Watch>)>,
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

    /// Builds the step's lab afresh in `lab` (and for an A/B step lab B in `twin`, as
    /// `lab --compare` does; else `twin` is emptied), sets it up, runs its lead, and
    /// pauses there with its words.
    pub(crate) fn enter(&mut self, lab: &mut Lab, twin: &mut Twin) -> anyhow::Result<()> {
        let lesson = self.lesson();
        let step = self.current();
        let config = lesson.scenario.config();
        *twin = None;
        match step.compare {
            Some(text) => {
                let setting = Setting::parse(text).map_err(anyhow::Error::msg)?;
                let (a, b) = compare::pair(&config, &setting, self.base)?;
                *lab = a;
                *twin = Some((b, setting));
            }
            None => *lab = Lab::new(&config, self.base)?,
        }
        // The client's session starts a few ms in; a switch before that is ignored.
        let settled = self.base + SETTLE;
        let lead = self.base + Duration::from_millis(step.lead_ms);
        match twin {
            Some((b, setting)) => {
                compare::run_until(lab, b, settled);
                (step.setup)(lab);
                (step.setup)(b);
                // After the setup, so lab B differs in its one setting whatever it set.
                setting.apply(b);
                compare::run_until(lab, b, lead);
            }
            None => {
                lab.run_until(settled);
                (step.setup)(lab);
                lab.run_until(lead);
            }
        }
        self.said = match (step.say, twin) {
            (Say::One(say), _) => say(lab),
            (Say::Both(say), Some((b, _))) => say(lab, b),
            (Say::Both(_), None) => vec!["! this step compares two labs and has no lab B".into()],
        };
        self.phase = Phase::Reading;
        self.watch = None;
        Ok(())
    }

    /// "Go on": from the reading pause into the task, or to the next step. True when
    /// the world should run.
    pub(crate) fn go_on(&mut self, lab: &mut Lab, twin: &mut Twin) -> anyhow::Result<bool> {
        match (&self.phase, &self.current().task) {
            (Phase::Reading, Some(_)) => {
                self.phase = Phase::Doing(String::new());
                self.watch = None;
                Ok(true)
            }
            (Phase::Complete, _) => Ok(false),
            (Phase::Doing(_), _) => Ok(true),
            _ => self.next(lab, twin).map(|()| false),
        }
    }

    /// The next step, or the lesson complete after the last.
    pub(crate) fn next(&mut self, lab: &mut Lab, twin: &mut Twin) -> anyhow::Result<()> {
        if self.step + 1 < self.lesson().steps.len() {
            self.step += 1;
            self.enter(lab, twin)
        } else {
            self.phase = Phase::Complete;
            Ok(())
        }
    }

    /// The step before (or this one again at the first).
    pub(crate) fn back(&mut self, lab: &mut Lab, twin: &mut Twin) -> anyhow::Result<()> {
        self.step = self.step.saturating_sub(1);
        self.enter(lab, twin)
    }

    /// Watches the lab (and lab B) now; true when the step was just checked (the world
    /// pauses). What is asked must be set up in both labs.
    pub(crate) fn observe(&mut self, lab: &mut Lab, twin: &mut Twin) -> bool {
        let Phase::Doing(_) = self.phase else {
            return false;
        };
        let Some(task) = &self.current().task else {
            return false;
        };
        let wanted = (task.wants)(&Setup::of(lab)).and_then(|()| match twin {
            Some((b, _)) => {
                (task.wants)(&Setup::of(b)).map_err(|why| format!("in lab B (right): {why}"))
            }
            None => Ok(()),
        });
        if let Err(why) = wanted {
            self.phase = Phase::Doing(why);
            self.watch = None;
            return false;
        }
        let (watch, watch_b) = self.watch.get_or_insert_with(|| {
            lab.restart_motion();
            if let Some((b, _)) = twin {
                b.restart_motion();
            }
            (Watch::new(lab), twin.as_ref().map(|(b, _)| Watch::new(b)))
        });
        watch.observe(lab);
        if let (Some(w), Some((b, _))) = (watch_b.as_mut(), twin.as_ref()) {
            w.observe(b);
        }
        let window = Duration::from_millis(task.window_ms);
        if watch.elapsed() < window {
            self.phase = Phase::Doing(format!(
                "set: watching for {:.1} s of {:.1} s",
                watch.elapsed().as_secs_f64(),
                window.as_secs_f64()
            ));
            return false;
        }
        let verdict = match (task.judge, watch_b) {
            (Judge::One(judge), _) => judge(watch, &mut self.memo),
            (Judge::Both(judge), Some(b)) => judge(watch, b, &mut self.memo),
            (Judge::Both(_), None) => {
                Verdict::NotYet("this step compares two labs and has no lab B".to_owned())
            }
        };
        match verdict {
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
/// `Lab::set_dial`, `Lab::hold`), in lab B too as the front end's keys do.
pub(crate) fn act(lab: &mut Lab, twin: &mut Twin, a: Act) {
    if let Some((b, _)) = twin {
        act_one(b, a);
    }
    act_one(lab, a);
}

#[cfg(test)]
fn act_one(lab: &mut Lab, a: Act) {
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
        Act::FireAtWalker => match fire_at_walker(lab) {
            Ok(aim) => {
                lab.act(0, crate::client::play::input::Action::Face(aim));
                lab.hold(0, crate::sim::world::Buttons::FIRE);
            }
            Err(walk) => lab.hold(0, walk),
        },
    }
}

#[cfg(test)]
/// The aim along which client 1's rail, from where it predicts itself, reaches the
/// walker where client 1 draws it (what the server tests a compensated shot against);
/// else the keys that walk towards its row, then along it towards it.
fn fire_at_walker(lab: &Lab) -> Result<u8, crate::sim::world::Buttons> {
    use super::watch::walker;
    use crate::sim::world::Buttons;
    let players = lab.server().world().players();
    let state = |id| players.iter().find(|(p, _)| *p == id).map(|(_, s)| *s);
    let w = walker(lab).ok_or(Buttons::empty())?;
    // Where client 1 predicts itself: where the server will be when the shot arrives.
    let (Some(mine), Some(mut seen), Some(drawn)) = (
        lab.session(0).predicted(),
        state(w),
        lab.session(0).remote_position(w, lab.now()),
    ) else {
        return Err(Buttons::empty());
    };
    (seen.x, seen.y) = (drawn.0.round() as i32, drawn.1.round() as i32);
    let map = lab.server().game().map();
    let aim = (0..8u8).find(|&aim| {
        crate::sim::combat::rail(map, (mine.x, mine.y), aim, &[(w, seen)])
            .1
            .is_some()
    });
    let (dx, dy) = (seen.x - mine.x, seen.y - mine.y);
    let half = crate::sim::map::CELL / 2;
    aim.ok_or(match (dy > half, dy < -half, dx > 0) {
        (true, _, _) => Buttons::DOWN,
        (_, true, _) => Buttons::UP,
        (_, _, true) => Buttons::RIGHT,
        _ => Buttons::LEFT,
    })
}

#[cfg(test)]
/// Runs a step's world (both labs of an A/B step, on one clock) for `ms` as a learner
/// who does `script` (ms after the start, what), observing every 10 ms as the terminal
/// does every frame. Stops early once checked.
pub(crate) fn play(
    runner: &mut Runner,
    lab: &mut Lab,
    twin: &mut Twin,
    script: &[(u64, Act)],
    ms: u64,
) {
    let start = lab.now();
    let mut next = 0;
    let mut t = 0;
    while t < ms {
        while let Some(&(at, a)) = script.get(next) {
            if at > t {
                break;
            }
            act(lab, twin, a);
            next += 1;
        }
        t += 10;
        let until = start + Duration::from_millis(t);
        match twin {
            Some((b, _)) => {
                compare::run_until(lab, b, until);
                b.frame();
            }
            None => lab.run_until(until),
        }
        lab.frame();
        if runner.observe(lab, twin) {
            return;
        }
    }
}
