//! The wire form of a [`SnapshotDelta`], written and read by hand: this module and
//! `super::wire_events` are its one description, which the codec encodes and decodes
//! with and [`parts`] counts bytes by. Numbers are as [`super::wire_fields`] writes
//! them (LEB128, zigzag for signed ones).
//!
//! Most snapshots carry no departed or new players, no loss counts, an empty command
//! queue, no cooldown and no events; one flags byte, which is also the message's kind
//! (its top bit set), says which of those follow instead of a length or tag byte each,
//! and a second flags byte follows only for the rare ones. The queue's length and the
//! jitter buffer's depth share a byte. The tick and the acknowledged command travel as
//! their low 16 bits (the receiver widens them, see [`super::widen`]), the player
//! values' count comes from the masks, the masks of players that did what their
//! baseline predicts are left out when that is shorter (below), and event ticks count
//! from the snapshot's tick. Every delta, even one no server would send, round-trips
//! exactly (up to the widening).
//!
//! The masks, four bits a player, travel in one of two forms, whichever is shorter,
//! after a head: a LEB128 number whose low three bits are the baseline age when it is 1
//! to 7 ticks (0: the age follows in a byte of its own), then one bit for the form, and
//! above it a count. Dense: the count is the mask bytes, which follow as they are.
//! Sparse (only for masks whose last byte is not zero, as [`super::delta`] makes them):
//! the count is the entries, one per nonzero mask, with the number of zero masks before
//! it in its high nibble; an entry with a zero low nibble skips sixteen masks per unit
//! of its high nibble instead. In a fight most players keep moving as predicted, so a
//! snapshot of sixteen players that names two spends three bytes on masks and age,
//! where a byte count, eight mask bytes and an age byte took ten.

use super::codec::put_varint;
use super::protocol::{InputCounts, OwnBody, PlayerSnap, SnapshotDelta, SnapshotHeader};
use super::wire_events;
use super::wire_fields::{Malformed, Reader, put_bytes, put_signed, put_unsigned, put16};
use netarena_sim::world::PlayerState;

/// The first byte of a snapshot: this bit, which no other server message's first byte
/// (its kind) has, and the flags below; the codec reads it as the message's kind.
pub const SNAPSHOT: u8 = 0x80;
/// The echo of the client's clock (its low 16 bits: RTTs are far shorter than 65 s) and
/// how long the server held it follow; most snapshots carry none.
const ECHO: u8 = 1;
const INPUTS: u8 = 2;
/// A second flags byte follows, for what a fight's snapshots rarely carry: departed or
/// new players, a values count and the count of snapshots held back ([`RARE_REMOVED`]
/// and the rest).
const RARE: u8 = 4;
const EVENTS: u8 = 8;
/// The own body's cooldown follows (otherwise it is 0: the weapon is ready).
const READY_IN: u8 = 16;
/// The command queue's length and the jitter buffer's depth follow, in one byte (the
/// queue in the low nibble, the depth in the high one) while the queue is under 15 and
/// the depth under 16, else a byte 15 and a byte each.
const QUEUED: u8 = 32;
/// The tick and the acknowledgement take a byte each ([`SnapshotDelta::near`]).
const NEAR: u8 = 64;
const RARE_REMOVED: u8 = 1;
const RARE_ADDED: u8 = 2;
/// The values' count is sent because it is not the masks' bit count.
const RARE_VALUES_LEN: u8 = 4;
const RARE_WITHHELD: u8 = 8;
/// A queue nibble saying the queue and the depth follow in a byte each.
const QUEUE_ESCAPE: u8 = 15;

/// Most mask bytes a snapshot can need: four bits for each of 256 player ids.
const MAX_MASK_BYTES: usize = 128;
/// The fewest bytes a new player takes: its id and four one-byte numbers.
const MIN_PLAYER: usize = 5;

/// How many values the masks announce.
fn implied_values(masks: &[u8]) -> usize {
    masks.iter().map(|m| m.count_ones() as usize).sum()
}

/// Gives each entry of the sparse form of `masks` (see the module doc) to `entry`: their
/// trailing zeros are implied. Masks are two to a byte, low nibble first.
fn sparse(masks: &[u8], mut entry: impl FnMut(u8)) {
    let mut gap = 0usize;
    for &byte in masks {
        if byte == 0 {
            gap += 2;
            continue;
        }
        for mask in [byte & 0xF, byte >> 4] {
            if mask == 0 {
                gap += 1;
                continue;
            }
            while gap > 15 {
                let long = (gap / 16).min(15);
                entry((long as u8) << 4);
                gap -= long * 16;
            }
            entry((gap as u8) << 4 | mask);
            gap = 0;
        }
    }
}

