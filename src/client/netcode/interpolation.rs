//! Entity interpolation for remote players.
//!
//! Snapshots arrive every 50 ms or so, late and unevenly. Drawing each one as it lands
//! makes other players jump; instead they are drawn a little in the past, at a render
//! time between two buffered snapshots, so their motion is continuous. When the render
//! time runs past the newest snapshot (a late or lost packet), a player is extrapolated
//! along its last velocity for a short while, then held still until news arrives. With
//! dead reckoning the render time is the estimated present, always past the newest
//! snapshot. When a newer snapshot disagrees with where a player was drawn, the
//! difference is a [`RemoteError`] that fades as the [`CorrectionStyle`] says.

use std::collections::VecDeque;

use crate::client::CorrectionStyle;
use crate::net::protocol::PlayerSnap;
use crate::sim::world::PlayerId;

/// Snapshots kept: over 3 s at 20 Hz, plenty for any interpolation delay we choose.
const CAPACITY: usize = 64;

/// How a position on screen was obtained this frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub(crate) enum FrameMode {
    /// Between two snapshots that bracket the render time.
    Interpolated,
    /// Past the newest snapshot, projected along the last velocity.
    Extrapolated,
    /// Past the extrapolation limit (or before the oldest snapshot), or at the newest
    /// snapshot with interpolation and extrapolation off: frozen on a snapshot.
    Held,
}

/// Which snapshots remote players are drawn from in one frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum DrawnFrom {
    /// Between the snapshots of ticks `from` and `to`, `f` of the way (0 to 1).
    Between { from: u32, to: u32, f: f64 },
    /// `ticks` past the newest snapshot: extrapolated, or held.
    Past { newest: u32, ticks: f64 },
    /// At one snapshot: interpolation is off, or the render time is before the oldest.
    Newest(u32),
}

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub(crate) struct BufferedSnapshot {
    pub(crate) tick: u32,
    /// Sorted by id, as a decoded snapshot's are.
    pub(crate) players: Vec<PlayerSnap>,
}

#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct SnapshotBuffer {
    entries: VecDeque<BufferedSnapshot>,
}

impl SnapshotBuffer {
    /// Inserts in tick order; a duplicate tick is ignored.
    pub(crate) fn push(&mut self, tick: u32, players: Vec<PlayerSnap>) {
        let at = self.entries.partition_point(|e| e.tick < tick);
        if self.entries.get(at).is_some_and(|e| e.tick == tick) {
            return;
        }
        self.entries.insert(at, BufferedSnapshot { tick, players });
        if self.entries.len() > CAPACITY {
            self.entries.pop_front();
        }
    }

    /// The players of the snapshot for `tick`, if still held: a delta baseline.
    pub(crate) fn get(&self, tick: u32) -> Option<&[PlayerSnap]> {
        let at = self.entries.partition_point(|e| e.tick < tick);
        self.entries
            .get(at)
            .filter(|e| e.tick == tick)
            .map(|e| e.players.as_slice())
    }

