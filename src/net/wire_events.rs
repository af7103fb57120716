//! The wire form of a snapshot's game events: compact, and exact for any input.
//!
//! Events travel oldest first with consecutive seqs, and projectile births and ends,
//! most of a fight's events, carry ids that count up and ticks close to each other. So
//! a seq costs nothing when it follows the one before (a jump marker otherwise), and each
//! projectile id and tick is the (wrapping, zigzag varint) difference from the one before
//! it in the same snapshot: a byte instead of three to five. Births inside any real
//! arena carry their origin in two bytes an axis and only the low byte of their id (the
//! high byte is the owner), and an end that hit nobody says so by its kind (the server
//! sends none: a miss ends where the flight does). Decoding adds the differences back, so every value round-trips exactly.

use serde::{Deserialize, Serialize};

use super::protocol::{GameEvent, PlayerStatus, RailShot};
use crate::sim::combat::{Projectile, Weapon};
use crate::sim::world::PlayerId;

/// A [`GameEvent`] with its id and tick fields as differences, or a seq jump.
#[derive(Serialize, Deserialize)]
pub(crate) enum Wire {
    /// The next event's seq is the previous one's plus 1 plus this (wrapping).
    Jump(i32),
    Status(PlayerStatus),
    /// A birth whose origin lies in 0..=65535 on both axes, as every arena's does: two
    /// little-endian bytes an axis (a varint would take three), and whose id is the one
    /// `sim::step::shot_id` gives (its owner in the high byte): only the low byte.
    Shot {
        low: u8,
        owner: PlayerId,
        born: i32,
        x: [u8; 2],
        y: [u8; 2],
        vx: i32,
        vy: i32,
    },
    ShotFar {
        id: i16,
        owner: PlayerId,
        born: i32,
        x: i32,
        y: i32,
        vx: i32,
        vy: i32,
    },
    /// A projectile that ended on a wall or of old age.
    ShotMiss {
        id: i16,
        tick: i32,
    },
    ShotHit {
        id: i16,
        tick: i32,
        hit: PlayerId,
    },
    Rail(RailShot),
    Kill {
        killer: PlayerId,
        victim: PlayerId,
        weapon: Weapon,
    },
    /// Everything rare travels as it is.
    Other(GameEvent),
}

/// The previous seq, projectile id and tick in the batch: what differences are against.
#[derive(Default)]
struct Cursor {
    seq: u32,
    id: u16,
    tick: u32,
}

impl Cursor {
    fn id_diff(&mut self, id: u16) -> i16 {
        let d = id.wrapping_sub(self.id) as i16;
        self.id = id;
        d
    }
    fn tick_diff(&mut self, tick: u32) -> i32 {
        let d = tick.wrapping_sub(self.tick) as i32;
        self.tick = tick;
        d
    }
    fn id(&mut self, d: i16) -> u16 {
        self.id = self.id.wrapping_add(d as u16);
        self.id
    }
    fn tick(&mut self, d: i32) -> u32 {
        self.tick = self.tick.wrapping_add(d as u32);
        self.tick
    }

    /// Appends `(seq, e)` to `out`: a jump first when `seq` does not follow on.
    fn encode(&mut self, seq: u32, e: &GameEvent, out: &mut Vec<Wire>) {
        let next = self.seq.wrapping_add(1);
        if seq != next {
            out.push(Wire::Jump(seq.wrapping_sub(next) as i32));
        }
        self.seq = seq;
        let wire = match e {
            GameEvent::Status(s) => Wire::Status(*s),
            GameEvent::Shot(p) => {
                let owned = p.id >> 8 == u16::from(p.owner);
                let (id, born) = (self.id_diff(p.id), self.tick_diff(p.born));
                match (u16::try_from(p.x), u16::try_from(p.y)) {
                    (Ok(x), Ok(y)) if owned => Wire::Shot {
                        low: p.id as u8,
                        owner: p.owner,
                        born,
                        x: x.to_le_bytes(),
                        y: y.to_le_bytes(),
                        vx: p.vx,
                        vy: p.vy,
                    },
                    _ => Wire::ShotFar {
                        id,
                        owner: p.owner,
                        born,
                        x: p.x,
                        y: p.y,
                        vx: p.vx,
                        vy: p.vy,
                    },
                }
            }
            GameEvent::ShotEnd { id, tick, hit } => {
                let (id, tick) = (self.id_diff(*id), self.tick_diff(*tick));
                match hit {
                    None => Wire::ShotMiss { id, tick },
                    Some(hit) => Wire::ShotHit {
                        id,
                        tick,
                        hit: *hit,
                    },
                }
            }
            GameEvent::Rail(r) => Wire::Rail(*r),
            GameEvent::Kill {
                killer,
                victim,
                weapon,
            } => Wire::Kill {
                killer: *killer,
                victim: *victim,
                weapon: *weapon,
            },
            other => Wire::Other(other.clone()),
        };
        out.push(wire);
    }

