//! A seeded link conditioner: latency, jitter, loss, duplication, reordering and a
//! bandwidth cap applied to outgoing datagrams, so bad networks can be rehearsed on a LAN.
//!
//! It is pure logic. The transport hands it datagrams with [`Conditioner::push`], asks
//! [`Conditioner::next_due`] how long it may sleep, and sends whatever
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
pub const QUEUE_CAP: usize = 4096;

/// Payload buffers kept for reuse after delivery. Enough to cover a normal in-flight
/// window without keeping a burst's worth of memory around forever.
const SPARE_CAP: usize = 256;

/// What the simulated link does to each datagram. `Default` is a clean link.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Conditions {
    /// One-way delay added to every datagram, in ms.
    pub latency_ms: u32,
    /// Delay varies by up to this many ms either side of `latency_ms`. Jitter alone never
    /// reorders: a datagram never departs before the one pushed ahead of it.
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
}

impl Conditions {
    /// Names accepted by [`Conditions::profile`], in the order a "cycle" key visits them.
    pub const PROFILES: &'static [&'static str] = &["off", "lan", "wifi", "mobile", "bad"];

    /// True when every setting is neutral, so datagrams pass straight through.
    pub fn is_clean(&self) -> bool {
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
            },
            _ => return None,
        };
        Some(c)
    }

    /// The preset after the one equal to `self`, wrapping around; the first preset if
    /// `self` matches none (e.g. hand-tuned settings).
    pub fn next_profile(&self) -> (&'static str, Conditions) {
        let next = Self::PROFILES
            .iter()
            .position(|name| Self::profile(name).as_ref() == Some(self))
            .map_or(0, |i| (i + 1) % Self::PROFILES.len());
        let name = Self::PROFILES[next];
        (name, Self::profile(name).unwrap_or_default())
    }

    /// Short text for a HUD, e.g. `150±40ms 5.0% loss(b3) 1% dup 1% reorder`, or `clean`.
    pub fn summary(&self) -> String {
        if self.is_clean() {
            return "clean".to_owned();
        }
        let mut parts: Vec<String> = Vec::new();
        if self.jitter_ms > 0 {
            parts.push(format!("{}±{}ms", self.latency_ms, self.jitter_ms));
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
    pub pushed: u64,
    /// Datagrams lost to the simulated loss model.
    pub dropped: u64,
    /// Datagrams (originals or copies) discarded because the queue was at [`QUEUE_CAP`].
    pub overflowed: u64,
    /// Extra copies queued by the duplication model.
    pub duplicated: u64,
    /// Datagrams that were scheduled to depart before an earlier-pushed one.
    pub reordered: u64,
    /// Datagrams handed to the `deliver` callback, copies included.
    pub delivered: u64,
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
        } else {
            let offset = self.jitter.offset(now, jitter, &mut self.rng);
            let ready = now + millis((latency + offset).max(0.0));
            // The link transmits one datagram at a time, so this one starts once both it
            // has arrived and the previous one has finished.
            let start = self.tail.map_or(ready, |t| t.max(ready));
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
mod tests {
    use super::*;

    const N: u64 = 100_000;

    fn addr() -> SocketAddr {
        "10.0.0.2:7777".parse().unwrap()
    }

    /// One delivered datagram: the id it was pushed with, and its delay since the push.
    #[derive(Clone, Debug, PartialEq)]
    struct Arrival {
        id: u64,
        at: Duration,
        delay: Duration,
    }

    /// Pushes `n` datagrams of `len` bytes (id in the first 8) every `spacing`, draining
    /// exactly at each due time as an event loop would.
    fn run(c: &mut Conditioner, n: u64, spacing: Duration, len: usize) -> Vec<Arrival> {
        let base = Instant::now();
        let mut pushed_at = Vec::with_capacity(n as usize);
        let mut out = Vec::new();
        let drain_until = |c: &mut Conditioner,
                           limit: Option<Instant>,
                           pushed_at: &[Instant],
                           out: &mut Vec<Arrival>| {
            while let Some(due) = c.next_due() {
                if limit.is_some_and(|l| due > l) {
                    break;
                }
                c.drain_due(due, |to, p| {
                    assert_eq!(to, addr());
                    assert_eq!(p.len(), len);
                    let id = u64::from_le_bytes(p[..8].try_into().unwrap());
                    out.push(Arrival {
                        id,
                        at: due - base,
                        delay: due - pushed_at[id as usize],
                    });
                });
            }
        };
        let mut payload = vec![0u8; len];
        for i in 0..n {
            let now = base + spacing * i as u32;
            drain_until(c, Some(now), &pushed_at, &mut out);
            pushed_at.push(now);
            payload[..8].copy_from_slice(&i.to_le_bytes());
            c.push(now, addr(), &payload);
        }
        drain_until(c, None, &pushed_at, &mut out);
        out
    }

    fn ms(d: Duration) -> f64 {
        d.as_secs_f64() * 1e3
    }

    fn mean_sd(xs: &[f64]) -> (f64, f64) {
        let n = xs.len() as f64;
        let mean = xs.iter().sum::<f64>() / n;
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n;
        (mean, var.sqrt())
    }

    fn ids(arrivals: &[Arrival]) -> Vec<u64> {
        arrivals.iter().map(|a| a.id).collect()
    }

    /// Lengths of runs of consecutive lost ids.
    fn loss_runs(arrivals: &[Arrival], n: u64) -> Vec<u64> {
        let mut got = vec![false; n as usize];
        for a in arrivals {
            got[a.id as usize] = true;
        }
        let mut runs = Vec::new();
        let mut run = 0;
        for g in got {
            if g {
                if run > 0 {
                    runs.push(run);
                }
                run = 0;
            } else {
                run += 1;
            }
        }
        if run > 0 {
            runs.push(run);
        }
        runs
    }

    fn ms_spacing() -> Duration {
        Duration::from_millis(1)
    }

    #[test]
    fn clean_passes_through_immediately_in_order() {
        let mut c = Conditioner::new(Conditions::default(), 1);
        let now = Instant::now();
        for i in 0u8..10 {
            c.push(now, addr(), &[i]);
        }
        assert_eq!(c.next_due(), Some(now));
        let mut got = Vec::new();
        c.drain_due(now, |_, p| got.push(p[0]));
        assert_eq!(got, (0..10).collect::<Vec<_>>());
        assert_eq!(c.next_due(), None);

        let arrivals = run(&mut c, N, ms_spacing(), 16);
        assert_eq!(ids(&arrivals), (0..N).collect::<Vec<_>>());
        assert!(arrivals.iter().all(|a| a.delay == Duration::ZERO));
        let s = c.stats();
        assert_eq!((s.pushed, s.delivered), (N + 10, N + 10));
        assert_eq!(
            (s.dropped, s.duplicated, s.reordered, s.overflowed),
            (0, 0, 0, 0)
        );
    }

    #[test]
    fn independent_loss_rate() {
        let cond = Conditions {
            loss_pct: 5.0,
            burst_len: 1.0,
            ..Conditions::default()
        };
        let mut c = Conditioner::new(cond, 7);
        let arrivals = run(&mut c, N, ms_spacing(), 8);
        let lost = (N - arrivals.len() as u64) as f64 / N as f64 * 100.0;
        assert!((lost - 5.0).abs() < 0.5, "loss {lost}%");
        assert_eq!(c.stats().dropped, N - arrivals.len() as u64);
        // Independent losses cluster only by chance: runs average 1 / (1 - 0.05).
        let runs = loss_runs(&arrivals, N);
        let mean = runs.iter().sum::<u64>() as f64 / runs.len() as f64;
        assert!((mean - 1.0 / 0.95).abs() < 0.03, "mean run {mean}");
        assert_eq!(ids(&arrivals), {
            let mut v = ids(&arrivals);
            v.sort();
            v
        });
    }

    #[test]
    fn bursty_loss_rate_and_burst_length() {
        for (loss, burst, seed) in [(5.0, 3.0, 11), (2.0, 2.0, 12), (3.0, 5.0, 13)] {
            let cond = Conditions {
                loss_pct: loss,
                burst_len: burst,
                ..Conditions::default()
            };
            let mut c = Conditioner::new(cond, seed);
            let n = 2 * N;
            let arrivals = run(&mut c, n, ms_spacing(), 8);
            let lost = (n - arrivals.len() as u64) as f64 / n as f64 * 100.0;
            assert!((lost - loss).abs() < 0.5, "loss {lost}% want {loss}%");
            let runs = loss_runs(&arrivals, n);
            let mean = runs.iter().sum::<u64>() as f64 / runs.len() as f64;
            assert!(
                (mean - burst).abs() < 0.1 * burst,
                "mean burst {mean} want {burst}"
            );
        }
    }

    #[test]
    fn loss_rate_wins_when_bursts_too_short_for_it() {
        // 90% loss can't be reached with bursts of 2 (max 2/3); bursts stretch instead.
        let cond = Conditions {
            loss_pct: 90.0,
            burst_len: 2.0,
            ..Conditions::default()
        };
        let mut c = Conditioner::new(cond, 3);
        let arrivals = run(&mut c, N, ms_spacing(), 8);
        let lost = (N - arrivals.len() as u64) as f64 / N as f64 * 100.0;
        assert!((lost - 90.0).abs() < 1.0, "loss {lost}%");

        let all = Conditions {
            loss_pct: 100.0,
            burst_len: 3.0,
            ..Conditions::default()
        };
        let mut c = Conditioner::new(all, 3);
        assert!(run(&mut c, 1000, ms_spacing(), 8).is_empty());
    }

    #[test]
    fn latency_and_jitter_without_reordering() {
        for (latency, jitter, spacing, seed) in [
            (50u32, 10u32, 1u64, 21u64),
            (10, 8, 1, 22),
            (50, 25, 16, 23),
            (150, 40, 16, 24),
        ] {
            let cond = Conditions {
                latency_ms: latency,
                jitter_ms: jitter,
                ..Conditions::default()
            };
            let mut c = Conditioner::new(cond, seed);
            let arrivals = run(&mut c, N, Duration::from_millis(spacing), 8);
            assert_eq!(ids(&arrivals), (0..N).collect::<Vec<_>>());
            assert!(arrivals.windows(2).all(|w| w[0].at <= w[1].at));
            let delays: Vec<f64> = arrivals.iter().map(|a| ms(a.delay)).collect();
            let (mean, sd) = mean_sd(&delays);
            let (lat, jit) = (f64::from(latency), f64::from(jitter));
            assert!((mean - lat).abs() < 1.0, "mean {mean} want {lat}");
            let min = delays.iter().cloned().fold(f64::INFINITY, f64::min);
            let max = delays.iter().cloned().fold(0.0, f64::max);
            // Spread reaches close to both ends of the range and never past it.
            assert!(
                min >= lat - jit - 1e-6 && min < lat - 0.9 * jit,
                "min {min}"
            );
            assert!(
                max <= lat + jit + 1e-6 && max > lat + 0.9 * jit,
                "max {max}"
            );
            // Uniform over ±jitter has sd jitter/√3 ≈ 0.58·jitter.
            assert!(sd > 0.45 * jit && sd < 0.7 * jit, "sd {sd} for ±{jit}");
            assert_eq!(c.stats().reordered, 0);
        }
    }

    #[test]
    fn fixed_latency_is_exact() {
        let cond = Conditions {
            latency_ms: 30,
            ..Conditions::default()
        };
        let mut c = Conditioner::new(cond, 5);
        let now = Instant::now();
        c.push(now, addr(), b"a");
        c.push(now, addr(), b"b");
        assert_eq!(c.next_due(), Some(now + Duration::from_millis(30)));
        let mut got = Vec::new();
        c.drain_due(now + Duration::from_millis(29), |_, p| got.push(p.to_vec()));
        assert!(got.is_empty());
        c.drain_due(now + Duration::from_millis(30), |_, p| got.push(p.to_vec()));
        assert_eq!(got, vec![b"a".to_vec(), b"b".to_vec()]);
    }

    /// How many arrivals came in while some earlier-pushed datagram was still missing.
    fn overtakers(arrivals: &[Arrival], n: u64) -> u64 {
        let mut seen = vec![false; n as usize];
        let mut lowest_missing = 0;
        let mut count = 0;
        for a in arrivals {
            if a.id > lowest_missing as u64 {
                count += 1;
            }
            seen[a.id as usize] = true;
            while lowest_missing < seen.len() && seen[lowest_missing] {
                lowest_missing += 1;
            }
        }
        count
    }

    #[test]
    fn reordering_only_when_enabled() {
        let cond = Conditions {
            latency_ms: 50,
            jitter_ms: 10,
            reorder_pct: 5.0,
            ..Conditions::default()
        };
        let mut c = Conditioner::new(cond, 31);
        let arrivals = run(&mut c, N, ms_spacing(), 8);
        assert_eq!(arrivals.len() as u64, N);
        let over = overtakers(&arrivals, N);
        assert_eq!(over, c.stats().reordered);
        // Most of the 5% that may reorder do get ahead at this packet rate.
        let rate = over as f64 / N as f64 * 100.0;
        assert!(rate > 2.5 && rate < 5.5, "reordered {rate}%");
    }

    #[test]
    fn duplication_rate() {
        let cond = Conditions {
            latency_ms: 20,
            jitter_ms: 5,
            dup_pct: 3.0,
            ..Conditions::default()
        };
        let mut c = Conditioner::new(cond, 41);
        let arrivals = run(&mut c, N, ms_spacing(), 8);
        let s = c.stats().clone();
        let rate = s.duplicated as f64 / N as f64 * 100.0;
        assert!((rate - 3.0).abs() < 0.3, "dup {rate}%");
        assert_eq!(arrivals.len() as u64, N + s.duplicated);
        assert_eq!(s.delivered, N + s.duplicated);
        // Originals stay in order, and a copy never arrives before its original: an early
        // copy would overtake the originals sent just before it and break this order
        // (a copy is indistinguishable from its original, so this is the check).
        let mut seen = vec![0u32; N as usize];
        let mut firsts = Vec::new();
        for a in &arrivals {
            if seen[a.id as usize] == 0 {
                firsts.push(a.id);
            }
            seen[a.id as usize] += 1;
        }
        assert_eq!(firsts, (0..N).collect::<Vec<_>>());
        assert!(seen.iter().all(|&n| n <= 2), "one copy at most of each");
    }

    #[test]
    fn bandwidth_cap_spaces_departures() {
        let cond = Conditions {
            bandwidth_kbps: 100,
            ..Conditions::default()
        };
        // 1250 bytes at 100 kbit/s is 100 ms on the wire.
        let arrivals = run(
            &mut Conditioner::new(cond.clone(), 51),
            50,
            ms_spacing(),
            1250,
        );
        assert_eq!(ids(&arrivals), (0..50).collect::<Vec<_>>());
        assert_eq!(arrivals[0].delay, Duration::from_millis(100));
        for w in arrivals.windows(2) {
            assert!(w[1].at - w[0].at >= Duration::from_millis(100));
        }

        // All at once, behind a fixed latency: 120, 220, 320 ms ...
        let mut c = Conditioner::new(
            Conditions {
                latency_ms: 20,
                ..cond
            },
            52,
        );
        let now = Instant::now();
        for _ in 0..5 {
            c.push(now, addr(), &[0; 1250]);
        }
        let mut dues = Vec::new();
        while let Some(d) = c.next_due() {
            c.drain_due(d, |_, _| dues.push(d - now));
        }
        let want: Vec<Duration> = (0..5)
            .map(|i| Duration::from_millis(120 + 100 * i))
            .collect();
        assert_eq!(dues, want);
    }

    #[test]
    fn same_seed_same_result() {
        let bad = Conditions::profile("bad").unwrap();
        let go = |seed| {
            let mut c = Conditioner::new(bad.clone(), seed);
            let arrivals = run(&mut c, 20_000, Duration::from_millis(5), 8);
            (
                arrivals.iter().map(|a| (a.id, a.at)).collect::<Vec<_>>(),
                c.stats().clone(),
            )
        };
        let a = go(99);
        assert_eq!(a, go(99));
        assert_ne!(a.0, go(100).0);
        let s = &a.1;
        assert!(s.dropped > 0 && s.duplicated > 0 && s.reordered > 0);
    }

    #[test]
    fn live_changes_keep_queued_times_and_order() {
        let mut c = Conditioner::new(
            Conditions {
                latency_ms: 100,
                ..Conditions::default()
            },
            61,
        );
        let t0 = Instant::now();
        let at = |m: u64| t0 + Duration::from_millis(m);
        c.push(at(0), addr(), b"slow");
        c.set_conditions(Conditions::default());
        assert!(c.conditions().is_clean());
        // Clean now, but may not overtake what's queued.
        c.push(at(10), addr(), b"fast");
        assert_eq!(c.next_due(), Some(at(100)));
        let mut got = Vec::new();
        c.drain_due(at(100), |_, p| got.push(p.to_vec()));
        assert_eq!(got, vec![b"slow".to_vec(), b"fast".to_vec()]);

        c.push(at(200), addr(), b"now");
        assert_eq!(c.next_due(), Some(at(200)));
        c.drain_due(at(200), |_, _| {});

        c.set_conditions(Conditions {
            latency_ms: 10,
            ..Conditions::default()
        });
        c.push(at(300), addr(), b"x");
        assert_eq!(c.next_due(), Some(at(310)));
        c.drain_due(at(310), |_, _| {});

        c.set_conditions(Conditions {
            loss_pct: 100.0,
            ..Conditions::default()
        });
        for i in 0..100 {
            c.push(at(400 + i), addr(), b"lost");
        }
        assert_eq!(c.next_due(), None);
        assert_eq!(c.stats().dropped, 100);

        // Jitter appearing mid-stream must not reorder the stream.
        c.set_conditions(Conditions {
            latency_ms: 40,
            jitter_ms: 5,
            ..Conditions::default()
        });
        let mut order = Vec::new();
        for i in 0u32..2000 {
            if i == 1000 {
                c.set_conditions(Conditions {
                    latency_ms: 5,
                    jitter_ms: 30,
                    ..Conditions::default()
                });
            }
            let now = at(1000 + u64::from(i));
            c.drain_due(now, |_, p| {
                order.push(u32::from_le_bytes(p.try_into().unwrap()))
            });
            c.push(now, addr(), &i.to_le_bytes());
        }
        c.drain_due(at(10_000), |_, p| {
            order.push(u32::from_le_bytes(p.try_into().unwrap()))
        });
        assert_eq!(order, (0..2000).collect::<Vec<_>>());
    }

    #[test]
    fn queue_is_capped() {
        let mut c = Conditioner::new(
            Conditions {
                latency_ms: 1000,
                ..Conditions::default()
            },
            71,
        );
        let now = Instant::now();
        for _ in 0..QUEUE_CAP + 100 {
            c.push(now, addr(), &[1, 2, 3]);
        }
        assert_eq!(c.queued(), QUEUE_CAP);
        assert_eq!(c.stats().overflowed, 100);
        let mut n = 0;
        c.drain_due(now + Duration::from_secs(1), |_, _| n += 1);
        assert_eq!(n, QUEUE_CAP);
        // Buffers are recycled, and the next push works normally.
        c.push(now, addr(), &[9]);
        let mut got = Vec::new();
        c.drain_due(now + Duration::from_secs(1), |_, p| {
            got.extend_from_slice(p)
        });
        assert_eq!(got, vec![9]);
    }

    #[test]
    fn profiles() {
        for name in Conditions::PROFILES {
            let p = Conditions::profile(name).unwrap_or_else(|| panic!("{name}"));
            assert_eq!(p.is_clean(), *name == "off", "{name}");
            assert_eq!(p.to_string(), p.summary());
        }
        assert_eq!(Conditions::profile("none"), Some(Conditions::default()));
        assert_eq!(Conditions::profile("WiFi"), Conditions::profile("wifi"));
        assert_eq!(Conditions::profile("dialup"), None);

        // Cycling visits every profile once and wraps.
        let mut c = Conditions::default();
        let mut visited = Vec::new();
        for _ in 0..Conditions::PROFILES.len() {
            let (name, next) = c.next_profile();
            visited.push(name);
            c = next;
        }
        assert_eq!(visited, ["lan", "wifi", "mobile", "bad", "off"]);
        let custom = Conditions {
            latency_ms: 7,
            ..Conditions::default()
        };
        assert_eq!(custom.next_profile().0, "off");
    }

    #[test]
    fn summaries() {
        let s = |n| Conditions::profile(n).unwrap().summary();
        assert_eq!(s("off"), "clean");
        assert_eq!(s("lan"), "1ms");
        assert_eq!(s("wifi"), "10±8ms 1.0% loss(b2)");
        assert_eq!(s("mobile"), "50±25ms 2.0% loss(b3)");
        assert_eq!(s("bad"), "150±40ms 5.0% loss(b3) 1% dup 1% reorder");
        let odd = Conditions {
            loss_pct: 0.25,
            burst_len: 1.5,
            dup_pct: 0.5,
            bandwidth_kbps: 256,
            ..Conditions::default()
        };
        assert_eq!(odd.to_string(), "0.25% loss(b1.5) 0.5% dup 256kbps");
        let nonsense = Conditions {
            loss_pct: f64::NAN,
            dup_pct: -3.0,
            ..Conditions::default()
        };
        assert!(nonsense.is_clean());
    }

    #[test]
    fn gilbert_elliott_parameters() {
        let (p, r) = gilbert_elliott(0.05, 3.0);
        assert!((p / (p + r) - 0.05).abs() < 1e-12);
        assert!((1.0 / r - 3.0).abs() < 1e-12);
        let (p, r) = gilbert_elliott(0.9, 2.0);
        assert_eq!(p, 1.0);
        assert!((p / (p + r) - 0.9).abs() < 1e-12);
    }
}
