//! How much one client's link delivers, and so how much the server may send it.
//!
//! A thin link (a 12 kbit/s uplink, a crowded Wi-Fi) holds whatever it cannot carry in
//! a queue, then drops. A server that sends at its fixed snapshot rate regardless fills
//! that queue: every snapshot waits seconds, acknowledgements come late, so deltas are
//! taken against ever older baselines and the unacknowledged events ride again and
//! again, and the snapshots grow until the link carries mostly repeats.
//!
//! Each client's snapshots therefore pass through a token bucket whose rate follows
//! what the link delivers, judged from the acknowledgements, in bytes as the wire
//! counts them ([`netarena_net::wire_bytes`]): the round trip from sending a snapshot to
//! hearing its tick acknowledged is compared with the shortest one seen lately. The
//! rate drops to a little under what was delivered in the last second, and the queue's
//! bytes are owed (the bucket waits while the link carries them), at most once a round
//! trip (not before a snapshot sent after the last cut is acknowledged: until then
//! every reading is of that cut's queue), when that queueing delay is over
//! [`QUEUE_TARGET`] and either still
//! growing (over three windows in a row) or standing while the bucket is what paces
//! the client (the rate crept up past the link); and when the client's count of
//! missing snapshots (each input packet carries it) says more than a fifth went
//! missing in the last second while a queue stands (and grows, or the bucket paces
//! the client): a drop-tail queue overflowed.
//! Loss with no queue is the path's (a radio, a lossy hop), not congestion: sending
//! less would not reduce it, so it cuts nothing. A round trip that jumped and stays
//! flat while nothing is held back is a slower path (a route change, more simulated
//! lag), not a queue: after [`STEP_SETTLES`] it becomes the new shortest.
//! While the queue stays short and the bucket held snapshots back, the rate creeps up
//! again, by the time passed rather than by acknowledgement (more of them must not make
//! it faster), and slowly past [`NEAR_CEILING`] of what the link delivered at the last
//! cut: the tbf of a home router shows no delay until its burst is spent. Snapshots the bucket holds back are counted (the client is told, so it does
//! not take them for loss) and the next one due goes when the bucket allows; a snapshot
//! also gets a byte cap from the rate, so its events wait rather than burst the link.
//!
//! A client that stops acknowledging altogether (its link is down) is not throttled
//! here: that is an outage, not congestion, and the timeout handles it.

use std::collections::VecDeque;
use std::net::IpAddr;
use std::time::{Duration, Instant};

use netarena_net::wire_bytes;

mod ledger;
mod queue;
use ledger::{Ledger, log_total, rate_of};
use queue::QueueDelay;

/// Queueing delay the path may add before the server sends less.
pub(crate) const QUEUE_TARGET: Duration = Duration::from_millis(150);
/// Every client's rate until the first sign of a queue, and the most it grows back to,
/// bytes a second: more than a 1,200-byte snapshot 240 times a second, so a LAN never
/// sees the bucket. (A slow start from a few KB/s spared a thin link its first second
/// or two, but held a crowded LAN game's snapshots back at the join.) The first cut
/// comes down to what the link delivered, however high the rate was.
const MAX_RATE: f64 = 512_000.0;
/// The join's burst goes again at this rate (bytes a second) when the client repeats
/// its connect, and at half of it for each repeat after: a 12 kbit/s link carries
/// 1,500.
const JOIN_RATE: f64 = 4000.0;
/// The largest datagram the server sends with its headers, which a bucket must be able
/// to pass.
const MAX_DATAGRAM: f64 =
    (netarena_net::codec::MAX_SERVER_DATAGRAM + wire_bytes::IPV6_UDP + wire_bytes::ETHERNET) as f64;
