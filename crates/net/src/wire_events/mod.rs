//! The wire form of a snapshot's game events, written and read by hand: compact, and
//! exact for any input.
//!
//! Events travel oldest first with consecutive seqs, and projectile births and ends,
//! most of a fight's events, carry ids that count up and ticks close to each other. So
//! the first event's seq travels as its low 16 bits (8 in a near snapshot; the receiver
//! widens it against the next seq it expects, see [`super::widen`]), then the number of
//! items, and a later seq costs nothing when it follows the one before (a jump item
//! otherwise). Each item is a kind byte and its fields; each projectile id and tick is
//! the (wrapping, zigzag LEB128) difference from the one before it in the same
//! snapshot: a byte instead of three to five. Births and rails inside any real arena
//! carry their points in two bytes an axis and only the low byte of their id (the high
//! byte is the owner), an end that hit nobody says so by its kind (the server sends
//! none: a miss ends where the flight does), and a status its three flags and a kill its
//! weapon in its kind. Decoding adds the differences back, so every value round-trips
//! exactly.

use super::codec::put_varint;
use super::protocol::{GameEvent, MapChunk};
use super::wire_fields::{Malformed, Reader, put_bytes, put_signed, put_unsigned, put16};
use netarena_sim::combat::{Projectile, Weapon};

mod pieces;
use pieces::{
    near, put_far, put_map_info, put_near, put_option, put_rail, put_status, read_far,
    read_map_info, read_near, read_rail, read_status, status_flags,
};

/// The kinds of item, in their first byte.
const JUMP: u8 = 0;
/// A birth whose origin is [`near`] and whose id is the one `sim::step::shot_id` gives
/// (its owner in the high byte): only the low byte.
const SHOT: u8 = 1;
const SHOT_FAR: u8 = 2;
/// A projectile that ended on a wall or of old age.
const SHOT_MISS: u8 = 3;
/// A projectile that hit: its id whole (ends of different owners' projectiles mix, so
/// a difference would mostly take three bytes).
const SHOT_HIT: u8 = 4;
/// A rail whose points are all [`near`] and whose id is its shooter's.
const RAIL: u8 = 5;
const RAIL_FAR: u8 = 6;
const CHAT: u8 = 7;
const MATCH_START: u8 = 8;
const MATCH_END: u8 = 9;
const MAP_CHUNK: u8 = 10;
const TICK_RATE: u8 = 11;
/// A kill, plus the weapon's index.
const KILL: u8 = 12;
/// A status, plus its flags ([`status_flags`]).
const STATUS: u8 = KILL + (1 << Weapon::INDEX_BITS);
const STATUS_END: u8 = STATUS + 8;

/// The fewest bytes an item takes (a kind and a one-byte field).
const MIN_ITEM: usize = 2;
/// The fewest bytes a status in a match's standings takes.
const MIN_STATUS: usize = 5;

/// The previous seq, projectile id and tick in the batch: what differences are against.
struct Cursor {
    seq: u32,
    id: u16,
    tick: u32,
}

impl Cursor {
    /// Where the differences of a snapshot of `tick` whose first event has `first` start.
    fn new(first: u32, tick: u32) -> Cursor {
        Cursor {
            seq: first.wrapping_sub(1),
            id: 0,
            tick,
        }
    }

    fn id_diff(&mut self, id: u16) -> i32 {
        let d = id.wrapping_sub(self.id) as i16;
        self.id = id;
        i32::from(d)
    }
    fn tick_diff(&mut self, tick: u32) -> i32 {
        let d = tick.wrapping_sub(self.tick) as i32;
        self.tick = tick;
        d
    }
    fn id(&mut self, r: &mut Reader) -> Result<u16, Malformed> {
        let d =
            i16::try_from(r.signed("projectile id")?).map_err(|_| Malformed("projectile id"))?;
        self.id = self.id.wrapping_add(d as u16);
        Ok(self.id)
    }
    fn tick(&mut self, r: &mut Reader) -> Result<u32, Malformed> {
        self.tick = self.tick.wrapping_add(r.signed("event tick")? as u32);
        Ok(self.tick)
    }

