//! One client's link in the lab: two link conditioners (commands up, snapshots down)
//! that also remember what is in flight, so the lab can draw every datagram on its way
//! and mark the ones the conditioner dropped.

use std::collections::{HashMap, VecDeque};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::net::conditioner::{Conditioner, Conditions};
use crate::net::protocol::{ClientMsg, ServerMsg};
use crate::ui::lab::LaneDot as Dot;

/// Sent times older than this are forgotten (a datagram is never queued that long).
const FORGET_AFTER: Duration = Duration::from_secs(5);
/// The shortest and longest stretch of time a lane spans.
const SPAN_MIN: Duration = Duration::from_millis(100);
const SPAN_MAX: Duration = Duration::from_secs(2);

/// What a datagram on a lane is drawn as: the number of commands an input packet
/// carries (redundancy shows as big numbers after a loss), `S` a snapshot, `E` a
/// snapshot carrying game events, `R` the roster, `?` anything else.
pub(crate) fn up_mark(msg: &ClientMsg) -> String {
    match msg {
        ClientMsg::Input(p) => p.command_count().to_string(),
        _ => "?".into(),
    }
}

pub(crate) fn down_mark(msg: &ServerMsg) -> String {
    match msg {
        ServerMsg::Snapshot(s) if s.events.is_empty() => "S",
        ServerMsg::Snapshot(_) => "E",
        ServerMsg::Roster(_) => "R",
        _ => "?",
    }
    .into()
}

/// What a datagram carried, as far as the ladder and follow-a-command tell them apart.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Carried {
    /// An input packet: its packet seq and the seqs of its first and last command.
    Input {
        packet: u32,
        first: u32,
        last: u32,
    },
    /// A snapshot: its tick and the newest command seq the server had applied.
    Snapshot {
        tick: u32,
        ack: u32,
    },
    Roster,
    #[default]
    Other,
}

impl Carried {
    pub(crate) fn up(msg: &ClientMsg) -> Carried {
        match msg {
            ClientMsg::Input(p) => {
                let count = p.command_count() as u32;
                Carried::Input {
                    packet: p.packet_seq,
                    first: (p.last_seq + 1).saturating_sub(count),
                    last: p.last_seq,
                }
            }
            _ => Carried::Other,
        }
    }

    pub(crate) fn down(msg: &ServerMsg) -> Carried {
        match msg {
            ServerMsg::Snapshot(s) => Carried::Snapshot {
                tick: s.header.tick,
                ack: s.header.ack_seq,
            },
            ServerMsg::Roster(_) => Carried::Roster,
            _ => Carried::Other,
        }
    }
}

/// The time one lane of `up` and `down` spans, the same for both rows: the longest a
/// datagram of either link's conditions takes (latency, jitter, a bandwidth cap's
/// queue), and a quarter more, in whole 50 ms, at least [`SPAN_MIN`].
pub(crate) fn span(up: &Lane, down: &Lane) -> Duration {
    let longest = |c: &Conditions| {
        let queue = if c.bandwidth_kbps > 0 { 100 } else { 0 };
        u64::from(c.latency_ms) + u64::from(c.jitter_ms) + queue
    };
    let ms = longest(up.cond.conditions()).max(longest(down.cond.conditions())) * 5 / 4;
    let ms = ms.div_ceil(50) * 50;
    Duration::from_millis(ms).clamp(SPAN_MIN, SPAN_MAX)
}

/// Datagram and byte counts of one direction.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct LaneCounts {
    pub sent: u64,
    pub(crate) delivered: u64,
    pub dropped: u64,
    pub bytes: u64,
    /// Bytes of the datagrams delivered (for the rates; not in the report).
    #[serde(skip)]
    pub(crate) delivered_bytes: u64,
}

/// Datagrams a lane's log keeps: the newest, over a minute of a lab's traffic.
const LOG_KEPT: usize = 8192;

