//! The one replay player, for both kinds of recording: what a replay re-runs
//! ([`Replayed`]: one client's recording, [`Player`], or a whole lab's, `LabReplay`),
//! the one clock that plays it ([`Viewer`], [`play`]), the one key handler
//! ([`on_key`]) that reads the binding table's replay rows, and the one screen the
//! terminal shell runs ([`Playing`]) around what each kind draws ([`Shown`]). A kind
//! lacking a key's feature (a lab replay has no what-if and no correction jumps) says
//! so on the status line and changes nothing.

use std::time::{Duration, Instant};

use ratatui::Frame;
use ratatui::crossterm::event::{KeyCode, KeyEvent};

use super::keys::{Do, binding_of};
use super::player::Player;
use super::speed::Speed;
use crate::client::Switch;
use crate::client::shell::{Flow, Modal, Screen};
use crate::ui::Theme;

/// A message on the status line goes after this long (a key press clears it sooner).
pub(crate) const MESSAGE_SHOWN: Duration = Duration::from_secs(4);
/// How often the picture is looked at while playing.
const PLAY_STEP: Duration = Duration::from_millis(15);

/// What the replay keys act on.
pub(crate) trait Replayed {
    /// Replay time now.
    fn at(&self) -> Duration;
    /// Replay time at the end.
    fn duration(&self) -> Duration;
    /// One server tick, for the tick keys.
    fn tick(&self) -> Duration;
    /// Plays on to `t`.
    fn advance_to(&mut self, t: Duration);
    /// Goes to `t` (at most [`Replayed::duration`]), forward or back.
    fn seek(&mut self, t: Duration) -> anyhow::Result<()>;
    /// One frame on, or back.
    fn step_frame(&mut self, forward: bool) -> anyhow::Result<()>;
    /// The most replay time one look at the clock plays (before the speed), so that
    /// after a stall the replay does not race; None: as far as the clock says.
    fn max_step(&self) -> Option<Duration> {
        None
    }
    /// Whether `?` opens a box that Esc closes (else its help is a line, and Esc quits).
    fn help_is_box(&self) -> bool;
    /// To the next or previous correction: whether there was one; None for a kind
    /// that has no corrections to jump to.
    fn jump_correction(&mut self, _forward: bool) -> Option<bool> {
        None
    }
    /// Re-runs with `which` switch flipped (None: as recorded); what to say, or None
    /// for a kind that re-runs only as recorded.
    fn what_if(&mut self, _which: Option<Switch>) -> Option<anyhow::Result<String>> {
        None
    }
    /// What is said for a key this kind has no feature for.
    fn lacks(&self) -> &'static str {
        ""
    }
}

impl Replayed for Player {
    fn at(&self) -> Duration {
        Player::at(self)
    }

    fn duration(&self) -> Duration {
        Player::duration(self)
    }

    fn tick(&self) -> Duration {
        Player::tick(self)
    }

    fn advance_to(&mut self, t: Duration) {
        Player::advance_to(self, t);
    }

    fn seek(&mut self, t: Duration) -> anyhow::Result<()> {
        Player::seek(self, t);
        Ok(())
    }

    fn step_frame(&mut self, forward: bool) -> anyhow::Result<()> {
        Player::step_frame(self, forward);
        Ok(())
    }

    fn help_is_box(&self) -> bool {
        true
    }

    fn jump_correction(&mut self, forward: bool) -> Option<bool> {
        Some(Player::jump_correction(self, forward))
    }

    /// A what-if key: re-runs the recording with `which` switch flipped, by the game's
    /// own rule (`Switches::toggled`), or (None) as recorded.
    fn what_if(&mut self, which: Option<Switch>) -> Option<anyhow::Result<String>> {
        let Some(which) = which else {
            return Some(
                self.set_what_if(None)
                    .map(|()| "switches as recorded".into()),
            );
        };
        let started = Instant::now();
        let done = self.set_what_if(Some(self.switches().toggled(which)));
        let took = started.elapsed().as_millis();
        Some(done.map(|()| format!("re-simulated in {took} ms")))
    }
}