    /// Appends `(seq, e)` to `out`, a jump first when `seq` does not follow on; returns
    /// where the event's own bytes begin.
    fn write(&mut self, seq: u32, e: &GameEvent, out: &mut Vec<u8>) -> usize {
        let next = self.seq.wrapping_add(1);
        if seq != next {
            out.push(JUMP);
            put_signed(out, seq.wrapping_sub(next) as i32);
        }
        self.seq = seq;
        let start = out.len();
        match e {
            GameEvent::Status(s) => {
                out.push(STATUS + status_flags(s));
                put_status(out, s);
            }
            GameEvent::Shot(p) => self.shot(p, out),
            GameEvent::ShotEnd { id, tick, hit } => {
                let (diff, tick) = (self.id_diff(*id), self.tick_diff(*tick));
                match hit {
                    None => {
                        out.push(SHOT_MISS);
                        put_signed(out, diff);
                        put_signed(out, tick);
                    }
                    Some(hit) => {
                        out.push(SHOT_HIT);
                        out.extend_from_slice(&id.to_le_bytes());
                        put_signed(out, tick);
                        out.push(*hit);
                    }
                }
            }
            GameEvent::Rail(r) => {
                let tick = self.tick_diff(r.tick);
                let points = [Some(r.from), Some(r.to), r.tested_at, r.present_at];
                let nearest = r.nearest.map(|(_, t, p)| [t, p]).unwrap_or_default();
                let all_near = points
                    .iter()
                    .flatten()
                    .chain(&nearest)
                    .all(|p| near(*p).is_some());
                if all_near && r.id >> 8 == u16::from(r.shooter) {
                    out.extend_from_slice(&[RAIL, r.id as u8, r.shooter]);
                    put_signed(out, tick);
                    put_rail(out, r, put_near);
                } else {
                    out.push(RAIL_FAR);
                    put_unsigned(out, r.id);
                    out.push(r.shooter);
                    put_signed(out, tick);
                    put_rail(out, r, put_far);
                }
            }
            GameEvent::Kill {
                killer,
                victim,
                weapon,
            } => out.extend_from_slice(&[KILL + weapon.index(), *killer, *victim]),
            GameEvent::Chat { from, text } => {
                out.extend_from_slice(&[CHAT, *from]);
                put_bytes(out, text.as_bytes());
            }
            GameEvent::MatchStart {
                map_name,
                map,
                started_tick,
                frag_limit,
                time_limit_secs,
            } => {
                out.push(MATCH_START);
                put_bytes(out, map_name.as_bytes());
                put_option(out, map.as_ref(), put_map_info);
                put_unsigned(out, *started_tick);
                put_unsigned(out, *frag_limit);
                put_unsigned(out, *time_limit_secs);
            }
            GameEvent::MatchEnd {
                winner,
                standings,
                next_map,
            } => {
                out.push(MATCH_END);
                put_option(out, *winner, |out, id| out.push(id));
                put_varint(out, standings.len() as u64);
                for s in standings {
                    out.push(status_flags(s));
                    put_status(out, s);
                }
                put_bytes(out, next_map.as_bytes());
            }
            GameEvent::MapChunk(c) => {
                out.push(MAP_CHUNK);
                put_map_info(out, &c.map);
                put_unsigned(out, c.index);
                put_bytes(out, &c.data);
            }
            GameEvent::TickRate {
                tick_rate,
                snapshot_interval,
                from_tick,
                from_seq,
            } => {
                out.push(TICK_RATE);
                put_unsigned(out, *tick_rate);
                put_unsigned(out, *snapshot_interval);
                put_unsigned(out, *from_tick);
                put_unsigned(out, *from_seq);
            }
        }
        start
    }

    fn shot(&mut self, p: &Projectile, out: &mut Vec<u8>) {
        let owned = p.id >> 8 == u16::from(p.owner);
        let (id, born) = (self.id_diff(p.id), self.tick_diff(p.born));
        match near((p.x, p.y)) {
            Some(at) if owned => {
                out.extend_from_slice(&[SHOT, p.id as u8, p.owner]);
                put_signed(out, born);
                out.extend_from_slice(&at);
            }
            _ => {
                out.push(SHOT_FAR);
                put_signed(out, id);
                out.push(p.owner);
                put_signed(out, born);
                put_far(out, (p.x, p.y));
            }
        }
        put_signed(out, p.vx);
        put_signed(out, p.vy);
    }

