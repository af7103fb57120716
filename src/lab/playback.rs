//! A whole-lab recording played back in this terminal (`netarena replay FILE` of a
//! file `lab --record` wrote): the recorded lab re-run on its inputs and drawn by the
//! lab's own screen (`view::build`, `ui::lab::draw`), with the replay's keys through
//! the one replay key handler and clock (`record::control`, as a client's recording
//! is played): pause, one frame or tick forward and back, seek, speed; and the live
//! lab's own keys (its rows) for the client chosen (Tab), what is
//! followed (`f`) and what is drawn over the views (`L`).
//! Seeking back starts the lab again and runs it to the time, faster than real time;
//! what is followed stays followed (the same command seq, the same snapshot time).
#![doc(hidden)] // Public for the binary, tests or fuzz targets: see the crate docs.

use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use ratatui::Frame;
use ratatui::crossterm::event::KeyEvent;

use super::follow::Follow;
use super::recording::LabReplay;
use super::view::{self, Controls, Over};
use crate::client::shell::Shell;
use crate::client::shell::interactive::Outcome;
use crate::record::control::{Playing, Replayed, Shown, Viewer};
use crate::ui;
use crate::ui::keys::{self, Lab as LabKey, Replay as Do};

/// The most lab time one look at the clock may advance (after a stall time resumes,
/// it does not race).
const MAX_FRAME_STEP: Duration = Duration::from_millis(100);
/// One frame, for `.` and `,`.
const FRAME: Duration = Duration::from_micros(16_667);

/// Plays the lab recording at `path` in this terminal until `q` or `stop`.
pub fn run(path: &Path, theme: ui::Theme, stop: &AtomicBool) -> anyhow::Result<Outcome> {
    let replay = LabReplay::load(path)?;
    let mut shell = Shell::enter(stop, None)?;
    let mut front = Playing(Playback::new(replay, theme, Instant::now()));
    shell.run(&mut front)
}

/// A lab re-run as the replay's one key handler and clock drive it.
impl Replayed for LabReplay {
    fn at(&self) -> Duration {
        LabReplay::at(self)
    }

    fn duration(&self) -> Duration {
        LabReplay::duration(self)
    }

    fn tick(&self) -> Duration {
        let rate = self.lab().server().config().tick_rate.max(1);
        Duration::from_secs(1) / u32::from(rate)
    }

    fn advance_to(&mut self, t: Duration) {
        LabReplay::advance_to(self, t);
    }

    fn seek(&mut self, t: Duration) -> anyhow::Result<()> {
        LabReplay::seek(self, t.min(self.duration()))
    }

    fn step_frame(&mut self, forward: bool) -> anyhow::Result<()> {
        let at = self.at();
        Replayed::seek(
            self,
            if forward {
                at + FRAME
            } else {
                at.saturating_sub(FRAME)
            },
        )
    }

    fn max_step(&self) -> Option<Duration> {
        Some(MAX_FRAME_STEP)
    }

    /// Its help is a line, not a box: Esc always quits.
    fn help_is_box(&self) -> bool {
        false
    }

    fn lacks(&self) -> &'static str {
        "a lab replay re-runs the lab as recorded: no what-if, no correction jumps"
    }
}

/// The playback's state: the re-run lab, the replay's clock, what to say.
pub(crate) struct Playback {
    pub(crate) replay: LabReplay,
    viewer: Viewer,
    /// Why the file was read only up to a point, if it was.
    stopped: Option<String>,
    /// The client Tab chose, what `f` follows, what `L` draws over the views: as the
    /// live lab's front end has them.
    selected: usize,
    follow: Option<Follow>,
    over: Over,
}

/// The live lab's keys a lab replay takes too (none of them is a replay key).
fn lab_key(key: &KeyEvent) -> Option<LabKey> {
    keys::lab_key(key).filter(|k| matches!(k, LabKey::Choose | LabKey::Follow | LabKey::Ladder))
}

impl Playback {
    pub(crate) fn new(replay: LabReplay, theme: ui::Theme, now: Instant) -> Playback {
        let stopped = replay.file.stopped.clone();
        let mut viewer = Viewer::new(&replay, now, String::new());
        viewer.theme = theme;
        Playback {
            replay,
            viewer,
            stopped,
            selected: 0,
            follow: None,
            over: Over::Nothing,
        }
    }

