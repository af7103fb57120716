//! Delta compression of snapshots (the Quake 3 scheme, with motion prediction).
//!
//! The server encodes each snapshot against the newest one the client says it has (its
//! baseline). A player present in both costs four bits when it did what the baseline
//! predicts (kept moving at the same velocity, or kept still) and a few bytes when it
//! turned or stopped (and nothing when all players after it did as predicted: trailing
//! zero masks are left out); new players are sent in full and departed ones by id. A client
//! whose baseline is gone gets a full snapshot. Decoding is exact: the result equals the
//! snapshot the server encoded, bit for bit, or it is refused.
#![doc(hidden)] // Public for the binary, tests or fuzz targets: see the crate docs.

use super::protocol::{PlayerSnap, Snapshot, SnapshotDelta};
use netarena_sim::map::{CELL, MAX_HEIGHT, MAX_WIDTH};
use netarena_sim::world::{PlayerId, PlayerState};

const X: u8 = 1;
const Y: u8 = 2;
const VX: u8 = 4;
const VY: u8 = 8;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DeltaError {
    #[error("baseline snapshot {0} is not held")]
    MissingBaseline(u32),
    #[error("malformed delta: {0}")]
    Malformed(&'static str),
}

/// Where the baseline predicts a player to be `age` ticks later.
fn predict(base: &PlayerState, age: i32) -> (i32, i32) {
    (
        base.x.wrapping_add(base.vx.wrapping_mul(age)),
        base.y.wrapping_add(base.vy.wrapping_mul(age)),
    )
}

/// Encodes `snap` against `baseline` (its tick and players, sorted by id), or in full.
/// The caller guarantees the baseline is older than `snap` by at most 255 ticks.
pub fn encode(snap: &Snapshot, baseline: Option<(u32, &[PlayerSnap])>) -> SnapshotDelta {
    let mut out = SnapshotDelta {
        header: snap.header,
        baseline_age: 0,
        removed: Vec::new(),
        added: Vec::new(),
        masks: Vec::new(),
        values: Vec::new(),
        events: Vec::new(),
        near: false,
    };
    let Some((base_tick, base)) =
        baseline.filter(|(t, _)| snap.header.tick.wrapping_sub(*t).wrapping_sub(1) < 255)
    else {
        out.added = snap.players.clone();
        return out;
    };
    let age = snap.header.tick - base_tick;
    out.baseline_age = age as u8;
    let (mut i, mut j) = (0, 0);
    let mut common = 0usize;
    // Merge the two id-sorted lists.
    while i < base.len() || j < snap.players.len() {
        match (base.get(i), snap.players.get(j)) {
            (Some(b), Some(n)) if b.id == n.id => {
                let (px, py) = predict(&b.state, age as i32);
                let s = &n.state;
                let mut mask = 0;
                for (bit, differs, value) in [
                    (X, s.x != px, s.x.wrapping_sub(px)),
                    (Y, s.y != py, s.y.wrapping_sub(py)),
                    (VX, s.vx != b.state.vx, s.vx),
                    (VY, s.vy != b.state.vy, s.vy),
                ] {
                    if differs {
                        mask |= bit;
                        out.values.push(value);
                    }
                }
                if common.is_multiple_of(2) {
                    out.masks.push(mask);
                } else {
                    *out.masks.last_mut().expect("pushed for the even entry") |= mask << 4;
                }
                common += 1;
                i += 1;
                j += 1;
            }
            (Some(b), n) if n.is_none_or(|n| b.id < n.id) => {
                out.removed.push(b.id);
                i += 1;
            }
            (_, Some(n)) => {
                out.added.push(*n);
                j += 1;
            }
            (_, None) => unreachable!("loop runs while either list has entries"),
        }
    }
    // Players that did as predicted at the end cost nothing at all.
    while out.masks.last() == Some(&0) {
        out.masks.pop();
    }
    out
}

/// The baseline tick a delta needs, if any.
pub fn baseline_tick(delta: &SnapshotDelta) -> Option<u32> {
    (delta.baseline_age > 0).then(|| {
        delta
            .header
            .tick
            .wrapping_sub(u32::from(delta.baseline_age))
    })
}

fn plausible(s: &PlayerState) -> bool {
    let max_x = (MAX_WIDTH as i32) * CELL;
    let max_y = (MAX_HEIGHT as i32) * CELL;
    (0..=max_x).contains(&s.x)
        && (0..=max_y).contains(&s.y)
        && (-CELL..=CELL).contains(&s.vx)
        && (-CELL..=CELL).contains(&s.vy)
}

/// Rebuilds the snapshot from `delta` and, if it has one, its baseline's players.
pub fn decode(
    delta: &SnapshotDelta,
    baseline: Option<&[PlayerSnap]>,
) -> Result<Snapshot, DeltaError> {
    let malformed = DeltaError::Malformed;
    let mut players: Vec<PlayerSnap> = Vec::with_capacity(delta.added.len());
    if let Some(tick) = baseline_tick(delta) {
        let base = baseline.ok_or(DeltaError::MissingBaseline(tick))?;
        let age = i32::from(delta.baseline_age);
        let mut removed = delta.removed.iter().peekable();
        let mut values = delta.values.iter();
        let mut common = 0usize;
        for b in base {
            if removed.peek().is_some_and(|id| **id == b.id) {
                removed.next();
                continue;
            }
            // Trailing zero masks are left out.
            let byte = delta.masks.get(common / 2).copied().unwrap_or(0);
            let mask = if common.is_multiple_of(2) {
                byte & 0xF
            } else {
                byte >> 4
            };
            common += 1;
            let (px, py) = predict(&b.state, age);
            let mut next = |bit: u8, unchanged: i32| -> Result<i32, DeltaError> {
                if mask & bit == 0 {
                    Ok(unchanged)
                } else {
                    values.next().copied().ok_or(malformed("too few values"))
                }
            };
            let state = PlayerState {
                x: px.wrapping_add(next(X, 0)?),
                y: py.wrapping_add(next(Y, 0)?),
                vx: next(VX, b.state.vx)?,
                vy: next(VY, b.state.vy)?,
            };
            players.push(PlayerSnap { id: b.id, state });
        }
        if removed.next().is_some() {
            return Err(malformed(
                "removed ids not in the baseline, or out of order",
            ));
        }
        if values.next().is_some() || delta.masks.len() > common.div_ceil(2) {
            return Err(malformed("masks or values left over"));
        }
        if common % 2 == 1 && delta.masks.get(common / 2).is_some_and(|m| m >> 4 != 0) {
            return Err(malformed("mask for a player that is not there"));
        }
    } else if !delta.removed.is_empty() || !delta.masks.is_empty() || !delta.values.is_empty() {
        return Err(malformed("a full snapshot carries only added players"));
    }
    players.extend_from_slice(&delta.added);
    players.sort_unstable_by_key(|p| p.id);
    if players.windows(2).any(|w| w[0].id == w[1].id) {
        return Err(malformed("a player appears twice"));
    }
    if players.len() > usize::from(PlayerId::MAX) + 1 {
        return Err(malformed("too many players"));
    }
    if !players.iter().all(|p| plausible(&p.state)) {
        return Err(malformed("a player outside any possible arena"));
    }
    Ok(Snapshot {
        header: delta.header,
        players,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec;
    use crate::protocol::{ServerMsg, SnapshotHeader};
    use netarena_sim::map::Map;
    use netarena_sim::world::{Buttons, Command, Rules, World};
    use rand::{Rng, SeedableRng};
    use rand_pcg::Pcg32;

    /// Found by the `decode_datagram` fuzz target: a player velocity of `i32::MIN`
    /// overflowed the plausibility check (a panic in debug builds); it is refused.
    #[test]
    fn a_velocity_of_i32_min_is_refused_without_overflow() {
        for (vx, vy) in [(i32::MIN, 0), (0, i32::MIN), (i32::MAX, 0)] {
            let state = PlayerState {
                vx,
                vy,
                ..PlayerState::at_cell(2, 2)
            };
            let snap = Snapshot {
                header: SnapshotHeader {
                    tick: 7,
                    ..Default::default()
                },
                players: vec![PlayerSnap { id: 0, state }],
            };
            assert!(decode(&encode(&snap, None), None).is_err());
        }
    }

    /// A player that walks straight and turns at random, or when blocked.
    struct Walker {
        rng: Pcg32,
        heading: Buttons,
    }

    impl Walker {
        fn next(&mut self, me: &PlayerState) -> Command {
            const TURNS: [Buttons; 5] = [
                Buttons::empty(),
                Buttons::UP,
                Buttons::DOWN.union(Buttons::LEFT),
                Buttons::RIGHT,
                Buttons::LEFT.union(Buttons::UP),
            ];
            let blocked = self.heading != Buttons::empty() && me.vx == 0 && me.vy == 0;
            if blocked || self.rng.random_ratio(1, 40) {
                self.heading = TURNS[self.rng.random_range(0..TURNS.len())];
            }
            Command::moving(self.heading)
        }
    }

    fn snapshot(tick: u32, world: &World) -> Snapshot {
        Snapshot {
            header: SnapshotHeader {
                tick,
                ack_seq: tick,
                echo_time_ms: 5,
                echo_hold_ms: 1,
                inputs: None,
                queued: 0,
                buffer_depth: 0,
                me: Default::default(),
                withheld_total: 0,
            },
            players: world
                .players()
                .iter()
                .map(|&(id, state)| PlayerSnap { id, state })
                .collect(),
        }
    }

    /// Wandering players, joining and leaving, over a lossy link: every snapshot the
    /// client can decode equals the server's, and it can decode nearly all of them.
    #[test]
    fn lossy_stream_round_trips_exactly() {
        let map = Map::builtin("arena").unwrap();
        let rules = Rules::for_tick_rate(60);
        let mut world = World::default();
        let mut brains: Vec<(PlayerId, Walker)> = Vec::new();
        let mut rng = Pcg32::seed_from_u64(4);
        // Server side: snapshots sent, by tick. Client side: snapshots decoded.
        let mut sent: Vec<(u32, Vec<PlayerSnap>)> = Vec::new();
        let mut held: Vec<(u32, Vec<PlayerSnap>)> = Vec::new();
        let mut client_ack: Option<u32> = None;
        let (mut decoded, mut lost, mut bytes, mut full_bytes) = (0, 0, 0, 0);
        let mut buf = Vec::new();
        for tick in 1..=6000u32 {
            if rng.random_ratio(1, 200) && brains.len() < 12 {
                let id = (0..=u8::MAX).find(|id| world.get(*id).is_none()).unwrap();
                world.put(id, world.spawn_point(&map, id));
                let walker = Walker {
                    rng: Pcg32::seed_from_u64(u64::from(tick)),
                    heading: Buttons::empty(),
                };
                brains.push((id, walker));
            }
            if rng.random_ratio(1, 600) && !brains.is_empty() {
                let (id, _) = brains.remove(rng.random_range(0..brains.len()));
                world.remove(id);
            }
            for (id, brain) in &mut brains {
                let me = world.get(*id).unwrap();
                world.apply(&map, &rules, *id, brain.next(&me));
            }
            if tick % 3 != 0 {
                continue;
            }
            let snap = snapshot(tick, &world);
            let baseline = client_ack
                .and_then(|t| sent.iter().find(|(s, _)| *s == t))
                .map(|(t, p)| (*t, p.as_slice()));
            let delta = encode(&snap, baseline);
            sent.push((tick, snap.players.clone()));
            codec::encode_server(&ServerMsg::Snapshot(delta.clone()), &mut buf).unwrap();
            bytes += buf.len();
            codec::encode_server(&ServerMsg::Snapshot(encode(&snap, None)), &mut buf).unwrap();
            full_bytes += buf.len();
            // 10% loss, in bursts of up to 3.
            if rng.random_ratio(1, 10) {
                lost += 1;
                continue;
            }
            let base = baseline_tick(&delta)
                .and_then(|t| held.iter().find(|(h, _)| *h == t))
                .map(|(_, p)| p.as_slice());
            let got = decode(&delta, base).expect("decodable: its baseline was acked");
            assert_eq!(got, snap, "tick {tick}");
            held.push((tick, got.players));
            decoded += 1;
            // The ack reaches the server only sometimes, too.
            if rng.random_ratio(9, 10) {
                client_ack = Some(tick);
            }
        }
        assert!(
            decoded > 1700 && lost > 150,
            "{decoded} decoded, {lost} lost"
        );
        assert!(
            full_bytes > 3 * bytes,
            "delta {bytes} B vs full {full_bytes} B"
        );
    }

    #[test]
    fn a_missing_baseline_is_reported_not_guessed() {
        let mut world = World::default();
        world.put(1, PlayerState::at_cell(3, 3));
        let a = snapshot(10, &world);
        let b = snapshot(13, &world);
        let delta = encode(&b, Some((10, &a.players)));
        assert_eq!(decode(&delta, None), Err(DeltaError::MissingBaseline(10)));
        assert_eq!(decode(&delta, Some(&a.players)).unwrap(), b);
    }

    #[test]
    fn malformed_deltas_are_refused() {
        let mut world = World::default();
        world.put(1, PlayerState::at_cell(3, 3));
        world.put(2, PlayerState::at_cell(5, 3));
        let a = snapshot(10, &world);
        world.put(2, PlayerState::at_cell(6, 3));
        let b = snapshot(13, &world);
        let good = encode(&b, Some((10, &a.players)));
        let mut bad = good.clone();
        bad.values.clear();
        assert!(decode(&bad, Some(&a.players)).is_err());
        let mut bad = good.clone();
        bad.masks.push(0);
        assert!(decode(&bad, Some(&a.players)).is_err());
        let mut bad = good.clone();
        bad.removed.push(9);
        assert!(decode(&bad, Some(&a.players)).is_err());
        let mut bad = good.clone();
        bad.added.push(a.players[0]);
        assert!(decode(&bad, Some(&a.players)).is_err(), "duplicate id");
        let mut bad = good;
        bad.values[0] = i32::MAX;
        assert!(
            decode(&bad, Some(&a.players)).is_err(),
            "implausible position"
        );
    }
}
