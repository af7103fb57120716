//! The client's own dials: how many input packets a second, how far behind the server
//! remote players are drawn, how many input packets carry each command (its copies),
//! and how far past the newest snapshot a remote player may be extrapolated.
//! The defaults are what the client always did; `host`/`join` flags set them at the
//! start, and the dials (`client::dials`: the game's `k` `[` `]`, the lab's) change them
//! live through `Driver::set_settings`.

use std::ops::RangeInclusive;

use crate::net::protocol::MAX_COMMANDS_PER_INPUT;

/// Input packets per second while the buttons stay the same: every other command tick
/// at 60 Hz, which halves the 28-byte UDP/IP headers going up and costs at most one tick
/// of extra delay for commands that carry no news.
pub const DEFAULT_INPUT_RATE: u16 = 30;
/// Input packets each command rides in: at least one (every command is sent), at most
/// 64 (with the default input rate, every unacknowledged command that fits a packet).
pub const REDUNDANCY: RangeInclusive<u8> = 1..=MAX_COMMANDS_PER_INPUT as u8;
/// A fixed interpolation delay, in snapshot periods.
pub const INTERP_RATIOS: RangeInclusive<f64> = 0.5..=10.0;
/// The extrapolation bound, in ms.
pub const EXTRAPOLATION_LIMITS_MS: RangeInclusive<u32> = 0..=1000;

#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Tuning {
    /// Input packets per second while the buttons stay the same.
    pub input_rate: u16,
    /// The interpolation delay as this many snapshot periods; None: automatic (sized
    /// from the snapshot period, the jitter and the recent loss).
    pub interp_ratio: Option<f64>,
    /// How many input packets carry each command: a packet carries the commands no
    /// packet has carried yet and those of the `redundancy - 1` packets before it (all
    /// unacknowledged, at most 64).
    pub redundancy: u8,
    /// How far past the newest snapshot a remote player may be extrapolated, in ms;
    /// None: the built-in bound (100 ms behind the server, 300 ms with dead reckoning).
    pub extrapolation_limit_ms: Option<u32>,
}

impl Default for Tuning {
    fn default() -> Tuning {
        Tuning {
            input_rate: DEFAULT_INPUT_RATE,
            interp_ratio: None,
            redundancy: MAX_COMMANDS_PER_INPUT as u8,
            extrapolation_limit_ms: None,
        }
    }
}

impl Tuning {
    /// These dials brought within their bounds (a hostile config file or a test cannot
    /// make a packet repeat no command, nor a delay negative).
    pub(crate) fn bounded(self) -> Tuning {
        Tuning {
            input_rate: self.input_rate.max(1),
            interp_ratio: self
                .interp_ratio
                .filter(|r| r.is_finite())
                .map(|r| r.clamp(*INTERP_RATIOS.start(), *INTERP_RATIOS.end())),
            redundancy: self
                .redundancy
                .clamp(*REDUNDANCY.start(), *REDUNDANCY.end()),
            extrapolation_limit_ms: self
                .extrapolation_limit_ms
                .map(|ms| ms.min(*EXTRAPOLATION_LIMITS_MS.end())),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use super::*;
    use crate::client::netcode::session::ClientSession;
    use crate::net::delta;
    use crate::net::protocol::{ClientMsg, PlayerSnap, ServerMsg, Snapshot, SnapshotHeader};
    use crate::sim::map::Map;
    use crate::sim::world::{Command, PlayerState};

    /// Commands in each of the input packets of 8 ticks that nothing acknowledges.
    fn commands_a_packet(tuning: Tuning) -> Vec<usize> {
        let now = Instant::now();
        let mut session = ClientSession::on_duel(0, now);
        session.set_tuning(tuning);
        let (x, y) = Map::builtin("duel").unwrap().spawns()[0];
        let snap = Snapshot {
            header: SnapshotHeader {
                tick: 1,
                ack_seq: 0,
                ..Default::default()
            },
            players: vec![PlayerSnap {
                id: 0,
                state: PlayerState::at_cell(x, y),
            }],
        };
        let msg = ServerMsg::Snapshot(delta::encode(&snap, None));
        assert_eq!(session.on_message(now, msg, 100), None);
        (0..8)
            .filter_map(|_| match session.command_tick(now, Command::default()) {
                Some(ClientMsg::Input(input)) => Some(input.command_count()),
                _ => None,
            })
            .collect()
    }

    /// Issue 23's redundancy dial, counted in copies (issue 32): each command rides in
    /// that many packets; the input-rate dial spaces the packets.
    #[test]
    fn redundancy_and_input_rate_shape_the_packets() {
        let every_tick = Tuning {
            input_rate: 60,
            ..Tuning::default()
        };
        assert_eq!(commands_a_packet(every_tick), [1, 2, 3, 4, 5, 6, 7, 8]);
        let three = Tuning {
            redundancy: 3,
            ..every_tick
        };
        assert_eq!(commands_a_packet(three), [1, 2, 3, 3, 3, 3, 3, 3]);
        let slow = Tuning {
            input_rate: 15,
            redundancy: 2,
            ..Tuning::default()
        };
        // The first command goes at once (it is news); four ticks later the next packet
        // carries its four new commands and the one of the packet before: all five.
        assert_eq!(commands_a_packet(slow), [1, 5]);
    }

    /// Redundancy 1 counted commands: a packet carried 1 of its 2 new commands, so half
    /// were never sent, and a clean link gave 274 corrections in 15 s. One copy is
    /// every command once.
    #[test]
    fn one_copy_still_sends_every_command() {
        let once = Tuning {
            redundancy: 1,
            ..Tuning::default()
        };
        // 8 ticks at 60 Hz, a packet every other tick: the first command at once, then
        // two new ones a packet.
        let counts = commands_a_packet(once);
        assert_eq!(counts, [1, 2, 2, 2]);
        assert_eq!(
            counts.iter().sum::<usize>(),
            7,
            "every command but the newest, unsent yet"
        );
    }

    #[test]
    fn out_of_bounds_dials_are_brought_within_them() {
        let t = Tuning {
            input_rate: 0,
            interp_ratio: Some(f64::NAN),
            redundancy: 0,
            extrapolation_limit_ms: Some(5000),
        }
        .bounded();
        assert_eq!(t.input_rate, 1);
        assert_eq!(t.interp_ratio, None);
        assert_eq!(t.redundancy, 1);
        assert_eq!(t.extrapolation_limit_ms, Some(1000));
        let huge = Tuning {
            interp_ratio: Some(99.0),
            redundancy: 200,
            ..Tuning::default()
        };
        assert_eq!(huge.bounded().interp_ratio, Some(10.0));
        assert_eq!(huge.bounded().redundancy, 64);
    }
}