/// One datagram a lane carried, as the link saw it: the lab's ground truth, for tests
/// to hold what a client shows against.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Crossing {
    pub sent: Instant,
    /// When its first copy arrived; None while in flight, or if the link dropped it.
    pub delivered: Option<Instant>,
    /// The link dropped it (a loss, or a full queue).
    pub dropped: bool,
    /// What the lane draws, in one character: commands carried (`0`-`9`, `+` for ten
    /// and more), `S`/`E` a snapshot, `R` the roster, `?` anything else.
    pub glyph: char,
    pub bytes: usize,
    /// What it carried (commands, a snapshot's tick and ack).
    pub carried: Carried,
    /// When a second copy arrived: the link duplicated it.
    pub duplicate: Option<Instant>,
    key: u64,
}

/// One datagram sent, for the drawing.
struct Flight {
    sent: Instant,
    mark: String,
    arrived: bool,
    lost: bool,
}

/// One direction of a link.
pub(crate) struct Lane {
    cond: Conditioner,
    /// The datagrams in flight, by their bytes: the number of their flight.
    in_flight: HashMap<u64, u64>,
    /// The recent datagrams, oldest first; `first` is the number of the front one.
    flights: VecDeque<Flight>,
    first: u64,
    traffic: LaneCounts,
    log: VecDeque<Crossing>,
}

fn key(bytes: &[u8]) -> u64 {
    let mut h = DefaultHasher::new();
    bytes.hash(&mut h);
    h.finish()
}

impl Lane {
    pub(crate) fn new(conditions: Conditions, seed: u64) -> Lane {
        Lane {
            cond: Conditioner::new(conditions, seed),
            in_flight: HashMap::new(),
            flights: VecDeque::new(),
            first: 0,
            traffic: LaneCounts::default(),
            log: VecDeque::new(),
        }
    }

    pub(crate) fn conditions(&self) -> &Conditions {
        self.cond.conditions()
    }

    /// The newest datagrams this lane carried, oldest first.
    pub(crate) fn log(&self) -> &VecDeque<Crossing> {
        &self.log
    }

    pub(crate) fn set_conditions(&mut self, c: Conditions) {
        self.cond.set_conditions(c);
    }

    pub(crate) fn traffic(&self) -> LaneCounts {
        self.traffic
    }

    /// Sends `bytes` to `to` at `now`, drawn as `mark`; true when the conditioner
    /// dropped it.
    #[cfg(test)]
    pub(crate) fn push(
        &mut self,
        now: Instant,
        to: SocketAddr,
        bytes: &[u8],
        mark: String,
    ) -> bool {
        self.push_carrying(now, to, bytes, mark, Carried::Other)
    }

    /// [`Lane::push`], noting in the log what the datagram `carried`.
    pub(crate) fn push_carrying(
        &mut self,
        now: Instant,
        to: SocketAddr,
        bytes: &[u8],
        mark: String,
        carried: Carried,
    ) -> bool {
        let (queued, dropped) = (self.cond.queued(), self.cond.stats().dropped);
        self.cond.push(now, to, bytes);
        self.traffic.sent += 1;
        self.traffic.bytes += bytes.len() as u64;
        let lost = self.cond.stats().dropped > dropped;
        if self.log.len() == LOG_KEPT {
            self.log.pop_front();
        }
        self.log.push_back(Crossing {
            sent: now,
            delivered: None,
            dropped: self.cond.queued() <= queued,
            // One character: the mark itself, or `+` for ten commands and more.
            glyph: match (mark.chars().next(), mark.chars().nth(1)) {
                (Some(c), None) => c,
                _ => '+',
            },
            bytes: bytes.len(),
            carried,
            duplicate: None,
            key: key(bytes),
        });
        if lost {
            self.traffic.dropped += 1;
        }
        let number = self.first + self.flights.len() as u64;
        let waits = !lost && self.cond.queued() > queued;
        if waits {
            self.in_flight.insert(key(bytes), number);
        }
        self.flights.push_back(Flight {
            sent: now,
            mark,
            arrived: !lost && !waits,
            lost,
        });
        // Forget what no lane can show any more, and what waited far too long.
        while self.flights.front().is_some_and(|f| {
            let age = now.saturating_duration_since(f.sent);
            age > FORGET_AFTER || (age > SPAN_MAX && (f.arrived || f.lost))
        }) {
            self.flights.pop_front();
            self.first += 1;
        }
        if self.in_flight.len() > 4096 {
            let first = self.first;
            self.in_flight.retain(|_, n| *n >= first);
        }
        lost
    }

