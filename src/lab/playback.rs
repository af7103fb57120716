//! A whole-lab recording played back in this terminal (`netarena replay FILE` of a
//! file `lab --record` wrote): the recorded lab re-run on its inputs and drawn by the
//! lab's own screen (`view::build`, `ui::lab::draw`), with the replay's keys (the
//! binding table's replay rows): pause, one frame or tick forward and back, seek, speed;
//! and the live lab's own keys (its rows) for the client chosen (Tab), what is
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
use super::speed::Speed;
use super::view::{self, Controls, Over};
use crate::client::shell::interactive::Outcome;
use crate::client::shell::{Flow, Modal, Screen, Shell};
use crate::ui;
use crate::ui::keys::{self, Lab as LabKey, Replay as Do};

/// The most lab time one frame may advance (after a stall time resumes, it does not
/// race).
const MAX_FRAME_STEP: Duration = Duration::from_millis(100);
/// One frame, for `.` and `,`.
const FRAME: Duration = Duration::from_micros(16_667);

/// Plays the lab recording at `path` in this terminal until `q` or `stop`.
pub fn run(path: &Path, theme: ui::Theme, stop: &AtomicBool) -> anyhow::Result<Outcome> {
    let replay = LabReplay::load(path)?;
    let mut shell = Shell::enter(stop, None)?;
    let mut front = Playback::new(replay, theme, Instant::now());
    shell.run(&mut front)
}

/// The playback's state: the re-run lab, the clock, what to say.
pub(crate) struct Playback {
    pub(crate) replay: LabReplay,
    speed: Speed,
    paused: bool,
    theme: ui::Theme,
    last: Instant,
    note: Option<String>,
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
        let note = replay.file.stopped.clone();
        Playback {
            replay,
            speed: Speed::default(),
            paused: false,
            theme,
            last: now,
            note,
            selected: 0,
            follow: None,
            over: Over::Nothing,
        }
    }

    /// Seeks to lab time `t` (clamped to the recording).
    fn seek(&mut self, t: Duration) {
        let t = t.min(self.replay.duration());
        if let Err(e) = self.replay.seek(t) {
            self.note = Some(format!("{e:#}"));
        }
    }

    fn tick(&self) -> Duration {
        let rate = self.replay.lab().server().config().tick_rate.max(1);
        Duration::from_secs(1) / u32::from(rate)
    }

    /// One key, as the replay rows of the binding table say. True when it quits.
    pub(crate) fn key(&mut self, key: &KeyEvent) -> bool {
        let at = self.replay.at();
        if let Some(k) = lab_key(key).filter(|_| keys::replay_code(key.code, false).is_none()) {
            let lab = self.replay.lab();
            match k {
                LabKey::Choose => {
                    self.selected = (self.selected + 1) % lab.client_count().max(1);
                    self.note = Some(format!("f and L show client {}", self.selected + 1));
                }
                LabKey::Follow => {
                    self.follow = Follow::next(self.follow, lab, self.selected);
                    self.note = Some(Follow::said(self.follow).trim_start().to_owned());
                }
                _ => self.over = self.over.next(),
            }
            return false;
        }
        // Its help is a line, not a box: Esc always quits.
        match keys::replay_code(key.code, false) {
            Some(Do::Quit) => return true,
            Some(Do::Pause) => self.paused = !self.paused,
            Some(Do::Frame(forward)) => {
                self.paused = true;
                self.seek(if forward {
                    at + FRAME
                } else {
                    at.saturating_sub(FRAME)
                });
            }
            Some(Do::Tick(forward)) => {
                self.paused = true;
                let tick = self.tick();
                self.seek(if forward {
                    at + tick
                } else {
                    at.saturating_sub(tick)
                });
            }
            Some(Do::Seek(s)) => {
                let by = Duration::from_secs(u64::from(s.unsigned_abs()));
                self.seek(if s > 0 {
                    at + by
                } else {
                    at.saturating_sub(by)
                });
            }
            Some(Do::Speed(up)) => {
                self.speed = if up {
                    self.speed.faster()
                } else {
                    self.speed.slower()
                };
            }
            Some(Do::Help) => {
                // The lab's help box lists the live lab's keys: the replay's go here.
                self.note = Some(
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
                                .filter(|r| {
                                    r.keys.iter().any(|k| lab_key(&k.code.into()).is_some())
                                })
                                .map(|r| format!("{} {}", r.label, r.does)),
                        )
                        .collect::<Vec<_>>()
                        .join(" · "),
                );
            }
            Some(Do::Correction(_) | Do::WhatIf(_) | Do::AsRecorded) => {
                self.note = Some(
                    "a lab replay re-runs the lab as recorded: no what-if, no correction jumps"
                        .to_owned(),
                );
            }
            None => {}
        }
        false
    }

    /// The bottom line: where the replay is, and whether it still agrees with the
    /// recording.
    pub(crate) fn status(&self) -> String {
        let verdict = match self.replay.diverged() {
            Some(why) => format!("DIVERGED: {why}"),
            None => "checkpoints agree".to_owned(),
        };
        let note = self
            .note
            .as_deref()
            .map_or(String::new(), |n| format!(" · {n}"));
        format!(
            " lab replay {:.3} / {:.3} s · {verdict}{note} · {}",
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
            speed: self.speed.factor(),
            paused: self.paused || self.replay.finished(),
            fps,
            message,
            help: false,
            theme: self.theme,
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

impl Screen for Playback {
    fn on_key(&mut self, key: &KeyEvent, _now: Instant) -> anyhow::Result<Flow> {
        Ok(if self.key(key) { Flow::Quit } else { Flow::Go })
    }

    fn on_tick(&mut self, real: Instant, _modal: &mut Modal<'_>) -> anyhow::Result<Flow> {
        if !self.paused && !self.replay.finished() {
            let step = (real - self.last)
                .min(MAX_FRAME_STEP)
                .mul_f64(self.speed.factor());
            let to = self.replay.at() + step;
            self.replay.advance_to(to);
        }
        self.last = real;
        Ok(Flow::Go)
    }

    fn draw(&mut self, frame: &mut Frame, _real: Instant, fps: f64) {
        // The frames drawn live are inputs of the recording: drawing here changes
        // nothing in the lab.
        self.draw_lab(frame, fps);
    }

    fn in_motion(&self, _now: Instant) -> bool {
        !self.paused && !self.replay.finished()
    }
}
