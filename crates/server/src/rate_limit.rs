//! Token buckets that bound how often one source may ask for something.
//!
//! Strangers (connect and discovery requests) are limited per host, an IPv4 or IPv6
//! address, since a sender can pick any source port it likes. (Per IPv6 address, not
//! per /64: one LAN host flooding from its own address must not block every other
//! host's join.) A host's bucket is what a spoofed flood from a victim's address
//! drains, so a stranger's limit also has a fallback keyed by the whole socket address:
//! once the host's bucket is empty, each source port still gets
//! [`FALLBACK_BURST`] request and then one every two seconds. A flood of forged requests
//! spread over the ports leaves the victim's own port its fallback, so the victim still
//! gets its challenge; its connect then carries a valid cookie, which only the per-socket
//! limit of connects applies to, never this one. Nothing a stranger is answered is
//! larger than what it sent, so the fallback lends a flood no amplification. Connected
//! players (chat) are limited per socket address, so two players behind one NAT do not
//! share a bucket.
//!
//! The table is bounded. When it is full, the entry whose bucket would be full again
//! soonest is evicted: a full bucket is the same as no entry, so that eviction forgets
//! nothing, and among addresses used alike it is the least recently seen. A flood from
//! many addresses therefore cannot reset the limit of an address it does not own: to
//! push out an address that is over its limit, every tracked entry would have to be
//! further from full than that address.
#![doc(hidden)] // Public for the binary, tests or fuzz targets: see the crate docs.

use std::collections::{BTreeSet, HashMap};
use std::net::{IpAddr, SocketAddr};
use std::time::{Duration, Instant};

use netarena_net::protocol::Rate;

/// Sources tracked at most. Each entry costs about 100 bytes (map plus order index).
pub const MAX_TRACKED: usize = 16_384;
/// A stranger's fallback per socket address, when its host's bucket is empty.
pub const FALLBACK_BURST: f64 = 1.0;
pub const FALLBACK_PER_SEC: f64 = 0.5;

/// What one bucket is keyed by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Source {
    Host(IpAddr),
    Socket(SocketAddr),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Keying {
    PerHost,
    PerSocket,
}

#[derive(Debug, Clone, Copy)]
struct Bucket {
    tokens: f64,
    at: Instant,
    /// When the bucket is full again if left alone: its eviction priority.
    full_at: Instant,
}

#[derive(Debug)]
pub struct RateLimit {
    rate: Rate,
    keying: Keying,
    capacity: usize,
    buckets: HashMap<Source, Bucket>,
    /// The same entries ordered by `full_at`, soonest first.
    by_full_at: BTreeSet<(Instant, Source)>,
    /// Per host: the per-socket fallback once the host's bucket is empty.
    fallback: Option<Box<RateLimit>>,
}

impl RateLimit {
    /// A limit per host (IPv4 or IPv6 address), for requests from strangers, with the
    /// per-socket fallback.
    pub fn per_host(per_sec: f64, burst: f64) -> RateLimit {
        let mut limit = RateLimit::with(per_sec, burst, Keying::PerHost, MAX_TRACKED);
        limit.fallback = Some(Box::new(RateLimit::per_socket(
            FALLBACK_PER_SEC,
            FALLBACK_BURST,
        )));
        limit
    }

    /// A limit per socket address, for requests from connected players.
    pub fn per_socket(per_sec: f64, burst: f64) -> RateLimit {
        RateLimit::with(per_sec, burst, Keying::PerSocket, MAX_TRACKED)
    }

    fn with(per_sec: f64, burst: f64, keying: Keying, capacity: usize) -> RateLimit {
        assert!(
            per_sec > 0.0 && burst >= 1.0,
            "a limit must let something through"
        );
        RateLimit {
            rate: Rate { per_sec, burst },
            keying,
            capacity,
            buckets: HashMap::new(),
            by_full_at: BTreeSet::new(),
            fallback: None,
        }
    }

    fn source(&self, addr: SocketAddr) -> Source {
        match (self.keying, addr.ip()) {
            (Keying::PerSocket, _) => Source::Socket(addr),
            (Keying::PerHost, IpAddr::V4(v4)) => Source::Host(IpAddr::V4(v4)),
            (Keying::PerHost, IpAddr::V6(v6)) => match v6.to_ipv4_mapped() {
                Some(v4) => Source::Host(IpAddr::V4(v4)),
                None => Source::Host(IpAddr::V6(v6)),
            },
        }
    }

    /// Takes one token for the source of `addr` at `now` (from the host's bucket, or
    /// when that is empty from the socket's fallback); false if it has none left.
    pub fn allow(&mut self, addr: SocketAddr, now: Instant) -> bool {
        self.take(addr, now)
            || self
                .fallback
                .as_mut()
                .is_some_and(|fallback| fallback.take(addr, now))
    }

    fn take(&mut self, addr: SocketAddr, now: Instant) -> bool {
        let source = self.source(addr);
        let bucket = match self.buckets.get(&source) {
            Some(b) => {
                self.by_full_at.remove(&(b.full_at, source));
                let secs = now.saturating_duration_since(b.at).as_secs_f64();
                self.rate.refill(b.tokens, secs)
            }
            None => {
                if self.buckets.len() >= self.capacity {
                    self.evict_one();
                }
                self.rate.burst
            }
        };
        let allowed = bucket >= 1.0;
        let tokens = if allowed { bucket - 1.0 } else { bucket };
        let full_at = now + Duration::from_secs_f64((self.rate.burst - tokens) / self.rate.per_sec);
        self.buckets.insert(
            source,
            Bucket {
                tokens,
                at: now,
                full_at,
            },
        );
        self.by_full_at.insert((full_at, source));
        allowed
    }

