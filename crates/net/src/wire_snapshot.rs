//! The wire form of a [`SnapshotDelta`]. Most snapshots carry no departed or new
//! players, no loss counts, an empty command queue, no cooldown and no events; one flags
//! byte, which is also the message's kind (its top bit set), says which of those follow
//! instead of a length or tag byte each, and a second flags byte follows only for the
//! rare ones. The queue's length and the jitter buffer's depth share a byte. The tick and
//! the acknowledged command travel as their low 16 bits (the receiver widens them, see
//! [`super::widen`]), the player values' count comes from the masks, the masks of
//! players that did what their baseline predicts are left out when that is shorter
//! (below), and event ticks count from the snapshot's tick. Every delta, even one no
//! server would send, round-trips exactly (up to the widening).
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

use std::fmt;

use serde::de::{self, SeqAccess, Visitor};
use serde::ser::SerializeTuple;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::protocol::{InputCounts, OwnBody, SnapshotDelta, SnapshotHeader};
use super::wire_events::{self, WireEvents};

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

/// How many values the masks announce.
fn implied_values(masks: &[u8]) -> usize {
    masks.iter().map(|m| m.count_ones() as usize).sum()
}

/// Mask `i` (two to a byte, low nibble first).
fn nibble(masks: &[u8], i: usize) -> u8 {
    (masks[i / 2] >> (4 * (i % 2))) & 0xF
}

/// The sparse form of `masks` (see the module doc): their trailing zeros are implied.
fn sparse(masks: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut gap = 0usize;
    for i in 0..masks.len() * 2 {
        let mask = nibble(masks, i);
        if mask == 0 {
            gap += 1;
            continue;
        }
        while gap > 15 {
            let long = (gap / 16).min(15);
            out.push((long as u8) << 4);
            gap -= long * 16;
        }
        out.push((gap as u8) << 4 | mask);
        gap = 0;
    }
    out
}

/// The masks' size on the wire, their count included, for benchmarks that say where the
/// bytes go.
pub fn masks_wire_len(masks: &[u8]) -> usize {
    let (head, body) = masks_form(masks);
    leb128(u64::from(head) << 3).len() + body.len()
}

/// `v` in 7-bit groups, low first, the top bit of each byte saying another follows:
/// one byte up to 127 (a bincode varint is one only up to 250, but three after).
fn leb128(mut v: u64) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let low = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(low);
            return out;
        }
        out.push(low | 0x80);
    }
}

/// Reads what [`leb128`] wrote, from at most five bytes (35 bits).
fn read_leb128<'de, A: SeqAccess<'de>>(seq: &mut A) -> Result<u64, A::Error> {
    let mut v = 0u64;
    for i in 0..5 {
        let b: u8 = next(seq, "masks head")?;
        v |= u64::from(b & 0x7f) << (7 * i);
        if b & 0x80 == 0 {
            return Ok(v);
        }
    }
    Err(de::Error::custom("masks head too long"))
}

/// The masks' head and the bytes that follow it, in the shorter form.
fn masks_form(masks: &[u8]) -> (u32, Vec<u8>) {
    let head = |n: usize, sparse: bool| {
        u32::try_from(n)
            .unwrap_or(u32::MAX)
            .saturating_mul(2)
            .saturating_add(u32::from(sparse))
    };
    if masks.last() != Some(&0) {
        let sparse = sparse(masks);
        if sparse.len() < masks.len() {
            return (head(sparse.len(), true), sparse);
        }
    }
    (head(masks.len(), false), masks.to_vec())
}

/// Where a snapshot's bytes go on the wire, each part as [`SnapshotDelta`]'s
/// serializer writes it in the codec's configuration: the players (departed, new, the
/// masks with the baseline age, the values), blaster projectiles (births and ends) and
/// the other events. The rest of its datagram is headers: the flags (which are its kind),
/// tick and ack, the own body, the echo and counts, and the event list's framing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SnapshotParts {
    pub players: usize,
    pub projectiles: usize,
    pub events: usize,
}

