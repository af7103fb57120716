//! When to send an input packet. Commands are made every tick, but while the buttons
//! stay the same a packet goes only at the input rate (each carries every command the
//! server has not acknowledged, so nothing is lost by waiting); a change goes at once,
//! so starting and stopping reach the server without delay.
//!
//! The uplink has a rate of its own ([`Uplink`]): packets go only while its byte budget
//! (bytes as the wire counts them, [`crate::net::wire_bytes`]) has room, changes
//! included. The rate follows what the server says it received of our packets (each
//! few snapshots carry the counts): when packets went missing while the round trip
//! stood well above its floor, or the round trip alone grew far above it, a queue in
//! front of the uplink is full or filling, and the rate drops to a little under what
//! arrived. A thin uplink so gets fewer, larger packets, each carrying every command
//! made since the last one, never more bytes than the path carries. Every packet's
//! redundant window is bounded by bytes as well as by count ([`bound_redundancy`]), so
//! a slow acknowledgement cannot make each packet larger and the uplink more congested
//! still.

use crate::net::codec;
use crate::net::protocol::InputPacket;
use crate::sim::world::Command;

/// The most the uplink's rate grows to, wire bytes a second: a packet every tick at
/// 60 Hz, of 130 bytes...
const UPLINK_MAX: f64 = 8_000.0;
/// ...and its rate before anything is known: the most, so a link that never queues
/// (a LAN, the lab's clean links) never meets the budget.
const UPLINK_START: f64 = UPLINK_MAX;
/// The least it comes down to: a few packets a second on a hopeless link.
const UPLINK_MIN: f64 = 300.0;
/// A cut sets the rate to this share of what arrived since the last counts.
const UPLINK_CUT: f64 = 0.8;
/// The counts are judged over at least this long (they come with every snapshot on a
/// paced link: one or two packets apart, too few to tell a rate by).
const JUDGED_OVER: f64 = 0.5;
/// Growth at each judgement while the round trip is near its floor.
const UPLINK_GROW: f64 = 1.05;
/// Share of our packets missing since the last counts that, with a queue standing,
/// says the uplink's queue overflowed (random loss alone cuts nothing).
const UPLINK_LOSS: f64 = 0.1;
/// The round trip above its floor (ms) that counts as a queue standing, and the one
/// that, without loss, says a queue is filling.
const QUEUE_MS: f64 = 100.0;
const FILLING_MS: f64 = 250.0;
/// The floor of the round trip is the shortest in a window of this many seconds and
/// the one before, so it is the loaded path's (a thin link's own time on the wire
/// included) and a path that got slower for good is not taken for a queue for ever.
const FLOOR_SECS: f64 = 10.0;

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

/// The uplink's byte budget, in time counted by command ticks. Not saved in a
/// recording's keyframes (their format is unchanged): a restored session starts it
/// afresh, at 60 Hz until the tick rate is set.
#[derive(Clone, Debug)]
pub(crate) struct Uplink {
    /// Wire bytes a second allowed, and what the budget holds now (below zero: owed).
    rate: f64,
    tokens: f64,
    /// Seconds per command tick.
    tick_secs: f64,
    /// Ticks counted, the pacer's clock.
    ticks: u64,
    /// Wire bytes of an input packet, smoothed.
    packet_bytes: f64,
    /// The counts last judged: at which tick, received, highest number.
    last_counts: Option<(u64, u32, u32)>,
    /// The shortest round trip in this window and in the one before (ms), and the
    /// tick this window began.
    floor_ms: [Option<f64>; 2],
    floor_since: u64,
    /// The downlink's one-way delay as the snapshots show it (arrival less the
    /// server's tick time, ms): its least in this window and the one before.
    down_floor: [Option<f64>; 2],
}

impl Default for Uplink {
    fn default() -> Uplink {
        Uplink::new(60)
    }
}

impl Uplink {
    fn new(tick_rate: u16) -> Uplink {
        Uplink {
            rate: UPLINK_START,
            tokens: 0.0,
            tick_secs: 1.0 / f64::from(tick_rate.max(1)),
            ticks: 0,
            packet_bytes: 0.0,
            last_counts: None,
            floor_ms: [None; 2],
            floor_since: 0,
            down_floor: [None; 2],
        }
    }

