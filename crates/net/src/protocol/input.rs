//! What a client sends every input packet: its unacknowledged commands, packed in runs,
//! and the bounds a packet must keep before the server looks at its commands.

use serde::{Deserialize, Serialize};

use netarena_sim::world::Command;

/// Most unacknowledged commands one input packet may carry (~1 s at 60 Hz).
pub const MAX_COMMANDS_PER_INPUT: usize = 64;

/// A run of identical consecutive commands; held keys make long runs, so the redundant
/// window costs a few bytes whatever its length.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommandRun {
    pub cmd: Command,
    pub count: u8,
    /// How long each of its commands lasts: 0, one fixed tick; 1 to
    /// [`netarena_sim::step::MAX_SPAN`], a variable-rate command of that many
    /// sixteenths of a tick ([`netarena_sim::step::step_span`]). On the wire by
    /// `wire_input.rs`; left out of the serde form, which only measures runs for byte
    /// budgets (`codec::encoded_len`): a fixed-tick run measures as it always did, a
    /// variable-rate one two bytes short of its wire form.
    #[serde(skip)]
    pub span: u8,
}

/// Every command the server has not acknowledged yet, oldest first, ending at `last_seq`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct InputPacket {
    /// The client's clock when it sent this, echoed back for round-trip time.
    pub client_time_ms: u32,
    /// Counts input packets, so the server can tell the client how many went missing.
    pub packet_seq: u32,
    /// Newest snapshot tick the client has received.
    pub ack_tick: u32,
    /// Every game event up to this seq has arrived.
    pub event_ack: u32,
    /// The server tick the client was drawing remote players at when it made the newest
    /// command: where a rail shot is tested against (lag compensation).
    pub view_tick: u32,
    /// The client's smoothed RTT, for the scoreboard.
    pub rtt_ms: u16,
    pub last_seq: u32,
    pub runs: Vec<CommandRun>,
    /// Snapshots the client found missing so far, wrapping at 256: a rise tells the
    /// server its link dropped some (`server/delivery.rs`).
    pub snapshots_lost: u8,
    /// How long the client had held the snapshot of `ack_tick` when it sent this (ms,
    /// at most `u16::MAX`): the server takes it out of the round trip it judges its
    /// link's queue by (`server/delivery.rs`), as the snapshot's `echo_hold_ms` is
    /// taken out of the client's. Input packets go at a pace, slower on a thin link;
    /// that wait is no queue.
    pub ack_hold_ms: u16,
}

impl InputPacket {
    pub fn command_count(&self) -> usize {
        self.runs.iter().map(|r| usize::from(r.count)).sum()
    }

    /// Packs `(seq, command)` pairs of one fixed tick each, which must be consecutive
    /// and oldest first.
    pub fn pack(
        client_time_ms: u32,
        packet_seq: u32,
        ack_tick: u32,
        commands: impl IntoIterator<Item = (u32, Command)>,
    ) -> InputPacket {
        let timed = commands.into_iter().map(|(seq, cmd)| (seq, cmd, 0));
        InputPacket::pack_timed(client_time_ms, packet_seq, ack_tick, timed)
    }

    /// Packs `(seq, command, span)`, consecutive and oldest first: each command with
    /// how long it lasts ([`CommandRun::span`]).
    pub fn pack_timed(
        client_time_ms: u32,
        packet_seq: u32,
        ack_tick: u32,
        commands: impl IntoIterator<Item = (u32, Command, u8)>,
    ) -> InputPacket {
        let mut runs: Vec<CommandRun> = Vec::new();
        let mut last_seq = 0;
        for (seq, cmd, span) in commands {
            last_seq = seq;
            match runs.last_mut() {
                Some(run) if run.cmd == cmd && run.span == span && run.count < u8::MAX => {
                    run.count += 1
                }
                _ => runs.push(CommandRun {
                    cmd,
                    count: 1,
                    span,
                }),
            }
        }
        InputPacket {
            client_time_ms,
            packet_seq,
            ack_tick,
            event_ack: 0,
            view_tick: 0,
            rtt_ms: 0,
            last_seq,
            runs,
            snapshots_lost: 0,
            ack_hold_ms: 0,
        }
    }