/// The rate never goes below this (bytes a second), so a client on a hopeless link
/// still gets a few snapshots a second.
const MIN_RATE: f64 = 300.0;
/// After a cut for a growing queue, the rate is this share of what was delivered...
const CUT: f64 = 0.85;
/// ...and after loss this share: what was "delivered" then counts the lost snapshots
/// too (only the newest tick is acknowledged), so the cut must be deeper.
const LOSS_CUT: f64 = 0.7;
/// The first cut goes this far below what was delivered, so the queue the start
/// filled drains and the path's own round trip can be measured.
const DRAIN: f64 = 0.5;
/// The rate does not grow while that queue drains, for at most this long.
const DRAIN_FOR: Duration = Duration::from_secs(3);
/// Growth a second while the rate is what holds snapshots back (by the time between
/// acknowledgements, so more of them do not make it faster), past [`NEAR_CEILING`] of
/// what the link delivered at the last cut, or with a queue over [`EMPTY_QUEUE`]...
const GROW_SHARE: f64 = 0.03;
const GROW_BYTES: f64 = 20.0;
/// Loss counts as congestion past this share of the snapshots settled in the last
/// second, and only while a queue of more than [`EMPTY_QUEUE`] stands: random loss
/// with no queue is the path's.
const LOSS_LIMIT: f64 = 0.2;
/// The queueing delay is judged by its smallest reading in windows this long (jitter
/// only adds to a reading); it is growing when each of three windows in a row is more
/// than [`GROWTH`] above the one before. A window without an acknowledgement breaks
/// the row: a queue delays the acknowledgements, a step in the path's lag stops them
/// for as long as the step.
const QUEUE_WINDOW: Duration = Duration::from_millis(250);
const GROWTH: Duration = Duration::from_millis(5);
/// A round trip over the target that stays flat this long, with nothing held back,
/// is the path's new length.
const STEP_SETTLES: Duration = Duration::from_secs(1);
/// ...and while the round trip stays within this of its floor the queue is empty,
/// and below that share of the ceiling the rate grows back faster: a cut for a spike
/// of lag is undone in a few seconds.
const EMPTY_QUEUE: Duration = Duration::from_millis(40);
const FAST_GROW_SHARE: f64 = 0.3;
const NEAR_CEILING: f64 = 0.9;
/// The shortest round trip is forgotten after this long, so a path that got slower for
/// good (a route change) is not taken for a queue for ever.
const MIN_RTT_WINDOW: Duration = Duration::from_secs(10);
/// Delivery is measured over about this long.
const DELIVERY_WINDOW: Duration = Duration::from_secs(1);
/// Snapshots remembered until acknowledged.
const SENT_KEPT: usize = 64;
/// A snapshot's bytes may use this much of a second's rate, and no fewer than
/// [`MIN_CAP`] bytes: its events wait for the next one rather than make it so large
/// that fewer snapshots a second fit the rate (ten of them, at this share).
const CAP_SECS: f64 = 0.1;
const MIN_CAP: usize = 120;
/// A queue that grows is ours only if the link carried less than this share of what we
/// offered over the last second: a path's delay drifting up by its jitter (tens of
/// milliseconds) slows the acknowledgements by as much, a link we overfill by a
/// multiple.
const CARRIED_SHARE: f64 = 0.75;
/// A link that delivered less than this share of what was offered over the last second
/// is overfilled whatever its delay says: a queue full from the join on (so its round
/// trip is all the server has seen) drops the rest. Random loss this deep (two thirds)
/// leaves a link nothing to lose by a cut.
const DELIVERED_SHARE: f64 = 0.35;
/// A link is taken for swamped only on a second with at least this many snapshots
/// settled. Fewer are the first acknowledgements of a join (the delivered rate then
/// rests on two of them), and one burst of a path's random loss in them (4 of the
/// first 7 on the lab's `bad` link) reads as a link that carries a fifth of what it is
/// offered. A link swamped from the join settles this many in half a second at 20
/// snapshots a second, most of them missing.
const SWAMPED_SAMPLE: usize = 10;
/// For how long after a cut the rate counts as still coming down.
const CUTTING_FOR: Duration = Duration::from_secs(5);
/// For how long after a snapshot was held back the client counts as rate limited.
const LIMITED_FOR: Duration = Duration::from_secs(2);

#[derive(Clone, Debug)]
pub(crate) struct Delivery {
    /// Header bytes per datagram on the wire to this client.
    overhead: usize,
    last_cut: Option<Instant>,
    /// Until when the first cut drains the queue the start filled.
    draining: Option<Instant>,
    /// The queueing delay that caused the last cut, while it lasts.
    cut_queue: Option<Duration>,
    /// The client's count of snapshots it found missing, as last heard when it rose
    /// (it falls when one counted missing arrives late).
    lost_count: Option<u8>,
    /// The rate's growth: when it was last reckoned, and what the link delivered
    /// (bytes a second) at the last cut, where the queue came from.
    grown_at: Option<Instant>,
    ceiling: Option<f64>,
    queue: QueueDelay,
    ledger: Ledger,
    bucket: Bucket,
}

/// The token bucket snapshots pass through, and what it held back.
#[derive(Clone, Debug)]
struct Bucket {
    /// Bytes a second the bucket lets through, and what it holds now.
    rate: f64,
    tokens: f64,
    refilled: Option<Instant>,
    /// Snapshots held back in all (every snapshot tells the client this total).
    withheld_total: u32,
    last_withheld: Option<Instant>,
}

