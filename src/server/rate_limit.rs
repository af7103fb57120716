//! Per-address token buckets: how often one address (IP and port) may ask to connect.
//! Per socket address rather than per IP, so players behind one NAT do not share a bucket.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

/// Addresses tracked at most; beyond it, idle entries are dropped first, then all, so an
/// attacker cycling spoofed sources cannot grow the table without bound.
const MAX_TRACKED: usize = 4096;

#[derive(Debug)]
pub struct RateLimit {
    per_sec: f64,
    burst: f64,
    buckets: HashMap<SocketAddr, (f64, Instant)>,
}

impl RateLimit {
    pub fn new(per_sec: f64, burst: f64) -> RateLimit {
        RateLimit {
            per_sec,
            burst,
            buckets: HashMap::new(),
        }
    }

    /// Takes one token for `ip` at `now`; false if it has none left.
    pub fn allow(&mut self, ip: SocketAddr, now: Instant) -> bool {
        if self.buckets.len() >= MAX_TRACKED && !self.buckets.contains_key(&ip) {
            let full_after = Duration::from_secs_f64(self.burst / self.per_sec);
            self.buckets
                .retain(|_, (_, at)| now.saturating_duration_since(*at) < full_after);
            if self.buckets.len() >= MAX_TRACKED {
                self.buckets.clear();
            }
        }
        let (tokens, at) = self.buckets.entry(ip).or_insert((self.burst, now));
        let refill = now.saturating_duration_since(*at).as_secs_f64() * self.per_sec;
        *tokens = (*tokens + refill).min(self.burst);
        *at = now;
        if *tokens >= 1.0 {
            *tokens -= 1.0;
            true
        } else {
            false
        }
    }

    pub fn tracked(&self) -> usize {
        self.buckets.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bursts_then_refills() {
        let t0 = Instant::now();
        let ip: SocketAddr = "10.0.0.1:5".parse().unwrap();
        let mut r = RateLimit::new(2.0, 4.0);
        assert_eq!((0..10).filter(|_| r.allow(ip, t0)).count(), 4);
        assert!(r.allow(ip, t0 + Duration::from_millis(500)));
        assert!(!r.allow(ip, t0 + Duration::from_millis(500)));
        assert!(
            r.allow("10.0.0.2:5".parse().unwrap(), t0),
            "others unaffected"
        );
    }

    #[test]
    fn the_table_stays_bounded() {
        let t0 = Instant::now();
        let mut r = RateLimit::new(2.0, 4.0);
        for i in 0..20_000u32 {
            r.allow(SocketAddr::from((i.to_be_bytes(), 9)), t0);
        }
        assert!(r.tracked() <= MAX_TRACKED);
    }
}
