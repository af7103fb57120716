//! A seeded link conditioner: latency, jitter, loss, duplication, reordering and a
//! bandwidth cap applied to outgoing datagrams, so bad networks can be rehearsed on a LAN.
//!
//! Jitter comes in two kinds ([`JitterMode`]): `ordered`, a delay that wanders but
//! never lets a datagram pass the one before it (a single path with a queue), and
//! `independent`, a delay drawn afresh for each datagram, uniform within
//! `latency ± jitter`, so datagrams overtake one another as netem's jitter makes them.
//!
//! The bandwidth cap is a bottleneck as a real one is (`tc tbf`, a home router's
//! uplink): a link of that rate sending one datagram at a time, fed by a drop-tail
//! queue of `link_queue_bytes` (100 ms at the rate, at least one largest datagram).
//! A datagram that finds the queue full is dropped, counted in
//! `ConditionerStats::tail_dropped`; it does not wait seconds behind the others.
//!
//! It is pure logic. The transport hands it datagrams with [`Conditioner::push`], asks
//! `Conditioner::next_due` how long it may sleep, and sends whatever
//! [`Conditioner::drain_due`] releases. Time only ever comes in through arguments, so a
//! test can drive it with a simulated clock and a fixed seed and get the same result
//! on every run.
//!
//! All figures in [`Conditions`] are **one-way**: they describe the path from this
//! sender to its peer. If both ends condition their traffic, round-trip latency is the
//! sum of the two; if only one end does, only that direction suffers.

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::collections::binary_heap::PeekMut;
use std::fmt;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

mod random;
use random::{JitterWalk, gilbert_elliott};

/// Most datagrams held at once. Past this, new datagrams are dropped (counted in
/// [`ConditionerStats::overflowed`]) so a stalled consumer or a hopeless bandwidth cap
/// cannot grow memory without bound.
pub(crate) const QUEUE_CAP: usize = 4096;

/// The bandwidth cap's queue holds this long at its rate...
const LINK_QUEUE_TIME: Duration = Duration::from_millis(100);
/// ...but never less than this many bytes: any datagram fits an empty queue (the
/// largest a netarena peer sends is 1,200 bytes).
const LINK_QUEUE_MIN_BYTES: usize = 1200;

/// Bytes the drop-tail queue in front of a link of `kbps` holds (payload bytes, as
/// the rate counts them).
pub(crate) fn link_queue_bytes(kbps: u32) -> usize {
    let at_rate = u64::from(kbps) * 1000 / 8 * LINK_QUEUE_TIME.as_millis() as u64 / 1000;
    usize::try_from(at_rate)
        .unwrap_or(usize::MAX)
        .max(LINK_QUEUE_MIN_BYTES)
}

/// Payload buffers kept for reuse after delivery. Enough to cover a normal in-flight
/// window without keeping a burst's worth of memory around forever.
const SPARE_CAP: usize = 256;

/// How the delay varies from one datagram to the next.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Default, Hash, serde::Serialize, serde::Deserialize,
)]
pub enum JitterMode {
    /// A delay that wanders within `latency ± jitter`; a datagram never departs before
    /// the one pushed ahead of it, so jitter alone never reorders.
    #[default]
    Ordered,
    /// Each datagram's delay drawn on its own, uniform within `latency ± jitter`: one
    /// that draws a short delay overtakes those pushed before it (netem's jitter).
    Independent,
}

impl JitterMode {
    /// The names `--jitter-mode` takes, in the order of the modes' numbers.
    pub const NAMES: [&'static str; 2] = ["ordered", "independent"];

    /// The mode of this name, or `None`.
    pub fn parse(name: &str) -> Option<JitterMode> {
        match name.to_ascii_lowercase().as_str() {
            "ordered" => Some(JitterMode::Ordered),
            "independent" => Some(JitterMode::Independent),
            _ => None,
        }
    }

    /// Its name, as [`JitterMode::parse`] reads it.
    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }
}