/// Appends the masks in the shorter form, after their head with `age` (see the module
/// doc).
fn put_masks(out: &mut Vec<u8>, masks: &[u8], age: u8) {
    let mut entries = 0;
    if masks.last() != Some(&0) {
        sparse(masks, |_| entries += 1);
    }
    let is_sparse = masks.last() != Some(&0) && entries < masks.len();
    let count = if is_sparse { entries } else { masks.len() };
    // A baseline age of 1 to 7 ticks rides in the head's low three bits; any other (0:
    // none) follows it.
    let inline = (1..=7).contains(&age);
    let code = if inline { age } else { 0 };
    put_varint(
        out,
        ((count as u64) << 1 | u64::from(is_sparse)) << 3 | u64::from(code),
    );
    if !inline {
        out.push(age);
    }
    if is_sparse {
        sparse(masks, |e| out.push(e));
    } else {
        out.extend_from_slice(masks);
    }
}

/// The masks in either form, at most [`MAX_MASK_BYTES`] of them, after a head whose age
/// bits are gone.
fn read_masks(r: &mut Reader, head: u64) -> Result<Vec<u8>, Malformed> {
    let len = usize::try_from(head / 2).unwrap_or(usize::MAX);
    if head.is_multiple_of(2) {
        if len > MAX_MASK_BYTES {
            return Err(Malformed("more masks than players"));
        }
        return (0..len).map(|_| r.u8("mask")).collect();
    }
    // Each entry is a byte of input, read one at a time: a lying count runs out of
    // input, and positions stay within the players there can be.
    let mut masks = Vec::new();
    let mut at = 0;
    for i in 0..len {
        let b = r.u8("mask")?;
        let (skip, mask) = (usize::from(b >> 4), b & 0xF);
        if mask == 0 {
            if skip == 0 || i + 1 == len {
                return Err(Malformed("a mask entry that names nobody"));
            }
            at += 16 * skip;
        } else {
            at += skip;
            if at >= 2 * MAX_MASK_BYTES {
                return Err(Malformed("more masks than players"));
            }
            masks.resize(at / 2 + 1, 0);
            masks[at / 2] |= mask << (4 * (at % 2));
            at += 1;
        }
    }
    Ok(masks)
}

fn put_player(out: &mut Vec<u8>, p: &PlayerSnap) {
    out.push(p.id);
    for v in [p.state.x, p.state.y, p.state.vx, p.state.vy] {
        put_signed(out, v);
    }
}

fn read_player(r: &mut Reader) -> Result<PlayerSnap, Malformed> {
    Ok(PlayerSnap {
        id: r.u8("player")?,
        state: PlayerState {
            x: r.signed("player")?,
            y: r.signed("player")?,
            vx: r.signed("player")?,
            vy: r.signed("player")?,
        },
    })
}

/// Where a snapshot's bytes go on the wire, as the writer writes them: the players
/// (departed, new, the masks with the baseline age, the values), blaster projectiles
/// (births and ends) and the other events. The rest of its datagram is headers: the
/// flags (which are its kind), tick and ack, the own body, the echo and counts, and the
/// event list's framing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SnapshotParts {
    pub players: usize,
    pub projectiles: usize,
    pub events: usize,
}

/// The parts of `d`'s wire form (see [`SnapshotParts`]), written to learn them.
pub fn parts(d: &SnapshotDelta) -> SnapshotParts {
    write(d, &mut Vec::with_capacity(256))
}

