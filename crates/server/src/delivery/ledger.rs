//! The delivery bucket's ledger: what was sent, what acknowledgements settled, and
//! the running totals its rates are read from.

use std::collections::VecDeque;
use std::time::Instant;

use super::DELIVERY_WINDOW;

/// What was sent, and what the acknowledgements say was delivered or went missing.
#[derive(Clone, Debug)]
pub(super) struct Ledger {
    /// Snapshots sent and not yet acknowledged: tick, when, bytes.
    pub(super) sent: VecDeque<(u32, Instant, usize)>,
    pub(super) newest_acked: Option<u32>,
    /// When the newest acknowledged snapshot was sent.
    pub(super) newest_acked_sent: Option<Instant>,
    /// Snapshots settled by each acknowledgement over the last second or so: when, how
    /// many, how many of them the client reported missing.
    pub(super) settled: VecDeque<(Instant, usize, usize)>,
    /// Bytes acknowledged, as (when, total so far), over the last second or so.
    pub(super) delivered: VecDeque<(Instant, u64)>,
    pub(super) delivered_total: u64,
    /// Bytes sent and bytes settled (acknowledged or reported missing), as (when, total
    /// so far), over the last second or so.
    pub(super) offered: VecDeque<(Instant, u64)>,
    pub(super) offered_total: u64,
    pub(super) settled_bytes: VecDeque<(Instant, u64)>,
    pub(super) settled_total: u64,
    pub(super) first_sent: Option<Instant>,
}

/// Adds `(now, total)` to a log of running totals, keeping about a second of it.
pub(super) fn log_total(log: &mut VecDeque<(Instant, u64)>, now: Instant, total: u64) {
    log.push_back((now, total));
    while log
        .get(1)
        .is_some_and(|(t, _)| now.saturating_duration_since(*t) > DELIVERY_WINDOW)
    {
        log.pop_front();
    }
}

/// Bytes a second in a log of running totals, from its oldest entry to `now` (once it
/// spans half a second).
pub(super) fn rate_of(log: &VecDeque<(Instant, u64)>, now: Instant) -> Option<f64> {
    let (t0, b0) = log.front()?;
    let (_, b1) = log.back()?;
    let secs = now.saturating_duration_since(*t0).as_secs_f64();
    (secs >= 0.5).then(|| (b1 - b0) as f64 / secs)
}