/// What the simulated link does to each datagram. `Default` is a clean link.
#[derive(Clone, Debug, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct Conditions {
    /// One-way delay added to every datagram, in ms.
    pub latency_ms: u32,
    /// Delay varies by up to this many ms either side of `latency_ms`; whether that
    /// reorders is `jitter_mode`'s.
    pub jitter_ms: u32,
    /// Long-run share of datagrams lost, in percent (0..=100).
    pub loss_pct: f64,
    /// Mean length, in datagrams, of a run of consecutive losses. At or below 1.0 losses
    /// are independent; above it a Gilbert–Elliott chain clusters them.
    pub burst_len: f64,
    /// Chance, in percent, that a datagram is delivered twice.
    pub dup_pct: f64,
    /// Chance, in percent, that a datagram may overtake ones pushed before it.
    pub reorder_pct: f64,
    /// Link rate in kbit/s; 0 means unlimited.
    pub bandwidth_kbps: u32,
    /// Whether jitter keeps datagrams in order (the default) or lets them overtake.
    pub jitter_mode: JitterMode,
}

impl Conditions {
    /// Names accepted by [`Conditions::profile`], in the order a "cycle" key visits them.
    pub const PROFILES: &'static [&'static str] = &["off", "lan", "wifi", "mobile", "bad"];

    /// True when every setting is neutral, so datagrams pass straight through.
    pub(crate) fn is_clean(&self) -> bool {
        self.latency_ms == 0
            && self.jitter_ms == 0
            && fraction(self.loss_pct) == 0.0
            && fraction(self.dup_pct) == 0.0
            && fraction(self.reorder_pct) == 0.0
            && self.bandwidth_kbps == 0
    }

    /// A named preset, or `None` if the name is unknown. Case-insensitive; "none" is an
    /// alias for "off".
    ///
    /// The figures are one-way (see the module docs), picked to resemble what each kind
    /// of path tends to add: a switched LAN barely anything, home Wi-Fi a little delay
    /// with spiky jitter and short loss clusters, a cellular link tens of ms with wide
    /// jitter, and "bad" a congested long-haul path that also duplicates and reorders.
    pub fn profile(name: &str) -> Option<Conditions> {
        let c = match name.to_ascii_lowercase().as_str() {
            "off" | "none" => Conditions::default(),
            "lan" => Conditions {
                latency_ms: 1,
                ..Conditions::default()
            },
            "wifi" => Conditions {
                latency_ms: 10,
                jitter_ms: 8,
                loss_pct: 1.0,
                burst_len: 2.0,
                ..Conditions::default()
            },
            "mobile" => Conditions {
                latency_ms: 50,
                jitter_ms: 25,
                loss_pct: 2.0,
                burst_len: 3.0,
                ..Conditions::default()
            },
            "bad" => Conditions {
                latency_ms: 150,
                jitter_ms: 40,
                loss_pct: 5.0,
                burst_len: 3.0,
                dup_pct: 1.0,
                reorder_pct: 1.0,
                bandwidth_kbps: 0,
                jitter_mode: JitterMode::Ordered,
            },
            _ => return None,
        };
        Some(c)
    }

    /// These conditions with their jitter in `mode`.
    pub fn with_jitter_mode(self, mode: JitterMode) -> Conditions {
        Conditions {
            jitter_mode: mode,
            ..self
        }
    }

    /// The preset `self` is, jitter mode aside, or `None` (hand-tuned settings).
    pub fn profile_name(&self) -> Option<&'static str> {
        let ordered = self.clone().with_jitter_mode(JitterMode::Ordered);
        Self::PROFILES
            .iter()
            .find(|name| Self::profile(name).as_ref() == Some(&ordered))
            .copied()
    }

    /// The preset after the one equal to `self` (jitter mode aside, and kept), wrapping
    /// around; the first preset if `self` matches none (e.g. hand-tuned settings).
    pub fn next_profile(&self) -> (&'static str, Conditions) {
        let next = self
            .profile_name()
            .and_then(|p| Self::PROFILES.iter().position(|name| *name == p))
            .map_or(0, |i| (i + 1) % Self::PROFILES.len());
        let name = Self::PROFILES[next];
        let c = Self::profile(name).unwrap_or_default();
        (name, c.with_jitter_mode(self.jitter_mode))
    }

    /// Short text for a HUD, e.g. `150±40ms 5.0% loss(b3) 1% dup 1% reorder`, or `clean`.
    pub fn summary(&self) -> String {
        if self.is_clean() {
            return "clean".to_owned();
        }
        let mut parts: Vec<String> = Vec::new();
        if self.jitter_ms > 0 {
            let how = match self.jitter_mode {
                JitterMode::Ordered => "",
                JitterMode::Independent => " indep",
            };
            parts.push(format!("{}±{}ms{how}", self.latency_ms, self.jitter_ms));
        } else if self.latency_ms > 0 {
            parts.push(format!("{}ms", self.latency_ms));
        }
        if fraction(self.loss_pct) > 0.0 {
            let mut loss = trim_number(self.loss_pct.min(100.0));
            if !loss.contains('.') {
                // One decimal even when whole, so "5.0%" reads as a measured rate.
                loss.push_str(".0");
            }
            loss.push_str("% loss");
            if self.burst_len > 1.0 {
                loss.push_str(&format!("(b{})", trim_number(self.burst_len)));
            }
            parts.push(loss);
        }
        if fraction(self.dup_pct) > 0.0 {
            parts.push(format!("{}% dup", trim_number(self.dup_pct.min(100.0))));
        }
        if fraction(self.reorder_pct) > 0.0 {
            parts.push(format!(
                "{}% reorder",
                trim_number(self.reorder_pct.min(100.0))
            ));
        }
        if self.bandwidth_kbps > 0 {
            parts.push(format!("{}kbps", self.bandwidth_kbps));
        }
        parts.join(" ")
    }
}

