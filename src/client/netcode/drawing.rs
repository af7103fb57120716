//! Where remote players are drawn: sampled from the snapshot buffer at the render tick
//! (interpolated or dead reckoned), plus what is left of each correction's error. A
//! part of [`ClientSession`'s impl, as `intake` is.

use std::time::Instant;

use super::{ClientSession, DEFAULT_EXTRAPOLATION_LIMIT_MS, find};
use crate::client::CorrectionStyle;
use crate::client::netcode::interpolation::{DrawnFrom, Motion, RemoteError};
use crate::sim::map::CELL;
use crate::sim::world::PlayerId;

/// With interpolation, how far past the newest snapshot a remote player may be
/// extrapolated when the buffer runs dry before it is held still: long enough to hide
/// one late packet, short enough not to run through walls.
const MAX_EXTRAPOLATE_SECS: f64 = 0.1;

/// A remote player's correction further than this many cells (a respawn, a teleport) is
/// a jump whatever the style: gliding there would draw it where it never was. Dead
/// reckoning alone can be wrong by twice its limit's walk (a player that turned back):
/// 5.4 cells at 300 ms.
const MAX_BLENDED_CELLS: i32 = 8;

impl ClientSession {
    /// The server tick remote players are drawn at now: with dead reckoning, the
    /// estimated present (the newest snapshot's time, half the RTT, the time since it
    /// arrived); else the interpolation delay behind the snapshots' stream.
    pub(crate) fn render_tick(&self, now: Instant) -> Option<f64> {
        let local = self.local_secs(now);
        let secs = if self.switches.extrapolation {
            self.timing
                .clock
                .present_secs(local, self.net.stats.rtt_ms / 1000.0)?
        } else {
            self.timing.clock.server_secs(local)? - self.remotes.interp_delay
        };
        Some(self.timing.timeline.tick_at(secs))
    }

    pub(super) fn extrapolation_limit_ticks(&self) -> f64 {
        let secs = if let Some(ms) = self.own.tuning.extrapolation_limit_ms {
            f64::from(ms) / 1000.0
        } else if self.switches.extrapolation {
            f64::from(DEFAULT_EXTRAPOLATION_LIMIT_MS) / 1000.0
        } else {
            MAX_EXTRAPOLATE_SECS
        };
        secs * self.timing.tick_rate
    }

    /// Where remote player `id` is drawn now, in sub-cell units: interpolated (or dead
    /// reckoned) with those switches on, plus what is left of the last correction's
    /// error; else at its newest snapshot.
    pub fn remote_position(&self, id: PlayerId, now: Instant) -> Option<(f64, f64)> {
        self.remote_position_at(id, &self.sampling(now))
    }

    /// [`ClientSession::remote_position`] of any number of players at `now`, what they
    /// share worked out once.
    pub(crate) fn remote_positions(
        &self,
        now: Instant,
    ) -> impl Fn(PlayerId) -> Option<(f64, f64)> + '_ {
        let at = self.sampling(now);
        move |id| self.remote_position_at(id, &at)
    }

    fn remote_position_at(&self, id: PlayerId, at: &Sampling) -> Option<(f64, f64)> {
        let newest = find(&self.remotes.latest.as_ref()?.players, id)?;
        let drawn = self.remote_drawn_at(id, at).map(|m| m.pos);
        Some(drawn.unwrap_or((f64::from(newest.x), f64::from(newest.y))))
    }

    /// Where and how fast remote player `id` is drawn moving at the instant `at` was
    /// worked out for, when it is drawn from the buffer (interpolation or dead
    /// reckoning on).
    pub(super) fn remote_drawn_at(&self, id: PlayerId, at: &Sampling) -> Option<Motion> {
        let m = self.remote_sampled_at(id, at)?;
        let Some(e) = self.remotes.remote_errors.iter().find(|e| e.id == id) else {
            return Some(m);
        };
        let offset = |s| e.offset(self.remotes.correction, s, self.timing.tick_rate);
        let (ox, oy) = offset(at.secs);
        // The offset's own rate of change, over a millisecond, per tick.
        let (nx, ny) = offset(at.secs + 0.001);
        let per_tick = 1.0 / (0.001 * self.timing.tick_rate);
        Some(Motion {
            pos: (m.pos.0 + ox, m.pos.1 + oy),
            velocity: (
                m.velocity.0 + (nx - ox) * per_tick,
                m.velocity.1 + (ny - oy) * per_tick,
            ),
            mode: m.mode,
        })
    }

    /// What drawing remote players at `now` needs, worked out once for all of them.
    pub(super) fn sampling(&self, now: Instant) -> Sampling {
        Sampling {
            render_tick: self
                .switches
                .remotes_sampled()
                .then(|| self.render_tick(now))
                .flatten(),
            secs: self.local_secs(now),
            limit: self.extrapolation_limit_ticks(),
        }
    }

    /// After a new snapshot: each remote player drawn at `before` (where it was drawn
    /// just before the snapshot came) now samples elsewhere; the difference becomes the
    /// error that fades as the correction style says. A big one (a respawn, a teleport)
    /// is taken at once whatever the style, as is one too small to see.
    pub(super) fn correct_remotes(&mut self, now: Instant, before: &[(PlayerId, Motion)]) {
        let at = self.sampling(now);
        let secs = at.secs;
        let big = f64::from(MAX_BLENDED_CELLS * CELL);
        for &(id, drawn) in before {
            self.remotes.remote_errors.retain(|e| e.id != id);
            let Some(new) = self.remote_sampled_at(id, &at) else {
                continue;
            };
            let pos = (drawn.pos.0 - new.pos.0, drawn.pos.1 - new.pos.1);
            let velocity = (
                drawn.velocity.0 - new.velocity.0,
                drawn.velocity.1 - new.velocity.1,
            );
            let size = pos.0.abs().max(pos.1.abs());
            let tiny = size < 0.5 && velocity.0.abs().max(velocity.1.abs()) < 0.05;
            if self.remotes.correction == CorrectionStyle::Snap || tiny || size > big {
                continue;
            }
            self.remotes.remote_errors.push(RemoteError {
                id,
                since: secs,
                pos,
                velocity,
            });
        }
    }

    /// Where the buffer alone puts remote player `id` at `at` (no correction's error).
    pub(super) fn remote_sampled_at(&self, id: PlayerId, at: &Sampling) -> Option<Motion> {
        self.remotes.buffer.motion(id, at.render_tick?, at.limit)
    }

    /// Which snapshots remote players are drawn from at `now` (None before any).
    pub(crate) fn drawn_from(&self, now: Instant) -> Option<DrawnFrom> {
        let newest = self.remotes.buffer.newest()?.tick;
        if !self.switches.remotes_sampled() {
            return Some(DrawnFrom::Newest(newest));
        }
        let t = self.render_tick(now)?;
        self.remotes.buffer.drawn_from(t)
    }
}

/// One instant's render tick (None when remote players are not drawn from the buffer,
/// or before the clock is known), session seconds and extrapolation limit: what every
/// remote player drawn at that instant shares.
pub(super) struct Sampling {
    render_tick: Option<f64>,
    secs: f64,
    limit: f64,
}