    /// One command tick passed; whether the budget lets a packet go.
    fn tick(&mut self) -> bool {
        self.ticks += 1;
        // Two packets' worth at most: the jitter of the ticks, not a burst.
        let depth = (2.0 * self.packet_bytes).max(self.rate * self.tick_secs);
        self.tokens = (self.tokens + self.rate * self.tick_secs).min(depth);
        self.tokens >= 0.0
    }

    /// A packet of `wire` bytes went.
    fn sent(&mut self, wire: usize) {
        self.tokens -= wire as f64;
        self.packet_bytes = if self.packet_bytes == 0.0 {
            wire as f64
        } else {
            0.8 * self.packet_bytes + 0.2 * wire as f64
        };
    }

    /// The server received `received` of our packets up to number `high`; the round
    /// trip is `rtt_ms` (None before one was measured: counts then only start the
    /// reckoning, since a round trip taken for zero would be the floor, and every
    /// later one a queue, for the floor's two windows); the snapshot that said so came `down_ms` after its tick by our
    /// clock (a constant offset aside: only its rise above its least counts, the
    /// downlink's queue, which the round trip includes and fewer input packets would
    /// not shorten).
    fn counts(&mut self, received: u32, high: u32, rtt_ms: Option<f64>, down_ms: f64) {
        let Some(rtt_ms) = rtt_ms else {
            self.last_counts = Some((self.ticks, received, high));
            return;
        };
        if (self.ticks - self.floor_since) as f64 * self.tick_secs > FLOOR_SECS {
            self.floor_ms = [None, self.floor_ms[0]];
            self.down_floor = [None, self.down_floor[0]];
            self.floor_since = self.ticks;
        }
        self.down_floor[0] = Some(self.down_floor[0].map_or(down_ms, |f| f.min(down_ms)));
        let down_least = self
            .down_floor
            .iter()
            .flatten()
            .fold(down_ms, |a, b| a.min(*b));
        let down_queue = down_ms - down_least;
        self.floor_ms[0] = Some(self.floor_ms[0].map_or(rtt_ms, |f| f.min(rtt_ms)));
        let floor = self
            .floor_ms
            .iter()
            .flatten()
            .fold(rtt_ms, |a, b| a.min(*b));
        let queue = (rtt_ms - floor - down_queue).max(0.0);
        let Some((at, was_received, was_high)) = self.last_counts else {
            self.last_counts = Some((self.ticks, received, high));
            return;
        };
        let secs = (self.ticks - at) as f64 * self.tick_secs;
        if secs < JUDGED_OVER {
            return;
        }
        self.last_counts = Some((self.ticks, received, high));
        let sent = high.saturating_sub(was_high);
        if sent == 0 {
            return;
        }
        let arrived = received.saturating_sub(was_received).min(sent);
        let lost = 1.0 - f64::from(arrived) / f64::from(sent);
        let carried = f64::from(arrived) * self.packet_bytes / secs;
        if (lost > UPLINK_LOSS && queue > QUEUE_MS) || queue > FILLING_MS {
            self.rate = (carried * UPLINK_CUT).clamp(UPLINK_MIN, self.rate);
            self.tokens = self.tokens.min(0.0);
        } else if queue < QUEUE_MS / 2.0 {
            self.rate = (self.rate * UPLINK_GROW + 20.0).min(UPLINK_MAX);
        }
    }
}

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub(crate) struct InputPacer {
    /// Command ticks per input packet, when the buttons do not change.
    interval: u32,
    unsent_ticks: u32,
    packets_sent: u32,
    last_command: Option<Command>,
    /// A change was made while the uplink's budget had no room: it goes when there is.
    #[serde(skip)]
    change_waiting: bool,
    #[serde(skip)]
    uplink: Uplink,
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
            change_waiting: false,
            uplink: Uplink::new(tick_rate),
        }
    }

    pub(crate) fn set_rate(&mut self, tick_rate: u16, input_rate: u16) {
        self.interval = interval(tick_rate, input_rate);
        self.uplink.tick_secs = 1.0 / f64::from(tick_rate.max(1));
    }

    /// Whether the packet for this tick's command is due, and if so which (see
    /// [`Due`]). A change goes at once, an unchanged command at the input rate, either
    /// only while the uplink's budget has room.
    pub(crate) fn due(&mut self, cmd: Command) -> Option<Due> {
        self.unsent_ticks += 1;
        let room = self.uplink.tick();
        self.change_waiting |= self.last_command != Some(cmd);
        self.last_command = Some(cmd);
        if !room || (!self.change_waiting && self.unsent_ticks < self.interval) {
            return None;
        }
        self.change_waiting = false;
        Some(self.send(self.interval))
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
        let room = self.uplink.tick();
        if !room || self.unsent_ticks < self.interval {
            return None;
        }
        Some(self.send(self.interval))
    }

    /// The newest command made.
    pub(crate) fn last_command(&self) -> Option<Command> {
        self.last_command
    }

    /// The packet just made due went, `wire` bytes on the wire.
    pub(crate) fn sent(&mut self, wire: usize) {
        self.uplink.sent(wire);
    }

    /// The server's counts of our packets (see [`Uplink`]), with the round trip and
    /// the snapshot's delay after its tick.
    pub(crate) fn counts(&mut self, received: u32, high: u32, rtt_ms: Option<f64>, down_ms: f64) {
        self.uplink.counts(received, high, rtt_ms, down_ms);
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
        let change = p.due(Command::moving(Buttons::UP)).unwrap();
        assert_eq!((change.number, change.fresh), (4, 1));
        p.set_rate(60, 1000);
        let next = p.due(Command::moving(Buttons::UP)).unwrap();
        assert_eq!((next.number, next.fresh), (5, 1), "at most one per tick");
    }

    // The uplink's pace knew nothing of its bytes: behind a 12 kbit/s uplink (tbf,
    // 3,000-byte queue) a fighting client sent 21-25 packets a second, twice what the
    // link carries with its headers; a third were dropped and the queue held 2 s.
    #[test]
    fn a_thin_uplink_gets_fewer_packets_and_no_more_bytes_than_it_carries() {
        const LINK: f64 = 1500.0;
        const QUEUE: f64 = 3000.0;
        const PACKET: usize = 100;
        let mut p = InputPacer::new(60, 30);
        let cmd = |i: u32| Command {
            aim: (i % 8) as u8,
            ..Command::default()
        };
        // The link's backlog in bytes; what the server got; the round trip.
        let (mut backlog, mut received, mut high) = (0.0f64, 0u32, 0u32);
        let (mut offered_late, mut sent_late) = (0usize, 0u32);
        for tick in 0..60 * 30u32 {
            backlog = (backlog - LINK / 60.0).max(0.0);
            if let Some(due) = p.due(cmd(tick)) {
                p.sent(PACKET);
                high = due.number;
                if backlog + PACKET as f64 <= QUEUE {
                    backlog += PACKET as f64;
                    received += 1;
                }
                if tick >= 60 * 20 {
                    offered_late += PACKET;
                    sent_late += 1;
                }
            }
            // Counts every 100 ms, the round trip 100 ms plus the queue's wait.
            if tick % 6 == 0 {
                p.counts(received, high, Some(100.0 + 1000.0 * backlog / LINK), 50.0);
            }
        }
        let per_sec = offered_late as f64 / 10.0;
        assert!(
            per_sec <= LINK,
            "{per_sec} B/s offered to a {LINK} B/s link"
        );
        assert!(
            per_sec >= 0.5 * LINK,
            "{per_sec} B/s: the link is left idle"
        );
        assert!(sent_late <= 150, "{sent_late} packets in 10 s");
        assert!(p.uplink.rate >= UPLINK_MIN);
    }

    // The first counts came before the first round trip was measured (the echo rides
    // every 4th input packet), so the round trip's floor was 0 ms and the path's whole
    // 300 ms a standing queue: on the lab's `bad` profile the rate was cut at every
    // judgement, 8,000 to 300 B/s in 20 s, and each packet carried 6 to 10 commands.
    #[test]
    fn counts_before_the_first_round_trip_take_no_queue_for_the_path() {
        let mut p = InputPacer::new(60, 30);
        let (mut received, mut high) = (0u32, 0u32);
        for tick in 0..60 * 20u32 {
            if let Some(due) = p.due(Command::default()) {
                p.sent(60);
                high = due.number;
                received += 1;
            }
            if tick % 6 == 0 {
                // No round trip for the first half second; then 300 ms with 40 ms of
                // jitter, no loss, no queue.
                let rtt = (tick >= 30).then(|| 280.0 + f64::from(tick % 5) * 10.0);
                p.counts(received, high, rtt, 150.0 + f64::from(tick % 3) * 10.0);
            }
        }
        assert_eq!(p.uplink.rate, UPLINK_MAX, "cut on a path with no queue");
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