/// The parts of `d`'s wire form (see [`SnapshotParts`]).
pub fn parts(d: &SnapshotDelta) -> SnapshotParts {
    use super::codec::encoded_len;
    let listed = |n: usize, empty: bool| if empty { 0 } else { n };
    // The baseline age rides in the masks head's low bits, or takes a byte after it.
    let age = usize::from(!(1..=7).contains(&d.baseline_age));
    let values = if implied_values(&d.masks) == d.values.len() {
        d.values.iter().map(encoded_len).sum()
    } else {
        encoded_len(&d.values)
    };
    let players = listed(encoded_len(&d.removed), d.removed.is_empty())
        + listed(encoded_len(&d.added), d.added.is_empty())
        + masks_wire_len(&d.masks)
        + age
        + values;
    let (projectiles, events) = wire_events::kind_sizes(&d.events, d.header.tick);
    SnapshotParts {
        players,
        projectiles,
        events,
    }
}

fn tick16(v: u32) -> [u8; 2] {
    (v as u16).to_le_bytes()
}

impl Serialize for SnapshotDelta {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let implied = implied_values(&self.masks) == self.values.len();
        let pick = |bits: &[(u8, bool)]| {
            bits.iter()
                .filter(|(_, on)| *on)
                .fold(0u8, |f, (bit, _)| f | bit)
        };
        let rare = pick(&[
            (RARE_REMOVED, !self.removed.is_empty()),
            (RARE_ADDED, !self.added.is_empty()),
            (RARE_VALUES_LEN, !implied),
            (RARE_WITHHELD, self.header.withheld_total != 0),
        ]);
        let flags = SNAPSHOT
            | pick(&[
                (ECHO, self.header.echo_time_ms != 0),
                (INPUTS, self.header.inputs.is_some()),
                (
                    QUEUED,
                    self.header.queued != 0 || self.header.buffer_depth != 0,
                ),
                (RARE, rare != 0),
                (EVENTS, !self.events.is_empty()),
                (READY_IN, self.header.me.ready_in != 0),
                (NEAR, self.near),
            ]);
        let (head, masks) = masks_form(&self.masks);
        // Bincode writes no tuple length; the count only matters to self-describing formats.
        let mut t = s.serialize_tuple(16 + masks.len() + self.values.len())?;
        t.serialize_element(&flags)?;
        if flags & RARE != 0 {
            t.serialize_element(&rare)?;
        }
        if self.near {
            t.serialize_element(&(self.header.tick as u8))?;
            t.serialize_element(&(self.header.ack_seq as u8))?;
        } else {
            t.serialize_element(&tick16(self.header.tick))?;
            t.serialize_element(&tick16(self.header.ack_seq))?;
        }
        t.serialize_element(&self.header.me.flags)?;
        if flags & READY_IN != 0 {
            t.serialize_element(&self.header.me.ready_in)?;
        }
        if flags & ECHO != 0 {
            t.serialize_element(&tick16(self.header.echo_time_ms))?;
            t.serialize_element(&self.header.echo_hold_ms)?;
        }
        if let Some(i) = &self.header.inputs {
            t.serialize_element(i)?;
        }
        if flags & QUEUED != 0 {
            if self.header.queued < QUEUE_ESCAPE && self.header.buffer_depth < 16 {
                t.serialize_element(&(self.header.queued | self.header.buffer_depth << 4))?;
            } else {
                t.serialize_element(&QUEUE_ESCAPE)?;
                t.serialize_element(&self.header.queued)?;
                t.serialize_element(&self.header.buffer_depth)?;
            }
        }
        if rare & RARE_WITHHELD != 0 {
            t.serialize_element(&self.header.withheld_total)?;
        }
        if rare & RARE_REMOVED != 0 {
            t.serialize_element(&self.removed)?;
        }
        if rare & RARE_ADDED != 0 {
            t.serialize_element(&self.added)?;
        }
        // A baseline age of 1 to 7 ticks rides in the masks head's low three bits;
        // any other (0: none) follows it.
        let inline = (1..=7).contains(&self.baseline_age);
        let code = if inline { self.baseline_age } else { 0 };
        for b in leb128(u64::from(head) << 3 | u64::from(code)) {
            t.serialize_element(&b)?;
        }
        if !inline {
            t.serialize_element(&self.baseline_age)?;
        }
        for m in &masks {
            t.serialize_element(m)?;
        }
        if rare & RARE_VALUES_LEN != 0 {
            t.serialize_element(&self.values)?;
        } else {
            for v in &self.values {
                t.serialize_element(v)?;
            }
        }
        if flags & EVENTS != 0 {
            let wire = wire_events::to_wire(&self.events, self.header.tick);
            if self.near {
                // The first seq's low byte only, as the tick's.
                t.serialize_element(&wire.first[0])?;
                t.serialize_element(&wire.list)?;
            } else {
                t.serialize_element(&wire)?;
            }
        }
        t.end()
    }
}

