//! The path's size, learned at the join as QUIC learns it from its padded Initial:
//! connect requests go padded to the full datagram, and when a few get no answer at all
//! the join falls back to IPv4's least path (548 bytes of payload). The server budgets
//! the session by the size of the request that reached it
//! (`net::wire_bytes::session_budget`), so the client needs to tell it nothing else.

use std::net::IpAddr;
use std::time::Instant;

use crate::net::protocol::MIN_CONNECT_BYTES;
use crate::net::{codec, wire_bytes};

/// Connect requests padded to the full [`codec::MAX_CLIENT_DATAGRAM`] that go unanswered
/// before the join falls back: the path may drop larger datagrams unseen (a small MTU
/// and a lost "fragmentation needed").
const FULL_TRIES: u32 = 3;

/// What the join has learned of the path.
#[derive(Debug)]
pub(crate) struct PathProbe {
    /// The size connect requests are padded to.
    pad_to: usize,
    /// Full-size requests sent in this join, and whether anything came back.
    full_tries: u32,
    heard: bool,
}

impl Default for PathProbe {
    fn default() -> PathProbe {
        PathProbe {
            pad_to: codec::MAX_CLIENT_DATAGRAM,
            full_tries: 0,
            heard: false,
        }
    }
}

impl PathProbe {
    /// A new join: what a small path taught stays.
    pub(crate) fn restart(&mut self) {
        self.full_tries = 0;
        self.heard = false;
    }

    /// Something came from the server.
    pub(crate) fn heard(&mut self) {
        self.heard = true;
    }

    /// The size of the next connect request to a server at `ip`, at `now`: the full one
    /// until [`FULL_TRIES`] of them went unanswered and `not_before` passed (the
    /// simulated lag, waited out), then 548 bytes. IPv6's least path carries full ones.
    /// Once the server made the `session` (its budget is set), the repeats that ask for
    /// the welcome and the map again are small: on a thin uplink a stream of full ones
    /// would queue seconds in front of the first input packets.
    pub(crate) fn next_request(
        &mut self,
        ip: IpAddr,
        now: Instant,
        not_before: Instant,
        session: bool,
    ) -> usize {
        if session {
            return MIN_CONNECT_BYTES;
        }
        if !self.heard
            && !self.small()
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
    fn three_unanswered_full_requests_fall_back_on_ipv4_only() {
        let now = Instant::now();
        let v4: IpAddr = "10.0.0.1".parse().unwrap();
        let v6: IpAddr = "2001:db8::1".parse().unwrap();
        let mut probe = PathProbe::default();
        let sizes: Vec<usize> = (0..5)
            .map(|_| probe.next_request(v4, now, now, false))
            .collect();
        assert_eq!(sizes, [1200, 1200, 1200, 548, 548]);
        assert_eq!(probe.path_mtu(v4), 576);
        assert!(probe.no_answer(v4).unwrap().contains("576 B"));
        // An answer keeps the full size; IPv6 never falls back.
        let mut answered = PathProbe::default();
        answered.heard();
        let mut six = PathProbe::default();
        for _ in 0..5 {
            assert_eq!(answered.next_request(v4, now, now, false), 1200);
            assert_eq!(six.next_request(v6, now, now, false), 1200);
        }
        // The session made, repeats are small.
        assert_eq!(answered.next_request(v4, now, now, true), MIN_CONNECT_BYTES);
        assert_eq!(six.path_mtu(v6), 1248);
        assert_eq!(six.no_answer(v6), None);
    }
}