impl fmt::Display for Conditions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.summary())
    }
}

/// Running totals since the conditioner was created.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ConditionerStats {
    /// Datagrams offered to `push`.
    pub(crate) pushed: u64,
    /// Datagrams lost to the simulated loss model.
    pub dropped: u64,
    /// Datagrams (originals or copies) discarded because the queue was at [`QUEUE_CAP`].
    pub(crate) overflowed: u64,
    /// Datagrams dropped at the tail of the bandwidth cap's full queue.
    pub tail_dropped: u64,
    /// Extra copies queued by the duplication model.
    pub(crate) duplicated: u64,
    /// Datagrams that were scheduled to depart before an earlier-pushed one.
    pub(crate) reordered: u64,
    /// Datagrams handed to the `deliver` callback, copies included.
    pub(crate) delivered: u64,
}

/// Applies [`Conditions`] to a stream of datagrams. See the module docs.
#[derive(Debug)]
pub struct Conditioner {
    conditions: Conditions,
    rng: Pcg64Mcg,
    queue: BinaryHeap<Queued>,
    spare: Vec<Vec<u8>>,
    next_seq: u64,
    /// Departure time of the latest in-order datagram. In-order traffic may not depart
    /// before it, which is both the no-reordering rule and, since the link is held until
    /// that departure, the bandwidth queue.
    tail: Option<Instant>,
    /// Under independent jitter, when the bandwidth cap's link is next free: the cap
    /// sends one datagram at a time at the sender, and the delay is added after it.
    link_free: Option<Instant>,
    /// Gilbert–Elliott state: true while in the lossy ("bad") state.
    in_loss_burst: bool,
    jitter: JitterWalk,
    stats: ConditionerStats,
}

impl Conditioner {
    pub fn new(conditions: Conditions, seed: u64) -> Self {
        Conditioner {
            conditions,
            rng: Pcg64Mcg::seed_from_u64(seed),
            queue: BinaryHeap::new(),
            spare: Vec::new(),
            next_seq: 0,
            tail: None,
            link_free: None,
            in_loss_burst: false,
            jitter: JitterWalk::default(),
            stats: ConditionerStats::default(),
        }
    }

    pub fn conditions(&self) -> &Conditions {
        &self.conditions
    }

    /// Changes the link from now on. Datagrams already queued keep their departure
    /// times, and new in-order traffic still cannot overtake them.
    pub fn set_conditions(&mut self, c: Conditions) {
        self.conditions = c;
    }

    pub fn stats(&self) -> &ConditionerStats {
        &self.stats
    }

    /// Datagrams currently waiting to depart.
    pub fn queued(&self) -> usize {
        self.queue.len()
    }

