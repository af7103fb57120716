//! When to send an input packet. Commands are made every tick, but while the buttons
//! stay the same a packet goes only at the input rate (each carries every command the
//! server has not acknowledged, so nothing is lost by waiting); a change goes at once,
//! so starting and stopping reach the server without delay.
//!
//! On a thin link (the server is holding snapshots back for it, see
//! `server/delivery.rs`) the packets are what fills the uplink: then they go at half
//! the input rate, changes included, and every packet's redundant window is bounded
//! by bytes as well as by count ([`bound_redundancy`]), so a slow acknowledgement
//! cannot make each packet larger and the uplink more congested still.

use crate::net::codec;
use crate::net::protocol::InputPacket;
use crate::sim::world::Command;

/// Most bytes of command runs one input packet carries: the newest commands are kept.
/// Held keys cost two bytes a run, so this covers a second of them; a fight's changing
/// keys and aim, a few hundred milliseconds.
pub(crate) const MAX_RUN_BYTES: usize = 48;

/// Drops the oldest commands of `input` until its runs take at most [`MAX_RUN_BYTES`]
/// (the newest run always stays). An older command the server lacks is then lost,
/// which a correction repairs; a packet that grows with the backlog would congest the
/// link it waits on.
pub(crate) fn bound_redundancy(input: &mut InputPacket) {
    let mut bytes = codec::encoded_len(&input.runs);
    let mut drop = 0;
    while bytes > MAX_RUN_BYTES && drop + 1 < input.runs.len() {
        bytes -= codec::encoded_len(&input.runs[drop]);
        drop += 1;
    }
    input.runs.drain(..drop);
}

/// An input packet that is due.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Due {
    /// Its number, from 1.
    pub(crate) number: u32,
    /// Command slots since the previous packet: the commands no packet has carried yet.
    pub(crate) fresh: u32,
    /// Command slots between packets while the buttons stay the same.
    spacing: u32,
}

impl Due {
    /// How many of the newest commands this packet carries so that each command rides
    /// in `copies` packets: the fresh ones, which no packet has carried (so none is
    /// left unsent, whatever `copies` is), and those of the `copies - 1` packets before
    /// it, each at most `spacing` slots apart.
    pub(crate) fn window(self, copies: u8) -> usize {
        let older = u32::from(copies.max(1) - 1).saturating_mul(self.spacing);
        self.fresh.saturating_add(older) as usize
    }
}

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub(crate) struct InputPacer {
    /// Command ticks per input packet, when the buttons do not change.
    interval: u32,
    unsent_ticks: u32,
    packets_sent: u32,
    last_command: Option<Command>,
}

fn interval(tick_rate: u16, input_rate: u16) -> u32 {
    u32::from((tick_rate / input_rate.max(1)).max(1))
}

impl InputPacer {
    pub(crate) fn new(tick_rate: u16, input_rate: u16) -> InputPacer {
        InputPacer {
            interval: interval(tick_rate, input_rate),
            unsent_ticks: 0,
            packets_sent: 0,
            last_command: None,
        }
    }

    pub(crate) fn set_rate(&mut self, tick_rate: u16, input_rate: u16) {
        self.interval = interval(tick_rate, input_rate);
    }

    /// Whether the packet for this tick's command is due, and if so which (see
    /// [`Due`]). On a `thin` link packets go at half the rate, changes too.
    pub(crate) fn due(&mut self, cmd: Command, thin: bool) -> Option<Due> {
        self.unsent_ticks += 1;
        let changed = self.last_command != Some(cmd);
        self.last_command = Some(cmd);
        let interval = self.spacing(thin);
        if (!changed || thin) && self.unsent_ticks < interval {
            return None;
        }
        Some(self.send(interval))
    }

    /// Command ticks between packets while the buttons stay the same.
    fn spacing(&self, thin: bool) -> u32 {
        if thin {
            self.interval * 2
        } else {
            self.interval
        }
    }

    fn send(&mut self, spacing: u32) -> Due {
        let fresh = std::mem::take(&mut self.unsent_ticks);
        self.packets_sent += 1;
        Due {
            number: self.packets_sent,
            fresh,
            spacing,
        }
    }

    /// Whether a packet is due on a tick that made no command (held or skipped, see
    /// [`super::outage`]): the unacknowledged ones are resent at the input rate, so
    /// the server has them the moment a broken link comes back.
    pub(crate) fn resend_due(&mut self) -> Option<Due> {
        self.unsent_ticks += 1;
        if self.unsent_ticks < self.interval {
            return None;
        }
        Some(self.send(self.interval))
    }

    /// The newest command made.
    pub(crate) fn last_command(&self) -> Option<Command> {
        self.last_command
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::world::Buttons;

    #[test]
    fn unchanged_commands_wait_for_the_rate_changes_go_at_once() {
        let mut p = InputPacer::new(60, 30);
        let still = Command::default();
        let sent: Vec<bool> = (0..5).map(|_| p.due(still, false).is_some()).collect();
        assert_eq!(sent, [true, false, true, false, true]);
        let change = p.due(Command::moving(Buttons::UP), false).unwrap();
        assert_eq!((change.number, change.fresh), (4, 1));
        p.set_rate(60, 1000);
        let next = p.due(Command::moving(Buttons::UP), false).unwrap();
        assert_eq!((next.number, next.fresh), (5, 1), "at most one per tick");
    }

    #[test]
    fn a_thin_link_halves_the_rate_changes_included() {
        let mut p = InputPacer::new(60, 30);
        let cmd = |i: u8| Command {
            aim: i % 8,
            ..Command::default()
        };
        // Every command differs: each would go at once.
        let sent: Vec<bool> = (0..8).map(|i| p.due(cmd(i), true).is_some()).collect();
        assert_eq!(sent, [false, false, false, true, false, false, false, true]);
    }

    // Input packets grew from 30 to 120 bytes behind a thin link: every unacknowledged
    // command rode in each, up to 64, in as many runs as the keys changed.
    #[test]
    fn redundancy_is_bounded_by_bytes_keeping_the_newest() {
        let changing = (1..=64).map(|seq| {
            let cmd = Command {
                aim: (seq % 8) as u8,
                buttons: Buttons::from_bits_truncate((seq % 5) as u8),
                ..Command::default()
            };
            (seq, cmd)
        });
        let mut input = InputPacket::pack(1, 1, 0, changing.clone());
        assert!(codec::encoded_len(&input.runs) > 2 * MAX_RUN_BYTES);
        bound_redundancy(&mut input);
        assert!(codec::encoded_len(&input.runs) <= MAX_RUN_BYTES);
        assert!(input.validate().is_ok());
        let kept: Vec<(u32, Command)> = input.commands().collect();
        let all: Vec<(u32, Command)> = changing.collect();
        assert!(kept.len() >= 8, "{} commands kept", kept.len());
        assert_eq!(
            kept[..],
            all[all.len() - kept.len()..],
            "the newest, in order"
        );
        // Held keys: one run, never cut.
        let held = (1..=64).map(|seq| (seq, Command::moving(Buttons::UP)));
        let mut input = InputPacket::pack(1, 1, 0, held);
        bound_redundancy(&mut input);
        assert_eq!(input.command_count(), 64);
    }
}
