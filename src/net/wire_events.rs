//! The wire form of a snapshot's game events: compact, and exact for any input.
//!
//! Events travel oldest first with consecutive seqs, and projectile births and ends,
//! most of a fight's events, carry ids that count up and ticks close to each other. So
//! each seq, projectile id and tick is sent as the (wrapping, zigzag varint) difference
//! from the one before it in the same snapshot: one byte each instead of three to five.
//! Decoding adds the differences back, so every value round-trips bit for bit.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::protocol::{GameEvent, PlayerStatus, RailShot};
use crate::sim::combat::{Projectile, Weapon};
use crate::sim::world::PlayerId;

/// A [`GameEvent`] with its seq, id and tick fields as differences.
#[derive(Serialize, Deserialize)]
enum Wire {
    Status(PlayerStatus),
    Shot {
        id: i16,
        owner: PlayerId,
        born: i32,
        x: i32,
        y: i32,
        vx: i32,
        vy: i32,
    },
    ShotEnd {
        id: i16,
        tick: i32,
        hit: Option<PlayerId>,
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

    fn encode(&mut self, e: &GameEvent) -> Wire {
        match e {
            GameEvent::Status(s) => Wire::Status(*s),
            GameEvent::Shot(p) => Wire::Shot {
                id: self.id_diff(p.id),
                owner: p.owner,
                born: self.tick_diff(p.born),
                x: p.x,
                y: p.y,
                vx: p.vx,
                vy: p.vy,
            },
            GameEvent::ShotEnd { id, tick, hit } => Wire::ShotEnd {
                id: self.id_diff(*id),
                tick: self.tick_diff(*tick),
                hit: *hit,
            },
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
        }
    }

    fn decode(&mut self, w: Wire) -> GameEvent {
        match w {
            Wire::Status(s) => GameEvent::Status(s),
            Wire::Shot {
                id,
                owner,
                born,
                x,
                y,
                vx,
                vy,
            } => GameEvent::Shot(Projectile {
                id: self.id(id),
                owner,
                born: self.tick(born),
                x,
                y,
                vx,
                vy,
            }),
            Wire::ShotEnd { id, tick, hit } => GameEvent::ShotEnd {
                id: self.id(id),
                tick: self.tick(tick),
                hit,
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
        }
    }
}

pub fn serialize<S: Serializer>(events: &[(u32, GameEvent)], s: S) -> Result<S::Ok, S::Error> {
    let mut cursor = Cursor::default();
    let wire: Vec<(i32, Wire)> = events
        .iter()
        .map(|(seq, e)| {
            let d = seq.wrapping_sub(cursor.seq) as i32;
            cursor.seq = *seq;
            (d, cursor.encode(e))
        })
        .collect();
    wire.serialize(s)
}

pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<(u32, GameEvent)>, D::Error> {
    let wire = Vec::<(i32, Wire)>::deserialize(d)?;
    let mut cursor = Cursor::default();
    Ok(wire
        .into_iter()
        .map(|(d, w)| {
            cursor.seq = cursor.seq.wrapping_add(d as u32);
            (cursor.seq, cursor.decode(w))
        })
        .collect())
}

/// Each event's size on the wire (the list's length prefix aside), for benchmarks that
/// say where the bytes go.
pub fn wire_sizes(events: &[(u32, GameEvent)]) -> Vec<usize> {
    let mut cursor = Cursor::default();
    let cfg = bincode::config::standard();
    events
        .iter()
        .map(|(seq, e)| {
            let d = seq.wrapping_sub(cursor.seq) as i32;
            cursor.seq = *seq;
            bincode::serde::encode_to_vec((d, cursor.encode(e)), cfg).map_or(0, |v| v.len())
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
            let p = Projectile {
                id: 300 + i,
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
                    id: 300 + i,
                    tick: 69_999,
                    hit: None,
                },
            ));
        }
        let msg = snapshot(events.clone());
        let mut buf = Vec::new();
        codec::encode_server(&msg, &mut buf).unwrap();
        assert_eq!(codec::decode_server(&buf).unwrap(), msg);
        let sizes = wire_sizes(&events);
        // The events and their length prefix, beside the snapshot's own fields.
        let events_len = sizes.iter().sum::<usize>() + 1;
        assert!(
            events_len < buf.len() && buf.len() < events_len + 24,
            "{sizes:?}"
        );
        // Past the first pair: 13 bytes a birth, 5 an end (a plain encoding: 21 and 12).
        assert!(sizes[2..].iter().all(|&n| n <= 13), "{sizes:?}");
        assert!(sizes[3] <= 5, "{sizes:?}");
    }
}
