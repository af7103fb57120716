//! Bytes as the wire counts them. A datagram's payload is not what a link carries: each
//! one also takes its IP and UDP headers and, on Ethernet (and on the veth and tbf a
//! Linux bottleneck is built from), a 14-byte frame header. At netarena's sizes that is
//! a third of an input packet, so a rate counted in payload bytes overstates what a thin
//! link carries by as much. This is the one definition: `bench net`, the `--bandwidth`
//! cap, the server's delivery bucket, the client's uplink pacing and the tests use it.

use std::net::IpAddr;

/// IPv4 header (20 bytes, no options) and UDP header (8 bytes).
pub const IPV4_UDP: usize = 28;
/// IPv6 header (40 bytes, no extension headers) and UDP header (8 bytes).
pub const IPV6_UDP: usize = 48;
/// An Ethernet frame header (two addresses and the type), which the kernel's `tbf`
/// counts on an Ethernet or veth device; no preamble, no frame check sequence.
pub const ETHERNET: usize = 14;

/// The least MTU every IPv4 path must carry (RFC 791): routers with a small MTU and a
/// lost "fragmentation needed" make a larger datagram vanish.
pub const IPV4_MIN_MTU: usize = 576;
/// IPv6's least MTU (RFC 8200).
pub const IPV6_MIN_MTU: usize = 1280;
/// The most UDP payload a path of IPv4's least MTU carries: 548 bytes. Every datagram
/// of the join fits it.
pub const IPV4_MIN_PAYLOAD: usize = IPV4_MIN_MTU - IPV4_UDP;

/// The most UDP payload a path of IPv6's least MTU carries: 1,232 bytes, more than
/// netarena's largest datagram, so an IPv6 session never needs a smaller budget.
pub const IPV6_MIN_PAYLOAD: usize = IPV6_MIN_MTU - IPV6_UDP;

/// The largest datagram the server sends a session whose connect request came from
/// `ip` in a datagram of `request` bytes: the request proved the path carries that
/// many (the client pads its first tries to [`crate::codec::MAX_CLIENT_DATAGRAM`] and
/// falls back to [`IPV4_MIN_PAYLOAD`] when they go unanswered), and every IPv4 path
/// carries 548; every IPv6 path carries all netarena sends.
pub fn session_budget(ip: IpAddr, request: usize) -> usize {
    let most = crate::codec::MAX_SERVER_DATAGRAM;
    match ip_udp_header(ip) {
        IPV4_UDP => request.clamp(IPV4_MIN_PAYLOAD, most),
        _ => most.min(IPV6_MIN_PAYLOAD),
    }
}

/// The IP packet size a budget of `payload` bytes to or from `ip` makes: the path MTU
/// a session has proved, as the client reports it.
pub fn ip_packet(payload: usize, ip: IpAddr) -> usize {
    payload + ip_udp_header(ip)
}

/// IP and UDP header bytes per datagram to or from `ip` (an IPv4-mapped IPv6 address
/// travels as IPv4).
pub fn ip_udp_header(ip: IpAddr) -> usize {
    match ip {
        IpAddr::V4(_) => IPV4_UDP,
        IpAddr::V6(v6) if v6.to_ipv4_mapped().is_some() => IPV4_UDP,
        IpAddr::V6(_) => IPV6_UDP,
    }
}

/// Per-datagram overhead on an Ethernet link: IP, UDP and the frame header.
pub fn overhead(ip: IpAddr) -> usize {
    ip_udp_header(ip) + ETHERNET
}

/// Bytes a datagram of `payload` to or from `ip` takes on an Ethernet link, as a `tbf`
/// there counts them.
pub fn on_wire(payload: usize, ip: IpAddr) -> usize {
    payload + overhead(ip)
}

/// The overhead, in words, for the output of anything that counts with it.
pub const COUNTED_AS: &str = "payload + 28 B IPv4/UDP (48 B IPv6/UDP) + 14 B Ethernet per datagram";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_family_counts_its_headers() {
        let v4: IpAddr = "10.0.0.1".parse().unwrap();
        let v6: IpAddr = "2001:db8::1".parse().unwrap();
        let mapped: IpAddr = "::ffff:10.0.0.1".parse().unwrap();
        assert_eq!(on_wire(80, v4), 122);
        assert_eq!(on_wire(80, v6), 142);
        assert_eq!(on_wire(80, mapped), 122);
    }

    #[test]
    fn a_session_is_budgeted_by_what_its_request_proved() {
        let v4: IpAddr = "10.0.0.1".parse().unwrap();
        let v6: IpAddr = "2001:db8::1".parse().unwrap();
        let mapped: IpAddr = "::ffff:10.0.0.1".parse().unwrap();
        let most = crate::codec::MAX_SERVER_DATAGRAM;
        assert_eq!(session_budget(v4, 1200), most);
        assert_eq!(session_budget(v4, 548), IPV4_MIN_PAYLOAD);
        assert_eq!(session_budget(mapped, 64), IPV4_MIN_PAYLOAD);
        assert_eq!(session_budget(v4, 700), 700);
        // IPv6 needs no fallback: its least MTU carries the largest datagram.
        assert_eq!(session_budget(v6, 64), most);
        assert!(ip_packet(most, v6) <= IPV6_MIN_MTU);
        assert_eq!(ip_packet(IPV4_MIN_PAYLOAD, v4), IPV4_MIN_MTU);
    }
}
