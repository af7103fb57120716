//! The wire form of an [`InputPacket`], written by hand: a client sends thirty or more
//! a second, each sealed with 19 bytes and carried with 28 more, so every byte of its
//! own is about 30 B/s of uplink.
//!
//! After the message's kind byte (written by the codec): a head byte (bit 0: the clock
//! follows; bit 1: the loss count follows; bits 2-7: the number of command runs, 63
//! saying a byte with the number follows), then the packet seq, the acknowledged tick
//! and the last command seq as their low 16 bits (two bytes each, little-endian: the
//! server widens them against what it knows, [`InputPacket::widen`]), the event
//! acknowledgement likewise, the view tick as a zigzag LEB128 difference from the
//! acknowledged tick (one byte within 63 ticks), the RTT and the snapshot hold time as
//! LEB128 (one byte below 128 ms), the clock's low 16 bits when the head says so (only
//! packets the server echoes need it: [`InputPacket::echoed`]), the loss count when it
//! is not zero, and each run: the buttons, a byte with the aim in its low nibble and the
//! weapon in its high one (aim 15 saying both follow in a byte each), and the count.
//! Every packet round-trips exactly up to the widening, the clock a packet that is not
//! echoed leaves out, and button bits no command may carry.

use netarena_sim::world::{Buttons, Command};

use super::codec::put_varint;
use super::protocol::{CommandRun, InputPacket};
use super::wire_fields::{Malformed, Reader, put_signed, put16};

const CLOCK: u8 = 1;
const LOST: u8 = 2;
const RUNS_SHIFT: u8 = 2;
/// A run count of this or more follows the head in a byte of its own.
const RUNS_ESCAPE: u8 = 63;
/// An aim nibble saying the weapon and the aim follow in full.
const AIM_ESCAPE: u8 = 15;
/// An aim nibble saying the weapon, the aim and the span follow (no valid aim is 14:
/// aims are 0 to 7, and a stray 14 goes by [`AIM_ESCAPE`]).
const SPAN_ESCAPE: u8 = 14;

/// Every how many input packets (by seq) the server echoes the clock for the RTT; the
/// others leave it out.
pub const ECHO_MARK: u32 = 4;

impl InputPacket {
    /// Whether the server echoes this packet's clock (its seq is a multiple of
    /// [`ECHO_MARK`]); only those carry it on the wire.
    pub fn echoed(&self) -> bool {
        self.packet_seq.is_multiple_of(ECHO_MARK)
    }
}

/// Appends `p`'s wire form (without the kind byte) to `out`.
pub(crate) fn write(p: &InputPacket, out: &mut Vec<u8>) {
    let clock = p.echoed();
    let runs = p.runs.len();
    let mut head = u8::try_from(runs).unwrap_or(u8::MAX).min(RUNS_ESCAPE) << RUNS_SHIFT;
    if clock {
        head |= CLOCK;
    }
    if p.snapshots_lost != 0 {
        head |= LOST;
    }
    out.push(head);
    if runs >= usize::from(RUNS_ESCAPE) {
        // The codec's datagram limit refuses a packet with more runs than a byte counts.
        out.push(u8::try_from(runs).unwrap_or(u8::MAX));
    }
    put16(out, p.packet_seq);
    put16(out, p.ack_tick);
    put16(out, p.last_seq);
    put16(out, p.event_ack);
    put_signed(out, p.view_tick.wrapping_sub(p.ack_tick) as i32);
    put_varint(out, u64::from(p.rtt_ms));
    put_varint(out, u64::from(p.ack_hold_ms));
    if clock {
        put16(out, p.client_time_ms);
    }
    if p.snapshots_lost != 0 {
        out.push(p.snapshots_lost);
    }
    for run in &p.runs {
        let Command {
            buttons,
            weapon,
            aim,
        } = run.cmd;
        out.push(buttons.bits());
        if run.span != 0 {
            out.extend_from_slice(&[SPAN_ESCAPE, weapon, aim, run.span]);
        } else if aim < SPAN_ESCAPE && weapon < 16 {
            out.push(aim | weapon << 4);
        } else {
            out.extend_from_slice(&[AIM_ESCAPE, weapon, aim]);
        }
        out.push(run.count);
    }
}

/// The wire form's length (without the kind byte).
pub(crate) fn len(p: &InputPacket) -> usize {
    let mut out = Vec::with_capacity(64);
    write(p, &mut out);
    out.len()
}