    /// Offer a datagram at time `now`. Returns immediately; it is queued (or dropped, or
    /// duplicated).
    pub fn push(&mut self, now: Instant, to: SocketAddr, payload: &[u8]) {
        self.stats.pushed += 1;
        if self.conditions.is_clean() {
            // Still honour the tail: right after switching to clean, earlier datagrams
            // may be queued, and clean traffic must not jump ahead of them.
            let due = self.tail.map_or(now, |t| t.max(now));
            if self.enqueue(due, to, payload) {
                self.tail = Some(due);
            }
            return;
        }
        if self.lose() {
            self.stats.dropped += 1;
            return;
        }
        if self.queue.len() >= QUEUE_CAP {
            self.stats.overflowed += 1;
            return;
        }

        let c = &self.conditions;
        let latency = f64::from(c.latency_ms);
        let jitter = f64::from(c.jitter_ms);
        let serialize = serialization_time(payload.len(), c.bandwidth_kbps);
        let reorder = fraction(c.reorder_pct);
        let dup = fraction(c.dup_pct);

        let due = if chance(&mut self.rng, reorder) {
            // A datagram allowed to reorder behaves as if it took another route: it gets
            // a delay of its own, biased short so that it actually tends to overtake
            // (the queue behind `tail` sits near `latency`), and it bypasses the link
            // queue instead of waiting behind earlier traffic.
            let lo = (latency / 2.0 - jitter).max(0.0);
            let hi = latency + jitter;
            let delay = lo + (hi - lo) * self.rng.random::<f64>();
            let due = now + millis(delay) + serialize;
            match self.tail {
                Some(t) if due < t => self.stats.reordered += 1,
                // Not ahead of anything after all, so from here on it is ordinary
                // in-order traffic that later datagrams must not pass.
                _ => self.tail = Some(due),
            }
            due
        } else if c.jitter_mode == JitterMode::Independent {
            // The link (if capped) sends one datagram at a time; then each draws its
            // own delay, so a quick one overtakes slower ones pushed before it.
            let start = self.link_free.map_or(now, |t| t.max(now));
            if c.bandwidth_kbps > 0 {
                let backlog = (start - now).as_secs_f64() * f64::from(c.bandwidth_kbps) * 125.0;
                if backlog as usize + payload.len() > link_queue_bytes(c.bandwidth_kbps) {
                    self.stats.tail_dropped += 1;
                    return;
                }
            }
            self.link_free = Some(start + serialize);
            let offset = jitter * (2.0 * self.rng.random::<f64>() - 1.0);
            let due = start + serialize + millis((latency + offset).max(0.0));
            match self.tail {
                Some(t) if due < t => self.stats.reordered += 1,
                _ => self.tail = Some(due),
            }
            due
        } else {
            let offset = self.jitter.offset(now, jitter, &mut self.rng);
            let ready = now + millis((latency + offset).max(0.0));
            // The link transmits one datagram at a time, so this one starts once both it
            // has arrived and the previous one has finished.
            let start = self.tail.map_or(ready, |t| t.max(ready));
            if c.bandwidth_kbps > 0 {
                // What waits ahead of it is the link's busy time at its rate: past the
                // queue's bytes, the tail drops it.
                let backlog = (start - ready).as_secs_f64() * f64::from(c.bandwidth_kbps) * 125.0;
                if backlog as usize + payload.len() > link_queue_bytes(c.bandwidth_kbps) {
                    self.stats.tail_dropped += 1;
                    return;
                }
            }
            let due = start + serialize;
            self.tail = Some(due);
            due
        };
        self.enqueue(due, to, payload);

        if chance(&mut self.rng, dup) {
            // The copy draws its own delay independently of the walk that spaces the
            // originals, so it can land well after later traffic, as link-layer
            // retransmissions do. It never precedes its original, and it doesn't hold
            // up the queue for anyone else.
            let offset = jitter * (2.0 * self.rng.random::<f64>() - 1.0);
            let copy = now + millis((latency + offset).max(0.0)) + serialize;
            if self.enqueue(copy.max(due), to, payload) {
                self.stats.duplicated += 1;
            }
        }
    }