/// The size of `d`'s wire form, written to learn it (into a buffer kept for the
/// purpose: the server measures every snapshot it sends).
pub(crate) fn len(d: &SnapshotDelta) -> usize {
    thread_local! {
        static SCRATCH: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    SCRATCH.with_borrow_mut(|out| {
        out.clear();
        write(d, out);
        out.len()
    })
}

/// What serde does with a snapshot in a [`ServerMsg`](super::protocol::ServerMsg) (whose
/// derive covers the other messages): refuse it, since only [`write`] writes one.
pub(crate) fn refuse_serde<S: serde::Serializer>(
    _: &SnapshotDelta,
    _: S,
) -> Result<S::Ok, S::Error> {
    Err(serde::ser::Error::custom(REFUSED))
}

/// The same when reading: only [`read`] reads a snapshot.
pub(crate) fn refuse_serde_back<'de, D: serde::Deserializer<'de>>(
    _: D,
) -> Result<SnapshotDelta, D::Error> {
    Err(serde::de::Error::custom(REFUSED))
}

const REFUSED: &str = "a snapshot travels by net::wire_snapshot, not serde";

fn pick(bits: &[(u8, bool)]) -> u8 {
    bits.iter()
        .filter(|(_, on)| *on)
        .fold(0, |f, (bit, _)| f | bit)
}

/// Appends `d`'s wire form to `out` and says where its bytes went.
pub(crate) fn write(d: &SnapshotDelta, out: &mut Vec<u8>) -> SnapshotParts {
    let h = &d.header;
    let rare = pick(&[
        (RARE_REMOVED, !d.removed.is_empty()),
        (RARE_ADDED, !d.added.is_empty()),
        (RARE_VALUES_LEN, implied_values(&d.masks) != d.values.len()),
        (RARE_WITHHELD, h.withheld_total != 0),
    ]);
    let flags = SNAPSHOT
        | pick(&[
            (ECHO, h.echo_time_ms != 0),
            (INPUTS, h.inputs.is_some()),
            (QUEUED, h.queued != 0 || h.buffer_depth != 0),
            (RARE, rare != 0),
            (EVENTS, !d.events.is_empty()),
            (READY_IN, h.me.ready_in != 0),
            (NEAR, d.near),
        ]);
    out.push(flags);
    if rare != 0 {
        out.push(rare);
    }
    if d.near {
        out.extend_from_slice(&[h.tick as u8, h.ack_seq as u8]);
    } else {
        put16(out, h.tick);
        put16(out, h.ack_seq);
    }
    out.push(h.me.flags);
    if flags & READY_IN != 0 {
        put_unsigned(out, h.me.ready_in);
    }
    if flags & ECHO != 0 {
        put16(out, h.echo_time_ms);
        put_unsigned(out, h.echo_hold_ms);
    }
    if let Some(i) = h.inputs {
        put_unsigned(out, i.received);
        put_unsigned(out, i.high);
    }
    if flags & QUEUED != 0 {
        if h.queued < QUEUE_ESCAPE && h.buffer_depth < 16 {
            out.push(h.queued | h.buffer_depth << 4);
        } else {
            out.extend_from_slice(&[QUEUE_ESCAPE, h.queued, h.buffer_depth]);
        }
    }
    if rare & RARE_WITHHELD != 0 {
        put_unsigned(out, h.withheld_total);
    }
    let players = out.len();
    if rare & RARE_REMOVED != 0 {
        put_bytes(out, &d.removed);
    }
    if rare & RARE_ADDED != 0 {
        put_varint(out, d.added.len() as u64);
        for p in &d.added {
            put_player(out, p);
        }
    }
    put_masks(out, &d.masks, d.baseline_age);
    if rare & RARE_VALUES_LEN != 0 {
        put_varint(out, d.values.len() as u64);
    }
    for v in &d.values {
        put_signed(out, *v);
    }
    let players = out.len() - players;
    let (projectiles, events) = if flags & EVENTS != 0 {
        wire_events::write(&d.events, h.tick, d.near, out)
    } else {
        (0, 0)
    };
    SnapshotParts {
        players,
        projectiles,
        events,
    }
}

/// Reads what [`write`] wrote: the whole of `bytes`, and nothing after it. The tick,
/// the acknowledgement and the first event's seq come back as their low bits.
pub(crate) fn read(bytes: &[u8]) -> Result<SnapshotDelta, Malformed> {
    let mut r = Reader::new(bytes);
    let flags = r.u8("flags")?;
    if flags & SNAPSHOT == 0 {
        return Err(Malformed("not a snapshot"));
    }
    let rare = if flags & RARE != 0 {
        r.u8("second flags")?
    } else {
        0
    };
    let on = |bit: u8| flags & bit != 0;
    let rare_on = |bit: u8| rare & bit != 0;
    let near = on(NEAR);
    let (tick, ack_seq) = if near {
        (u32::from(r.u8("tick")?), u32::from(r.u8("ack")?))
    } else {
        (r.u16("tick")?, r.u16("ack")?)
    };
    let me = OwnBody {
        flags: r.u8("own body")?,
        ready_in: if on(READY_IN) {
            r.u16_number("cooldown")?
        } else {
            0
        },
    };
    let (echo_time_ms, echo_hold_ms) = if on(ECHO) {
        (r.u16("echo")?, r.u16_number("hold")?)
    } else {
        (0, 0)
    };
    let inputs = if on(INPUTS) {
        Some(InputCounts {
            received: r.u32_number("inputs")?,
            high: r.u32_number("inputs")?,
        })
    } else {
        None
    };
    let (queued, buffer_depth) = if on(QUEUED) {
        match r.u8("queue")? {
            b if b & 0xF == QUEUE_ESCAPE => (r.u8("queue")?, r.u8("buffer depth")?),
            b => (b & 0xF, b >> 4),
        }
    } else {
        (0, 0)
    };
    let withheld_total = if rare_on(RARE_WITHHELD) {
        r.u32_number("withheld")?
    } else {
        0
    };
    let removed = if rare_on(RARE_REMOVED) {
        r.bytes("departed players")?
    } else {
        Vec::new()
    };
    let added = if rare_on(RARE_ADDED) {
        let n = r.count("new players", MIN_PLAYER)?;
        (0..n)
            .map(|_| read_player(&mut r))
            .collect::<Result<_, _>>()?
    } else {
        Vec::new()
    };
    let head = r.unsigned("masks head", u64::from(u32::MAX))?;
    let baseline_age = match (head & 7) as u8 {
        0 => r.u8("baseline age")?,
        age => age,
    };
    let masks = read_masks(&mut r, head >> 3)?;
    let values = if rare_on(RARE_VALUES_LEN) {
        r.count("values", 1)?
    } else {
        implied_values(&masks)
    };
    // Each value takes at least a byte, so a lying count runs out of input long before
    // it could allocate much.
    let values = (0..values)
        .map(|_| r.signed("values"))
        .collect::<Result<_, _>>()?;
    let events = if on(EVENTS) {
        wire_events::read(&mut r, tick, near)?
    } else {
        Vec::new()
    };
    r.end()?;
    Ok(SnapshotDelta {
        header: SnapshotHeader {
            tick,
            ack_seq,
            echo_time_ms,
            echo_hold_ms,
            inputs,
            queued,
            buffer_depth,
            me,
            withheld_total,
        },
        baseline_age,
        removed,
        added,
        masks,
        values,
        events,
        near,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec;
    use crate::protocol::ServerMsg;
    use rand::{Rng, SeedableRng};
    use rand_pcg::Pcg32;

    fn delta(masks: Vec<u8>) -> SnapshotDelta {
        let values = vec![1; implied_values(&masks)];
        SnapshotDelta {
            header: SnapshotHeader {
                tick: 900,
                ack_seq: 800,
                ..SnapshotHeader::default()
            },
            baseline_age: 3,
            removed: vec![],
            added: vec![],
            masks,
            values,
            events: vec![],
            near: false,
        }
    }

    fn bytes(d: &SnapshotDelta) -> Vec<u8> {
        let mut buf = Vec::new();
        codec::encode_server(&ServerMsg::Snapshot(d.clone()), &mut buf).unwrap();
        buf
    }

    /// The masks' size on the wire, their head (with an age of 3) included.
    fn masks_len(masks: &[u8]) -> usize {
        let mut out = Vec::new();
        put_masks(&mut out, masks, 3);
        out.len()
    }

    /// A head of `v` with an age of 3.
    fn head(v: u64) -> Vec<u8> {
        let mut out = Vec::new();
        put_varint(&mut out, v << 3 | 3);
        out
    }

    /// Masks of every density, with gaps longer than sixteen and trailing zeros, come
    /// back as they went, and never cost more than the dense form.
    #[test]
    fn masks_round_trip_in_the_shorter_form() {
        let mut rng = Pcg32::seed_from_u64(7);
        for round in 0..2000 {
            let len = rng.random_range(0..=MAX_MASK_BYTES);
            let density = rng.random_range(0..=16);
            let masks: Vec<u8> = (0..len)
                .map(|_| {
                    let mut nibble = || {
                        if rng.random_range(0..16) < density {
                            rng.random_range(1..16u8)
                        } else {
                            0
                        }
                    };
                    nibble() | nibble() << 4
                })
                .collect();
            let d = delta(masks.clone());
            let buf = bytes(&d);
            assert_eq!(codec::decode_server(&buf).unwrap(), ServerMsg::Snapshot(d));
            let dense = head(len as u64 * 2).len() + len;
            assert!(masks_len(&masks) <= dense, "round {round}: {masks:?}");
        }
    }

    /// Fourteen players of which two turned: the masks cost three bytes, not eight, the
    /// baseline age included; and a snapshot with nothing new is seven bytes in all.
    #[test]
    fn a_quiet_snapshot_is_small() {
        let masks = vec![0, 0x30, 0, 0, 0, 0, 0x04];
        // The head, then the two masks with their gaps.
        assert_eq!(masks_len(&masks), 3);
        // Flags (with the kind's bit), tick, ack, own body; masks; three one-byte values.
        assert_eq!(bytes(&delta(masks)).len(), 1 + 2 + 2 + 1 + 3 + 3);
        assert_eq!(bytes(&delta(vec![])).len(), 1 + 2 + 2 + 1 + 1);
        // Untrimmed masks go dense.
        assert_eq!(masks_len(&[0, 0x30, 0]), 4);
        // An age of 8 ticks or more, or none, takes a byte of its own.
        for age in [0, 8, 255] {
            let mut d = delta(vec![]);
            d.baseline_age = age;
            let buf = bytes(&d);
            assert_eq!(buf.len(), 1 + 2 + 2 + 1 + 1 + 1);
            assert_eq!(codec::decode_server(&buf).unwrap(), ServerMsg::Snapshot(d));
        }
    }

    /// A near snapshot (the receiver has one less than `NEAR_TICKS` older) spends a
    /// byte on its tick, one on its acknowledgement and one on its first event's seq,
    /// and widens back whole past 65,535; a far one spends two each.
    #[test]
    fn a_near_snapshot_carries_its_tick_and_ack_in_a_byte_each() {
        use crate::protocol::GameEvent;
        use crate::widen::Known;
        let mut d = delta(vec![]);
        (d.header.tick, d.header.ack_seq) = (70_000, 139_980);
        let chat = |text: &str| GameEvent::Chat {
            from: 1,
            text: text.to_owned(),
        };
        d.events = vec![(90_005, chat("a")), (90_006, chat("b"))];
        let far = bytes(&d).len();
        d.near = true;
        let buf = bytes(&d);
        assert_eq!(buf.len() + 3, far);
        let Ok(ServerMsg::Snapshot(mut got)) = codec::decode_server(&buf) else {
            panic!("a snapshot");
        };
        got.widen(&Known {
            tick: 70_000 - 63,
            ack: Some(139_980 + 64),
            next_event: 90_005 + 100,
        });
        assert_eq!(got, d);
    }

    /// Masks that claim more players than there can be, or that skip or point past the
    /// last one, are refused.
    #[test]
    fn hostile_masks_are_refused() {
        let quiet = bytes(&delta(vec![0; 2]));
        // Flags (with the kind's bit), tick, ack, own body: the masks head comes next (with the age, 3).
        let at = 1 + 2 + 2 + 1;
        assert_eq!(&quiet[at..], &[head(2 * 2), vec![0, 0]].concat()[..]);
        let with_masks = |parts: &[&[u8]]| {
            let mut b = quiet[..at].to_vec();
            b.extend_from_slice(&parts.concat());
            codec::decode_server(&b)
        };
        // 129 mask bytes, dense, all present.
        assert!(with_masks(&[&head(2 * 129), &[0; 129]]).is_err());
        assert!(with_masks(&[&head(2 * 128), &[0; 128]]).is_ok());
        // A head past 32 bits.
        assert!(with_masks(&[&[0xFF; 5], &[0x7F]]).is_err());
        // Sparse entries: one that names nobody, a skip at the end, a mask past any
        // player, one entry missing, a mask with nothing left for its value.
        assert!(with_masks(&[&head(3), &[0x00]]).is_err());
        assert!(with_masks(&[&head(5), &[0x21, 0x10]]).is_err());
        assert!(with_masks(&[&head(2 * 17 + 1), &[0xF0; 16], &[0x01]]).is_err());
        assert!(with_masks(&[&head(5), &[0x31]]).is_err());
        assert!(with_masks(&[&head(3), &[0x31]]).is_err());
        // The same mask with its value decodes.
        let ServerMsg::Snapshot(d) = with_masks(&[&head(3), &[0x31, 2]]).unwrap() else {
            panic!("a snapshot");
        };
        assert_eq!((d.masks, d.values), (vec![0, 0x10], vec![1]));
    }

    /// The own body's size on the wire, as the docs give it (docs/PROTOCOL.md, `OwnBody`):
    /// one byte of flags, one more while the weapon cools down for under 128 commands (a
    /// rail's 1.25 s is 75 commands at 60 Hz), two more from 128 on, three from 16,384.
    #[test]
    fn the_own_body_is_one_byte_and_one_more_while_cooling_down() {
        let mut d = delta(vec![]);
        let flags_only = bytes(&d).len();
        d.header.me = OwnBody {
            flags: 0xff,
            ready_in: 0,
        };
        assert_eq!(bytes(&d).len(), flags_only, "any flags are one byte");
        for (ready_in, extra) in [(75, 1), (127, 1), (128, 2), (16_384, 3), (u16::MAX, 3)] {
            d.header.me.ready_in = ready_in;
            let b = bytes(&d);
            assert_eq!(b.len(), flags_only + extra, "ready_in {ready_in}");
            let Ok(ServerMsg::Snapshot(back)) = codec::decode_server(&b) else {
                panic!("a snapshot");
            };
            assert_eq!(back.header.me, d.header.me);
        }
    }

    /// Serde never writes or reads a snapshot (only this module does): a message
    /// starting with serde's kind for one, its variant index 2, is refused, where the
    /// same bytes without it are a snapshot.
    #[test]
    fn serde_refuses_a_snapshot() {
        let mut buf = Vec::new();
        let msg = ServerMsg::Snapshot(delta(vec![]));
        assert!(codec::encode_state(&msg, &mut buf).is_err());
        let quiet = [SNAPSHOT, 0, 0, 0, 0, 0, 3];
        assert!(codec::decode_server(&quiet).is_ok());
        assert!(codec::decode_server(&[&[2], &quiet[..]].concat()).is_err());
    }

    /// A snapshot with every optional part and every kind of event.
    fn everything() -> SnapshotDelta {
        use crate::protocol::{GameEvent, MapChunk, MapInfo, PlayerStatus, RailShot};
        use netarena_sim::combat::{Projectile, Weapon};
        let mut d = delta(vec![0x31, 0, 0x0F]);
        d.header = SnapshotHeader {
            tick: 900,
            ack_seq: 800,
            echo_time_ms: 1234,
            echo_hold_ms: 300,
            inputs: Some(InputCounts {
                received: 70_000,
                high: 70_002,
            }),
            queued: 20,
            buffer_depth: 3,
            me: OwnBody {
                flags: 5,
                ready_in: 75,
            },
            withheld_total: 9,
        };
        d.removed = vec![4, 200];
        d.added = vec![PlayerSnap {
            id: 5,
            state: PlayerState {
                x: 5000,
                y: -1,
                vx: i32::MIN,
                vy: 38,
            },
        }];
        d.values.push(-70_000);
        let status = PlayerStatus {
            id: 9,
            health: -3,
            alive: true,
            frags: -2,
            deaths: 4,
            weapon: Weapon::Rail,
            protected: true,
        };
        let map = MapInfo {
            id: 0xDEAD_BEEF,
            len: 4000,
            chunks: 16,
        };
        let shot = Projectile {
            id: netarena_sim::step::shot_id(2, 40),
            owner: 2,
            born: 899,
            x: 5000,
            y: 7000,
            vx: 102,
            vy: -72,
        };
        let rail = RailShot {
            id: 3 << 8 | 7,
            shooter: 3,
            tick: 880,
            from: (100, 200),
            to: (9000, 200),
            hit: Some(4),
            tested_at: Some((5000, 200)),
            nearest: Some((6, (1, 2), (3, 4))),
            ..RailShot::default()
        };
        d.events = vec![
            (10, GameEvent::Status(status)),
            (12, GameEvent::Shot(shot)),
            (13, GameEvent::Shot(Projectile { x: -5, ..shot })),
            (
                14,
                GameEvent::ShotEnd {
                    id: shot.id,
                    tick: 900,
                    hit: None,
                },
            ),
            (
                15,
                GameEvent::ShotEnd {
                    id: 7,
                    tick: 2,
                    hit: Some(1),
                },
            ),
            (16, GameEvent::Rail(rail)),
            (
                17,
                GameEvent::Rail(RailShot {
                    to: (-1, 0),
                    ..rail
                }),
            ),
            (
                18,
                GameEvent::Kill {
                    killer: 1,
                    victim: 2,
                    weapon: Weapon::Blaster,
                },
            ),
            (
                19,
                GameEvent::Chat {
                    from: 1,
                    text: "héllo".into(),
                },
            ),
            (
                20,
                GameEvent::MatchStart {
                    map_name: "arena".into(),
                    map: Some(map),
                    started_tick: 5,
                    frag_limit: 20,
                    time_limit_secs: 600,
                },
            ),
            (
                21,
                GameEvent::MatchEnd {
                    winner: None,
                    standings: vec![status, status],
                    next_map: "duel".into(),
                },
            ),
            (
                22,
                GameEvent::MapChunk(MapChunk {
                    map,
                    index: 3,
                    data: b"#..#".to_vec(),
                }),
            ),
            (
                u32::MAX,
                GameEvent::TickRate {
                    tick_rate: 128,
                    snapshot_interval: 2,
                    from_tick: 901,
                    from_seq: 70_000,
                },
            ),
        ];
        d
    }

    /// Every part and every kind of event round-trips; the same bytes cut short at any
    /// point, with a byte more, or with any byte changed never panic the reader, and the
    /// cut and the longer ones are refused.
    #[test]
    fn every_part_round_trips_and_damage_is_refused_or_harmless() {
        let d = everything();
        let buf = bytes(&d);
        assert_eq!(read(&buf), Ok(d));
        for cut in 0..buf.len() {
            assert!(read(&buf[..cut]).is_err(), "cut at {cut}");
        }
        let mut longer = buf.clone();
        longer.push(0);
        assert_eq!(read(&longer), Err(Malformed("trailing bytes")));
        for at in 0..buf.len() {
            for flip in [1u8, 0x80, 0xFF] {
                let mut bad = buf.clone();
                bad[at] ^= flip;
                let _ = read(&bad);
            }
        }
    }

    /// What the lab meters a snapshot by: players, projectiles and other events as the
    /// writer writes them, so the rest of the datagram is exactly its header fields
    /// (flags, tick, ack, own body, echo) and the event list's framing (first seq,
    /// count, a seq jump).
    #[test]
    fn a_snapshots_parts_leave_exactly_its_headers() {
        use crate::protocol::{GameEvent, PlayerStatus};
        use netarena_sim::combat::{Projectile, Weapon};
        let header = |d: &SnapshotDelta| {
            let p = parts(d);
            bytes(d).len() - p.players - p.projectiles - p.events
        };
        let mut d = delta(vec![0, 0x30, 0, 0, 0, 0, 0x04]);
        // The masks and their three one-byte values.
        assert_eq!(
            parts(&d),
            SnapshotParts {
                players: 3 + 3,
                ..SnapshotParts::default()
            }
        );
        assert_eq!(header(&d), 1 + 2 + 2 + 1);
        // A player gone, one new, an age of its own, values with their count: all
        // players; the echo is a header.
        d.removed = vec![4];
        d.added = vec![PlayerSnap {
            id: 5,
            state: PlayerState::default(),
        }];
        d.baseline_age = 0;
        d.values.push(7);
        d.header.echo_time_ms = 1234;
        d.header.echo_hold_ms = 3;
        let before = parts(&d);
        // Six bytes, the second flags byte, the echo's three.
        assert_eq!(header(&d), 6 + 1 + 2 + 1);
        let shot = Projectile {
            id: netarena_sim::step::shot_id(2, 40),
            owner: 2,
            born: 899,
            x: 5000,
            y: 7000,
            vx: 102,
            vy: -72,
        };
        let status = PlayerStatus {
            id: 9,
            health: 75,
            alive: true,
            frags: 3,
            deaths: 4,
            weapon: Weapon::Rail,
            protected: false,
        };
        d.events = vec![
            (10, GameEvent::Status(status)),
            (12, GameEvent::Shot(shot)),
            (
                13,
                GameEvent::ShotEnd {
                    id: shot.id,
                    tick: 900,
                    hit: None,
                },
            ),
        ];
        let p = parts(&d);
        assert_eq!(p.players, before.players);
        assert!(p.projectiles > 0 && p.events > 0, "{p:?}");
        // The first seq, the list's count and the jump from 10 to 12.
        assert_eq!(header(&d), 6 + 1 + 3 + 2 + 1 + 2);
        let buf = bytes(&d);
        assert!(codec::decode_server(&buf).is_ok());
    }
}