/// Reads what [`write`] wrote: the whole of `bytes`, and nothing after it. Counters come
/// back as their low 16 bits (the view tick as the low bits of its own), the clock as 0
/// when it was left out.
pub(crate) fn read(bytes: &[u8]) -> Result<InputPacket, Malformed> {
    let mut r = Reader::new(bytes);
    let head = r.u8("head")?;
    let mut runs = usize::from(head >> RUNS_SHIFT);
    if runs == usize::from(RUNS_ESCAPE) {
        runs = usize::from(r.u8("run count")?);
    }
    let packet_seq = r.u16("packet seq")?;
    let ack_tick = r.u16("acknowledged tick")?;
    let last_seq = r.u16("last seq")?;
    let event_ack = r.u16("event acknowledgement")?;
    let view_tick = ack_tick.wrapping_add(r.signed("view tick")? as u32);
    let rtt_ms = r.u16_number("rtt")?;
    let ack_hold_ms = r.u16_number("hold")?;
    let client_time_ms = if head & CLOCK != 0 {
        r.u16("clock")?
    } else {
        0
    };
    let snapshots_lost = if head & LOST != 0 {
        r.u8("loss count")?
    } else {
        0
    };
    let mut list = Vec::with_capacity(runs.min(bytes.len() / 3));
    for _ in 0..runs {
        let buttons = Buttons::from_bits_truncate(r.u8("buttons")?);
        let packed = r.u8("aim")?;
        let (weapon, aim, span) = match packed & 0xF {
            AIM_ESCAPE => (r.u8("weapon")?, r.u8("aim")?, 0),
            SPAN_ESCAPE => (r.u8("weapon")?, r.u8("aim")?, r.u8("span")?),
            _ => (packed >> 4, packed & 0xF, 0),
        };
        let count = r.u8("run length")?;
        list.push(CommandRun {
            cmd: Command {
                buttons,
                weapon,
                aim,
            },
            count,
            span,
        });
    }
    r.end()?;
    Ok(InputPacket {
        client_time_ms,
        packet_seq,
        ack_tick,
        event_ack,
        view_tick,
        rtt_ms,
        last_seq,
        runs: list,
        snapshots_lost,
        ack_hold_ms,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec;
    use crate::protocol::ClientMsg;
    use crate::widen::KnownInput;

    /// A client 18 minutes into a 60 Hz match (its counters past 65,535) holding one
    /// key: two bytes a counter, one for the view, the RTT and the hold, the clock only
    /// on an echoed packet, two bytes a command; the server gets it back whole.
    #[test]
    fn an_input_packet_travels_small_and_widens_whole() {
        for (packet_seq, clock) in [(70_012, 2), (70_013, 0)] {
            let mut sent = InputPacket::pack(
                70_123,
                packet_seq,
                70_003,
                (139_990..=140_000).map(|seq| (seq, Command::default())),
            );
            sent.event_ack = 90_000;
            sent.view_tick = 69_997;
            sent.rtt_ms = 48;
            sent.ack_hold_ms = 20;
            let mut buf = Vec::new();
            codec::encode_client(&ClientMsg::Input(sent.clone()), &mut buf).unwrap();
            // Kind, head; packet, ack tick, last seq, event ack; view, RTT, hold; the
            // clock; one run (buttons, aim and weapon, count).
            assert_eq!(buf.len(), 1 + 1 + 4 * 2 + 3 + clock + 3, "{packet_seq}");
            let Ok(ClientMsg::Input(mut got)) = codec::decode_client(&buf) else {
                panic!("an input packet");
            };
            got.widen(&KnownInput {
                tick: 70_005,
                packet: 70_000,
                command: 139_950,
                event: 90_010,
            });
            if clock == 0 {
                assert_eq!(got.client_time_ms, 0, "no clock on a packet not echoed");
            } else {
                assert_eq!(got.client_time_ms, 70_123 & 0xffff, "the clock as echoed");
            }
            got.client_time_ms = sent.client_time_ms;
            assert_eq!(got, sent);
        }
    }

    /// Commands of every field's range, a loss count, many runs: they come back as they
    /// went; cut short or with a byte too many, the packet is refused.
    #[test]
    fn every_packet_round_trips_and_a_damaged_one_is_refused() {
        let mut p = InputPacket::pack_timed(
            4,
            8,
            300,
            (1..=64).map(|seq| {
                let cmd = Command {
                    buttons: Buttons::from_bits_truncate(seq as u8),
                    weapon: (seq % 3) as u8 * 9,
                    aim: (seq % 20) as u8,
                };
                // Fixed ticks and variable-rate commands of every length, mixed.
                (
                    seq,
                    cmd,
                    if seq % 4 == 2 {
                        0
                    } else {
                        (seq * 7 % 256) as u8
                    },
                )
            }),
        );
        p.snapshots_lost = 9;
        p.view_tick = 0;
        p.rtt_ms = u16::MAX;
        assert_eq!(p.runs.len(), 64);
        assert!(
            p.runs
                .iter()
                .any(|r| r.span == 0 && r.cmd.aim == SPAN_ESCAPE)
        );
        let mut buf = Vec::new();
        codec::encode_client(&ClientMsg::Input(p.clone()), &mut buf).unwrap();
        assert_eq!(
            codec::decode_client(&buf).unwrap(),
            ClientMsg::Input(p.clone())
        );
        assert!(codec::decode_client(&buf[..buf.len() - 1]).is_err());
        buf.push(0);
        assert!(codec::decode_client(&buf).is_err());
    }
}