    /// Drops the entry that would be full again soonest.
    fn evict_one(&mut self) {
        if let Some((_, source)) = self.by_full_at.pop_first() {
            self.buckets.remove(&source);
        }
    }

    pub fn tracked(&self) -> usize {
        self.buckets.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> SocketAddr {
        s.parse().unwrap()
    }

    #[test]
    fn bursts_then_refills() {
        let t0 = Instant::now();
        let ip = at("10.0.0.1:5");
        let mut r = RateLimit::per_host(2.0, 4.0);
        // The burst, and the socket's one fallback request.
        assert_eq!((0..10).filter(|_| r.allow(ip, t0)).count(), 4 + 1);
        assert!(r.allow(ip, t0 + Duration::from_millis(500)));
        assert!(!r.allow(ip, t0 + Duration::from_millis(500)));
        assert!(r.allow(at("10.0.0.2:5"), t0), "others unaffected");
    }

    #[test]
    fn strangers_are_limited_per_host_whatever_the_port() {
        let t0 = Instant::now();
        let mut r = RateLimit::per_host(1.0, 3.0);
        let allowed = (0..100u16)
            .filter(|p| r.allow(SocketAddr::from(([10, 0, 0, 1], 1000 + p)), t0))
            .count();
        // The burst, then each other port's one fallback request.
        assert_eq!(allowed, 100);
        assert!(!r.allow(SocketAddr::from(([10, 0, 0, 1], 1099)), t0));
        let v6 = (0..50)
            .filter(|_| r.allow(at("[2001:db8::1]:7"), t0))
            .count();
        assert_eq!(v6, 3 + 1, "one IPv6 address is one host");
        assert!(
            r.allow(at("[2001:db8::2]:7"), t0),
            "another address in the /64 is another host"
        );
    }

    // 3,000 forged connects a second from a victim's address drained its host's bucket,
    // and the victim's own requests were refused with it: it could not join.
    #[test]
    fn a_flood_from_a_victims_address_leaves_the_victims_port_its_turn() {
        let t0 = Instant::now();
        let mut r = RateLimit::per_host(20.0, 40.0);
        let victim = at("192.168.1.9:40000");
        let mut victim_allowed = 0;
        for i in 0..3000u32 {
            let now = t0 + Duration::from_micros(u64::from(i) * 333);
            // Forged, from every other port.
            let port = 1024 + (i % 30_000) as u16;
            r.allow(SocketAddr::from(([192, 168, 1, 9], port)), now);
            // The victim asks every 250 ms.
            if i % 750 == 0 && r.allow(victim, now) {
                victim_allowed += 1;
            }
        }
        assert!(
            victim_allowed >= 2,
            "{victim_allowed} of the victim's 4 asks"
        );
    }

    #[test]
    fn players_are_limited_per_socket() {
        let t0 = Instant::now();
        let mut r = RateLimit::per_socket(1.0, 1.0);
        assert!(r.allow(at("10.0.0.1:5"), t0));
        assert!(!r.allow(at("10.0.0.1:5"), t0));
        assert!(
            r.allow(at("10.0.0.1:6"), t0),
            "a second player behind one NAT"
        );
    }

    #[test]
    fn the_table_stays_bounded() {
        let t0 = Instant::now();
        let mut r = RateLimit::per_host(2.0, 4.0);
        for i in 0..40_000u32 {
            r.allow(SocketAddr::from((i.to_be_bytes(), 9)), t0);
        }
        assert_eq!(r.tracked(), MAX_TRACKED);
        assert_eq!(r.by_full_at.len(), MAX_TRACKED);
    }

    #[test]
    fn a_flood_from_many_addresses_cannot_reset_a_limited_one() {
        let t0 = Instant::now();
        let mut r = RateLimit::with(1.0, 5.0, Keying::PerHost, 64);
        let victim = at("192.168.1.9:4000");
        while r.allow(victim, t0) {}
        // Many more sources than the table holds, each using one token, then the
        // limited address again, all within the same 100 ms.
        for i in 0..10_000u32 {
            let now = t0 + Duration::from_micros(u64::from(i) * 10);
            r.allow(SocketAddr::from(((0x0a00_0000 + i).to_be_bytes(), 9)), now);
        }
        assert!(r.tracked() <= 64);
        assert!(
            !r.allow(victim, t0 + Duration::from_millis(100)),
            "the flood pushed out the limited address and gave it a new burst"
        );
    }

    #[test]
    fn a_full_table_of_fresh_strangers_still_admits_a_newcomer() {
        let t0 = Instant::now();
        let mut r = RateLimit::with(1.0, 5.0, Keying::PerHost, 64);
        for i in 0..64u32 {
            r.allow(SocketAddr::from(((0x0a00_0000 + i).to_be_bytes(), 9)), t0);
        }
        assert!(r.allow(at("192.168.1.9:4000"), t0));
    }
}
