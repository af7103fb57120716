//! When the terminal shell (`shell.rs`) draws, and when it sleeps.
//!
//! A frame is drawn only when the picture changed, and the loop sleeps in between: until
//! a datagram or a key arrives, the next command tick is due, or (while something on
//! screen moves with time alone: a remote player between snapshots, a bolt, a fading
//! beam, smoothing) a few milliseconds pass. So a static picture costs almost nothing,
//! and a change never waits for a frame slot. `--fps-cap` still limits how often a
//! changed picture is drawn.

use std::time::{Duration, Instant};

/// While something moves, a frame is rendered this often: a player crossing into
/// another cell is drawn at most this late.
pub(crate) const MOTION_STEP: Duration = Duration::from_millis(4);
/// The longest sleep: terminal resizes (not a readable event) are noticed this soon.
pub(crate) const MAX_SLEEP: Duration = Duration::from_millis(100);

#[derive(Debug)]
pub(crate) struct FramePacer {
    /// The cap's period, if any.
    period: Option<Duration>,
    next_frame: Instant,
    in_motion: bool,
}

impl FramePacer {
    pub(crate) fn new(fps_cap: Option<u32>, now: Instant) -> FramePacer {
        FramePacer {
            period: fps_cap.map(|f| Duration::from_secs(1) / f.max(1)),
            next_frame: now,
            in_motion: false,
        }
    }

    /// Whether a changed picture may be drawn at `now` (the cap allows it).
    pub(crate) fn may_draw(&self, now: Instant) -> bool {
        now >= self.next_frame
    }

    /// A frame was rendered: `drawn` if it had changed and went to the screen,
    /// `in_motion` if it may change with time alone.
    pub(crate) fn after_frame(&mut self, now: Instant, drawn: bool, in_motion: bool) {
        self.in_motion = in_motion;
        if let (true, Some(period)) = (drawn, self.period) {
            self.next_frame = now + period;
        }
    }

    /// When the loop should wake at the latest, `next_command` being the next command
    /// tick. Datagrams and keys wake it sooner.
    pub(crate) fn next_wake(&self, now: Instant, next_command: Instant) -> Instant {
        let mut wake = next_command.min(now + MAX_SLEEP);
        if self.in_motion {
            wake = wake.min(self.next_frame.max(now + MOTION_STEP));
        }
        wake
    }
}

/// Frames drawn per second, over the last half second: with change-driven drawing,
/// how often the picture changed (and was drawn), not how fast it could be.
#[derive(Debug, Default)]
pub(crate) struct FpsCounter {
    window_start: Option<Instant>,
    frames: u32,
    value: f64,
}

impl FpsCounter {
    /// Counts one frame drawn at `now`.
    pub(crate) fn frame(&mut self, now: Instant) {
        self.roll(now);
        self.frames += 1;
    }

    /// Closes the window once half a second has passed, drawn frames or not.
    pub(crate) fn roll(&mut self, now: Instant) {
        let start = *self.window_start.get_or_insert(now);
        let elapsed = now.duration_since(start).as_secs_f64();
        if elapsed >= 0.5 {
            self.value = f64::from(self.frames) / elapsed;
            self.frames = 0;
            self.window_start = Some(now);
        }
    }

    pub(crate) fn value(&self) -> f64 {
        self.value
    }
}

#[cfg(test)]
mod tests;
