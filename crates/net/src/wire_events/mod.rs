//! The wire form of a snapshot's game events: compact, and exact for any input.
//!
//! Events travel oldest first with consecutive seqs, and projectile births and ends,
//! most of a fight's events, carry ids that count up and ticks close to each other. So
//! the first event's seq travels as its low 16 bits (the receiver widens it against the
//! next seq it expects, see [`super::widen`]), a later seq costs nothing when it follows
//! the one before (a jump marker otherwise), and each projectile id and tick is the
//! (wrapping, zigzag varint) difference from the one before it in the same snapshot: a
//! byte instead of three to five. Births and rails inside any real arena carry their
//! points in two bytes an axis and only the low byte of their id (the high byte is the
//! owner), an end that hit nobody says so by its kind (the server sends none: a miss
//! ends where the flight does), a status packs its three flags in one byte and a kill
//! its weapon in its kind. Decoding adds the differences back, so every value
//! round-trips exactly.

use serde::{Deserialize, Serialize};

use super::protocol::{GameEvent, PlayerStatus, RailShot, RailVerdict};
use netarena_sim::combat::{Projectile, Weapon};
use netarena_sim::world::PlayerId;

/// A point with both axes in 0..=65535, as every point inside an arena is: two
/// little-endian bytes an axis (a varint would take three).
type Near = [u8; 4];

fn near((x, y): (i32, i32)) -> Option<Near> {
    let (x, y) = (u16::try_from(x).ok()?, u16::try_from(y).ok()?);
    let (x, y) = (x.to_le_bytes(), y.to_le_bytes());
    Some([x[0], x[1], y[0], y[1]])
}

fn far(p: Near) -> (i32, i32) {
    (
        i32::from(u16::from_le_bytes([p[0], p[1]])),
        i32::from(u16::from_le_bytes([p[2], p[3]])),
    )
}

/// The events of one snapshot as they travel: the first seq's low 16 bits, then the
/// events.
#[derive(Serialize, Deserialize)]
pub(crate) struct WireEvents {
    pub(crate) first: [u8; 2],
    pub(crate) list: Vec<Wire>,
}

/// A [`GameEvent`] with its id and tick fields as differences, or a seq jump.
#[derive(Serialize, Deserialize)]
pub(crate) enum Wire {
    /// The next event's seq is the previous one's plus 1 plus this (wrapping).
    Jump(i32),
    Status(Status),
    /// A birth whose origin is [`Near`] and whose id is the one `sim::step::shot_id`
    /// gives (its owner in the high byte): only the low byte.
    Shot {
        low: u8,
        owner: PlayerId,
        born: i32,
        at: Near,
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
    /// A projectile that hit: its id whole (ends of different owners' projectiles
    /// mix, so a difference would mostly take three bytes).
    ShotHit {
        id: [u8; 2],
        tick: i32,
        hit: PlayerId,
    },
    Rail(Rail),
    /// Any other rail, its tick as a difference.
    RailFar {
        tick: i32,
        rail: RailShot,
    },
    KillBlaster {
        killer: PlayerId,
        victim: PlayerId,
    },
    KillRail {
        killer: PlayerId,
        victim: PlayerId,
    },
    /// Everything rare travels as it is.
    Other(GameEvent),
}

/// A status with its frags (as a u16) shifted up by three bits, below them `alive`
/// (bit 0), the rail (bit 1) and `protected` (bit 2): one varint byte while the frags
/// stay under 31.
#[derive(Serialize, Deserialize)]
pub(crate) struct Status {
    id: PlayerId,
    health: i16,
    frags_bits: u32,
    deaths: u16,
}

const ALIVE: u8 = 1;
/// The weapon's index, in one bit: a third weapon needs a wider field.
const WEAPON_SHIFT: u8 = 1;
const _: () = assert!(Weapon::INDEX_BITS == 1);
const PROTECTED: u8 = 4;

impl Status {
    fn new(s: &PlayerStatus) -> Status {
        let bits = [(ALIVE, s.alive), (PROTECTED, s.protected)]
            .iter()
            .filter(|(_, on)| *on)
            .fold(s.weapon.index() << WEAPON_SHIFT, |bits, (bit, _)| {
                bits | bit
            });
        Status {
            id: s.id,
            health: s.health,
            frags_bits: u32::from(s.frags as u16) << 3 | u32::from(bits),
            deaths: s.deaths,
        }
    }

