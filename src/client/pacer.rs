//! When to send an input packet. Commands are made every tick, but while the buttons
//! stay the same a packet goes only at the input rate (each carries every command the
//! server has not acknowledged, so nothing is lost by waiting); a change goes at once,
//! so starting and stopping reach the server without delay.

use crate::sim::world::Command;

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

    /// Whether the packet for this tick's command is due; its number if so.
    pub(crate) fn due(&mut self, cmd: Command) -> Option<u32> {
        self.unsent_ticks += 1;
        let changed = self.last_command != Some(cmd);
        self.last_command = Some(cmd);
        if !changed && self.unsent_ticks < self.interval {
            return None;
        }
        self.unsent_ticks = 0;
        self.packets_sent += 1;
        Some(self.packets_sent)
    }

    /// Whether a packet is due on a tick that made no command (held or skipped, see
    /// [`super::outage`]): the unacknowledged ones are resent at the input rate, so
    /// the server has them the moment a broken link comes back.
    pub(crate) fn resend_due(&mut self) -> Option<u32> {
        self.unsent_ticks += 1;
        if self.unsent_ticks < self.interval {
            return None;
        }
        self.unsent_ticks = 0;
        self.packets_sent += 1;
        Some(self.packets_sent)
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
        let sent: Vec<bool> = (0..5).map(|_| p.due(still).is_some()).collect();
        assert_eq!(sent, [true, false, true, false, true]);
        assert_eq!(p.due(Command::moving(Buttons::UP)), Some(4));
        p.set_rate(60, 1000);
        assert_eq!(
            p.due(Command::moving(Buttons::UP)),
            Some(5),
            "at most one per tick"
        );
    }
}
