//! One remote client's connection: when it was last heard, the RTT echo, the window of
//! input packets received (its loss figures), its snapshot baseline and its reliable
//! events. [`Server::on_input`] feeds it.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use super::Server;
use super::bots::FightBot;
use super::delivery::Delivery;
use super::interest::Interest;
use super::reliable::EventQueue;
use netarena_net::protocol::{HELLO_BYTES, InputCounts, InputPacket, ServerMsg};
use netarena_net::secure::Session;
use netarena_net::widen::{KnownInput, widen16};
use netarena_sim::step::MAX_SPAN;
use netarena_sim::world::PlayerId;

/// Who makes a slot's commands: a client over the network, or a server bot.
#[derive(Debug)]
pub(crate) enum Controller {
    Remote(Box<Connection>),
    Bot(Box<FightBot>),
}

/// Input packets remembered as seen, so a late one is counted once.
const WINDOW: u32 = 64;
/// Marked packets waiting for a snapshot to echo them; one arriving past this is not
/// echoed.
const ECHO_QUEUE: usize = 8;

#[derive(Debug)]
pub(crate) struct Connection {
    /// Where the session's datagrams come from now: it moves when a fresh, authentic
    /// datagram of the session comes from elsewhere (a NAT rebinding).
    pub(crate) addr: SocketAddr,
    /// The largest datagram this client is sent: what its connect request proved the
    /// path carries (`wire_bytes::session_budget`), 548 bytes on a small IPv4 path.
    pub(crate) budget: usize,
    /// The session's keys and counters (`net::secure`): every datagram both ways is
    /// sealed with them.
    pub(crate) session: Session,
    /// The client's hello and the server's answer to it: a repeat of that connect
    /// request (the answer was lost) gets the same answer again.
    pub(crate) hello: [u8; HELLO_BYTES],
    pub(crate) accept: Vec<u8>,
    pub(crate) last_heard: Instant,
    /// Marked input packets not yet echoed: each one's client timestamp and when it
    /// arrived, for the RTT echo, oldest first.
    echoes: VecDeque<(u32, Instant)>,
    /// The client's clock as last heard (widened) and when.
    clock: Option<(u32, Instant)>,
    inputs: InputWindow,
    /// Newest snapshot the client says it has: the baseline for its next delta.
    pub(crate) acked_tick: Option<u32>,
    /// The players each recent snapshot carried, to rebuild that baseline.
    pub(crate) interest: Box<Interest>,
    pub events: EventQueue,
    /// The client's own RTT figure, for the scoreboard.
    pub(crate) rtt_ms: u16,
    /// What its link delivers: how many snapshot bytes it may be sent. (It and the
    /// interest are boxed: a connection is large beside a bot's slot.)
    pub(crate) delivery: Box<Delivery>,
    /// The welcome and the map's chunks, sent again at a pace after the client
    /// repeated its connect (its link lost some): they go as the delivery bucket lets
    /// them, and no snapshot goes before them.
    pub(crate) join_burst: VecDeque<ServerMsg>,
}

/// Input packets received, each counted once, late ones too: reordering is not taken
/// for loss, nor duplication for recovery.
#[derive(Clone, Copy, Debug, Default)]
struct InputWindow {
    received: u32,
    high: u32,
    /// Bit k set: packet `high - k` has been received.
    seen: u64,
}

impl InputWindow {
    /// Records packet `seq`; true if it is news (not seen before, and within the
    /// window).
    fn record(&mut self, seq: u32) -> bool {
        if seq > self.high {
            let shift = seq - self.high;
            self.seen = if shift >= WINDOW {
                0
            } else {
                self.seen << shift
            };
            self.seen |= 1;
            self.high = seq;
            self.received += 1;
            true
        } else {
            let age = self.high - seq;
            let news = age < WINDOW && self.seen & (1 << age) == 0;
            if news {
                self.seen |= 1 << age;
                self.received += 1;
            }
            news
        }
    }
}

impl Connection {
    /// The next marked input packet's timestamp to echo, and how long the server has
    /// held it by `now`, in ms.
    pub(crate) fn next_echo(&mut self, now: Instant) -> Option<(u32, u16)> {
        let (time, received) = self.echoes.pop_front()?;
        let hold = now.saturating_duration_since(received).as_millis();
        Some((time, u16::try_from(hold).unwrap_or(u16::MAX)))
    }