    /// When the next datagram in flight arrives, if any.
    pub(crate) fn next_due(&self) -> Option<Instant> {
        self.cond.next_due()
    }

    /// Hands every datagram due at `now` to `deliver`.
    pub(crate) fn drain(&mut self, now: Instant, mut deliver: impl FnMut(SocketAddr, &[u8])) {
        let (in_flight, flights, first) = (&mut self.in_flight, &mut self.flights, self.first);
        let (traffic, log) = (&mut self.traffic, &mut self.log);
        self.cond.drain_due(now, |to, bytes| {
            traffic.delivered += 1;
            traffic.delivered_bytes += bytes.len() as u64;
            let k = key(bytes);
            if let Some(n) = in_flight.remove(&k)
                && let Some(f) = n
                    .checked_sub(first)
                    .and_then(|i| flights.get_mut(i as usize))
            {
                f.arrived = true;
            }
            // The newest datagram with these bytes still on its way (a duplicate's
            // second copy finds none).
            if let Some(c) = log
                .iter_mut()
                .rev()
                .find(|c| c.key == k && c.delivered.is_none() && !c.dropped)
            {
                c.delivered = Some(now);
            } else if let Some(c) = log
                .iter_mut()
                .rev()
                .find(|c| c.key == k && c.delivered.is_some() && c.duplicate.is_none())
            {
                c.duplicate = Some(now);
            }
            deliver(to, bytes);
        });
    }

