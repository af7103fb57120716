//! A mio UDP socket with a link conditioner on each direction and traffic counters.
//!
//! Both event loops own one of these. With clean conditions datagrams go straight to the
//! socket; otherwise they wait in the conditioner until due, and the loop's poll timeout
//! includes [`Transport::next_due`].
//!
//! The socket is the platform's ([`netarena_platform::udp`]): an IPv6 socket is dual-stack
//! (`IPV6_V6ONLY` off), so bound to `[::]` it takes IPv4 too, whose addresses it shows as
//! plain IPv4 (never `::ffff:a.b.c.d`). Where the platform says which address each
//! datagram was sent to (Linux), each peer is answered from the address it last wrote
//! to: a server on a host with two addresses is answered from the one the client knows,
//! not from whichever the routing table picks (which the client would drop).

use std::collections::HashMap;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::time::Instant;

use mio::{Registry, Token};

use super::conditioner::{Conditioner, Conditions};
use netarena_platform::udp::{AfterError, Local, Udp, after_recv_error};

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

pub struct Transport {
    socket: Udp,
    /// The local address each peer last wrote to (where the platform says it).
    local: HashMap<SocketAddr, Local>,
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
        let mut socket = Udp::bind(addr)?;
        socket.register(registry, token)?;
        Ok(Transport {
            socket,
            local: HashMap::new(),
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
            send_now(&self.socket, &mut self.send_errors, to, from, payload);
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
        let (socket, errors, local) = (&self.socket, &mut self.send_errors, &self.local);
        self.outgoing.drain_due(now, |to, payload| {
            send_now(socket, errors, to, local.get(&to).copied(), payload);
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
            match self.socket.recv(&mut self.recv_buf) {
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
                Err(e) => match after_recv_error(&e) {
                    AfterError::Drained => break,
                    // An ICMP error for an earlier send (Windows' WSAECONNRESET): the
                    // datagram it belongs to is gone, the ones behind it are not.
                    AfterError::ReadOn => continue,
                    AfterError::Failed => {
                        tracing::debug!("recv error: {e}");
                        break;
                    }
                },
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

/// Whether a datagram's destination can be the source of the answer: not a broadcast
/// or multicast group (discovery requests are broadcast).
fn answerable(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => !v4.is_broadcast() && !v4.is_multicast() && !v4.is_unspecified(),
        IpAddr::V6(v6) => !v6.is_multicast() && !v6.is_unspecified(),
    }
}

fn send_now(socket: &Udp, errors: &mut u64, to: SocketAddr, from: Option<Local>, payload: &[u8]) {
    // The address a datagram was sent to may be no address to send from (a subnet's
    // broadcast, for a discovery request): then the kernel picks, as without it.
    let sent = socket.send(to, from, payload).or_else(|e| match from {
        Some(_) => socket.send(to, None, payload),
        None => Err(e),
    });
    if let Err(e) = sent {
        // UDP makes no promise; a full socket buffer is just loss.
        *errors += 1;
        tracing::debug!("send to {to} failed: {e}");
    }
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

    /// An ICMP port-unreachable for an earlier send comes back as the error of a later
    /// read: on Windows always (`WSAECONNRESET`), on Linux with `IP_RECVERR`, which the
    /// test turns on so the kernel makes the fault. The datagram that arrived behind the
    /// error is delivered in the same receive, as it must be on Windows, where mio does
    /// not wake a loop that stopped reading before the socket was empty.
    #[cfg(target_os = "linux")]
    #[test]
    fn an_icmp_error_on_a_read_does_not_stop_the_reading() {
        let poll = mio::Poll::new().unwrap();
        let bind = "127.0.0.1:0".parse().unwrap();
        let clean = Conditions::default();
        let mut transport =
            Transport::bind(bind, poll.registry(), Token(0), clean.clone(), clean, 1).unwrap();
        transport.socket.report_icmp_errors();
        let closed = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        let closed_at = closed.local_addr().unwrap();
        drop(closed);
        transport.send(Instant::now(), closed_at, b"anyone there?");
        let peer = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        peer.send_to(b"hello", transport.local_addr().unwrap())
            .unwrap();
        // Both the ICMP error and the datagram are in before the read.
        std::thread::sleep(std::time::Duration::from_millis(50));
        let mut got = Vec::new();
        transport.receive(Instant::now(), |from, payload| {
            got.push((from, payload.to_vec()));
        });
        assert_eq!(got, [(peer.local_addr().unwrap(), b"hello".to_vec())]);
    }
}