    /// The next item's event, or None for a jump (which moves the seq).
    fn read(&mut self, r: &mut Reader) -> Result<Option<(u32, GameEvent)>, Malformed> {
        let e = match r.u8("event")? {
            JUMP => {
                self.seq = self.seq.wrapping_add(r.signed("seq jump")? as u32);
                return Ok(None);
            }
            kind @ (SHOT | SHOT_FAR) => {
                let (id, owner) = if kind == SHOT {
                    let low = r.u8("shot")?;
                    let owner = r.u8("shot")?;
                    self.id = u16::from(owner) << 8 | u16::from(low);
                    (self.id, owner)
                } else {
                    (self.id(r)?, r.u8("shot")?)
                };
                let born = self.tick(r)?;
                let (x, y) = if kind == SHOT {
                    read_near(r)?
                } else {
                    read_far(r)?
                };
                GameEvent::Shot(Projectile {
                    id,
                    owner,
                    born,
                    x,
                    y,
                    vx: r.signed("shot")?,
                    vy: r.signed("shot")?,
                })
            }
            SHOT_MISS => GameEvent::ShotEnd {
                id: self.id(r)?,
                tick: self.tick(r)?,
                hit: None,
            },
            SHOT_HIT => {
                self.id = u16::from_le_bytes(r.array("shot end")?);
                GameEvent::ShotEnd {
                    id: self.id,
                    tick: self.tick(r)?,
                    hit: Some(r.u8("shot end")?),
                }
            }
            RAIL => {
                let (low, shooter) = (r.u8("rail")?, r.u8("rail")?);
                let tick = self.tick(r)?;
                let id = u16::from(shooter) << 8 | u16::from(low);
                GameEvent::Rail(read_rail(r, (id, shooter, tick), read_near)?)
            }
            RAIL_FAR => {
                let (id, shooter) = (r.u16_number("rail")?, r.u8("rail")?);
                let tick = self.tick(r)?;
                GameEvent::Rail(read_rail(r, (id, shooter, tick), read_far)?)
            }
            kind @ STATUS..STATUS_END => GameEvent::Status(read_status(r, kind - STATUS)?),
            kind @ KILL..STATUS => GameEvent::Kill {
                killer: r.u8("kill")?,
                victim: r.u8("kill")?,
                weapon: Weapon::from_index(kind - KILL),
            },
            CHAT => GameEvent::Chat {
                from: r.u8("chat")?,
                text: r.text("chat")?,
            },
            MATCH_START => GameEvent::MatchStart {
                map_name: r.text("map name")?,
                map: r.option("map", read_map_info)?,
                started_tick: r.u32_number("match start")?,
                frag_limit: r.u16_number("match start")?,
                time_limit_secs: r.u32_number("match start")?,
            },
            MATCH_END => {
                let winner = r.option("winner", |r| r.u8("winner"))?;
                let n = r.count("standings", MIN_STATUS)?;
                let standings = (0..n)
                    .map(|_| {
                        let bits = r.u8("status")?;
                        if bits >= 8 {
                            return Err(Malformed("status"));
                        }
                        read_status(r, bits)
                    })
                    .collect::<Result<_, _>>()?;
                GameEvent::MatchEnd {
                    winner,
                    standings,
                    next_map: r.text("map name")?,
                }
            }
            MAP_CHUNK => GameEvent::MapChunk(MapChunk {
                map: read_map_info(r)?,
                index: r.u16_number("map chunk")?,
                data: r.bytes("map chunk")?,
            }),
            TICK_RATE => GameEvent::TickRate {
                tick_rate: r.u16_number("tick rate")?,
                snapshot_interval: r.u16_number("tick rate")?,
                from_tick: r.u32_number("tick rate")?,
                from_seq: r.u32_number("tick rate")?,
            },
            _ => return Err(Malformed("event kind")),
        };
        self.seq = self.seq.wrapping_add(1);
        Ok(Some((self.seq, e)))
    }
}

/// Appends the wire form of `events` in a snapshot of `tick` (ticks start as
/// differences from it) to `out`: the first seq (its low byte when `near`), the number
/// of items, the items. Returns the bytes of the events by kind, `(projectiles,
/// other)`: each event's own bytes, blaster shots and their ends as projectiles; the
/// first seq, the count and any seq jumps are framing, not counted.
pub(crate) fn write(
    events: &[(u32, GameEvent)],
    tick: u32,
    near: bool,
    out: &mut Vec<u8>,
) -> (usize, usize) {
    let first = events.first().map_or(0, |(seq, _)| *seq);
    if near {
        out.push(first as u8);
    } else {
        put16(out, first);
    }
    let jumps = events
        .windows(2)
        .filter(|w| w[1].0 != w[0].0.wrapping_add(1))
        .count();
    put_varint(out, (events.len() + jumps) as u64);
    let mut cursor = Cursor::new(first, tick);
    let (mut projectiles, mut other) = (0, 0);
    for (seq, e) in events {
        let start = cursor.write(*seq, e, out);
        let n = out.len() - start;
        match e {
            GameEvent::Shot(_) | GameEvent::ShotEnd { .. } => projectiles += n,
            _ => other += n,
        }
    }
    (projectiles, other)
}

/// What [`write`] wrote, for a snapshot of `tick` as it came: both the tick and the
/// first seq are their low bits until
/// [`SnapshotDelta::widen`](super::protocol::SnapshotDelta).
pub(crate) fn read(
    r: &mut Reader,
    tick: u32,
    near: bool,
) -> Result<Vec<(u32, GameEvent)>, Malformed> {
    let first = if near {
        u32::from(r.u8("first event")?)
    } else {
        r.u16("first event")?
    };
    let items = r.count("events", MIN_ITEM)?;
    let mut cursor = Cursor::new(first, tick);
    // Grown as events decode: each takes bytes of the input.
    let mut events = Vec::with_capacity(items.min(16));
    for _ in 0..items {
        if let Some(e) = cursor.read(r)? {
            events.push(e);
        }
    }
    Ok(events)
}

/// Each event's size on the wire (the first seq and the count aside, a seq jump before
/// it included), for the tests that hold the sizes down.
#[cfg(test)]
pub(crate) fn wire_sizes(events: &[(u32, GameEvent)], tick: u32) -> Vec<usize> {
    let first = events.first().map_or(0, |(seq, _)| *seq);
    let mut cursor = Cursor::new(first, tick);
    let mut out = Vec::new();
    events
        .iter()
        .map(|(seq, e)| {
            out.clear();
            cursor.write(*seq, e, &mut out);
            out.len()
        })
        .collect()
}

#[cfg(test)]
mod tests;
