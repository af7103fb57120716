//! A mio UDP socket with a link conditioner on each direction and traffic counters.
//!
//! Both event loops own one of these. With clean conditions datagrams go straight to the
//! socket; otherwise they wait in the conditioner until due, and the loop's poll timeout
//! includes [`Transport::next_due`].
//!
//! An IPv6 socket is dual-stack (`IPV6_V6ONLY` off): bound to `[::]` it takes IPv4 too,
//! whose addresses it shows as plain IPv4 (never `::ffff:a.b.c.d`). Every socket asks
//! the kernel for the address each datagram was sent to (`IP_PKTINFO`,
//! `IPV6_RECVPKTINFO`) and answers each peer from the address it last wrote to: a
//! server on a host with two addresses is answered from the one the client knows, not
//! from whichever the routing table picks (which the client would drop).

use std::collections::HashMap;
use std::io::{self, IoSlice, IoSliceMut};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, SocketAddrV4, SocketAddrV6};
use std::os::fd::AsRawFd;
use std::time::Instant;

use nix::errno::Errno;
use nix::sys::socket::{
    self as sock, AddressFamily, ControlMessage, ControlMessageOwned, MsgFlags, SockFlag, SockType,
    SockaddrIn, SockaddrIn6, SockaddrStorage, sockopt,
};

use mio::net::UdpSocket;
use mio::{Interest, Registry, Token};

use super::conditioner::{Conditioner, Conditions};

/// Big enough for any UDP payload, so an oversized datagram is seen whole and refused by
/// size rather than silently truncated into something that might decode.
const RECV_BUF: usize = 65_536;

/// What crossed this endpoint, counted at the application's side of the conditioner:
/// sent is what we offered the network, received is what the network let through.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Traffic {
    pub packets_out: u64,
    pub bytes_out: u64,
    pub packets_in: u64,
    pub bytes_in: u64,
}

/// Peers whose local address is remembered at most; past this the table starts over
/// (a flood of spoofed sources then costs at most one table).
const MAX_LOCAL_ADDRS: usize = 4096;

/// Where a peer's datagrams arrived: the local address and interface to answer from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Local {
    ip: IpAddr,
    ifindex: u32,
}

pub struct Transport {
    socket: UdpSocket,
    /// The socket is IPv6 (dual-stack): IPv4 peers are written to as `::ffff:a.b.c.d`.
    v6: bool,
    /// The local address each peer last wrote to.
    local: HashMap<SocketAddr, Local>,
    cmsg: Vec<u8>,
    outgoing: Conditioner,
    incoming: Conditioner,
    traffic: Traffic,
    recv_buf: Vec<u8>,
    send_errors: u64,
}