impl Delivery {
    /// The delivery of a client at `ip`: its datagrams' headers count.
    pub(crate) fn new(ip: IpAddr) -> Delivery {
        Delivery {
            overhead: wire_bytes::overhead(ip),
            last_cut: None,
            draining: None,
            cut_queue: None,
            lost_count: None,
            grown_at: None,
            ceiling: None,
            queue: QueueDelay {
                queue_windows: [None; 3],
                queue_window_start: None,
                over_since: None,
                min_rtt: [None; 2],
                window_start: None,
                srtt: None,
                up_base: None,
                up_min: [None; 2],
                up_window_start: None,
                up_queue: Duration::ZERO,
            },
            ledger: Ledger {
                sent: VecDeque::new(),
                newest_acked: None,
                newest_acked_sent: None,
                settled: VecDeque::new(),
                delivered: VecDeque::new(),
                delivered_total: 0,
                offered: VecDeque::new(),
                offered_total: 0,
                settled_bytes: VecDeque::new(),
                settled_total: 0,
                first_sent: None,
            },
            bucket: Bucket {
                rate: MAX_RATE,
                tokens: 0.0,
                refilled: None,
                withheld_total: 0,
                last_withheld: None,
            },
        }
    }

    /// Whether a snapshot due now may go, `period` being the time between snapshots at
    /// the full rate. If not, it is counted as held back.
    pub(crate) fn allow(&mut self, now: Instant, period: Duration) -> bool {
        // The bucket holds two snapshot periods' worth: enough for the jitter of the
        // tick, not a burst.
        let depth = self.bucket.rate * 2.0 * period.as_secs_f64();
        let elapsed = self
            .bucket
            .refilled
            .map_or(depth, |t| self.bucket.rate * (now - t).as_secs_f64());
        self.bucket.tokens = (self.bucket.tokens + elapsed).min(depth);
        self.bucket.refilled = Some(now);
        if self.bucket.tokens >= 0.0 {
            return true;
        }
        self.bucket.withheld_total = self.bucket.withheld_total.wrapping_add(1);
        self.bucket.last_withheld = Some(now);
        false
    }

    /// The client repeated its connect request: the join's burst overflowed its link.
    /// Before anything is known of the link the burst goes again at [`JOIN_RATE`];
    /// each further repeat halves the rate.
    pub(crate) fn join_repeated(&mut self, now: Instant) {
        self.bucket.rate = if self.bucket.rate >= MAX_RATE {
            JOIN_RATE
        } else {
            (self.bucket.rate / 2.0).max(MIN_RATE)
        };
        self.bucket.tokens = self.bucket.tokens.min(0.0);
        self.bucket.refilled = Some(now);
        self.bucket.last_withheld = Some(now);
    }

    /// Whether `bytes` of the join's burst may go now (and takes them if so): the
    /// bucket holds a tenth of a second of the rate, at least one largest datagram.
    pub(crate) fn take(&mut self, now: Instant, bytes: usize) -> bool {
        let depth = (self.bucket.rate * 0.1).max(MAX_DATAGRAM);
        let elapsed = self
            .bucket
            .refilled
            .map_or(depth, |t| self.bucket.rate * (now - t).as_secs_f64());
        self.bucket.tokens = (self.bucket.tokens + elapsed).min(depth);
        self.bucket.refilled = Some(now);
        if self.bucket.tokens < 0.0 {
            return false;
        }
        self.bucket.tokens -= (bytes + self.overhead) as f64;
        true
    }

    /// The most payload bytes the next snapshot should take.
    pub(crate) fn byte_cap(&self) -> usize {
        ((self.bucket.rate * CAP_SECS) as usize)
            .saturating_sub(self.overhead)
            .max(MIN_CAP)
    }

    /// A snapshot of `tick` and `bytes` of payload went out at `now`.
    pub(crate) fn sent(&mut self, now: Instant, tick: u32, bytes: usize) {
        let bytes = bytes + self.overhead;
        self.ledger.first_sent.get_or_insert(now);
        self.bucket.tokens -= bytes as f64;
        if self.ledger.sent.len() == SENT_KEPT {
            self.ledger.sent.pop_front();
        }
        self.ledger.sent.push_back((tick, now, bytes));
        self.ledger.offered_total += bytes as u64;
        log_total(&mut self.ledger.offered, now, self.ledger.offered_total);
    }