/// The viewer's own state besides what it plays.
pub(crate) struct Viewer {
    pub(crate) paused: bool,
    pub(crate) speed: Speed,
    /// Wall time and replay time when play last (re)started.
    pub(crate) anchor: (Instant, Duration),
    /// A message on the status line, and when it was set.
    pub(crate) message: String,
    message_at: Instant,
    /// The `?` box (or line) is open.
    pub(crate) help: bool,
    pub(crate) theme: Theme,
}

impl Viewer {
    /// Playing from where `replay` stands (a clip's keyframe, not time 0) from `now`.
    pub(crate) fn new(replay: &impl Replayed, now: Instant, message: String) -> Viewer {
        Viewer {
            paused: false,
            speed: Speed::default(),
            anchor: (now, replay.at()),
            message,
            message_at: now,
            help: false,
            theme: Theme::default(),
        }
    }

    pub(crate) fn say(&mut self, message: String, now: Instant) {
        self.message = message;
        self.message_at = now;
    }

    fn replay_time(&self, now: Instant) -> Duration {
        if self.paused {
            return self.anchor.1;
        }
        self.anchor.1
            + now
                .duration_since(self.anchor.0)
                .mul_f64(self.speed.factor())
    }
}

/// Plays up to the replay time at `now`; pauses at the end.
pub(crate) fn play(replay: &mut impl Replayed, v: &mut Viewer, now: Instant) {
    if !v.message.is_empty() && now.duration_since(v.message_at) >= MESSAGE_SHOWN {
        v.message.clear();
    }
    if v.paused {
        return;
    }
    let mut t = v.replay_time(now);
    if let Some(most) = replay.max_step() {
        let cap = replay.at() + most.mul_f64(v.speed.factor());
        if t > cap {
            // A stall: go on from here, not from where the wall clock has moved.
            t = cap;
            v.anchor = (now, cap);
        }
    }
    let t = t.min(replay.duration());
    replay.advance_to(t);
    if t >= replay.duration() {
        v.paused = true;
        v.anchor = (now, t);
    }
}

/// Does what `code` is bound to; says what that was (`Quit` is the caller's to do).
/// The message of the key before goes: what it said was about the state it left.
pub(crate) fn on_key(
    replay: &mut impl Replayed,
    v: &mut Viewer,
    code: KeyCode,
) -> anyhow::Result<Option<Do>> {
    let Some(act) = binding_of(code, v.help && replay.help_is_box()) else {
        return Ok(None);
    };
    let now = Instant::now();
    v.message.clear();
    let at = replay.at();
    let end = replay.duration();
    let secs = |s: i8| Duration::from_secs(u64::from(s.unsigned_abs()));
    let mut pause = true;
    match act {
        Do::Quit => return Ok(Some(Do::Quit)),
        Do::Help => {
            v.help = !v.help;
            return Ok(Some(act));
        }
        Do::Pause => {
            v.paused = !v.paused;
            v.anchor = (now, at);
            return Ok(Some(act));
        }
        Do::Frame(forward) => replay.step_frame(forward)?,
        Do::Tick(true) => replay.seek((at + replay.tick()).min(end))?,
        Do::Tick(false) => replay.seek(at.saturating_sub(replay.tick()))?,
        Do::Seek(by) => {
            let t = if by > 0 {
                at + secs(by)
            } else {
                at.saturating_sub(secs(by))
            };
            let started = Instant::now();
            replay.seek(t.min(end))?;
            let took = started.elapsed().as_secs_f64() * 1e3;
            v.say(format!("seek took {took:.1} ms"), now);
            pause = v.paused;
        }
        Do::Speed(faster) => {
            v.speed = if faster {
                v.speed.faster()
            } else {
                v.speed.slower()
            };
            pause = v.paused;
        }
        Do::Correction(forward) => match replay.jump_correction(forward) {
            Some(true) => {}
            Some(false) => {
                // Nothing found: nothing moved, so playback goes on as it was.
                v.say("no more corrections that way".into(), now);
                pause = v.paused;
            }
            None => {
                v.say(replay.lacks().into(), now);
                pause = v.paused;
            }
        },
        Do::WhatIf(_) | Do::AsRecorded => {
            let which = match act {
                Do::WhatIf(action) => Switch::of(action),
                _ => None,
            };
            if !what_if(replay, v, which)? {
                pause = v.paused;
            }
        }
    }
    v.paused = pause;
    v.anchor = (now, replay.at());
    Ok(Some(act))
}