    /// What is on the lane at `now`, on one time axis `span` long: every datagram sent
    /// in the last `span`, at its age (0 just sent, 1 sent `span` ago), in flight,
    /// arrived or lost. One still in flight after `span` stays at the end.
    pub(crate) fn dots(&self, now: Instant, span: Duration) -> Vec<Dot> {
        let span = span.as_secs_f64().max(1e-3);
        self.flights
            .iter()
            .filter_map(|f| {
                let age = now.saturating_duration_since(f.sent).as_secs_f64() / span;
                let shown = age <= 1.0 || !(f.arrived || f.lost);
                shown.then(|| Dot {
                    progress: age.min(1.0),
                    mark: f.mark.clone(),
                    arrived: f.arrived,
                    lost: f.lost,
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPAN: Duration = Duration::from_millis(200);

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    fn latency(ms: u32) -> Conditions {
        Conditions {
            latency_ms: ms,
            ..Conditions::default()
        }
    }

    #[test]
    fn datagrams_move_along_and_losses_are_marked() {
        let t0 = Instant::now();
        let to: SocketAddr = "10.0.0.1:1".parse().unwrap();
        let mut lane = Lane::new(latency(100), 1);
        lane.push(t0, to, b"one", "1".into());
        let dots = lane.dots(t0 + ms(50), SPAN);
        assert_eq!(dots.len(), 1);
        assert!((dots[0].progress - 0.25).abs() < 1e-9, "{dots:?}");
        assert!(!dots[0].arrived);
        let mut got = Vec::new();
        lane.drain(t0 + ms(100), |_, b| got.push(b.to_vec()));
        assert_eq!(got, vec![b"one".to_vec()]);
        let dots = lane.dots(t0 + ms(100), SPAN);
        assert!(dots.len() == 1 && dots[0].arrived, "{dots:?}");
        assert!(
            lane.dots(t0 + ms(201), SPAN).is_empty(),
            "older than the span"
        );

        lane.set_conditions(Conditions {
            loss_pct: 100.0,
            ..Conditions::default()
        });
        lane.push(t0, to, b"two", "2".into());
        let dots = lane.dots(t0 + ms(10), SPAN);
        assert_eq!(dots.len(), 2);
        assert!(dots[1].lost && dots[1].mark == "2");
        assert_eq!(lane.traffic().dropped, 1);
    }

    /// Issue 23: each datagram was drawn at the share of its own trip it had done, so
    /// one sent 20 ms after another but on a shorter trip (jitter) was drawn ahead of
    /// it. On one time axis, their distance is the 20 ms between them.
    #[test]
    fn datagrams_are_drawn_on_one_time_axis() {
        let t0 = Instant::now();
        let to: SocketAddr = "10.0.0.1:1".parse().unwrap();
        let mut lane = Lane::new(latency(100), 1);
        lane.push(t0, to, b"slow", "1".into());
        lane.set_conditions(latency(40));
        lane.push(t0 + ms(20), to, b"fast", "2".into());
        let dots = lane.dots(t0 + ms(30), SPAN);
        assert_eq!(dots.len(), 2);
        let gap = dots[0].progress - dots[1].progress;
        assert!((gap - 0.1).abs() < 1e-9, "{dots:?}");
    }

    /// Issue 23: on `lan` a datagram arrives before a frame can draw it, so the lane
    /// never showed a packet; a `bad` one carries ten commands and more, all drawn `+`;
    /// and a loss stayed marked for 800 ms while packets cross in 150, so `×` piled up
    /// (11 against 2 packets). Now what arrived stays drawn for the span, its count
    /// whole, and each lost packet is one mark on the same axis.
    #[test]
    fn arrived_datagrams_stay_readable_and_each_loss_is_one_mark() {
        let t0 = Instant::now();
        let to: SocketAddr = "10.0.0.1:1".parse().unwrap();
        let mut lane = Lane::new(latency(1), 1);
        lane.push(t0, to, b"a", "2".into());
        lane.drain(t0 + ms(1), |_, _| {});
        let dots = lane.dots(t0 + ms(16), SPAN);
        assert_eq!(dots.len(), 1, "{dots:?}");
        assert!(dots[0].arrived && dots[0].mark == "2");
        assert_eq!(lane.dots(t0 + ms(16), SPAN)[0].mark, "2");

        // 150 ms away, every other packet lost, one each 33 ms for a second.
        let mut lane = Lane::new(latency(150), 1);
        let mut lost = Vec::new();
        for k in 0..30u64 {
            let loss = if k % 2 == 0 { 100.0 } else { 0.0 };
            lane.set_conditions(Conditions {
                loss_pct: loss,
                ..latency(150)
            });
            let at = t0 + ms(33 * k);
            let bytes = k.to_le_bytes();
            if lane.push(at, to, &bytes, "23".into()) {
                lost.push(at);
            }
            lane.drain(at, |_, _| {});
        }
        let now = t0 + ms(33 * 29);
        let dots = lane.dots(now, SPAN);
        let recent = lost.iter().filter(|&&t| now - t <= SPAN).count();
        assert_eq!(dots.iter().filter(|d| d.lost).count(), recent);
        assert!(recent <= 4, "{recent}");
        assert!(dots.iter().all(|d| d.mark == "23"));
    }

    #[test]
    fn a_lane_spans_its_slowest_link_and_a_quarter() {
        let lane = |name: &str| Lane::new(Conditions::profile(name).unwrap(), 1);
        assert_eq!(span(&lane("bad"), &lane("lan")), ms(250));
        assert_eq!(span(&lane("lan"), &lane("lan")), SPAN_MIN);
        assert_eq!(span(&lane("lan"), &lane("wifi")), SPAN_MIN);
    }
}