impl Transport {
    pub fn bind(
        addr: SocketAddr,
        registry: &Registry,
        token: Token,
        outgoing: Conditions,
        incoming: Conditions,
        seed: u64,
    ) -> io::Result<Transport> {
        let mut socket = UdpSocket::from_std(open_socket(addr)?);
        registry.register(&mut socket, token, Interest::READABLE)?;
        Ok(Transport {
            socket,
            v6: addr.is_ipv6(),
            local: HashMap::new(),
            cmsg: nix::cmsg_space!(nix::libc::in6_pktinfo, nix::libc::in_pktinfo),
            outgoing: Conditioner::new(outgoing, seed),
            incoming: Conditioner::new(incoming, seed ^ 0x9E37_79B9_7F4A_7C15),
            traffic: Traffic::default(),
            recv_buf: vec![0; RECV_BUF],
            send_errors: 0,
        })
    }

    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.socket.local_addr()
    }

    pub fn traffic(&self) -> Traffic {
        self.traffic
    }

    pub fn send_errors(&self) -> u64 {
        self.send_errors
    }

    pub fn set_conditions(&mut self, outgoing: Conditions, incoming: Conditions) {
        self.outgoing.set_conditions(outgoing);
        self.incoming.set_conditions(incoming);
    }

    pub fn send(&mut self, now: Instant, to: SocketAddr, payload: &[u8]) {
        self.send_judged(now, to, payload);
    }

    /// [`Transport::send`], saying whether the outgoing conditioner dropped the datagram
    /// (its simulated loss, or its queue full): then it never leaves this machine. The
    /// one place a verdict of the simulated link is known; a real network's losses are
    /// not known here.
    pub fn send_judged(&mut self, now: Instant, to: SocketAddr, payload: &[u8]) -> bool {
        self.traffic.packets_out += 1;
        self.traffic.bytes_out += payload.len() as u64;
        if self.outgoing.conditions().is_clean() && self.outgoing.next_due().is_none() {
            let from = self.local.get(&to).copied();
            send_now(
                &self.socket,
                self.v6,
                &mut self.send_errors,
                to,
                from,
                payload,
            );
            return false;
        }
        // A push queues the datagram (and maybe a copy) or nothing at all.
        let queued = self.outgoing.queued();
        self.outgoing.push(now, to, payload);
        let dropped = self.outgoing.queued() == queued;
        self.flush(now);
        dropped
    }

    /// Sends every delayed outgoing datagram that is due.
    pub fn flush(&mut self, now: Instant) {
        let (socket, v6, errors, local) =
            (&self.socket, self.v6, &mut self.send_errors, &self.local);
        self.outgoing.drain_due(now, |to, payload| {
            send_now(socket, v6, errors, to, local.get(&to).copied(), payload);
        });
    }

    /// The earliest moment either conditioner has a datagram due.
    pub fn next_due(&self) -> Option<Instant> {
        match (self.outgoing.next_due(), self.incoming.next_due()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Reads everything waiting on the socket, passes it through the incoming
    /// conditioner, and hands each datagram that is due to `deliver`.
    pub fn receive(&mut self, now: Instant, mut deliver: impl FnMut(SocketAddr, &[u8])) {
        loop {
            match recv_one(&self.socket, &mut self.recv_buf, &mut self.cmsg) {
                Ok((len, from, local)) => {
                    if let Some(local) = local.filter(|l| answerable(l.ip))
                        && self.local.get(&from) != Some(&local)
                    {
                        if self.local.len() >= MAX_LOCAL_ADDRS {
                            self.local.clear();
                        }
                        self.local.insert(from, local);
                    }
                    self.incoming.push(now, from, &self.recv_buf[..len]);
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                // ICMP errors from earlier sends surface here on some systems; the
                // datagram they belong to is gone either way.
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    tracing::debug!("recv error: {e}");
                    break;
                }
            }
        }
        let traffic = &mut self.traffic;
        self.incoming.drain_due(now, |from, payload| {
            traffic.packets_in += 1;
            traffic.bytes_in += payload.len() as u64;
            deliver(from, payload);
        });
    }
}

/// A non-blocking UDP socket bound to `addr`: dual-stack if IPv6, and asking for each
/// datagram's destination address.
fn open_socket(addr: SocketAddr) -> io::Result<std::net::UdpSocket> {
    let family = if addr.is_ipv6() {
        AddressFamily::Inet6
    } else {
        AddressFamily::Inet
    };
    let flags = SockFlag::SOCK_NONBLOCK | SockFlag::SOCK_CLOEXEC;
    let fd = sock::socket(family, SockType::Datagram, flags, None)?;
    match addr {
        SocketAddr::V6(v6) => {
            sock::setsockopt(&fd, sockopt::Ipv6V6Only, &false)?;
            sock::setsockopt(&fd, sockopt::Ipv6RecvPacketInfo, &true)?;
            sock::bind(fd.as_raw_fd(), &SockaddrIn6::from(v6))?;
        }
        SocketAddr::V4(v4) => {
            sock::setsockopt(&fd, sockopt::Ipv4PacketInfo, &true)?;
            sock::bind(fd.as_raw_fd(), &SockaddrIn::from(v4))?;
        }
    }
    Ok(std::net::UdpSocket::from(fd))
}

/// Whether a datagram's destination can be the source of the answer: not a broadcast
/// or multicast group (discovery requests are broadcast).
fn answerable(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => !v4.is_broadcast() && !v4.is_multicast() && !v4.is_unspecified(),
        IpAddr::V6(v6) => !v6.is_multicast() && !v6.is_unspecified(),
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

/// Reads one datagram: its length, sender and the local address it was sent to.
fn recv_one(
    socket: &UdpSocket,
    buf: &mut [u8],
    cmsg: &mut Vec<u8>,
) -> io::Result<(usize, SocketAddr, Option<Local>)> {
    let mut iov = [IoSliceMut::new(buf)];
    let msg = sock::recvmsg::<SockaddrStorage>(
        socket.as_raw_fd(),
        &mut iov,
        Some(cmsg),
        MsgFlags::empty(),
    )
    .map_err(io::Error::from)?;
    let from = msg
        .address
        .and_then(|a| {
            a.as_sockaddr_in6()
                .map(|v6| SocketAddr::V6(SocketAddrV6::from(*v6)))
                .or_else(|| {
                    a.as_sockaddr_in()
                        .map(|v4| SocketAddr::V4(SocketAddrV4::from(*v4)))
                })
        })
        .ok_or_else(|| io::Error::other("datagram without a sender address"))?;
    let mut local = None;
    // A truncated control buffer only loses the local address: answer as before.
    if let Ok(cmsgs) = msg.cmsgs() {
        for c in cmsgs {
            match c {
                ControlMessageOwned::Ipv6PacketInfo(info) => {
                    let ip = Ipv6Addr::from(info.ipi6_addr.s6_addr);
                    let ip = ip.to_ipv4_mapped().map_or(IpAddr::V6(ip), IpAddr::V4);
                    local = Some(Local {
                        ip,
                        ifindex: info.ipi6_ifindex,
                    });
                }
                ControlMessageOwned::Ipv4PacketInfo(info) => {
                    let ip = Ipv4Addr::from(u32::from_be(info.ipi_addr.s_addr));
                    local = Some(Local {
                        ip: IpAddr::V4(ip),
                        ifindex: info.ipi_ifindex as u32,
                    });
                }
                _ => {}
            }
        }
    }
    Ok((msg.bytes, canonical(from), local))
}

fn send_now(
    socket: &UdpSocket,
    v6: bool,
    errors: &mut u64,
    to: SocketAddr,
    from: Option<Local>,
    payload: &[u8],
) {
    // The address a datagram was sent to may be no address to send from (a subnet's
    // broadcast, for a discovery request): then the kernel picks, as without it.
    let sent = send_from(socket, v6, to, from, payload).or_else(|e| match from {
        Some(_) => send_from(socket, v6, to, None, payload),
        None => Err(e),
    });
    if let Err(e) = sent {
        // UDP makes no promise; a full socket buffer is just loss.
        *errors += 1;
        tracing::debug!("send to {to} failed: {e}");
    }
}

/// Sends `payload` to `to`, from the local address `from` when known.
fn send_from(
    socket: &UdpSocket,
    v6: bool,
    to: SocketAddr,
    from: Option<Local>,
    payload: &[u8],
) -> io::Result<()> {
    let iov = [IoSlice::new(payload)];
    let fd = socket.as_raw_fd();
    let flags = MsgFlags::empty();
    let to6 = match to {
        SocketAddr::V4(v4) if v6 => SocketAddrV6::new(v4.ip().to_ipv6_mapped(), v4.port(), 0, 0),
        SocketAddr::V6(a) => a,
        SocketAddr::V4(v4) => {
            let to = SockaddrIn::from(v4);
            return match from {
                Some(Local {
                    ip: IpAddr::V4(ip), ..
                }) => {
                    let info = nix::libc::in_pktinfo {
                        ipi_ifindex: 0,
                        ipi_spec_dst: nix::libc::in_addr {
                            s_addr: u32::from(ip).to_be(),
                        },
                        ipi_addr: nix::libc::in_addr { s_addr: 0 },
                    };
                    let cmsg = [ControlMessage::Ipv4PacketInfo(&info)];
                    sock::sendmsg(fd, &iov, &cmsg, flags, Some(&to))
                }
                _ => sock::sendmsg(fd, &iov, &[], flags, Some(&to)),
            }
            .map(drop)
            .map_err(io::Error::from);
        }
    };
    let to = SockaddrIn6::from(to6);
    let result = match from {
        Some(local) => {
            let (ip, ifindex) = match local.ip {
                IpAddr::V4(v4) => (v4.to_ipv6_mapped(), 0),
                // Only a link-local address needs its interface named.
                IpAddr::V6(ip) if ip.is_unicast_link_local() => (ip, local.ifindex),
                IpAddr::V6(ip) => (ip, 0),
            };
            let info = nix::libc::in6_pktinfo {
                ipi6_addr: nix::libc::in6_addr {
                    s6_addr: ip.octets(),
                },
                ipi6_ifindex: ifindex,
            };
            let cmsg = [ControlMessage::Ipv6PacketInfo(&info)];
            sock::sendmsg(fd, &iov, &cmsg, flags, Some(&to))
        }
        None => sock::sendmsg(fd, &iov, &[], flags, Some(&to)),
    };
    result.map(drop).map_err(|e: Errno| io::Error::from(e))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The verdict is the outgoing conditioner's: a clean link drops nothing, a link
    /// losing everything drops every datagram, and one losing half drops as many as its
    /// own count says.
    #[test]
    fn send_judged_says_what_the_outgoing_conditioner_dropped() {
        let poll = mio::Poll::new().unwrap();
        let to: SocketAddr = "127.0.0.1:9".parse().unwrap();
        let open = |outgoing| {
            let bind = "127.0.0.1:0".parse().unwrap();
            Transport::bind(
                bind,
                poll.registry(),
                Token(0),
                outgoing,
                Conditions::default(),
                1,
            )
            .unwrap()
        };
        let now = Instant::now();
        let mut clean = open(Conditions::default());
        assert!((0..50).all(|_| !clean.send_judged(now, to, b"hi")));
        let all = Conditions {
            loss_pct: 100.0,
            ..Conditions::default()
        };
        let mut lost = open(all);
        assert!((0..50).all(|_| lost.send_judged(now, to, b"hi")));
        let half = Conditions {
            latency_ms: 5,
            loss_pct: 50.0,
            dup_pct: 20.0,
            ..Conditions::default()
        };
        let mut half = open(half);
        let said = (0..400)
            .filter(|_| half.send_judged(now, to, b"hi"))
            .count();
        assert!((100..300).contains(&said), "{said}");
        assert_eq!(said as u64, half.outgoing.stats().dropped);
    }
}