    fn status(self) -> PlayerStatus {
        let bits = self.frags_bits as u8;
        PlayerStatus {
            id: self.id,
            health: self.health,
            alive: bits & ALIVE != 0,
            frags: (self.frags_bits >> 3) as u16 as i16,
            deaths: self.deaths,
            weapon: Weapon::from_index(bits >> WEAPON_SHIFT & 1),
            protected: bits & PROTECTED != 0,
        }
    }
}

/// A rail whose points are all [`Near`] and whose id is its shooter's (only its low
/// byte travels), its tick as a difference.
#[derive(Serialize, Deserialize)]
pub(crate) struct Rail {
    low: u8,
    shooter: PlayerId,
    tick: i32,
    from: Near,
    to: Near,
    hit: Option<PlayerId>,
    rewound_ticks: u16,
    tested_at: Option<Near>,
    present_at: Option<Near>,
    wanted_ticks: u16,
    bound_ticks: u16,
    nearest: Option<(PlayerId, Near, Near)>,
    verdict: RailVerdict,
}

impl Rail {
    /// The short form, if all the points are near and the id is the shooter's.
    fn new(r: &RailShot, tick: i32) -> Option<Rail> {
        if r.id >> 8 != u16::from(r.shooter) {
            return None;
        }
        let opt = |p: Option<(i32, i32)>| p.map(near).map_or(Some(None), |n| n.map(Some));
        let nearest = match r.nearest {
            Some((id, tested, present)) => Some((id, near(tested)?, near(present)?)),
            None => None,
        };
        Some(Rail {
            low: r.id as u8,
            shooter: r.shooter,
            tick,
            from: near(r.from)?,
            to: near(r.to)?,
            hit: r.hit,
            rewound_ticks: r.rewound_ticks,
            tested_at: opt(r.tested_at)?,
            present_at: opt(r.present_at)?,
            wanted_ticks: r.wanted_ticks,
            bound_ticks: r.bound_ticks,
            nearest,
            verdict: r.verdict,
        })
    }