struct DeltaVisitor;

/// The next element, or an error naming what was missing.
fn next<'de, T: Deserialize<'de>, A: SeqAccess<'de>>(
    seq: &mut A,
    what: &'static str,
) -> Result<T, A::Error> {
    seq.next_element()?
        .ok_or_else(|| de::Error::custom(format_args!("snapshot without {what}")))
}

impl<'de> Visitor<'de> for DeltaVisitor {
    type Value = SnapshotDelta;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a snapshot delta")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<SnapshotDelta, A::Error> {
        let flags: u8 = next(&mut seq, "flags")?;
        if flags & SNAPSHOT == 0 {
            return Err(de::Error::custom("not a snapshot"));
        }
        let rare: u8 = if flags & RARE != 0 {
            next(&mut seq, "second flags")?
        } else {
            0
        };
        let on = |bit: u8| flags & bit != 0;
        let rare_on = |bit: u8| rare & bit != 0;
        let short = |b: [u8; 2]| u32::from(u16::from_le_bytes(b));
        let near = on(NEAR);
        let (tick, ack_seq) = if near {
            let tick: u8 = next(&mut seq, "tick")?;
            let ack: u8 = next(&mut seq, "ack")?;
            (u32::from(tick), u32::from(ack))
        } else {
            (
                short(next(&mut seq, "tick")?),
                short(next(&mut seq, "ack")?),
            )
        };
        let me = OwnBody {
            flags: next(&mut seq, "own body")?,
            ready_in: if on(READY_IN) {
                next(&mut seq, "cooldown")?
            } else {
                0
            },
        };
        let (echo_time_ms, echo_hold_ms) = if on(ECHO) {
            (short(next(&mut seq, "echo")?), next(&mut seq, "hold")?)
        } else {
            (0, 0)
        };
        let inputs: Option<InputCounts> = if on(INPUTS) {
            Some(next(&mut seq, "inputs")?)
        } else {
            None
        };
        let (queued, buffer_depth) = if on(QUEUED) {
            match next::<u8, _>(&mut seq, "queue")? {
                b if b & 0xF == QUEUE_ESCAPE => {
                    (next(&mut seq, "queue")?, next(&mut seq, "buffer depth")?)
                }
                b => (b & 0xF, b >> 4),
            }
        } else {
            (0, 0)
        };
        let withheld_total = if rare_on(RARE_WITHHELD) {
            next(&mut seq, "withheld")?
        } else {
            0
        };
        let removed = if rare_on(RARE_REMOVED) {
            next(&mut seq, "removed")?
        } else {
            Vec::new()
        };
        let added = if rare_on(RARE_ADDED) {
            next(&mut seq, "added")?
        } else {
            Vec::new()
        };
        let head = read_leb128(&mut seq)?;
        let baseline_age = match (head & 7) as u8 {
            0 => next(&mut seq, "baseline age")?,
            age => age,
        };
        let masks = masks(&mut seq, head >> 3)?;
        let values = if rare_on(RARE_VALUES_LEN) {
            next(&mut seq, "values")?
        } else {
            // Each value takes at least a byte, so a lying mask count runs out of input
            // long before it could allocate much.
            let mut values = Vec::new();
            for _ in 0..implied_values(&masks) {
                values.push(next(&mut seq, "values")?);
            }
            values
        };
        let events = if on(EVENTS) {
            let wire = if near {
                WireEvents {
                    first: [next(&mut seq, "first event")?, 0],
                    list: next(&mut seq, "events")?,
                }
            } else {
                next(&mut seq, "events")?
            };
            wire_events::from_wire(wire, tick)
        } else {
            Vec::new()
        };
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
}

/// The masks in either form, at most [`MAX_MASK_BYTES`] of them.
fn masks<'de, A: SeqAccess<'de>>(seq: &mut A, head: u64) -> Result<Vec<u8>, A::Error> {
    let len = usize::try_from(head / 2).unwrap_or(usize::MAX);
    if head.is_multiple_of(2) {
        if len > MAX_MASK_BYTES {
            return Err(de::Error::custom("more masks than players"));
        }
        let mut masks = vec![0u8; len];
        for m in &mut masks {
            *m = next(seq, "mask")?;
        }
        return Ok(masks);
    }
    // Each entry is a byte of input, read one at a time: a lying count runs out of
    // input, and positions stay within the players there can be.
    let mut masks = Vec::new();
    let mut at = 0;
    for i in 0..len {
        let b: u8 = next(seq, "mask")?;
        let (skip, mask) = (usize::from(b >> 4), b & 0xF);
        if mask == 0 {
            if skip == 0 || i + 1 == len {
                return Err(de::Error::custom("a mask entry that names nobody"));
            }
            at += 16 * skip;
        } else {
            at += skip;
            if at >= 2 * MAX_MASK_BYTES {
                return Err(de::Error::custom("more masks than players"));
            }
            masks.resize(at / 2 + 1, 0);
            masks[at / 2] |= mask << (4 * (at % 2));
            at += 1;
        }
    }
    Ok(masks)
}

