//! The portable socket (macOS, Windows, and Linux with the feature `portable-net`):
//! socket2 sets what std cannot before binding (`IPV6_V6ONLY` off: Windows defaults it
//! on, which would keep IPv4 clients out of a server bound to `[::]`), std and mio do the
//! rest. It does not learn the address a datagram was sent to, so the system picks the
//! source of every reply: on a host with several addresses a client that wrote to
//! another than the routing table's choice gets its answers from that choice (and says
//! so: see the client's "no answer" message).

use std::io;
use std::net::SocketAddr;

use mio::net::UdpSocket;
use mio::{Interest, Registry, Token};
use socket2::{Domain, Protocol, Socket, Type};

use super::{Local, as_v6, canonical};

pub struct Udp {
    socket: UdpSocket,
    /// The socket is IPv6 (dual-stack): IPv4 peers are written to as `::ffff:a.b.c.d`.
    v6: bool,
}

impl Udp {
    /// A non-blocking UDP socket bound to `addr`, dual-stack if IPv6.
    pub fn bind(addr: SocketAddr) -> io::Result<Udp> {
        let socket = Socket::new(Domain::for_address(addr), Type::DGRAM, Some(Protocol::UDP))?;
        if addr.is_ipv6() {
            socket.set_only_v6(false)?;
        }
        socket.set_nonblocking(true)?;
        socket.bind(&addr.into())?;
        Ok(Udp {
            socket: UdpSocket::from_std(socket.into()),
            v6: addr.is_ipv6(),
        })
    }

    pub fn register(&mut self, registry: &Registry, token: Token) -> io::Result<()> {
        registry.register(&mut self.socket, token, Interest::READABLE)
    }

    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.socket.local_addr()
    }

    /// Reads one datagram: its length and sender (the local address is not known).
    pub fn recv(&mut self, buf: &mut [u8]) -> io::Result<(usize, SocketAddr, Option<Local>)> {
        let (len, from) = self.socket.recv_from(buf)?;
        Ok((len, canonical(from), None))
    }

    /// Sends `payload` to `to`; the source address is the system's choice (`from` is
    /// never known here).
    pub fn send(&self, to: SocketAddr, _from: Option<Local>, payload: &[u8]) -> io::Result<()> {
        let to = if self.v6 {
            SocketAddr::V6(as_v6(to))
        } else {
            to
        };
        self.socket.send_to(payload, to).map(drop)
    }

    /// Has the kernel report ICMP errors for earlier sends on the next read
    /// (`IP_RECVERR`), as Windows always does: for the test of the receive loop.
    #[cfg(all(any(test, feature = "test-support"), target_os = "linux"))]
    pub fn report_icmp_errors(&self) {
        use nix::sys::socket::{setsockopt, sockopt};
        setsockopt(&self.socket, sockopt::Ipv4RecvErr, &true).expect("IP_RECVERR");
    }
}
