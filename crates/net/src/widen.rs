//! Counters that travel as their low 16 bits. A snapshot's tick, its acknowledged
//! command seq and the seq of its first event all count up, and the receiver always
//! knows a value close to each (its newest snapshot's tick, its newest command, the next
//! event it expects): two bytes instead of a three- to five-byte varint, and it stays
//! two bytes however long the server runs. The receiver widens each to the full value
//! nearest to what it knows, which is right while the two lie less than 32,768 apart
//! (over nine minutes of ticks at 60 Hz; commands and events are far closer).
#![doc(hidden)] // Public for the binary, tests or fuzz targets: see the crate docs.

use super::protocol::{GameEvent, InputPacket, SnapshotDelta};

/// The full value whose low 16 bits are those of `wire` and which lies nearest to
/// `known` (within -32,768..=32,767 of it), wrapping at the ends of `u32`.
pub fn widen16(known: u32, wire: u32) -> u32 {
    let diff = (wire as u16).wrapping_sub(known as u16) as i16;
    known.wrapping_add(diff as i32 as u32)
}

/// The full value whose low 8 bits are those of `wire` and which lies nearest to
/// `known` (within -128..=127 of it), wrapping at the ends of `u32`.
pub(crate) fn widen8(known: u32, wire: u32) -> u32 {
    let diff = (wire as u8).wrapping_sub(known as u8) as i8;
    known.wrapping_add(diff as i32 as u32)
}

/// A snapshot's acknowledgement as it came from the wire, widened against `known` (an
/// acknowledgement at most 127 behind or ahead of it), for an onlooker that widens
/// nothing else.
pub fn ack_of(d: &SnapshotDelta, known: u32) -> u32 {
    if d.near {
        widen8(known, d.header.ack_seq)
    } else {
        widen16(known, d.header.ack_seq)
    }
}

/// What a receiver knows to widen a snapshot's counters against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Known {
    /// The newest snapshot tick it has (before any: the welcome's server tick).
    pub tick: u32,
    /// The newest command seq it made, or the newest acknowledgement it received;
    /// None before either, when the acknowledgement is taken as it came.
    pub ack: Option<u32>,
    /// The next game event seq it expects.
    pub next_event: u32,
}

impl SnapshotDelta {
    /// Widens the tick, the acknowledgement and the event seqs of a snapshot decoded
    /// from the wire, and moves the event ticks that travel as differences from the
    /// snapshot's tick along with it. A snapshot whose values are already whole and near
    /// `known` is left as it is.
    pub fn widen(&mut self, known: &Known) {
        // A near snapshot's tick and acknowledgement came as their low 8 bits.
        let widen = if self.near { widen8 } else { widen16 };
        let tick = widen(known.tick, self.header.tick);
        let shift = tick.wrapping_sub(self.header.tick);
        self.header.tick = tick;
        if let Some(ack) = known.ack {
            self.header.ack_seq = widen(ack, self.header.ack_seq);
        }
        let Some(&(first, _)) = self.events.first() else {
            return;
        };
        let seq_shift = widen(known.next_event, first).wrapping_sub(first);
        for (seq, event) in &mut self.events {
            *seq = seq.wrapping_add(seq_shift);
            shift_relative_ticks(event, shift);
        }
    }
}

/// What the server knows to widen a client's input packet against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KnownInput {
    /// The server's tick: the newest a snapshot or a view can be of.
    pub tick: u32,
    /// The highest input packet seq received from this client.
    pub packet: u32,
    /// The client's last command applied.
    pub command: u32,
    /// The newest game event seq made for this client.
    pub event: u32,
}

impl InputPacket {
    /// Widens the ticks and seqs of a packet decoded from the wire (their low 16 bits,
    /// see [`super::wire_input`]) to the full values nearest what the server knows. The
    /// clock stays as it came: only its low 16 bits are echoed.
    pub fn widen(&mut self, known: &KnownInput) {
        self.packet_seq = widen16(known.packet, self.packet_seq);
        self.ack_tick = widen16(known.tick, self.ack_tick);
        self.view_tick = widen16(known.tick, self.view_tick);
        self.last_seq = widen16(known.command, self.last_seq);
        self.event_ack = widen16(known.event, self.event_ack);
    }
}

/// Moves the event ticks that travel relative to the snapshot's tick (see
/// [`super::wire_events`]) by `shift`.
fn shift_relative_ticks(event: &mut GameEvent, shift: u32) {
    match event {
        GameEvent::Shot(p) => p.born = p.born.wrapping_add(shift),
        GameEvent::ShotEnd { tick, .. } => *tick = tick.wrapping_add(shift),
        GameEvent::Rail(r) => r.tick = r.tick.wrapping_add(shift),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widening_finds_the_nearest_value_across_wraps() {
        for (known, truth) in [
            (0, 0),
            (1000, 1003),
            (70_000, 69_990),
            // Across a 16-bit wrap, both ways.
            (65_534, 65_537),
            (65_537, 65_534),
            (131_071, 131_072),
            // Across the u32 wrap.
            (u32::MAX, 2),
            (3, u32::MAX - 1),
            // As far apart as it works.
            (100_000, 100_000 + 32_767),
            (100_000, 100_000 - 32_768),
        ] {
            assert_eq!(widen16(known, truth & 0xffff), truth, "{known} {truth}");
            // A value that is already whole comes back unchanged.
            assert_eq!(widen16(known, truth), truth, "{known} {truth}");
        }
        // Further apart, it is wrong by 65,536: the limit the module doc states.
        assert_eq!(
            widen16(100_000, (100_000 + 32_768) & 0xffff),
            100_000 - 32_768
        );
    }
}