    pub(crate) fn new(
        addr: SocketAddr,
        session: Session,
        hello: [u8; HELLO_BYTES],
        accept: Vec<u8>,
        budget: usize,
        now: Instant,
    ) -> Connection {
        Connection {
            addr,
            budget,
            session,
            hello,
            accept,
            last_heard: now,
            echoes: VecDeque::new(),
            clock: None,
            inputs: InputWindow::default(),
            acked_tick: None,
            interest: Box::default(),
            events: EventQueue::default(),
            rtt_ms: 0,
            delivery: Box::new(Delivery::new(addr.ip())),
            join_burst: VecDeque::new(),
        }
    }

    /// The loss figures a snapshot reports back to the client.
    pub(crate) fn input_counts(&self) -> InputCounts {
        InputCounts {
            received: self.inputs.received,
            high: self.inputs.high,
        }
    }

    /// Takes everything but the commands from an input packet; `server_tick` is the
    /// newest tick a snapshot can have carried.
    fn take(&mut self, now: Instant, input: &InputPacket, server_tick: u32) {
        self.last_heard = now;
        // Only echoed packets carry the clock, as its low 16 bits: widened against
        // the last one heard and the time since, it times the uplink's queue.
        if input.echoed() {
            let known = self.clock.map_or(input.client_time_ms, |(ms, at)| {
                ms.wrapping_add(now.saturating_duration_since(at).as_millis() as u32)
            });
            let clock = widen16(known, input.client_time_ms);
            self.clock = Some((clock, now));
            self.delivery.heard(now, clock);
        }
        // Only a tick we have actually sent can be a baseline; anything else is a
        // confused or lying client, and it gets full snapshots.
        if input.ack_tick <= server_tick && self.acked_tick.is_none_or(|t| input.ack_tick > t) {
            self.acked_tick = Some(input.ack_tick);
            // Only the newest packet's count of lost snapshots is news.
            let newest = input.packet_seq > self.inputs.high;
            let lost = newest.then_some(input.snapshots_lost);
            let held = Duration::from_millis(u64::from(input.ack_hold_ms));
            self.delivery.acked(now, input.ack_tick, lost, held);
        }
        // Each marked packet is echoed once, in the order they arrive. Echoing the
        // newest one sent picked, under reordering, the packets that came quickest (the
        // RTT read up to 23 % low); echoing the one that arrived last before a snapshot
        // still favoured quick ones, those followed by a long wait (6 % low at 75 ± 60
        // ms each way).
        if self.inputs.record(input.packet_seq)
            // One packet in `ECHO_MARK`, by its seq, is echoed: the choice is made before
            // the packet travels, so it is blind to the packet's delay (and only those
            // carry the clock).
            && input.echoed()
            && self.echoes.len() < ECHO_QUEUE
        {
            self.echoes.push_back((input.client_time_ms, now));
        }
        self.rtt_ms = input.rtt_ms;
        self.events.ack(now, input.event_ack);
    }
}

impl Server {
    /// An authenticated input packet of player `id`.
    pub(super) fn on_input(&mut self, now: Instant, id: PlayerId, mut input: InputPacket) {
        let tick = self.world.tick;
        let Some(slot) = self.slots.iter_mut().find(|s| s.id == id) else {
            return;
        };
        // Its ticks and seqs came as their low 16 bits.
        let (packet, event) = match &slot.controller {
            Controller::Remote(c) => (c.inputs.high, c.events.newest()),
            Controller::Bot(_) => (0, 0),
        };
        input.widen(&KnownInput {
            tick,
            packet,
            command: slot.queue.last_applied(),
            event,
        });
        if input.validate().is_err() {
            self.refusals.invalid += 1;
            return;
        }
        if let Controller::Remote(c) = &mut slot.controller {
            c.take(now, &input, tick);
        }
        // A view in the future is a lie; one further back than the history is simply
        // not compensated (the match decides).
        let view = input.view_tick.min(tick);
        let mut arrived = false;
        for (seq, cmd, span) in input.timed_commands() {
            if span == 0 {
                slot.queue.offer(seq, cmd.sanitized(), view);
            } else if !slot.arrival.has_room() {
                // Refused: it and the later ones come again while unacknowledged.
                break;
            } else if slot.queue.take_elsewhere(seq) {
                slot.arrival
                    .offer(seq, cmd.sanitized(), span.min(MAX_SPAN), view);
                arrived = true;
            }
        }
        if arrived {
            self.apply_arrived(now, id, true);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_packet_counts_once_late_or_duplicated() {
        let mut w = InputWindow::default();
        assert!(w.record(1));
        assert!(w.record(3));
        assert!(w.record(2), "late, but news");
        assert!(!w.record(2), "duplicate");
        assert!(!w.record(3), "duplicate");
        assert_eq!((w.received, w.high), (3, 3));
        assert!(w.record(3 + 64));
        assert!(!w.record(3), "beyond the window: not counted");
        assert_eq!(w.received, 4);
    }
}