    /// Every datagram in flight: when it is due, and its bytes (for drawing the wire).
    pub fn in_flight(&self) -> impl Iterator<Item = (Instant, &[u8])> + '_ {
        self.queue.iter().map(|q| (q.due, q.payload.as_slice()))
    }

    /// Earliest time a queued datagram becomes due (for the event loop's poll timeout).
    pub fn next_due(&self) -> Option<Instant> {
        self.queue.peek().map(|q| q.due)
    }

    /// Hand every datagram due at or before `now` to `deliver`, in due-time order (ties in
    /// push order).
    pub fn drain_due(&mut self, now: Instant, mut deliver: impl FnMut(SocketAddr, &[u8])) {
        while let Some(top) = self.queue.peek_mut() {
            if top.due > now {
                break;
            }
            let q = PeekMut::pop(top);
            self.stats.delivered += 1;
            deliver(q.to, &q.payload);
            if self.spare.len() < SPARE_CAP {
                let mut buf = q.payload;
                buf.clear();
                self.spare.push(buf);
            }
        }
    }

    /// Queues a datagram unless the queue is full. Returns whether it was queued.
    fn enqueue(&mut self, due: Instant, to: SocketAddr, payload: &[u8]) -> bool {
        if self.queue.len() >= QUEUE_CAP {
            self.stats.overflowed += 1;
            return false;
        }
        let mut buf = self.spare.pop().unwrap_or_default();
        buf.extend_from_slice(payload);
        let seq = self.next_seq;
        self.next_seq += 1;
        self.queue.push(Queued {
            due,
            seq,
            to,
            payload: buf,
        });
        true
    }

    /// Runs the loss model for one datagram.
    fn lose(&mut self) -> bool {
        let loss = fraction(self.conditions.loss_pct);
        if loss == 0.0 {
            self.in_loss_burst = false;
            return false;
        }
        if loss == 1.0 {
            return true;
        }
        let burst = self.conditions.burst_len;
        if burst.is_nan() || burst <= 1.0 {
            return self.rng.random::<f64>() < loss;
        }
        let (p, r) = gilbert_elliott(loss, burst);
        let u = self.rng.random::<f64>();
        self.in_loss_burst = if self.in_loss_burst { u >= r } else { u < p };
        self.in_loss_burst
    }
}

#[derive(Debug)]
struct Queued {
    due: Instant,
    seq: u64,
    to: SocketAddr,
    payload: Vec<u8>,
}

// BinaryHeap is a max-heap, so order is reversed to pop the earliest `(due, seq)`.
impl Ord for Queued {
    fn cmp(&self, other: &Self) -> Ordering {
        (other.due, other.seq).cmp(&(self.due, self.seq))
    }
}

impl PartialOrd for Queued {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Queued {
    fn eq(&self, other: &Self) -> bool {
        self.seq == other.seq
    }
}

impl Eq for Queued {}

/// A percentage as a probability; anything nonsensical (NaN, negative) counts as zero.
fn fraction(pct: f64) -> f64 {
    if pct.is_nan() {
        0.0
    } else {
        (pct / 100.0).clamp(0.0, 1.0)
    }
}

fn chance(rng: &mut Pcg64Mcg, p: f64) -> bool {
    p > 0.0 && rng.random::<f64>() < p
}

/// How long a link of `kbps` is busy sending `len` bytes.
fn serialization_time(len: usize, kbps: u32) -> Duration {
    if kbps == 0 {
        return Duration::ZERO;
    }
    let nanos = len as u128 * 8 * 1_000_000_000 / (u128::from(kbps) * 1000);
    Duration::from_nanos(u64::try_from(nanos).unwrap_or(u64::MAX))
}

/// Fractional milliseconds as a Duration, rounded to the nanosecond.
fn millis(ms: f64) -> Duration {
    Duration::from_nanos((ms * 1e6).round() as u64)
}

/// `1`, `0.5`, `2.25`: at most two decimals, no trailing zeros.
fn trim_number(v: f64) -> String {
    let s = format!("{v:.2}");
    s.trim_end_matches('0').trim_end_matches('.').to_owned()
}

#[cfg(test)]
mod profile_tests;
#[cfg(test)]
mod tests;
