//! The Linux socket: every datagram's destination address comes with it (`IP_PKTINFO`,
//! `IPV6_RECVPKTINFO`), and a reply can name its source address, so a server on a host
//! with two addresses is answered from the one the client knows, not from whichever
//! the routing table picks (which the client would drop).

use std::io::{self, IoSlice, IoSliceMut};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, SocketAddrV4, SocketAddrV6};
use std::os::fd::AsRawFd;

use mio::net::UdpSocket;
use mio::{Interest, Registry, Token};
use nix::sys::socket::{
    self as sock, AddressFamily, ControlMessage, ControlMessageOwned, MsgFlags, SockFlag, SockType,
    SockaddrIn, SockaddrIn6, SockaddrStorage, sockopt,
};

use super::{Local, as_v6, canonical};

pub struct Udp {
    socket: UdpSocket,
    /// The socket is IPv6 (dual-stack): IPv4 peers are written to as `::ffff:a.b.c.d`.
    v6: bool,
    cmsg: Vec<u8>,
}

impl Udp {
    /// A non-blocking UDP socket bound to `addr`: dual-stack if IPv6, and asking for
    /// each datagram's destination address.
    pub fn bind(addr: SocketAddr) -> io::Result<Udp> {
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
        Ok(Udp {
            socket: UdpSocket::from_std(std::net::UdpSocket::from(fd)),
            v6: addr.is_ipv6(),
            cmsg: nix::cmsg_space!(nix::libc::in6_pktinfo, nix::libc::in_pktinfo),
        })
    }

    pub fn register(&mut self, registry: &Registry, token: Token) -> io::Result<()> {
        registry.register(&mut self.socket, token, Interest::READABLE)
    }

    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.socket.local_addr()
    }

    /// Reads one datagram: its length, sender and the local address it was sent to.
    pub fn recv(&mut self, buf: &mut [u8]) -> io::Result<(usize, SocketAddr, Option<Local>)> {
        let mut iov = [IoSliceMut::new(buf)];
        let msg = sock::recvmsg::<SockaddrStorage>(
            self.socket.as_raw_fd(),
            &mut iov,
            Some(&mut self.cmsg),
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

    /// Sends `payload` to `to`, from the local address `from` when known.
    pub fn send(&self, to: SocketAddr, from: Option<Local>, payload: &[u8]) -> io::Result<()> {
        let iov = [IoSlice::new(payload)];
        let fd = self.socket.as_raw_fd();
        let flags = MsgFlags::empty();
        if let (SocketAddr::V4(v4), false) = (to, self.v6) {
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
        let to = SockaddrIn6::from(as_v6(to));
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
        result.map(drop).map_err(io::Error::from)
    }

    /// Has the kernel report ICMP errors for earlier sends on the next read
    /// (`IP_RECVERR`), as Windows always does: for the test of the receive loop.
    #[cfg(any(test, feature = "test-support"))]
    pub fn report_icmp_errors(&self) {
        sock::setsockopt(&self.socket, sockopt::Ipv4RecvErr, &true).expect("IP_RECVERR");
    }
}