    /// One key: the live lab's rows it takes, else the replay's (the one handler). True
    /// when it quits. (The shell goes through `Playing`; the tests press keys here.)
    #[cfg(test)]
    pub(crate) fn key(&mut self, key: &KeyEvent) -> bool {
        crate::record::control::key(self, key).unwrap_or_else(|e| {
            self.viewer.say(format!("{e:#}"), Instant::now());
            false
        })
    }

    /// The replay's keys and the live lab's it takes, in a line (`?`).
    fn help_line() -> String {
        keys::REPLAY
            .iter()
            .filter(|r| {
                !matches!(
                    r.keys[0].does,
                    Do::Correction(_) | Do::WhatIf(_) | Do::AsRecorded
                )
            })
            .map(|r| format!("{} {}", r.label, r.does))
            .chain(
                keys::LAB
                    .iter()
                    .filter(|r| r.keys.iter().any(|k| lab_key(&k.code.into()).is_some()))
                    .map(|r| format!("{} {}", r.label, r.does)),
            )
            .collect::<Vec<_>>()
            .join(" · ")
    }

    /// The bottom line: where the replay is, and whether it still agrees with the
    /// recording.
    pub(crate) fn status(&self) -> String {
        let verdict = match self.replay.diverged() {
            Some(why) => format!("DIVERGED: {why}"),
            None => "checkpoints agree".to_owned(),
        };
        let help = self.viewer.help.then(Playback::help_line);
        let notes: String = [
            self.stopped.clone(),
            Some(self.viewer.message.clone()),
            help,
        ]
        .into_iter()
        .flatten()
        .filter(|n| !n.is_empty())
        .map(|n| format!(" · {n}"))
        .collect();
        format!(
            " lab replay {:.3} / {:.3} s · {verdict}{notes} · {}",
            self.replay.at().as_secs_f64(),
            self.replay.duration().as_secs_f64(),
            keys::hints(keys::REPLAY)
                .into_iter()
                .filter(|h| !h.contains("what-if") && !h.contains("correction"))
                .collect::<Vec<_>>()
                .join(" · ")
        )
    }

    /// What the lab's screen is drawn with, `message` on its bottom line.
    pub(crate) fn controls<'a>(&self, message: &'a str, fps: f64) -> Controls<'a> {
        Controls {
            selected: self.selected,
            speed: self.viewer.speed.factor(),
            paused: self.viewer.paused || self.replay.finished(),
            fps,
            message,
            help: false,
            theme: self.viewer.theme,
            follow: self.follow,
            over: self.over,
        }
    }

    pub(crate) fn draw_lab(&self, frame: &mut Frame, fps: f64) {
        let message = self.status();
        let controls = self.controls(&message, fps);
        ui::lab::draw(frame, &view::build(self.replay.lab(), &controls));
    }
}

impl Shown for Playback {
    type Replay = LabReplay;

    fn parts(&mut self) -> (&mut LabReplay, &mut Viewer) {
        (&mut self.replay, &mut self.viewer)
    }

    fn viewer(&self) -> &Viewer {
        &self.viewer
    }

    /// The live lab's rows a lab replay takes (none of them a replay key).
    fn own_key(&mut self, key: &KeyEvent) -> bool {
        let Some(k) = lab_key(key).filter(|_| keys::replay_code(key.code, false).is_none()) else {
            return false;
        };
        let lab = self.replay.lab();
        let said = match k {
            LabKey::Choose => {
                self.selected = (self.selected + 1) % lab.client_count().max(1);
                format!("f and L show client {}", self.selected + 1)
            }
            LabKey::Follow => {
                self.follow = Follow::next(self.follow, lab, self.selected);
                Follow::said(self.follow).trim_start().to_owned()
            }
            _ => {
                self.over = self.over.next();
                return true;
            }
        };
        self.viewer.say(said, Instant::now());
        true
    }

    /// The frames drawn live are inputs of the recording: drawing here changes nothing
    /// in the lab.
    fn draw(&self, frame: &mut Frame, fps: f64) {
        self.draw_lab(frame, fps);
    }

    fn in_motion(&self) -> bool {
        !self.viewer.paused && !self.replay.finished()
    }
}
