//! Counting UDP relays. `Relay` stands between bench clients and the server: it
//! forwards every datagram untouched and sorts the downstream bytes by what they carry,
//! the way a packet capture would, so the shares need no hook inside the server or the
//! client. [`LanRelay`] is `netarena relay`: any clients, any server, the project's
//! conditioner on each client's path each way, the same counts. Sessions are sealed:
//! the relays read them through a key log ([`codec::KeyLog`]) that their clients write
//! (the benchmark's always; `netarena relay`'s when `NETARENA_KEYLOG` names one), and
//! count what they cannot read as "other".

use std::collections::HashMap;
use std::io::ErrorKind;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use mio::net::UdpSocket;
use mio::{Events, Interest, Poll, Token};
use serde::Serialize;

use crate::net::conditioner::{Conditioner, Conditions};
use crate::net::protocol::{GameEvent, ServerMsg, SnapshotDelta};
use crate::net::{codec, wire_bytes, wire_snapshot};

/// Downstream bytes by kind, over every relayed client. `headers` holds the IP and UDP
/// header of every datagram ([`wire_bytes::ip_udp_header`]) and the fixed fields of
/// each snapshot.
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct Shares {
    pub players: u64,
    pub projectiles: u64,
    pub events: u64,
    pub roster: u64,
    pub(crate) headers: u64,
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
    fn count(
        &mut self,
        keys: &mut codec::KeyLog,
        bytes: &[u8],
        to: SocketAddr,
        newest_event: &mut u32,
    ) {
        self.datagrams += 1;
        self.headers += wire_bytes::ip_udp_header(to.ip()) as u64;
        let len = bytes.len() as u64;
        match keys.server_msg(bytes) {
            Some(ServerMsg::Snapshot(s)) => {
                let (players, projectiles, events) = self.snapshot_parts(&s, newest_event);
                self.players += players;
                self.projectiles += projectiles;
                self.events += events;
                self.headers += len.saturating_sub(players + projectiles + events);
            }
            Some(ServerMsg::Roster(_)) => self.roster += len,
            _ => self.other += len,
        }
    }

    /// Bytes of a snapshot's player fields, projectile events and other events (as
    /// `net::wire_snapshot::parts` measures them), counting the new shots, rails and
    /// kills.
    fn snapshot_parts(&mut self, s: &SnapshotDelta, newest_event: &mut u32) -> (u64, u64, u64) {
        for (seq, e) in &s.events {
            let new = *seq > *newest_event;
            *newest_event = (*newest_event).max(*seq);
            match e {
                GameEvent::Shot(_) => self.shots += u64::from(new),
                GameEvent::Rail(_) => self.rails += u64::from(new),
                GameEvent::Kill { .. } => self.kills += u64::from(new),
                _ => {}
            }
        }
        let p = wire_snapshot::parts(s);
        (p.players as u64, p.projectiles as u64, p.events as u64)
    }
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
    keys: codec::KeyLog,
}

impl Relay {
    /// A relay for `clients` clients of the server at `server`, on loopback.
    pub(crate) fn new(
        server: SocketAddr,
        clients: usize,
        key_log: std::path::PathBuf,
    ) -> std::io::Result<Relay> {
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
            keys: codec::KeyLog::new(key_log),
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
                        if let Some(client) = pair.client {
                            shares.count(&mut self.keys, &buf[..n], client, &mut pair.newest_event);
                            let _ = pair.front.send_to(&buf[..n], client);
                        }
                    }
                }
            }
        }
        Ok(shares)
    }
}

/// Clients a [`LanRelay`] maps at once; a new source past this replaces the one heard
/// from least recently, if it has been quiet for [`IDLE`].
const MAX_CLIENTS: usize = 256;
const IDLE: Duration = Duration::from_secs(30);
/// The listening socket's token; client `i`'s upstream socket is `i + 1`.
const LISTEN: Token = Token(0);

/// One client of a [`LanRelay`]: its own socket towards the server (so the server
/// sees one address per client) and a conditioner each way.
struct LanClient {
    addr: SocketAddr,
    upstream: UdpSocket,
    up: Conditioner,
    down: Conditioner,
    newest_event: u32,
    last_heard: Instant,
}

/// What a [`LanRelay`] carried, printed when it stops.
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct LanTotals {
    pub clients: u64,
    /// Client to server: datagrams and bytes received, and delivered after the
    /// conditioner.
    pub(crate) up_datagrams: u64,
    pub(crate) up_bytes: u64,
    pub up_delivered: u64,
    /// Server to client, received and delivered.
    pub(crate) down_datagrams: u64,
    pub down_bytes: u64,
    pub down_delivered: u64,
    /// Dropped by the conditioners: the loss model, and the bandwidth cap's full queue.
    pub lost: u64,
    pub(crate) tail_dropped: u64,
    /// Sources refused because the table was full of active clients.
    pub refused: u64,
    /// The delivered downstream bytes by kind (28 bytes of UDP/IPv4 header each).
    #[serde(flatten)]
    pub shares: Shares,
}

/// `netarena relay`: forwards between any clients and one server, each client's path
/// conditioned both ways. See the module docs.
pub struct LanRelay {
    poll: Poll,
    listen: UdpSocket,
    server: SocketAddr,
    conditions: Conditions,
    seed: u64,
    clients: Vec<LanClient>,
    by_addr: HashMap<SocketAddr, usize>,
    totals: LanTotals,
    keys: codec::KeyLog,
}