    pub(crate) fn newest(&self) -> Option<&BufferedSnapshot> {
        self.entries.back()
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = &BufferedSnapshot> {
        self.entries.iter()
    }

    /// Snapshots newer than `render_tick`: the buffer's margin against a late packet.
    pub(crate) fn ahead_of(&self, render_tick: f64) -> usize {
        self.entries
            .iter()
            .filter(|e| f64::from(e.tick) > render_tick)
            .count()
    }

    /// Which two snapshots `render_tick` falls between, whatever the player (None
    /// while the buffer is empty).
    pub(crate) fn drawn_from(&self, render_tick: f64) -> Option<DrawnFrom> {
        let newest = self.newest()?.tick;
        let after = self
            .entries
            .iter()
            .position(|e| f64::from(e.tick) > render_tick);
        Some(match after {
            Some(0) => DrawnFrom::Newest(self.entries[0].tick),
            Some(i) => {
                let (from, to) = (self.entries[i - 1].tick, self.entries[i].tick);
                let f = (render_tick - f64::from(from)) / f64::from(to - from);
                DrawnFrom::Between { from, to, f }
            }
            None => DrawnFrom::Past {
                newest,
                ticks: render_tick - f64::from(newest),
            },
        })
    }

    /// Which way the frame at `render_tick` is drawn, whatever the player; `sampled`:
    /// whether remote players are drawn at the render time at all (interpolation or
    /// extrapolation on), else they stand at the newest snapshot: held there.
    pub(crate) fn mode(
        &self,
        render_tick: f64,
        max_extrapolate_ticks: f64,
        sampled: bool,
    ) -> FrameMode {
        match self.newest() {
            _ if !sampled => FrameMode::Held,
            Some(n) if render_tick <= f64::from(n.tick) => FrameMode::Interpolated,
            Some(n) if render_tick - f64::from(n.tick) <= max_extrapolate_ticks => {
                FrameMode::Extrapolated
            }
            _ => FrameMode::Held,
        }
    }

    /// Position of player `id` at `render_tick`, in sub-cell units.
    #[cfg(test)]
    pub(crate) fn sample(
        &self,
        id: PlayerId,
        render_tick: f64,
        max_extrapolate_ticks: f64,
    ) -> Option<((f64, f64), FrameMode)> {
        self.motion(id, render_tick, max_extrapolate_ticks)
            .map(|m| (m.pos, m.mode))
    }

    /// Position and velocity (sub-cell units, per tick) of player `id` at `render_tick`:
    /// between two snapshots, the segment's; past the newest, its last velocity up to
    /// `max_extrapolate_ticks` past it, then held (still).
    pub(crate) fn motion(
        &self,
        id: PlayerId,
        render_tick: f64,
        max_extrapolate_ticks: f64,
    ) -> Option<Motion> {
        // The newest snapshot at or before the render time that has the player, and the
        // oldest after it: both found by halving (snapshots by tick, players by id).
        let find = |e: &BufferedSnapshot| {
            let at = e.players.binary_search_by_key(&id, |p| p.id).ok()?;
            Some((e.tick, e.players[at]))
        };
        let split = self
            .entries
            .partition_point(|e| f64::from(e.tick) <= render_tick);
        let before = self.entries.range(..split).rev().find_map(find);
        let after = self.entries.range(split..).find_map(find);
        let pos = |p: &PlayerSnap| (f64::from(p.state.x), f64::from(p.state.y));
        let still = (0.0, 0.0);
        match (before, after) {
            (Some((t0, a)), Some((t1, b))) => {
                let span = f64::from(t1 - t0);
                let f = (render_tick - f64::from(t0)) / span;
                let (ax, ay) = pos(&a);
                let (bx, by) = pos(&b);
                Some(Motion {
                    pos: (ax + (bx - ax) * f, ay + (by - ay) * f),
                    velocity: ((bx - ax) / span, (by - ay) / span),
                    mode: FrameMode::Interpolated,
                })
            }
            (Some((t0, a)), None) => {
                let ahead = render_tick - f64::from(t0);
                let (ax, ay) = pos(&a);
                let (vx, vy) = (f64::from(a.state.vx), f64::from(a.state.vy));
                let (t, mode, velocity) = if ahead == 0.0 {
                    (0.0, FrameMode::Interpolated, (vx, vy))
                } else if ahead <= max_extrapolate_ticks {
                    (ahead, FrameMode::Extrapolated, (vx, vy))
                } else {
                    (max_extrapolate_ticks, FrameMode::Held, still)
                };
                Some(Motion {
                    pos: (ax + vx * t, ay + vy * t),
                    velocity,
                    mode,
                })
            }
            (None, Some((_, b))) => Some(Motion {
                pos: pos(&b),
                velocity: still,
                mode: FrameMode::Held,
            }),
            (None, None) => None,
        }
    }
}

/// Where a remote player is drawn from the buffer at one instant, and how it moves there.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Motion {
    /// Sub-cell units.
    pub(crate) pos: (f64, f64),
    /// Sub-cell units per tick.
    pub(crate) velocity: (f64, f64),
    pub(crate) mode: FrameMode,
}

/// Time constant of [`CorrectionStyle::Smooth`]: the error left falls by e (to 37%)
/// every 60 ms, 95% gone in 180 ms.
pub(crate) const SMOOTH_TAU_SECS: f64 = 0.06;
/// How long [`CorrectionStyle::Blend`] takes to bring a remote player onto the new
/// snapshot's path: exactly this long, then the error is gone.
pub(crate) const BLEND_SECS: f64 = 0.2;

/// What a new snapshot found wrong with where a remote player was drawn: drawn minus
/// where the new snapshot puts it, in position and in velocity, at local time `since`.
/// Added to the position sampled from the buffer, it fades as the correction style says,
/// so the player leaves the old path without a jump.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub(crate) struct RemoteError {
    pub(crate) id: PlayerId,
    /// Session seconds at the correction.
    pub(crate) since: f64,
    /// Sub-cell units.
    pub(crate) pos: (f64, f64),
    /// Sub-cell units per tick.
    pub(crate) velocity: (f64, f64),
}

