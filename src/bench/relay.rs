//! A counting UDP relay between bench clients and the server: it forwards every datagram
//! untouched and sorts the downstream bytes by what they carry, the way a packet capture
//! would, so the shares need no hook inside the server or the client.

use std::io::ErrorKind;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use mio::net::UdpSocket;
use mio::{Events, Interest, Poll, Token};
use serde::Serialize;

use super::net::UDP_IPV4_HEADER;
use crate::net::protocol::{GameEvent, ServerMsg, SnapshotDelta};
use crate::net::{codec, wire_events, wire_snapshot};

/// Downstream bytes by kind, over every relayed client. `headers` holds the 28-byte
/// UDP/IPv4 header of every datagram and the fixed fields of each snapshot.
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub(crate) struct Shares {
    pub players: u64,
    pub projectiles: u64,
    pub events: u64,
    pub roster: u64,
    pub headers: u64,
    pub other: u64,
    pub datagrams: u64,
    /// Distinct game events seen by kind (resends not counted): proof of a real fight.
    pub shots: u64,
    pub rails: u64,
    pub kills: u64,
}

impl Shares {
    pub(crate) fn total(&self) -> u64 {
        self.players + self.projectiles + self.events + self.roster + self.headers + self.other
    }

    /// Counts one datagram the server sent; `newest_event` is the client's highest event
    /// seq seen so far, so resent events are counted as bytes but not as new events.
    fn count(&mut self, bytes: &[u8], newest_event: &mut u32) {
        self.datagrams += 1;
        self.headers += UDP_IPV4_HEADER as u64;
        let len = bytes.len() as u64;
        match codec::decode_server(bytes) {
            Ok(ServerMsg::Snapshot(s)) => {
                let (players, projectiles, events) = self.snapshot_parts(&s, newest_event);
                self.players += players;
                self.projectiles += projectiles;
                self.events += events;
                self.headers += len.saturating_sub(players + projectiles + events);
            }
            Ok(ServerMsg::Roster(_)) => self.roster += len,
            _ => self.other += len,
        }
    }

    /// Bytes of a snapshot's player fields, projectile events and other events.
    fn snapshot_parts(&mut self, s: &SnapshotDelta, newest_event: &mut u32) -> (u64, u64, u64) {
        // As the wire form sends them: empty lists not at all, values without a count.
        let listed = |n: u64, empty: bool| if empty { 0 } else { n };
        let players = listed(size(&s.removed), s.removed.is_empty())
            + listed(size(&s.added), s.added.is_empty())
            + wire_snapshot::masks_wire_len(&s.masks) as u64
            + s.values.iter().map(size).sum::<u64>();
        // The list's length and its first seq.
        let (mut projectiles, mut events) = (0, listed(3, s.events.is_empty()));
        for (item, n) in s
            .events
            .iter()
            .zip(wire_events::wire_sizes(&s.events, s.tick))
        {
            let n = n as u64;
            let new = item.0 > *newest_event;
            *newest_event = (*newest_event).max(item.0);
            match &item.1 {
                GameEvent::Shot(_) | GameEvent::ShotEnd { .. } => {
                    projectiles += n;
                    self.shots += u64::from(new && matches!(item.1, GameEvent::Shot(_)));
                }
                GameEvent::Rail(_) => {
                    events += n;
                    self.rails += u64::from(new);
                }
                GameEvent::Kill { .. } => {
                    events += n;
                    self.kills += u64::from(new);
                }
                _ => events += n,
            }
        }
        (players, projectiles, events)
    }
}

/// Encoded size of one field, in the codec's bincode configuration.
fn size<T: Serialize>(value: &T) -> u64 {
    crate::net::codec::encoded_len(value) as u64
}

/// One client's pair of sockets: `front` faces the client, `back` the server.
struct Pair {
    front: UdpSocket,
    back: UdpSocket,
    client: Option<SocketAddr>,
    newest_event: u32,
}

pub(crate) struct Relay {
    poll: Poll,
    pairs: Vec<Pair>,
    server: SocketAddr,
}

impl Relay {
    /// A relay for `clients` clients of the server at `server`, on loopback.
    pub(crate) fn new(server: SocketAddr, clients: usize) -> std::io::Result<Relay> {
        let poll = Poll::new()?;
        let any = SocketAddr::from(([127, 0, 0, 1], 0));
        let mut pairs = Vec::with_capacity(clients);
        for i in 0..clients {
            let mut front = UdpSocket::bind(any)?;
            let mut back = UdpSocket::bind(any)?;
            poll.registry()
                .register(&mut front, Token(2 * i), Interest::READABLE)?;
            poll.registry()
                .register(&mut back, Token(2 * i + 1), Interest::READABLE)?;
            pairs.push(Pair {
                front,
                back,
                client: None,
                newest_event: 0,
            });
        }
        Ok(Relay {
            poll,
            pairs,
            server,
        })
    }

    /// The address client `i` should connect to.
    pub(crate) fn front_addr(&self, i: usize) -> std::io::Result<SocketAddr> {
        self.pairs[i].front.local_addr()
    }

    /// Forwards until `stop` is set; returns the downstream shares.
    pub(crate) fn run(mut self, stop: &AtomicBool) -> std::io::Result<Shares> {
        let mut shares = Shares::default();
        let mut events = Events::with_capacity(64);
        let mut buf = vec![0u8; 65_536];
        let mut ready: Vec<usize> = Vec::new();
        while !stop.load(Ordering::Relaxed) {
            self.poll
                .poll(&mut events, Some(Duration::from_millis(50)))
                .or_else(|e| match e.kind() {
                    ErrorKind::Interrupted => Ok(()),
                    _ => Err(e),
                })?;
            ready.clear();
            ready.extend(events.iter().map(|e| e.token().0));
            ready.sort_unstable();
            ready.dedup();
            for &token in &ready {
                let pair = &mut self.pairs[token / 2];
                if token % 2 == 0 {
                    while let Ok((n, from)) = pair.front.recv_from(&mut buf) {
                        pair.client = Some(from);
                        let _ = pair.back.send_to(&buf[..n], self.server);
                    }
                } else {
                    while let Ok((n, _)) = pair.back.recv_from(&mut buf) {
                        shares.count(&buf[..n], &mut pair.newest_event);
                        if let Some(client) = pair.client {
                            let _ = pair.front.send_to(&buf[..n], client);
                        }
                    }
                }
            }
        }
        Ok(shares)
    }
}