    /// A packet of the client's came at `now`, stamped `client_ms` by its clock: what
    /// its one-way delay is above the least lately is the uplink's queue, which the
    /// round trip of the acknowledgement it carries includes but a cut of the
    /// downlink's rate would not shorten.
    pub(crate) fn heard(&mut self, now: Instant, client_ms: u32) {
        let base = *self.queue.up_base.get_or_insert(now);
        let offset = now.saturating_duration_since(base).as_millis() as i64 - i64::from(client_ms);
        let start = *self.queue.up_window_start.get_or_insert(now);
        if now.saturating_duration_since(start) > MIN_RTT_WINDOW {
            self.queue.up_min = [None, self.queue.up_min[0]];
            self.queue.up_window_start = Some(now);
        }
        self.queue.up_min[0] = Some(self.queue.up_min[0].map_or(offset, |m| m.min(offset)));
        let least = self
            .queue
            .up_min
            .iter()
            .flatten()
            .min()
            .copied()
            .unwrap_or(offset);
        self.queue.up_queue = Duration::from_millis(u64::try_from(offset - least).unwrap_or(0));
    }

    /// The client says `tick` is the newest snapshot it has, and (from its newest
    /// packet) how many it found missing so far, wrapping; it had `held` that snapshot
    /// before its packet went (the pace of its input packets, no queue of the link's).
    pub(crate) fn acked(
        &mut self,
        now: Instant,
        tick: u32,
        lost_count: Option<u8>,
        held: Duration,
    ) {
        if self.ledger.newest_acked.is_some_and(|t| tick <= t) {
            return;
        }
        let Some(at) = self.ledger.sent.iter().position(|(t, _, _)| *t == tick) else {
            return;
        };
        self.ledger.newest_acked = Some(tick);
        let (_, sent_at, _) = self.ledger.sent[at];
        self.ledger.newest_acked_sent = Some(sent_at);
        let lost = match (self.lost_count, lost_count) {
            (Some(before), Some(count)) => {
                // The count falls when a snapshot counted missing comes after all
                // (overtaken on the way): that is no loss, and the higher count stays
                // the reference, so the one it took back is not counted again. (Read
                // as wrapping, a fall of one was 255 lost.)
                let rise = count.wrapping_sub(before) as i8;
                if rise > 0 {
                    self.lost_count = Some(count);
                }
                rise.max(0) as usize
            }
            (None, count) => {
                self.lost_count = count;
                0
            }
            (Some(_), None) => 0,
        };
        // Everything up to it is settled: arrived, or lost on the way. Only the
        // newest tick is acknowledged, so the lost ones are taken from the oldest.
        let settled: Vec<usize> = self.ledger.sent.drain(..=at).map(|(_, _, b)| b).collect();
        let bytes: usize = settled.iter().skip(lost).sum();
        self.ledger.delivered_total += bytes as u64;
        log_total(&mut self.ledger.delivered, now, self.ledger.delivered_total);
        self.ledger.settled_total += settled.iter().sum::<usize>() as u64;
        log_total(
            &mut self.ledger.settled_bytes,
            now,
            self.ledger.settled_total,
        );
        // A hold longer than the whole round trip is a confused or lying client.
        let rtt = now.saturating_duration_since(sent_at);
        let own = held + self.queue.up_queue;
        let queue = self.sample(now, rtt.checked_sub(own).unwrap_or(rtt));
        self.ledger
            .settled
            .push_back((now, settled.len(), lost.min(settled.len())));
        while self
            .ledger
            .settled
            .front()
            .is_some_and(|(t, _, _)| now.saturating_duration_since(*t) > DELIVERY_WINDOW)
        {
            self.ledger.settled.pop_front();
        }
        let (all, missing) = self
            .ledger
            .settled
            .iter()
            .fold((0, 0), |(a, m), (_, n, l)| (a + n, m + l));
        // A lossy radio loses a few in a hundred, or many, with no queue; a full
        // drop-tail queue loses a large share and stands long: over the target for
        // two windows, which a path's jitter does not do.
        let queued = queue > EMPTY_QUEUE
            && self.standing_queue() > QUEUE_TARGET
            && (self.overfilled(now) || self.limited(now));
        // With no queue to go by, only a share of enough snapshots says swamped.
        let swamped = all >= SWAMPED_SAMPLE
            && self
                .delivery_rate()
                .zip(rate_of(&self.ledger.offered, now))
                .is_some_and(|(delivered, offered)| delivered < DELIVERED_SHARE * offered);
        if lost > 0 && missing as f64 > LOSS_LIMIT * all as f64 && (queued || swamped) {
            self.cut(now, LOSS_CUT, queue);
        }
    }