impl RemoteError {
    /// The offset to draw the player at, `secs` (session seconds) into the correction.
    /// Snap: none. Smooth: the position error, decaying exponentially (the velocity
    /// jumps to the new path's at once). Blend, projective velocity blending: the
    /// player keeps its old velocity, blended linearly into the new one over
    /// [`BLEND_SECS`], while its position is blended from the old path's projection to
    /// the new one's, so neither position nor velocity jumps. With `a` the share of the
    /// blend done, the offset is `(1 - a) * (pos + velocity * t * (1 - a))`.
    pub(crate) fn offset(&self, style: CorrectionStyle, secs: f64, tick_rate: f64) -> (f64, f64) {
        let dt = (secs - self.since).max(0.0);
        match style {
            CorrectionStyle::Snap => (0.0, 0.0),
            CorrectionStyle::Smooth => {
                let k = (-dt / SMOOTH_TAU_SECS).exp();
                (self.pos.0 * k, self.pos.1 * k)
            }
            CorrectionStyle::Blend if dt >= BLEND_SECS => (0.0, 0.0),
            CorrectionStyle::Blend => {
                let left = 1.0 - dt / BLEND_SECS;
                let t = dt * tick_rate * left;
                (
                    left * (self.pos.0 + self.velocity.0 * t),
                    left * (self.pos.1 + self.velocity.1 * t),
                )
            }
        }
    }

