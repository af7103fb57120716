//! A mio UDP socket with a link conditioner on each direction and traffic counters.
//!
//! Both event loops own one of these. With clean conditions datagrams go straight to the
//! socket; otherwise they wait in the conditioner until due, and the loop's poll timeout
//! includes [`Transport::next_due`].

use std::io;
use std::net::SocketAddr;
use std::time::Instant;

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

pub struct Transport {
    socket: UdpSocket,
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
        let mut socket = UdpSocket::bind(addr)?;
        registry.register(&mut socket, token, Interest::READABLE)?;
        Ok(Transport {
            socket,
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

    /// The conditions on (outgoing, incoming) datagrams.
    pub fn conditions(&self) -> (&Conditions, &Conditions) {
        (self.outgoing.conditions(), self.incoming.conditions())
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
            send_now(&self.socket, &mut self.send_errors, to, payload);
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
        let (socket, errors) = (&self.socket, &mut self.send_errors);
        self.outgoing
            .drain_due(now, |to, payload| send_now(socket, errors, to, payload));
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
            match self.socket.recv_from(&mut self.recv_buf) {
                Ok((len, from)) => self.incoming.push(now, from, &self.recv_buf[..len]),
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

fn send_now(socket: &UdpSocket, errors: &mut u64, to: SocketAddr, payload: &[u8]) {
    if let Err(e) = socket.send_to(payload, to) {
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
}