    /// Sends less: a little under what was delivered, and the `queue` that stands
    /// is owed (the bucket waits while the link carries it), at most once a round
    /// trip: not before a snapshot sent after the last cut is acknowledged, since until
    /// then every reading is of the queue that cut was for. Whether it did.
    fn cut(&mut self, now: Instant, share: f64, queue: Duration) -> bool {
        let srtt = self.queue.srtt.unwrap_or(Duration::from_millis(200));
        if self.last_cut.is_some_and(|t| {
            now.saturating_duration_since(t) < srtt
                || self.ledger.newest_acked_sent.is_some_and(|s| s <= t)
        }) {
            return false;
        }
        let delivered = self
            .delivery_rate()
            .or_else(|| self.delivered_since_start(now))
            .unwrap_or(self.bucket.rate);
        let first = self.last_cut.is_none();
        let share = if first { DRAIN } else { share };
        self.bucket.rate = (self.bucket.rate.min(delivered) * share).max(MIN_RATE);
        self.ceiling = Some(delivered);
        if first {
            // Every round trip so far was measured behind the queue the start filled:
            // the shortest is learnt again while it drains.
            self.queue.min_rtt = [None; 2];
            self.queue.window_start = None;
            // At half the rate a queue drains in twice its length, which is at most
            // about the round trip.
            let queue = self.queue.srtt.unwrap_or(DRAIN_FOR) * 2;
            self.draining = Some(now + queue.min(DRAIN_FOR));
        }
        // At most a second of the rate: a queue read that long is mostly the other
        // direction's (the round trip holds both), and the next cut waits for news.
        let owed = (delivered * queue.as_secs_f64()).min(self.bucket.rate);
        self.bucket.tokens = self.bucket.tokens.min(0.0) - owed;
        self.last_cut = Some(now);
        true
    }

    /// Bytes a second acknowledged over the last second or so.
    fn delivery_rate(&self) -> Option<f64> {
        let (t0, b0) = self.ledger.delivered.front()?;
        let (t1, b1) = self.ledger.delivered.back()?;
        let secs = (*t1 - *t0).as_secs_f64();
        (secs >= 0.25).then(|| (b1 - b0) as f64 / secs)
    }

    /// Bytes a second acknowledged since the first snapshot, for a cut before a second's
    /// deliveries are in.
    fn delivered_since_start(&self, now: Instant) -> Option<f64> {
        let secs = (now - self.ledger.first_sent?).as_secs_f64();
        (secs > 0.0 && self.ledger.delivered_total > 0)
            .then(|| self.ledger.delivered_total as f64 / secs)
    }

    /// Whether the rate is still coming down: a cut within [`CUTTING_FOR`], or the
    /// first cut's queue still draining.
    pub(crate) fn cutting(&self, now: Instant) -> bool {
        self.draining.is_some_and(|until| now < until)
            || self
                .last_cut
                .is_some_and(|t| now.saturating_duration_since(t) < CUTTING_FOR)
    }

    /// Whether the bucket held a snapshot back lately.
    pub(crate) fn limited(&self, now: Instant) -> bool {
        self.bucket
            .last_withheld
            .is_some_and(|t| now.saturating_duration_since(t) < LIMITED_FOR)
    }