    /// Whether the offset is gone for good `secs` into the session.
    pub(crate) fn spent(&self, style: CorrectionStyle, secs: f64) -> bool {
        let dt = secs - self.since;
        match style {
            CorrectionStyle::Snap => true,
            // 0.01 sub-cell units of an error of at most a few thousand.
            CorrectionStyle::Smooth => dt > SMOOTH_TAU_SECS * 14.0,
            CorrectionStyle::Blend => dt >= BLEND_SECS,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::world::PlayerState;

    fn snap(id: PlayerId, x: i32, y: i32, vx: i32, vy: i32) -> PlayerSnap {
        PlayerSnap {
            id,
            state: PlayerState { x, y, vx, vy },
        }
    }

    #[test]
    fn between_two_snapshots_positions_lie_on_the_segment_and_advance() {
        let mut buf = SnapshotBuffer::default();
        buf.push(100, vec![snap(1, 1000, 2000, 30, 0)]);
        buf.push(103, vec![snap(1, 1090, 1940, 30, -20)]);
        let mut last = f64::NEG_INFINITY;
        for i in 0..=300 {
            let t = 100.0 + 3.0 * f64::from(i) / 300.0;
            let ((x, y), s) = buf.sample(1, t, 6.0).unwrap();
            assert_eq!(s, FrameMode::Interpolated);
            // On the segment: y is the linear function of x through both endpoints.
            let along = (x - 1000.0) / 90.0;
            assert!((0.0..=1.0).contains(&along));
            assert!((y - (2000.0 - 60.0 * along)).abs() < 1e-9);
            assert!(x >= last, "monotone in time");
            last = x;
        }
    }

    #[test]
    fn underrun_extrapolates_then_holds() {
        let mut buf = SnapshotBuffer::default();
        buf.push(100, vec![snap(1, 1000, 1000, 0, 0)]);
        buf.push(103, vec![snap(1, 1090, 1000, 30, 0)]);
        let ((x, _), s) = buf.sample(1, 105.0, 6.0).unwrap();
        assert_eq!(s, FrameMode::Extrapolated);
        assert!((x - 1150.0).abs() < 1e-9);
        assert_eq!(buf.mode(105.0, 6.0, true), FrameMode::Extrapolated);
        let ((x, _), s) = buf.sample(1, 130.0, 6.0).unwrap();
        assert_eq!(s, FrameMode::Held);
        assert!(
            (x - 1270.0).abs() < 1e-9,
            "held where extrapolation stopped"
        );
        assert_eq!(buf.mode(130.0, 6.0, true), FrameMode::Held);
    }

    #[test]
    fn with_interpolation_off_a_frame_at_the_newest_snapshot_is_held_not_interpolated() {
        let mut buf = SnapshotBuffer::default();
        buf.push(100, vec![snap(1, 1000, 1000, 0, 0)]);
        buf.push(103, vec![snap(1, 1090, 1000, 30, 0)]);
        assert_eq!(buf.mode(101.5, 6.0, true), FrameMode::Interpolated);
        assert_eq!(buf.mode(101.5, 6.0, false), FrameMode::Held);
        assert_eq!(buf.mode(105.0, 6.0, false), FrameMode::Held);
    }

    #[test]
    fn out_of_order_snapshots_are_sorted_and_duplicates_dropped() {
        let mut buf = SnapshotBuffer::default();
        buf.push(106, vec![snap(1, 60, 0, 0, 0)]);
        buf.push(100, vec![snap(1, 0, 0, 0, 0)]);
        buf.push(103, vec![snap(1, 30, 0, 0, 0)]);
        buf.push(103, vec![snap(1, 999, 0, 0, 0)]);
        let ticks: Vec<u32> = buf.iter().map(|e| e.tick).collect();
        assert_eq!(ticks, vec![100, 103, 106]);
        assert_eq!(buf.sample(1, 104.5, 6.0).unwrap().0.0, 45.0);
    }

    #[test]
    fn the_interpolated_pair_brackets_the_render_tick_across_a_lost_snapshot() {
        let mut buf = SnapshotBuffer::default();
        assert_eq!(buf.drawn_from(100.0), None);
        // Snapshot 106 was lost: 104.5 is drawn between 103 and 109, a quarter of the way.
        for tick in [100, 103, 109] {
            buf.push(tick, vec![snap(1, 0, 0, 0, 0)]);
        }
        let between = |from, to, f| Some(DrawnFrom::Between { from, to, f });
        assert_eq!(buf.drawn_from(104.5), between(103, 109, 0.25));
        assert_eq!(buf.drawn_from(100.0), between(100, 103, 0.0));
        let past = Some(DrawnFrom::Past {
            newest: 109,
            ticks: 1.5,
        });
        assert_eq!(buf.drawn_from(110.5), past);
        assert_eq!(buf.drawn_from(99.0), Some(DrawnFrom::Newest(100)));
    }

    #[test]
    fn a_player_missing_from_one_snapshot_interpolates_across_it() {
        let mut buf = SnapshotBuffer::default();
        buf.push(100, vec![snap(1, 0, 0, 0, 0), snap(2, 0, 0, 0, 0)]);
        buf.push(103, vec![snap(2, 0, 0, 0, 0)]);
        buf.push(106, vec![snap(1, 60, 0, 0, 0), snap(2, 0, 0, 0, 0)]);
        assert_eq!(buf.sample(1, 103.0, 6.0).unwrap().0.0, 30.0);
    }

    /// Each style starts from the whole error (no jump) except snap, and is done with it
    /// by its end; blend also starts at the old velocity: the offset's rate at the start
    /// is the velocity error.
    #[test]
    fn corrections_start_from_the_error_and_end_without_it() {
        let e = RemoteError {
            id: 1,
            since: 10.0,
            pos: (100.0, -50.0),
            velocity: (30.0, 0.0),
        };
        let at = |style, dt: f64| e.offset(style, 10.0 + dt, 60.0);
        assert_eq!(at(CorrectionStyle::Snap, 0.0), (0.0, 0.0));
        assert_eq!(at(CorrectionStyle::Smooth, 0.0), (100.0, -50.0));
        assert_eq!(at(CorrectionStyle::Blend, 0.0), (100.0, -50.0));
        let smooth = at(CorrectionStyle::Smooth, SMOOTH_TAU_SECS);
        assert!((smooth.0 - 100.0 / std::f64::consts::E).abs() < 1e-9);
        assert!(e.spent(CorrectionStyle::Smooth, 10.0 + 15.0 * SMOOTH_TAU_SECS));
        let end = at(CorrectionStyle::Blend, BLEND_SECS);
        assert!(end.0.abs() < 1e-9 && end.1.abs() < 1e-9, "{end:?}");
        assert_eq!(at(CorrectionStyle::Blend, 2.0 * BLEND_SECS), (0.0, 0.0));
        assert!(e.spent(CorrectionStyle::Blend, 10.0 + BLEND_SECS * 1.01));
        assert!(!e.spent(CorrectionStyle::Blend, 10.0 + BLEND_SECS / 2.0));
        // The blend's rate at the start, per tick: the velocity error less the
        // position error's share fading per tick.
        let h = 1e-6;
        let rate = (at(CorrectionStyle::Blend, h).0 - 100.0) / (h * 60.0);
        let want = 30.0 - 100.0 / (BLEND_SECS * 60.0);
        assert!((rate - want).abs() < 1e-3, "{rate} {want}");
    }
}
