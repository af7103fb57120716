//! `netarena learn`: a course of guided lessons in the lab that check the learner. The
//! lab is deterministic and knows the truth, so a lesson can set up a scenario, stop the
//! world at the moment worth looking at, ask the learner to change something, and then
//! check both that it was changed and what it caused, in the numbers the lab measured.
//!
//! A lesson is data (`lessons`): a scenario and steps, each step a setup, what it
//! says, and optionally a task (what the learner must set up, how long the lab runs with
//! it, and a judge of what it caused). `runner` walks the steps without a terminal, so
//! tests drive a lesson headless with a script of learner actions; `coach` rides along
//! the lab's terminal front end (`lab::terminal::Coach`), taking the course's keys and
//! drawing the lesson as a panel under the lanes. `progress` keeps what was done.
//!
//! Every number a lesson's text quotes is a measurement of that run, written with
//! `measured` (the panel draws it bold); a test checks that no other digit is in the
//! text outside backticks (keys and the values the learner is asked to set).
#![doc(hidden)] // Public for the binary: see the crate docs.

mod coach;
mod lessons;
pub mod progress;
mod rewind;
mod runner;
mod speed_hack;
mod watch;

use std::fmt::Display;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use crate::client::play::input::Action;
use crate::client::shell::interactive::Outcome;
use crate::lab::dials::Value;
use crate::lab::{Lab, LabConfig};
use crate::server::ServerConfig;
use crate::sim::map::Map;
use crate::sim::world::Buttons;
use crate::ui;

pub use progress::Progress;
use watch::{Memo, Setup, Watch};

/// What a learner does, as a key would: for the scripted learners of the tests.
#[derive(Clone, Copy, Debug)]
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) enum Act {
    /// A game action of client 1: a switch, a weapon, a change of its link.
    Do(Action),
    /// Sets client 1's (or the server's) dial of this name to this value.
    Dial(&'static str, Value),
    /// Client 1 holds these keys (empty: lets go).
    Hold(Buttons),
    /// Client 1, when the rail from where it stands reaches the walker where it draws
    /// it, faces that way and holds fire; else lets go (a learner's aim).
    FireAtWalker,
}

/// The lab a lesson runs in: the duel map, one client on the keyboard on this network
/// profile, and one walker for it to watch (two views, so the lesson's panel has rows
/// left even at 100x30).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Scenario {
    pub(crate) profile: &'static str,
    pub(crate) seed: u64,
}

impl Scenario {
    pub(crate) fn config(&self) -> LabConfig {
        let map = Map::builtin("duel").expect("the duel map is built in");
        let mut server = ServerConfig::new(map);
        server.seed = self.seed;
        server.name = "learn".to_owned();
        LabConfig {
            server,
            profiles: vec![self.profile.to_owned()],
            walkers: 1,
            keyboard: 1,
            tuning: Default::default(),
            correction: Default::default(),
        }
    }
}

/// A lesson: a scenario and its steps.
pub(crate) struct Lesson {
    pub(crate) title: &'static str,
    /// The reference articles it draws on (file names in the course's references).
    pub(crate) articles: &'static [&'static str],
    /// The articles' items it covers, in words.
    pub(crate) covers: &'static [&'static str],
    pub(crate) scenario: Scenario,
    pub(crate) steps: &'static [Step],
}

/// One step: the lab built afresh from the scenario, `setup` applied, run `lead_ms`,
/// then paused while the learner reads what it `say`s. With `compare`, the step is an
/// A/B run (`lab --compare`): lab A as the scenario says on the left, lab B differing
/// in that one setting on the right, from one seed, the learner's keys acting on both.
pub(crate) struct Step {
    pub(crate) setup: fn(&mut Lab),
    pub(crate) lead_ms: u64,
    /// Lab B's setting, as `netarena lab --compare` takes it (`snapshot-rate=10`).
    pub(crate) compare: Option<&'static str>,
    /// What it says at the pause, from the lab (or labs) as it is then.
    pub(crate) say: Say,
    /// What the learner is asked to do; None for a step that only shows.
    pub(crate) task: Option<Task>,
    /// What a learner who does as asked does, ms after the step's world starts running.
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) example: &'static [(u64, Act)],
}

/// What a step asks, and how it checks.
pub(crate) struct Task {
    /// Whether the learner set up what was asked; Err says what is missing.
    pub(crate) wants: fn(&Setup) -> Result<(), String>,
    /// How long the lab runs with it set up before it is judged.
    pub(crate) window_ms: u64,
    /// What it caused, from what was watched over the window.
    pub(crate) judge: Judge,
}

/// What a step says: from its lab, or (an A/B step) from labs A and B.
#[derive(Clone, Copy)]
pub(crate) enum Say {
    One(fn(&Lab) -> Vec<String>),
    Both(fn(&Lab, &Lab) -> Vec<String>),
}

/// How a task judges: from the watch of its lab, or (an A/B step) of labs A and B. A
/// judge is a pure function of what was watched, so tests feed it crafted watches.
#[derive(Clone, Copy)]
pub(crate) enum Judge {
    One(fn(&Watch, &mut Memo) -> Verdict),
    Both(fn(&Watch, &Watch, &mut Memo) -> Verdict),
}

/// A judge's word.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Verdict {
    /// Done: what it caused, in measured numbers.
    Pass(Vec<String>),
    /// Not yet, and why; the watch goes on.
    NotYet(String),
    /// Not so, and why; the watch starts over.
    Again(String),
}

/// A number the lab measured, marked for the panel (drawn bold, markers dropped) and
/// for the test that no lesson text quotes a number of its own.
pub(crate) fn measured(v: impl Display) -> String {
    format!("⟨{v}⟩")
}

/// A measured number with `decimals` places.
pub(crate) fn measured_f(v: f64, decimals: usize) -> String {
    measured(format!("{v:.decimals$}"))
}

/// The lessons, for `netarena learn`'s list: (title, articles, items covered).
pub fn lessons() -> Vec<(
    &'static str,
    &'static [&'static str],
    &'static [&'static str],
)> {
    lessons::LESSONS
        .iter()
        .map(|l| (l.title, l.articles, l.covers))
        .collect()
}

/// Each lesson's number of steps.
pub fn step_counts() -> Vec<usize> {
    lessons::LESSONS.iter().map(|l| l.steps.len()).collect()
}

/// Runs lesson `lesson` (0-based) from step `step` in this terminal, keeping the
/// learner's progress in `progress`, until the learner quits or `stop`.
pub fn run(
    lesson: usize,
    step: usize,
    progress: &mut Progress,
    fps_cap: Option<u32>,
    theme: ui::Theme,
    stop: &AtomicBool,
) -> anyhow::Result<Outcome> {
    let Some(l) = lessons::LESSONS.get(lesson) else {
        anyhow::bail!(
            "there is no lesson {} (there are {})",
            lesson + 1,
            lessons::LESSONS.len()
        );
    };
    let step = step.min(l.steps.len() - 1);
    let config = l.scenario.config();
    let mut coach = coach::Course::new(lesson, step, Instant::now(), progress);
    crate::lab::terminal::run_coached(&config, fps_cap, theme, stop, &mut coach)
}

#[cfg(test)]
mod tests;