impl<'de> Deserialize<'de> for SnapshotDelta {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<SnapshotDelta, D::Error> {
        d.deserialize_tuple(usize::MAX, DeltaVisitor)
    }
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
                echo_time_ms: 0,
                echo_hold_ms: 0,
                inputs: None,
                queued: 0,
                buffer_depth: 0,
                me: OwnBody::default(),
                withheld_total: 0,
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
            let dense = leb128((len as u64 * 2) << 3).len() + len;
            assert!(masks_wire_len(&masks) <= dense, "round {round}: {masks:?}");
        }
    }

    /// Fourteen players of which two turned: the masks cost three bytes, not eight, the
    /// baseline age included; and a snapshot with nothing new is seven bytes in all.
    #[test]
    fn a_quiet_snapshot_is_small() {
        let masks = vec![0, 0x30, 0, 0, 0, 0, 0x04];
        // The head, then the two masks with their gaps.
        assert_eq!(masks_wire_len(&masks), 3);
        // Flags (with the kind's bit), tick, ack, own body; masks; three one-byte values.
        assert_eq!(bytes(&delta(masks)).len(), 1 + 2 + 2 + 1 + 3 + 3);
        assert_eq!(bytes(&delta(vec![])).len(), 1 + 2 + 2 + 1 + 1);
        // Untrimmed masks go dense.
        assert_eq!(masks_wire_len(&[0, 0x30, 0]), 4);
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
        let head = |v: u64| leb128(v << 3 | 3);
        assert_eq!(&quiet[at..], &[head(2 * 2), vec![0, 0]].concat()[..]);
        let with_masks = |parts: &[&[u8]]| {
            let mut b = quiet[..at].to_vec();
            b.extend_from_slice(&parts.concat());
            codec::decode_server(&b)
        };
        // 129 mask bytes, dense, all present.
        assert!(with_masks(&[&head(2 * 129), &[0; 129]]).is_err());
        assert!(with_masks(&[&head(2 * 128), &[0; 128]]).is_ok());
        // A head of more than five bytes.
        assert!(with_masks(&[&[0x80; 5], &[0]]).is_err());
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
    /// one byte of flags, one more while the weapon cools down (a rail's 1.25 s is 75
    /// commands at 60 Hz), three more from 251 commands on.
    #[test]
    fn the_own_body_is_one_byte_and_one_more_while_cooling_down() {
        let mut d = delta(vec![]);
        let flags_only = bytes(&d).len();
        d.header.me = OwnBody {
            flags: 0xff,
            ready_in: 0,
        };
        assert_eq!(bytes(&d).len(), flags_only, "any flags are one byte");
        for (ready_in, extra) in [(75, 1), (250, 1), (251, 3), (u16::MAX, 3)] {
            d.header.me.ready_in = ready_in;
            let b = bytes(&d);
            assert_eq!(b.len(), flags_only + extra, "ready_in {ready_in}");
            let Ok(ServerMsg::Snapshot(back)) = codec::decode_server(&b) else {
                panic!("a snapshot");
            };
            assert_eq!(back.header.me, d.header.me);
        }
    }

    /// What the lab meters a snapshot by: players, projectiles and other events as the
    /// serializer writes them, so the rest of the datagram is exactly its header
    /// fields (flags, tick, ack, own body, echo) and the event list's framing
    /// (first seq, length, a seq jump).
    #[test]
    fn a_snapshots_parts_leave_exactly_its_headers() {
        use crate::protocol::{GameEvent, PlayerSnap, PlayerStatus};
        use netarena_sim::combat::{Projectile, Weapon};
        use netarena_sim::world::PlayerState;
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
        // The first seq, the list's length and the jump from 10 to 12.
        assert_eq!(header(&d), 6 + 1 + 3 + 2 + 1 + 2);
        let buf = bytes(&d);
        assert!(codec::decode_server(&buf).is_ok());
    }
}