    /// The event `w` stands for, or None for a jump (which moves the seq).
    fn decode(&mut self, w: Wire) -> Option<(u32, GameEvent)> {
        let shot = |c: &mut Cursor, id, owner, born, x, y, vx, vy| {
            GameEvent::Shot(Projectile {
                id: c.id(id),
                owner,
                born: c.tick(born),
                x,
                y,
                vx,
                vy,
            })
        };
        let e = match w {
            Wire::Jump(d) => {
                self.seq = self.seq.wrapping_add(d as u32);
                return None;
            }
            Wire::Status(s) => GameEvent::Status(s),
            Wire::Shot {
                low,
                owner,
                born,
                x,
                y,
                vx,
                vy,
            } => {
                let (x, y) = (u16::from_le_bytes(x), u16::from_le_bytes(y));
                let id = (u16::from(owner) << 8 | u16::from(low)).wrapping_sub(self.id) as i16;
                shot(self, id, owner, born, i32::from(x), i32::from(y), vx, vy)
            }
            Wire::ShotFar {
                id,
                owner,
                born,
                x,
                y,
                vx,
                vy,
            } => shot(self, id, owner, born, x, y, vx, vy),
            Wire::ShotMiss { id, tick } => GameEvent::ShotEnd {
                id: self.id(id),
                tick: self.tick(tick),
                hit: None,
            },
            Wire::ShotHit { id, tick, hit } => GameEvent::ShotEnd {
                id: self.id(id),
                tick: self.tick(tick),
                hit: Some(hit),
            },
            Wire::Rail(r) => GameEvent::Rail(r),
            Wire::Kill {
                killer,
                victim,
                weapon,
            } => GameEvent::Kill {
                killer,
                victim,
                weapon,
            },
            Wire::Other(e) => e,
        };
        self.seq = self.seq.wrapping_add(1);
        Some((self.seq, e))
    }
}

/// The wire form of `events` in a snapshot of `tick`: ticks start as differences from it.
pub(crate) fn to_wire(events: &[(u32, GameEvent)], tick: u32) -> Vec<Wire> {
    let mut cursor = Cursor {
        tick,
        ..Cursor::default()
    };
    let mut wire = Vec::with_capacity(events.len() + 1);
    for (seq, e) in events {
        cursor.encode(*seq, e, &mut wire);
    }
    wire
}

pub(crate) fn from_wire(wire: Vec<Wire>, tick: u32) -> Vec<(u32, GameEvent)> {
    let mut cursor = Cursor {
        tick,
        ..Cursor::default()
    };
    wire.into_iter().filter_map(|w| cursor.decode(w)).collect()
}

/// Each event's size on the wire (the list's length prefix aside), for benchmarks that
/// say where the bytes go.
pub(crate) fn wire_sizes(events: &[(u32, GameEvent)], tick: u32) -> Vec<usize> {
    let mut cursor = Cursor {
        tick,
        ..Cursor::default()
    };
    let mut wire = Vec::new();
    events
        .iter()
        .map(|(seq, e)| {
            wire.clear();
            cursor.encode(*seq, e, &mut wire);
            super::codec::encoded_len(&wire).saturating_sub(1)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::codec;
    use crate::net::protocol::{ServerMsg, SnapshotDelta};

    fn snapshot(events: Vec<(u32, GameEvent)>) -> ServerMsg {
        ServerMsg::Snapshot(SnapshotDelta {
            tick: 70_000,
            baseline_age: 3,
            ack_seq: 9,
            echo_time_ms: 1,
            echo_hold_ms: 1,
            inputs: None,
            queued: 0,
            me: Default::default(),
            removed: vec![],
            added: vec![],
            masks: vec![],
            values: vec![],
            events,
        })
    }

    /// A burst of births and ends costs a handful of bytes each, and decodes exactly.
    #[test]
    fn a_fight_burst_is_small_and_exact() {
        let mut events = Vec::new();
        for i in 0..4u16 {
            // Ids as the rulebook gives them: the owner, then its command seq's low byte.
            let id = crate::sim::step::shot_id(i as u8, 40 + u32::from(i));
            let p = Projectile {
                id,
                owner: i as u8,
                born: 69_990 + u32::from(i),
                x: 5000,
                y: 7000,
                vx: 102,
                vy: -72,
            };
            events.push((100_000 + 2 * u32::from(i), GameEvent::Shot(p)));
            events.push((
                100_001 + 2 * u32::from(i),
                GameEvent::ShotEnd {
                    id,
                    tick: 69_999,
                    hit: None,
                },
            ));
        }
        let msg = snapshot(events.clone());
        let mut buf = Vec::new();
        codec::encode_server(&msg, &mut buf).unwrap();
        assert_eq!(codec::decode_server(&buf).unwrap(), msg);
        let sizes = wire_sizes(&events, 70_000);
        // The events and their length prefix, beside the snapshot's own fields.
        let events_len = sizes.iter().sum::<usize>() + 1;
        assert!(
            events_len < buf.len() && buf.len() < events_len + 24,
            "{sizes:?}"
        );
        // Past the first pair: 10 bytes a birth, 3 an end (a plain encoding: 21 and 12),
        // whatever the owners: the id costs its low byte.
        assert!(sizes[2..].iter().all(|&n| n <= 10), "{sizes:?}");
        assert!(sizes[3] <= 3, "{sizes:?}");
    }

    /// Gaps in seqs, origins outside any arena and hits all come back as they went.
    #[test]
    fn unusual_events_round_trip() {
        let far = Projectile {
            id: 0,
            owner: 1,
            born: u32::MAX,
            x: -5,
            y: 70_000,
            vx: -3,
            vy: 0,
        };
        let events = vec![
            (u32::MAX, GameEvent::Shot(far)),
            (
                7,
                GameEvent::ShotEnd {
                    id: 65_535,
                    tick: 0,
                    hit: Some(3),
                },
            ),
            (
                8,
                GameEvent::ShotEnd {
                    id: 2,
                    tick: 9,
                    hit: None,
                },
            ),
            (
                3,
                GameEvent::Kill {
                    killer: 1,
                    victim: 3,
                    weapon: Weapon::Rail,
                },
            ),
        ];
        let msg = snapshot(events);
        let mut buf = Vec::new();
        codec::encode_server(&msg, &mut buf).unwrap();
        assert_eq!(codec::decode_server(&buf).unwrap(), msg);
    }
}