/// A what-if key: re-runs the recording with `which` switch flipped (None: as
/// recorded) and plays on from the same time; whether the kind could (else it says it
/// cannot).
pub(crate) fn what_if(
    replay: &mut impl Replayed,
    v: &mut Viewer,
    which: Option<Switch>,
) -> anyhow::Result<bool> {
    let Some(said) = replay.what_if(which) else {
        v.say(replay.lacks().into(), Instant::now());
        return Ok(false);
    };
    v.say(said?, Instant::now());
    v.anchor = (Instant::now(), replay.at());
    Ok(true)
}

/// A replay on the screen: what it re-runs, the viewer, and what it draws.
pub(crate) trait Shown {
    type Replay: Replayed;
    /// What it re-runs and the viewer, to change.
    fn parts(&mut self) -> (&mut Self::Replay, &mut Viewer);
    fn viewer(&self) -> &Viewer;
    /// A key of the kind's own, looked at before the replay's: whether it took it.
    fn own_key(&mut self, _key: &KeyEvent) -> bool {
        false
    }
    fn draw(&self, frame: &mut Frame, fps: f64);
    /// Whether the picture may change with time alone (the shell then draws often).
    fn in_motion(&self) -> bool {
        false
    }
}

/// One key: the kind's own, else the replay's. True when it quits.
pub(crate) fn key(shown: &mut impl Shown, key: &KeyEvent) -> anyhow::Result<bool> {
    if shown.own_key(key) {
        return Ok(false);
    }
    let (replay, v) = shown.parts();
    Ok(on_key(replay, v, key.code)? == Some(Do::Quit))
}

/// The one replay screen, as the shell runs it.
pub(crate) struct Playing<S>(pub(crate) S);

impl<S: Shown> Screen for Playing<S> {
    fn on_key(&mut self, k: &KeyEvent, _now: Instant) -> anyhow::Result<Flow> {
        Ok(if key(&mut self.0, k)? {
            Flow::Quit
        } else {
            Flow::Go
        })
    }

    /// A resize, or the resume after Ctrl-Z: go on from where the replay stood, not
    /// from where the wall clock has moved it.
    fn on_resize(&mut self, _w: u16, _h: u16, now: Instant) {
        let (replay, v) = self.0.parts();
        v.anchor = (now, replay.at());
    }

    fn on_tick(&mut self, now: Instant, _modal: &mut Modal<'_>) -> anyhow::Result<Flow> {
        let (replay, v) = self.0.parts();
        play(replay, v, now);
        Ok(Flow::Go)
    }

    fn draw(&mut self, frame: &mut Frame, _now: Instant, fps: f64) {
        self.0.draw(frame, fps);
    }

    fn in_motion(&self, _now: Instant) -> bool {
        self.0.in_motion()
    }

    /// While playing, the picture is looked at every [`PLAY_STEP`] (a replay draws
    /// recorded frames; it need not look as often as the game); paused, only a message
    /// goes (the shell looks at least every 100 ms whatever this says).
    fn next_due(&self, now: Instant) -> Instant {
        now + if self.0.viewer().paused {
            MESSAGE_SHOWN
        } else {
            PLAY_STEP
        }
    }
}