    /// The commands with their seqs, oldest first. Only call on a validated packet.
    pub fn commands(&self) -> impl Iterator<Item = (u32, Command)> + '_ {
        self.timed_commands().map(|(seq, cmd, _)| (seq, cmd))
    }

    /// The commands with their seqs and spans, oldest first. Only call on a validated
    /// packet.
    pub fn timed_commands(&self) -> impl Iterator<Item = (u32, Command, u8)> + '_ {
        let first = self.last_seq + 1 - self.command_count() as u32;
        self.runs
            .iter()
            .flat_map(|r| std::iter::repeat_n((r.cmd, r.span), usize::from(r.count)))
            .enumerate()
            .map(move |(i, (cmd, span))| (first + i as u32, cmd, span))
    }
}

/// Why a decoded message is refused even though its bytes were well-formed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Invalid {
    #[error("input carries no commands or more than {MAX_COMMANDS_PER_INPUT}")]
    CommandCount,
    #[error("input run of zero commands")]
    EmptyRun,
    #[error("input seqs would start before 1")]
    SeqUnderflow,
    #[error("input seq absurdly large")]
    SeqOverflow,
}

impl InputPacket {
    pub fn validate(&self) -> Result<(), Invalid> {
        if self.runs.iter().any(|r| r.count == 0) {
            return Err(Invalid::EmptyRun);
        }
        let n = self.command_count();
        if n == 0 || n > MAX_COMMANDS_PER_INPUT {
            return Err(Invalid::CommandCount);
        }
        if (self.last_seq as usize) < n {
            return Err(Invalid::SeqUnderflow);
        }
        // Four years of commands at 240 Hz fit below this; anything above is a lie, and
        // keeping well clear of u32::MAX keeps seq arithmetic from overflowing.
        if self.last_seq > u32::MAX / 2 {
            return Err(Invalid::SeqOverflow);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use netarena_sim::world::Buttons;

    fn cmd(bits: u8) -> Command {
        Command::moving(Buttons::from_bits_truncate(bits))
    }

    #[test]
    fn runs_pack_and_unpack_the_same_commands() {
        let commands: Vec<(u32, Command)> = (40..100)
            .map(|seq| (seq, cmd(if seq % 17 < 9 { 1 } else { 8 })))
            .collect();
        let packet = InputPacket::pack(5, 1, 6, commands.clone());
        assert!(packet.runs.len() < 10);
        packet.validate().unwrap();
        assert_eq!(packet.commands().collect::<Vec<_>>(), commands);
    }

    #[test]
    fn hostile_inputs_are_invalid() {
        let run = |count| CommandRun {
            cmd: cmd(1),
            count,
            span: 0,
        };
        let mk = |last_seq, runs| InputPacket {
            client_time_ms: 0,
            packet_seq: 1,
            event_ack: 0,
            view_tick: 0,
            rtt_ms: 0,
            ack_tick: 0,
            last_seq,
            runs,
            snapshots_lost: 0,
            ack_hold_ms: 0,
        };
        assert_eq!(mk(10, vec![]).validate(), Err(Invalid::CommandCount));
        assert_eq!(mk(10, vec![run(0)]).validate(), Err(Invalid::EmptyRun));
        assert_eq!(mk(3, vec![run(5)]).validate(), Err(Invalid::SeqUnderflow));
        assert_eq!(
            mk(1000, vec![run(255)]).validate(),
            Err(Invalid::CommandCount)
        );
        assert_eq!(
            mk(u32::MAX, vec![run(1)]).validate(),
            Err(Invalid::SeqOverflow)
        );
    }
}