    /// Snapshots held back in all, as the client is told (wrapping at `u32::MAX`).
    pub(crate) fn withheld_total(&self) -> u32 {
        self.bucket.withheld_total
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PERIOD: Duration = Duration::from_millis(50);
    const V4: IpAddr = IpAddr::V4(std::net::Ipv4Addr::LOCALHOST);
    /// Payload plus IPv4, UDP and Ethernet headers.
    fn wire(bytes: usize) -> usize {
        wire_bytes::on_wire(bytes, V4)
    }

    /// Sends a `bytes` snapshot every period for `secs` over a link of `link` bytes a
    /// second on the wire with `base` round trip (a queue in front of it, acks per
    /// snapshot); returns (wire bytes offered per second, snapshots sent).
    fn run(d: &mut Delivery, start: Instant, secs: u32, link: f64, bytes: usize) -> (f64, u32) {
        run_behind(d, start, Duration::ZERO, secs, link, bytes)
    }

    /// [`run`] with the link already busy for `backlog` (a join's burst in its queue).
    fn run_behind(
        d: &mut Delivery,
        start: Instant,
        backlog: Duration,
        secs: u32,
        link: f64,
        bytes: usize,
    ) -> (f64, u32) {
        // Ticks go on from the last run's.
        let first = d
            .ledger
            .sent
            .back()
            .map_or(0, |(t, _, _)| t + 1)
            .max(d.ledger.newest_acked.map_or(0, |t| t + 1));
        let base = Duration::from_millis(40);
        let mut link_free = start + backlog;
        let mut arrivals: VecDeque<(Instant, u32)> = VecDeque::new();
        let (mut offered, mut sent) = (0usize, 0u32);
        let steps = secs * 20;
        for i in 0..steps {
            let now = start + PERIOD * i;
            while arrivals.front().is_some_and(|(t, _)| *t <= now) {
                let (_, tick) = arrivals.pop_front().unwrap();
                d.acked(now, tick, None, Duration::ZERO);
            }
            if d.allow(now, PERIOD) {
                d.sent(now, first + i, bytes);
                offered += wire(bytes);
                sent += 1;
                let go = link_free.max(now) + Duration::from_secs_f64(wire(bytes) as f64 / link);
                link_free = go;
                arrivals.push_back((go + base, first + i));
            }
        }
        (offered as f64 / f64::from(secs), sent)
    }

    #[test]
    fn a_lan_never_meets_the_bucket() {
        let mut d = Delivery::new(V4);
        // 1,200-byte snapshots, 24 KB/s, from the first.
        let (_, sent) = run(&mut d, Instant::now(), 10, 1e6, 1200);
        assert_eq!(sent, 200);
        assert_eq!(d.withheld_total(), 0);
    }

    #[test]
    fn a_thin_link_gets_what_it_carries_and_no_more() {
        let mut d = Delivery::new(V4);
        let start = Instant::now();
        // 1,500 B/s (12 kbit/s) against 20 snapshots of 120 B a second (2,400 B/s).
        run(&mut d, start, 10, 1500.0, 120);
        let (offered, sent) = run(&mut d, start + Duration::from_secs(10), 10, 1500.0, 120);
        assert!(offered <= 1500.0, "offered {offered:.0} B/s");
        assert!(offered >= 1000.0, "offered {offered:.0} B/s");
        assert!(sent < 200 && d.limited(start + Duration::from_secs(20)));
        // The round trip saws between the path's (150 ms: 40 ms and a datagram's 108 ms
        // on the wire) and that plus the queue target and a little.
        assert!(
            d.queue.srtt.unwrap() < Duration::from_millis(400),
            "{:?}",
            d.queue.srtt
        );
    }

    // Behind a thin link the join's burst fills the queue, so the first round trips
    // (840 ms) were taken for the path's own: the queue could then stay that long for
    // the next 20 s, and the fight read 450-580 ms of RTT through --bandwidth 12.
    #[test]
    fn a_queue_filled_before_the_first_cut_is_not_taken_for_the_path() {
        let mut d = Delivery::new(V4);
        let start = Instant::now();
        run_behind(&mut d, start, Duration::from_millis(800), 8, 1500.0, 120);
        let min = d.queue.min_rtt.iter().flatten().min().copied().unwrap();
        assert!(
            min < Duration::from_millis(300),
            "shortest round trip {min:?}"
        );
        run(&mut d, start + Duration::from_secs(8), 4, 1500.0, 120);
        let srtt = d.queue.srtt.unwrap();
        assert!(
            srtt < Duration::from_millis(400),
            "smoothed round trip {srtt:?}"
        );
    }

    // A cut before a second of acknowledgements was in fell back to the rate in force,
    // 512 KB/s at the start: the first loss cut behind a thin link changed nothing.
    #[test]
    fn a_cut_in_the_first_second_comes_down_to_what_was_delivered() {
        let mut d = Delivery::new(V4);
        let start = Instant::now();
        for i in 0..4u32 {
            d.sent(start + PERIOD * i, i, 120);
        }
        // The bucket already paces this client and a queue of 300 ms has stood for a
        // window over a path of 150 ms: loss behind it is congestion.
        d.bucket.last_withheld = Some(start);
        d.queue.min_rtt = [Some(Duration::from_millis(150)), None];
        d.queue.queue_windows = [None, Some(Duration::from_millis(300)), None];
        // Ticks 1 and 3 are back in 450 ms; the client found two missing.
        d.acked(
            start + Duration::from_millis(500),
            1,
            Some(0),
            Duration::ZERO,
        );
        d.acked(
            start + Duration::from_millis(600),
            3,
            Some(2),
            Duration::ZERO,
        );
        assert!(
            d.bucket.rate < 2000.0,
            "rate {:.0} B/s after the cut",
            d.bucket.rate
        );
    }

    // Input packets go at a pace (half of it on a thin link), so a snapshot's
    // acknowledgement waits on the client for up to a packet's interval: on `bad`,
    // with its jitter, that wait made the round trip look queued, and the cuts that
    // followed held back more snapshots still (which halved the client's pace again).
    #[test]
    fn the_time_a_client_held_a_snapshot_is_no_queue() {
        let run = |told: bool| {
            let mut d = Delivery::new(V4);
            let start = Instant::now();
            for i in 0..100u32 {
                let now = start + PERIOD * i;
                if i > 0 {
                    // 100 ms there and back, and the client held each a little longer
                    // than the one before, up to 400 ms.
                    let held = Duration::from_millis(u64::from(i) * 4);
                    let said = if told { held } else { Duration::ZERO };
                    d.acked(now + Duration::from_millis(100) + held, i - 1, None, said);
                }
                if d.allow(now, PERIOD) {
                    d.sent(now, i, 100);
                }
            }
            (d.bucket.rate, d.standing_queue())
        };
        assert_eq!(run(true), (MAX_RATE, Duration::ZERO), "no queue, no cut");
        let (_, untold) = run(false);
        assert!(
            untold > EMPTY_QUEUE,
            "untold, the hold reads as a queue: {untold:?}"
        );
    }

    /// Snapshots of 300 bytes every period for `secs` over a path with no rate limit:
    /// each lost with chance `loss` (a fixed sequence), delayed by `one_way(t)` each
    /// way, acknowledged on arrival with the client's running count of missing ones.
    fn unlimited(d: &mut Delivery, secs: u32, loss: f64, one_way: impl Fn(Duration) -> Duration) {
        let start = Instant::now();
        let mut seed = 0x2545_f491_u32;
        let mut arrivals: VecDeque<(Instant, u32)> = VecDeque::new();
        let (mut newest, mut lost) = (None::<u32>, 0u8);
        for i in 0..secs * 20 {
            let now = start + PERIOD * i;
            while arrivals.front().is_some_and(|(t, _)| *t <= now) {
                let (at, tick) = arrivals.pop_front().unwrap();
                let gap = newest.map_or(0, |n| tick.saturating_sub(n + 1));
                lost = lost.wrapping_add(gap as u8);
                newest = Some(tick);
                d.acked(at + one_way(at - start), tick, Some(lost), Duration::ZERO);
            }
            if d.allow(now, PERIOD) {
                d.sent(now, i, 300);
                seed ^= seed << 13;
                seed ^= seed >> 17;
                seed ^= seed << 5;
                if f64::from(seed) / f64::from(u32::MAX) >= loss {
                    arrivals.push_back((now + one_way(now - start), i));
                }
            }
        }
    }

    // Loss was read as congestion: with 20% random loss and no rate limit on the path
    // the server cut its rate and held snapshots back (40% loss: 3.8 a second of 20).
    #[test]
    fn random_loss_with_no_queue_holds_nothing_back() {
        for loss in [0.1, 0.2, 0.4] {
            let mut d = Delivery::new(V4);
            unlimited(&mut d, 20, loss, |_| Duration::from_millis(50));
            assert_eq!(d.withheld_total(), 0, "{loss} loss");
            assert_eq!(d.bucket.rate, MAX_RATE, "{loss} loss");
        }
    }

    // The lab's `bad` link (150 ms each way drifting 40 ms either side, no rate limit)
    // had 46 of 97 snapshots held back: the drift of its delay looked like a queue
    // growing, and the cut that followed made every later drift a standing queue.
    #[test]
    fn drifting_delay_with_loss_is_no_queue() {
        for (period_ms, loss) in [(400u128, 0.2), (700, 0.2), (1100, 0.1), (1600, 0.05)] {
            let mut d = Delivery::new(V4);
            // A triangle between 110 and 190 ms.
            let drift = |t: Duration| {
                let phase = (t.as_millis() % period_ms) as f64 / period_ms as f64;
                let tri = 1.0 - (2.0 * phase - 1.0).abs();
                Duration::from_micros((110_000.0 + 80_000.0 * tri) as u64)
            };
            unlimited(&mut d, 30, loss, drift);
            assert_eq!(d.withheld_total(), 0, "{period_ms} ms drift, {loss} loss");
        }
    }

    // One burst of the path's loss at the join (the lab's `bad` link with independent
    // jitter lost 4 of the first 7 snapshots): with only two acknowledgements in, the
    // delivered share read 438 of 2,150 B/s, the link was taken for swamped, and the
    // first cut (to 300 B/s) held back 227 of 480 snapshots over 24 s.
    #[test]
    fn a_burst_of_loss_at_the_join_is_no_swamped_link() {
        let mut d = Delivery::new(V4);
        let start = Instant::now();
        let one_way = Duration::from_millis(150);
        // Snapshots on their way down (arrival, tick), and input packets up (arrival,
        // newest tick, its arrival, the client's count of missing ones).
        let mut down: VecDeque<(Instant, u32)> = VecDeque::new();
        let mut up: VecDeque<(Instant, u32, Instant, u8)> = VecDeque::new();
        let (mut newest, mut lost) = (None::<(u32, Instant)>, 0u8);
        for ms in 0..10_000u32 {
            let now = start + Duration::from_millis(u64::from(ms));
            if ms % 50 == 0 {
                let i = ms / 50;
                if d.allow(now, PERIOD) {
                    d.sent(now, i, 100);
                    if !(2..6).contains(&i) {
                        down.push_back((now + one_way, i));
                    }
                }
            }
            while down.front().is_some_and(|(t, _)| *t <= now) {
                let (at, tick) = down.pop_front().unwrap();
                let gap = newest.map_or(0, |(n, _)| tick - n - 1);
                lost = lost.wrapping_add(gap as u8);
                newest = Some((tick, at));
            }
            if ms % 33 == 0
                && let Some((tick, at)) = newest
            {
                up.push_back((now + one_way, tick, at, lost));
            }
            while up.front().is_some_and(|(t, ..)| *t <= now) {
                let (arrived, tick, at, count) = up.pop_front().unwrap();
                let held = arrived - one_way - at;
                d.acked(now, tick, Some(count), held);
            }
        }
        assert_eq!(d.withheld_total(), 0);
        assert_eq!(d.bucket.rate, MAX_RATE);
    }

    // Jitter that lets snapshots overtake one another (netem's): the client counts a
    // snapshot missing when a newer one comes first and takes it back when it arrives,
    // so its count falls by one, which the server read (wrapping) as 255 lost: every
    // snapshot that acknowledgement settled counted missing, on top of the overtaken
    // one itself.
    #[test]
    fn snapshots_overtaking_one_another_are_no_loss() {
        let mut d = Delivery::new(V4);
        let start = Instant::now();
        let mut seed = 0x9e37_79b9_u32;
        let mut jitter = || {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            // 150 ± 40 ms, each datagram on its own.
            Duration::from_micros(110_000 + u64::from(seed % 80_000))
        };
        // Arrivals at the client, as (when, tick), in the order they come.
        let mut arrivals: Vec<(Instant, u32)> = Vec::new();
        let (mut newest, mut lost, mut late) = (None::<u32>, 0u8, 0);
        for i in 0..20 * 20 {
            let now = start + PERIOD * i;
            arrivals.sort();
            while arrivals.first().is_some_and(|(t, _)| *t <= now) {
                let (at, tick) = arrivals.remove(0);
                match newest {
                    Some(n) if tick < n => {
                        lost = lost.wrapping_sub(1);
                        late += 1;
                    }
                    _ => {
                        let gap = newest.map_or(0, |n| tick - n - 1);
                        lost = lost.wrapping_add(gap as u8);
                        newest = Some(tick);
                    }
                }
                d.acked(at + jitter(), newest.unwrap(), Some(lost), Duration::ZERO);
            }
            if d.allow(now, PERIOD) {
                d.sent(now, i, 300);
                arrivals.push((now + jitter(), i));
            }
        }
        assert!(late > 20, "{late} snapshots overtaken");
        // Each overtaken one was read as lost until it came, and no more.
        let missing = (d.ledger.settled_total - d.ledger.delivered_total) / wire(300) as u64;
        assert!(missing <= late, "{missing} read as lost, {late} overtaken");
        assert_eq!(d.withheld_total(), 0);
        assert_eq!(d.bucket.rate, MAX_RATE);
    }

    // Growth went by acknowledgement (1 % each, 5 % with no queue): through tbf at 12
    // kbit/s, with about 20 a second, a rate cut to 1,335 B/s was back at 4,052 in two
    // seconds, nearly three times what the link carries, and the queue that followed
    // took four cuts and four seconds to drain.
    #[test]
    fn the_rate_grows_by_time_not_by_acknowledgements() {
        let grown = |acks_per_sec: u32| {
            let mut d = Delivery::new(V4);
            let start = Instant::now();
            d.bucket.rate = 1000.0;
            let step = Duration::from_secs(1) / acks_per_sec;
            for i in 0..2 * acks_per_sec {
                let now = start + step * i;
                // The bucket holds snapshots back, and each is acknowledged at once.
                d.bucket.last_withheld = Some(now);
                d.sent(now, i, 100);
                d.acked(now + Duration::from_millis(1), i, None, Duration::ZERO);
            }
            d.bucket.rate
        };
        let (few, many) = (grown(5), grown(40));
        assert!(few > 1200.0, "{few:.0} B/s: no growth");
        assert!(
            many < 1.2 * few,
            "{many:.0} B/s at 40 a second, {few:.0} at 5"
        );
    }

    // Raising the lag (a route change, `+` in the lab) read as a queue: one cut, and
    // snapshots held back on a path with no rate limit.
    #[test]
    fn a_step_in_lag_is_no_queue() {
        let mut d = Delivery::new(V4);
        let lag = |t: Duration| Duration::from_millis(if t.as_secs() < 5 { 50 } else { 300 });
        unlimited(&mut d, 15, 0.0, lag);
        assert_eq!(d.withheld_total(), 0);
        assert_eq!(d.bucket.rate, MAX_RATE);
    }
}
