//! The game's UDP socket: non-blocking, registered with mio, dual-stack when IPv6
//! (`IPV6_V6ONLY` off, set explicitly: Windows defaults it on), showing IPv4 peers as
//! plain IPv4 (never `::ffff:a.b.c.d`).
//!
//! Two implementations with one interface, [`Udp`]. The Linux one learns the local
//! address each datagram was sent to and can answer from it; the
//! portable one (std, mio, socket2: macOS, Windows, and Linux with the feature
//! `portable-net`) lets the system pick the source address, which is the same thing on
//! a host with one address.

use std::io;
use std::net::{IpAddr, SocketAddr, SocketAddrV6};

#[cfg(all(target_os = "linux", not(feature = "portable-net")))]
mod linux;
#[cfg(all(target_os = "linux", not(feature = "portable-net")))]
pub use linux::Udp;

#[cfg(not(all(target_os = "linux", not(feature = "portable-net"))))]
mod portable;
#[cfg(not(all(target_os = "linux", not(feature = "portable-net"))))]
pub use portable::Udp;

/// Where a peer's datagram arrived: the local address and interface to answer from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Local {
    pub ip: IpAddr,
    pub(crate) ifindex: u32,
}

/// What a receive loop does after a failed read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AfterError {
    /// Nothing more is waiting: stop reading until the poll says so.
    Drained,
    /// The error took the place of one datagram (or a signal came): read on. An ICMP
    /// port-unreachable for an earlier send surfaces like this: Windows reports it on
    /// the next `recv_from` as `WSAECONNRESET` (10054), Linux as `ECONNREFUSED` where it
    /// reports it at all; the socket is fine and later datagrams wait behind it. A loop
    /// that stopped here would, with mio's edge-triggered readiness, not be woken again.
    ReadOn,
    /// Something else: stop reading, and say so in the log.
    Failed,
}

/// How a receive loop treats the error `e` of a read.
pub fn after_recv_error(e: &io::Error) -> AfterError {
    match e.kind() {
        io::ErrorKind::WouldBlock => AfterError::Drained,
        io::ErrorKind::Interrupted
        | io::ErrorKind::ConnectionReset
        | io::ErrorKind::ConnectionRefused => AfterError::ReadOn,
        _ => AfterError::Failed,
    }
}

/// IPv4 as written by a dual-stack socket: `::ffff:a.b.c.d` becomes `a.b.c.d`.
fn canonical(addr: SocketAddr) -> SocketAddr {
    match addr {
        SocketAddr::V6(v6) => match v6.ip().to_ipv4_mapped() {
            Some(v4) => SocketAddr::from((v4, v6.port())),
            None => addr,
        },
        SocketAddr::V4(_) => addr,
    }
}

/// `to` as a dual-stack IPv6 socket writes it: an IPv4 peer as `::ffff:a.b.c.d`.
fn as_v6(to: SocketAddr) -> SocketAddrV6 {
    match to {
        SocketAddr::V4(v4) => SocketAddrV6::new(v4.ip().to_ipv6_mapped(), v4.port(), 0, 0),
        SocketAddr::V6(v6) => v6,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Windows' `WSAECONNRESET` after an ICMP port-unreachable comes to Rust as
    /// ConnectionReset: it must not end the reading (issue 30).
    #[test]
    fn a_reset_or_refused_read_is_read_past() {
        let kind = |k| after_recv_error(&io::Error::from(k));
        assert_eq!(kind(io::ErrorKind::WouldBlock), AfterError::Drained);
        assert_eq!(kind(io::ErrorKind::ConnectionReset), AfterError::ReadOn);
        assert_eq!(kind(io::ErrorKind::ConnectionRefused), AfterError::ReadOn);
        assert_eq!(kind(io::ErrorKind::Interrupted), AfterError::ReadOn);
        assert_eq!(kind(io::ErrorKind::PermissionDenied), AfterError::Failed);
        // The raw code as Windows gives it.
        #[cfg(windows)]
        assert_eq!(
            after_recv_error(&io::Error::from_raw_os_error(10054)),
            AfterError::ReadOn
        );
    }

    #[test]
    fn ipv4_mapped_addresses_are_shown_as_ipv4_and_written_back_mapped() {
        let v4: SocketAddr = "192.0.2.7:7777".parse().unwrap();
        let mapped = SocketAddr::V6(as_v6(v4));
        assert_eq!(mapped.to_string(), "[::ffff:192.0.2.7]:7777");
        assert_eq!(canonical(mapped), v4);
        let v6: SocketAddr = "[2001:db8::1]:7777".parse().unwrap();
        assert_eq!(canonical(v6), v6);
        assert_eq!(SocketAddr::V6(as_v6(v6)), v6);
    }
}
