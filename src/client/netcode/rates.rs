//! Per-second and per-minute rates of the running counters, for the stats overlay.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use super::net_stats::SessionStats;
use crate::net::transport::Traffic;

const SAMPLE_EVERY: Duration = Duration::from_millis(500);
/// Samples kept: just over a minute.
const KEEP: usize = 122;

#[derive(Clone, Copy, Debug)]
struct Reading {
    at: Instant,
    traffic: Traffic,
    snapshots: u64,
    corrections: u64,
}

/// Rates over the last second (corrections: the last minute).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Rates {
    pub(crate) packets_in: f64,
    pub(crate) packets_out: f64,
    pub(crate) bytes_in: f64,
    pub(crate) bytes_out: f64,
    pub(crate) snapshots: f64,
    pub(crate) corrections_per_min: f64,
}

#[derive(Debug, Default)]
pub(crate) struct RateMeter {
    samples: VecDeque<Reading>,
    rates: Rates,
}

impl RateMeter {
    /// Records the counters if half a second has passed since the last sample.
    pub(crate) fn sample(&mut self, now: Instant, traffic: Traffic, stats: &SessionStats) {
        if self
            .samples
            .back()
            .is_some_and(|s| now.duration_since(s.at) < SAMPLE_EVERY)
        {
            return;
        }
        let new = Reading {
            at: now,
            traffic,
            snapshots: stats.snapshots_received,
            corrections: stats.corrections,
        };
        self.samples.push_back(new);
        if self.samples.len() > KEEP {
            self.samples.pop_front();
        }
        // The sample about a second ago, and the oldest (up to a minute ago).
        let second = self.samples.iter().rev().nth(2).or(self.samples.front());
        let minute = self.samples.front();
        if let (Some(a), Some(m)) = (second, minute) {
            let dt = now.duration_since(a.at).as_secs_f64();
            let dm = now.duration_since(m.at).as_secs_f64();
            let per = |x: u64, y: u64, d: f64| if d > 0.0 { (x - y) as f64 / d } else { 0.0 };
            self.rates = Rates {
                packets_in: per(traffic.packets_in, a.traffic.packets_in, dt),
                packets_out: per(traffic.packets_out, a.traffic.packets_out, dt),
                bytes_in: per(traffic.bytes_in, a.traffic.bytes_in, dt),
                bytes_out: per(traffic.bytes_out, a.traffic.bytes_out, dt),
                snapshots: per(new.snapshots, a.snapshots, dt),
                corrections_per_min: 60.0 * per(new.corrections, m.corrections, dm),
            };
        }
    }

    pub(crate) fn rates(&self) -> Rates {
        self.rates
    }

    /// The earliest time [`RateMeter::sample`] records again: None before its first
    /// sample (it records on the first call). A stepper that calls it only at the
    /// times that matter skips none of its samples.
    pub(crate) fn next_sample(&self) -> Option<Instant> {
        self.samples.back().map(|s| s.at + SAMPLE_EVERY)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_follow_the_counters() {
        let t0 = Instant::now();
        let mut m = RateMeter::default();
        let mut stats = SessionStats::default();
        for i in 0..=10u64 {
            let traffic = Traffic {
                packets_out: 60 * i / 2,
                bytes_out: 600 * i,
                packets_in: 10 * i,
                bytes_in: 1000 * i,
            };
            stats.snapshots_received = 10 * i;
            stats.corrections = i / 2;
            m.sample(t0 + SAMPLE_EVERY * i as u32, traffic, &stats);
        }
        let r = m.rates();
        assert!((r.packets_out - 60.0).abs() < 1e-9);
        assert!((r.bytes_in - 2000.0).abs() < 1e-9);
        assert!((r.snapshots - 20.0).abs() < 1e-9);
        assert!((r.corrections_per_min - 60.0).abs() < 1e-9);
    }
}