    fn rail(self, tick: u32) -> RailShot {
        RailShot {
            id: u16::from(self.shooter) << 8 | u16::from(self.low),
            shooter: self.shooter,
            tick,
            from: far(self.from),
            to: far(self.to),
            hit: self.hit,
            rewound_ticks: self.rewound_ticks,
            tested_at: self.tested_at.map(far),
            present_at: self.present_at.map(far),
            wanted_ticks: self.wanted_ticks,
            bound_ticks: self.bound_ticks,
            nearest: self
                .nearest
                .map(|(id, tested, present)| (id, far(tested), far(present))),
            verdict: self.verdict,
        }
    }
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
            GameEvent::Status(s) => Wire::Status(Status::new(s)),
            GameEvent::Shot(p) => self.shot(p),
            GameEvent::ShotEnd {
                id: whole,
                tick,
                hit,
            } => {
                let (id, tick) = (self.id_diff(*whole), self.tick_diff(*tick));
                match hit {
                    None => Wire::ShotMiss { id, tick },
                    Some(hit) => Wire::ShotHit {
                        id: whole.to_le_bytes(),
                        tick,
                        hit: *hit,
                    },
                }
            }
            GameEvent::Rail(r) => {
                let tick = self.tick_diff(r.tick);
                Rail::new(r, tick).map_or(Wire::RailFar { tick, rail: *r }, Wire::Rail)
            }
            GameEvent::Kill {
                killer,
                victim,
                weapon,
            } => {
                let (killer, victim) = (*killer, *victim);
                match weapon {
                    Weapon::Blaster => Wire::KillBlaster { killer, victim },
                    Weapon::Rail => Wire::KillRail { killer, victim },
                }
            }
            other => Wire::Other(other.clone()),
        };
        out.push(wire);
    }

    fn shot(&mut self, p: &Projectile) -> Wire {
        let owned = p.id >> 8 == u16::from(p.owner);
        let (id, born) = (self.id_diff(p.id), self.tick_diff(p.born));
        match near((p.x, p.y)) {
            Some(at) if owned => Wire::Shot {
                low: p.id as u8,
                owner: p.owner,
                born,
                at,
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

    /// The event `w` stands for, or None for a jump (which moves the seq).
    fn decode(&mut self, w: Wire) -> Option<(u32, GameEvent)> {
        let e = match w {
            Wire::Jump(d) => {
                self.seq = self.seq.wrapping_add(d as u32);
                return None;
            }
            Wire::Status(s) => GameEvent::Status(s.status()),
            Wire::Shot {
                low,
                owner,
                born,
                at,
                vx,
                vy,
            } => {
                let (x, y) = far(at);
                let id = (u16::from(owner) << 8 | u16::from(low)).wrapping_sub(self.id) as i16;
                self.birth(id, owner, born, x, y, vx, vy)
            }
            Wire::ShotFar {
                id,
                owner,
                born,
                x,
                y,
                vx,
                vy,
            } => self.birth(id, owner, born, x, y, vx, vy),
            Wire::ShotMiss { id, tick } => GameEvent::ShotEnd {
                id: self.id(id),
                tick: self.tick(tick),
                hit: None,
            },
            Wire::ShotHit { id, tick, hit } => {
                self.id = u16::from_le_bytes(id);
                GameEvent::ShotEnd {
                    id: self.id,
                    tick: self.tick(tick),
                    hit: Some(hit),
                }
            }
            Wire::Rail(r) => {
                let tick = self.tick(r.tick);
                GameEvent::Rail(r.rail(tick))
            }
            Wire::RailFar { tick, rail } => GameEvent::Rail(RailShot {
                tick: self.tick(tick),
                ..rail
            }),
            Wire::KillBlaster { killer, victim } => GameEvent::Kill {
                killer,
                victim,
                weapon: Weapon::Blaster,
            },
            Wire::KillRail { killer, victim } => GameEvent::Kill {
                killer,
                victim,
                weapon: Weapon::Rail,
            },
            Wire::Other(e) => e,
        };
        self.seq = self.seq.wrapping_add(1);
        Some((self.seq, e))
    }

    #[allow(clippy::too_many_arguments)]
    fn birth(
        &mut self,
        id: i16,
        owner: PlayerId,
        born: i32,
        x: i32,
        y: i32,
        vx: i32,
        vy: i32,
    ) -> GameEvent {
        GameEvent::Shot(Projectile {
            id: self.id(id),
            owner,
            born: self.tick(born),
            x,
            y,
            vx,
            vy,
        })
    }
}

/// Where the differences of a snapshot of `tick` whose first event has `first` start.
fn cursor(first: u32, tick: u32) -> Cursor {
    Cursor {
        seq: first.wrapping_sub(1),
        id: 0,
        tick,
    }
}

/// The wire form of `events` in a snapshot of `tick`: ticks start as differences from it.
pub(crate) fn to_wire(events: &[(u32, GameEvent)], tick: u32) -> WireEvents {
    let first = events.first().map_or(0, |(seq, _)| *seq);
    let mut cursor = cursor(first, tick);
    let mut list = Vec::with_capacity(events.len() + 1);
    for (seq, e) in events {
        cursor.encode(*seq, e, &mut list);
    }
    WireEvents {
        first: (first as u16).to_le_bytes(),
        list,
    }
}

/// The events of a snapshot of `tick` (as it came: both the tick and the first seq are
/// their low 16 bits until [`SnapshotDelta::widen`](super::protocol::SnapshotDelta)).
pub(crate) fn from_wire(wire: WireEvents, tick: u32) -> Vec<(u32, GameEvent)> {
    let mut cursor = cursor(u32::from(u16::from_le_bytes(wire.first)), tick);
    wire.list
        .into_iter()
        .filter_map(|w| cursor.decode(w))
        .collect()
}

/// Each event's size on the wire (the list's length prefix and the first seq aside, a
/// seq jump before it included), for the tests that hold the sizes down.
#[cfg(test)]
pub(crate) fn wire_sizes(events: &[(u32, GameEvent)], tick: u32) -> Vec<usize> {
    let first = events.first().map_or(0, |(seq, _)| *seq);
    let mut cursor = cursor(first, tick);
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

/// The bytes of a snapshot's events on the wire by kind, `(projectiles, other)`: each
/// event's own encoding, blaster shots and their ends as projectiles. The list's first
/// seq and length and any seq jumps are framing, not counted here.
pub(crate) fn kind_sizes(events: &[(u32, GameEvent)], tick: u32) -> (usize, usize) {
    let first = events.first().map_or(0, |(seq, _)| *seq);
    let mut cursor = cursor(first, tick);
    let mut wire = Vec::new();
    let (mut projectiles, mut other) = (0, 0);
    for (seq, e) in events {
        wire.clear();
        cursor.encode(*seq, e, &mut wire);
        // The event is the last item; a jump before it is framing.
        let n = wire.last().map_or(0, super::codec::encoded_len);
        match e {
            GameEvent::Shot(_) | GameEvent::ShotEnd { .. } => projectiles += n,
            _ => other += n,
        }
    }
    (projectiles, other)
}

#[cfg(test)]
mod tests;
