//! Entity interpolation for remote players.
//!
//! Snapshots arrive every 50 ms or so, late and unevenly. Drawing each one as it lands
//! makes other players jump; instead they are drawn a little in the past, at a render
//! time between two buffered snapshots, so their motion is continuous. When the render
//! time runs past the newest snapshot (a late or lost packet), a player is extrapolated
//! along its last velocity for a short while, then held still until news arrives.

use std::collections::VecDeque;

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
    pub(crate) fn sample(
        &self,
        id: PlayerId,
        render_tick: f64,
        max_extrapolate_ticks: f64,
    ) -> Option<((f64, f64), FrameMode)> {
        let find = |e: &BufferedSnapshot| e.players.iter().find(|p| p.id == id).copied();
        let mut before: Option<(u32, PlayerSnap)> = None;
        let mut after: Option<(u32, PlayerSnap)> = None;
        for e in &self.entries {
            let Some(p) = find(e) else { continue };
            if f64::from(e.tick) <= render_tick {
                before = Some((e.tick, p));
            } else {
                after = Some((e.tick, p));
                break;
            }
        }
        let pos = |p: &PlayerSnap| (f64::from(p.state.x), f64::from(p.state.y));
        match (before, after) {
            (Some((t0, a)), Some((t1, b))) => {
                let f = (render_tick - f64::from(t0)) / f64::from(t1 - t0);
                let (ax, ay) = pos(&a);
                let (bx, by) = pos(&b);
                Some((
                    (ax + (bx - ax) * f, ay + (by - ay) * f),
                    FrameMode::Interpolated,
                ))
            }
            (Some((t0, a)), None) => {
                let ahead = render_tick - f64::from(t0);
                let (ax, ay) = pos(&a);
                let (vx, vy) = (f64::from(a.state.vx), f64::from(a.state.vy));
                let (t, sample) = if ahead <= max_extrapolate_ticks {
                    (ahead, FrameMode::Extrapolated)
                } else {
                    (max_extrapolate_ticks, FrameMode::Held)
                };
                let sample = if ahead == 0.0 {
                    FrameMode::Interpolated
                } else {
                    sample
                };
                Some(((ax + vx * t, ay + vy * t), sample))
            }
            (None, Some((_, b))) => Some((pos(&b), FrameMode::Held)),
            (None, None) => None,
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
}
