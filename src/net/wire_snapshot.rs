//! The wire form of a [`SnapshotDelta`]. Most snapshots carry no departed or new
//! players, no loss counts, an empty command queue and no events; one flags byte says
//! which of those follow instead of a length or tag byte each, the player values'
//! count comes from the masks, and event ticks count from the snapshot's tick. Every
//! delta, even one no server would send, round-trips exactly.

use std::fmt;

use serde::de::{self, SeqAccess, Visitor};
use serde::ser::SerializeTuple;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::protocol::{InputCounts, SnapshotDelta};
use super::wire_events::{self, Wire};

/// The echo of the client's clock (its low 16 bits: RTTs are far shorter than 65 s) and
/// how long the server held it follow; most snapshots carry none.
const ECHO: u8 = 1;
const INPUTS: u8 = 2;
const QUEUED: u8 = 4;
const REMOVED: u8 = 8;
const ADDED: u8 = 16;
/// The values' count is sent because it is not the masks' bit count.
const VALUES_LEN: u8 = 32;
const EVENTS: u8 = 64;

/// How many values the masks announce.
fn implied_values(masks: &[u8]) -> usize {
    masks.iter().map(|m| m.count_ones() as usize).sum()
}

impl Serialize for SnapshotDelta {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let implied = implied_values(&self.masks) == self.values.len();
        let flags = [
            (ECHO, self.echo_time_ms != 0),
            (INPUTS, self.inputs.is_some()),
            (QUEUED, self.queued != 0),
            (REMOVED, !self.removed.is_empty()),
            (ADDED, !self.added.is_empty()),
            (VALUES_LEN, !implied),
            (EVENTS, !self.events.is_empty()),
        ]
        .iter()
        .filter(|(_, on)| *on)
        .fold(0u8, |f, (bit, _)| f | bit);
        // Bincode writes no tuple length; the count only matters to self-describing formats.
        let mut t = s.serialize_tuple(17 + self.values.len())?;
        t.serialize_element(&flags)?;
        t.serialize_element(&self.tick)?;
        t.serialize_element(&self.baseline_age)?;
        t.serialize_element(&self.ack_seq)?;
        t.serialize_element(&self.me)?;
        if flags & ECHO != 0 {
            t.serialize_element(&(self.echo_time_ms as u16).to_le_bytes())?;
            t.serialize_element(&self.echo_hold_ms)?;
        }
        if let Some(i) = &self.inputs {
            t.serialize_element(i)?;
        }
        if flags & QUEUED != 0 {
            t.serialize_element(&self.queued)?;
        }
        if flags & REMOVED != 0 {
            t.serialize_element(&self.removed)?;
        }
        if flags & ADDED != 0 {
            t.serialize_element(&self.added)?;
        }
        t.serialize_element(&self.masks)?;
        if flags & VALUES_LEN != 0 {
            t.serialize_element(&self.values)?;
        } else {
            for v in &self.values {
                t.serialize_element(v)?;
            }
        }
        if flags & EVENTS != 0 {
            t.serialize_element(&wire_events::to_wire(&self.events, self.tick))?;
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
        if flags & 0x80 != 0 {
            return Err(de::Error::custom("unknown snapshot flags"));
        }
        let on = |bit: u8| flags & bit != 0;
        let tick = next(&mut seq, "tick")?;
        let baseline_age = next(&mut seq, "baseline age")?;
        let ack_seq = next(&mut seq, "ack")?;
        let me = next(&mut seq, "own body")?;
        let (echo_time_ms, echo_hold_ms) = if on(ECHO) {
            let echo: [u8; 2] = next(&mut seq, "echo")?;
            (u32::from(u16::from_le_bytes(echo)), next(&mut seq, "hold")?)
        } else {
            (0, 0)
        };
        let inputs: Option<InputCounts> = if on(INPUTS) {
            Some(next(&mut seq, "inputs")?)
        } else {
            None
        };
        let queued = if on(QUEUED) {
            next(&mut seq, "queue")?
        } else {
            0
        };
        let removed = if on(REMOVED) {
            next(&mut seq, "removed")?
        } else {
            Vec::new()
        };
        let added = if on(ADDED) {
            next(&mut seq, "added")?
        } else {
            Vec::new()
        };
        let masks: Vec<u8> = next(&mut seq, "masks")?;
        let values = if on(VALUES_LEN) {
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
            wire_events::from_wire(next::<Vec<Wire>, _>(&mut seq, "events")?, tick)
        } else {
            Vec::new()
        };
        Ok(SnapshotDelta {
            tick,
            baseline_age,
            ack_seq,
            echo_time_ms,
            echo_hold_ms,
            inputs,
            queued,
            me,
            removed,
            added,
            masks,
            values,
            events,
        })
    }
}

impl<'de> Deserialize<'de> for SnapshotDelta {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<SnapshotDelta, D::Error> {
        d.deserialize_tuple(usize::MAX, DeltaVisitor)
    }
}
