//! The path's size, learned at the join as QUIC learns it from its padded Initial: the
//! connect request that echoes a cookie (the one that makes the session) goes padded
//! to the full datagram, and when a few get no answer the join falls back to IPv4's
//! least path (548 bytes of payload). The server budgets the session by the size of the
//! request that made it (`net::wire_bytes::session_budget`), so the client needs to
//! tell it nothing else. The requests for a challenge and the repeats once the session
//! is made go unpadded.
//!
//! A padded request is sent once per cookie: left unanswered for one retry period, its
//! cookie is dropped and a fresh challenge asked for (unpadded), whose cookie gets the
//! next padded request. So a forged cookie costs one retry period, as an unpadded one
//! did, and counts as one try, not as a small path: the fresh cookie's padded request is
//! answered. On a thin uplink the padded request is still in the queue when the ask goes
//! behind it; the server makes the session from the padded one first and answers the ask
//! with the session's accept, not a challenge, so no second padded request follows.

use std::net::IpAddr;
use std::time::Instant;

use crate::net::protocol::MIN_CONNECT_BYTES;
use crate::net::{codec, wire_bytes};

/// Padded connect requests (each with its own cookie) that go unanswered before the
/// join falls back: the path may drop larger datagrams unseen (a small MTU and a lost
/// "fragmentation needed").
const FULL_TRIES: u32 = 2;

/// What the join has learned of the path.
#[derive(Debug)]
pub(crate) struct PathProbe {
    /// The size the request that echoes the cookie is padded to.
    pad_to: usize,
    /// Full-size requests sent in this join.
    full_tries: u32,
}

impl Default for PathProbe {
    fn default() -> PathProbe {
        PathProbe {
            pad_to: codec::MAX_CLIENT_DATAGRAM,
            full_tries: 0,
        }
    }
}

impl PathProbe {
    /// A new join: what a small path taught stays.
    pub(crate) fn restart(&mut self) {
        self.full_tries = 0;
    }

    /// The size of the next connect request to a server at `ip`, at `now`: unpadded
    /// without a `cookie` or once the server made the `session`; else the full one
    /// until [`FULL_TRIES`] of them went unanswered and `not_before` passed (the
    /// simulated lag, waited out), then 548 bytes. IPv6's least path carries full ones.
    pub(crate) fn next_request(
        &mut self,
        ip: IpAddr,
        now: Instant,
        not_before: Instant,
        cookie: bool,
        session: bool,
    ) -> usize {
        if session || !cookie {
            return MIN_CONNECT_BYTES;
        }
        if !self.small()
            && wire_bytes::ip_udp_header(ip) == wire_bytes::IPV4_UDP
            && self.full_tries >= FULL_TRIES
            && now >= not_before
        {
            self.pad_to = wire_bytes::IPV4_MIN_PAYLOAD;
            tracing::info!(
                "{FULL_TRIES} connect requests of {} bytes went unanswered: trying {} (a path of IPv4's least MTU)",
                codec::MAX_CLIENT_DATAGRAM,
                self.pad_to
            );
        }
        if !self.small() {
            self.full_tries += 1;
        }
        self.pad_to
    }

    /// Whether the join fell back to IPv4's least path.
    pub(crate) fn small(&self) -> bool {
        self.pad_to < codec::MAX_CLIENT_DATAGRAM
    }

    /// The IP packet size the requests to `ip` were padded to, which the path carried
    /// if the join succeeded: 1,228 (IPv4, full requests), 576 (IPv4's least: the full
    /// ones went unanswered) or 1,248 (IPv6, whose every path carries it).
    pub(crate) fn path_mtu(&self, ip: IpAddr) -> usize {
        wire_bytes::ip_packet(self.pad_to, ip)
    }

    /// Why a join that fell back got no answer, in words for the end of its error.
    pub(crate) fn no_answer(&self, ip: IpAddr) -> Option<String> {
        self.small().then(|| {
            format!(
                "to connect requests of {} or {} bytes: is a netarena server running there? (or the path drops packets of {} B, IPv4's least MTU)",
                codec::MAX_CLIENT_DATAGRAM,
                self.pad_to,
                self.path_mtu(ip)
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unanswered_padded_requests_fall_back_on_ipv4_only() {
        let now = Instant::now();
        let v4: IpAddr = "10.0.0.1".parse().unwrap();
        let v6: IpAddr = "2001:db8::1".parse().unwrap();
        let mut probe = PathProbe::default();
        // Asking for a challenge is unpadded, and no try.
        let ask = probe.next_request(v4, now, now, false, false);
        assert_eq!(ask, MIN_CONNECT_BYTES);
        let sizes: Vec<usize> = (0..4)
            .map(|_| probe.next_request(v4, now, now, true, false))
            .collect();
        assert_eq!(sizes, [1200, 1200, 548, 548]);
        assert_eq!(probe.path_mtu(v4), 576);
        assert!(probe.no_answer(v4).unwrap().contains("576 B"));
        // The session made, repeats are unpadded and the size stays.
        let repeat = probe.next_request(v4, now, now, true, true);
        assert_eq!(repeat, MIN_CONNECT_BYTES);
        assert_eq!(probe.path_mtu(v4), 576);
        // IPv6 never falls back.
        let mut six = PathProbe::default();
        for _ in 0..4 {
            assert_eq!(six.next_request(v6, now, now, true, false), 1200);
        }
        assert_eq!(six.path_mtu(v6), 1248);
        assert_eq!(six.no_answer(v6), None);
    }
}