impl LanRelay {
    pub fn bind(
        listen: SocketAddr,
        server: SocketAddr,
        conditions: Conditions,
        seed: u64,
        key_log: Option<std::path::PathBuf>,
    ) -> std::io::Result<LanRelay> {
        let poll = Poll::new()?;
        let mut socket = UdpSocket::bind(listen)?;
        poll.registry()
            .register(&mut socket, LISTEN, Interest::READABLE)?;
        Ok(LanRelay {
            poll,
            listen: socket,
            server,
            conditions,
            seed,
            clients: Vec::new(),
            by_addr: HashMap::new(),
            totals: LanTotals::default(),
            keys: codec::KeyLog::new(key_log.unwrap_or_default()),
        })
    }

    pub fn local_addr(&self) -> std::io::Result<SocketAddr> {
        self.listen.local_addr()
    }

    /// Forwards until `stop` is set; returns what was carried.
    pub fn run(mut self, stop: &AtomicBool) -> std::io::Result<LanTotals> {
        let mut events = Events::with_capacity(64);
        let mut buf = vec![0u8; 65_536];
        while !stop.load(Ordering::Relaxed) {
            let now = Instant::now();
            let due = self
                .clients
                .iter()
                .flat_map(|c| [c.up.next_due(), c.down.next_due()])
                .flatten()
                .min();
            let timeout = due.map_or(Duration::from_millis(100), |d| {
                d.saturating_duration_since(now)
                    .min(Duration::from_millis(100))
            });
            self.poll
                .poll(&mut events, Some(timeout))
                .or_else(|e| match e.kind() {
                    ErrorKind::Interrupted => Ok(()),
                    _ => Err(e),
                })?;
            let now = Instant::now();
            for token in events.iter().map(|e| e.token()) {
                if token == LISTEN {
                    while let Ok((n, from)) = self.listen.recv_from(&mut buf) {
                        self.on_client_datagram(now, from, &buf[..n])?;
                    }
                } else if let Some(c) = self.clients.get_mut(token.0 - 1) {
                    while let Ok((n, _)) = c.upstream.recv_from(&mut buf) {
                        self.totals.down_datagrams += 1;
                        self.totals.down_bytes += n as u64;
                        c.down.push(now, c.addr, &buf[..n]);
                    }
                }
            }
            self.deliver(now);
        }
        for c in &self.clients {
            for s in [c.up.stats(), c.down.stats()] {
                self.totals.lost += s.dropped;
                self.totals.tail_dropped += s.tail_dropped;
            }
        }
        Ok(self.totals)
    }

    fn on_client_datagram(
        &mut self,
        now: Instant,
        from: SocketAddr,
        bytes: &[u8],
    ) -> std::io::Result<()> {
        let i = match self.by_addr.get(&from) {
            Some(&i) => i,
            None => match self.admit(now, from)? {
                Some(i) => i,
                None => {
                    self.totals.refused += 1;
                    return Ok(());
                }
            },
        };
        let c = &mut self.clients[i];
        c.last_heard = now;
        self.totals.up_datagrams += 1;
        self.totals.up_bytes += bytes.len() as u64;
        c.up.push(now, self.server, bytes);
        Ok(())
    }

    /// A slot for a new source: a fresh one, or the quietest client's if it has been
    /// idle long enough. None if every slot is busy.
    fn admit(&mut self, now: Instant, from: SocketAddr) -> std::io::Result<Option<usize>> {
        let any: SocketAddr = match self.server {
            SocketAddr::V4(_) => ([0, 0, 0, 0], 0).into(),
            SocketAddr::V6(_) => (std::net::Ipv6Addr::UNSPECIFIED, 0).into(),
        };
        let seed = self.seed ^ (self.totals.clients.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let fresh = |upstream| LanClient {
            addr: from,
            upstream,
            up: Conditioner::new(self.conditions.clone(), seed),
            down: Conditioner::new(self.conditions.clone(), seed ^ 1),
            newest_event: 0,
            last_heard: now,
        };
        let i = if self.clients.len() < MAX_CLIENTS {
            let mut upstream = UdpSocket::bind(any)?;
            let i = self.clients.len();
            self.poll
                .registry()
                .register(&mut upstream, Token(i + 1), Interest::READABLE)?;
            self.clients.push(fresh(upstream));
            i
        } else {
            let Some((i, _)) = self
                .clients
                .iter()
                .enumerate()
                .filter(|(_, c)| now.saturating_duration_since(c.last_heard) >= IDLE)
                .min_by_key(|(_, c)| c.last_heard)
            else {
                return Ok(None);
            };
            // The old client's socket is reused: its token stays the slot's.
            let old = std::mem::replace(&mut self.clients[i].addr, from);
            self.by_addr.remove(&old);
            let c = &mut self.clients[i];
            c.up = Conditioner::new(self.conditions.clone(), seed);
            c.down = Conditioner::new(self.conditions.clone(), seed ^ 1);
            c.newest_event = 0;
            c.last_heard = now;
            i
        };
        self.by_addr.insert(from, i);
        self.totals.clients += 1;
        Ok(Some(i))
    }

    /// Sends what each conditioner lets through by now.
    fn deliver(&mut self, now: Instant) {
        let (listen, server, totals) = (&self.listen, self.server, &mut self.totals);
        let keys = &mut self.keys;
        for c in &mut self.clients {
            let upstream = &c.upstream;
            c.up.drain_due(now, |_, bytes| {
                totals.up_delivered += 1;
                let _ = upstream.send_to(bytes, server);
            });
            let newest = &mut c.newest_event;
            c.down.drain_due(now, |to, bytes| {
                totals.down_delivered += 1;
                totals.shares.count(keys, bytes, to, newest);
                let _ = listen.send_to(bytes, to);
            });
        }
    }
}
