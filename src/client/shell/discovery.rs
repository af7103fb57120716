//! Finding servers on the LAN: broadcast a small request to the game ports (and ask
//! loopback too, for servers on this machine), collect the answers, time each one.
#![doc(hidden)] // Public for the binary, tests or fuzz targets: see the crate docs.

use std::collections::HashMap;
use std::net::{Ipv4Addr, SocketAddr};
use std::time::{Duration, Instant};

use anyhow::Context;
use mio::net::UdpSocket;
use mio::{Events, Interest, Poll, Registry, Token};
use serde::Serialize;

use crate::net::codec;
// Servers are strangers: their names are kept printable and short.
use crate::net::protocol::{MAX_INFO_NAME_CHARS, PROTOCOL_VERSION, sanitize_text};
use crate::platform::udp::{AfterError, after_recv_error};

/// Ports asked by default: the game's port and the next few, where a second or third
/// server on one machine would go.
pub const DEFAULT_PORTS: std::ops::RangeInclusive<u16> = 7777..=7781;

/// What a search asks, for the user: "ports 7777-7781 on this machine and the LAN".
/// A server on a port not named here is not found (it answers on its game port only).
pub fn describe(scope: Scope, ports: &[u16]) -> String {
    let mut sorted = ports.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    // Runs of consecutive ports as "A-B".
    let mut runs: Vec<String> = Vec::new();
    let mut i = 0;
    while i < sorted.len() {
        let mut j = i;
        while j + 1 < sorted.len() && sorted[j + 1] == sorted[j] + 1 {
            j += 1;
        }
        runs.push(if j > i {
            format!("{}-{}", sorted[i], sorted[j])
        } else {
            sorted[i].to_string()
        });
        i = j + 1;
    }
    let noun = if sorted.len() == 1 { "port" } else { "ports" };
    let where_ = match scope {
        Scope::Loopback => "on this machine",
        Scope::Lan => "on this machine and the LAN",
    };
    format!("{noun} {} {where_}", runs.join(", "))
}

/// Where discovery requests go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// This machine only.
    Loopback,
    /// Broadcast on the local network, and this machine.
    Lan,
}

/// One server that answered.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Found {
    pub address: SocketAddr,
    pub name: String,
    pub map: String,
    pub players: u16,
    pub max_players: u16,
    pub version: u16,
    pub compatible: bool,
    pub ping_ms: f64,
    /// The server key's fingerprint as the server says it (`net::secure`); joining
    /// checks the whole key.
    pub key: String,
}

pub(crate) struct Discovery {
    socket: UdpSocket,
    targets: Vec<SocketAddr>,
    sent: HashMap<u32, Instant>,
    next_nonce: u32,
    found: Vec<Found>,
    buf: Vec<u8>,
}

impl Discovery {
    pub(crate) fn new(scope: Scope, ports: &[u16]) -> anyhow::Result<Discovery> {
        let socket = UdpSocket::bind((Ipv4Addr::UNSPECIFIED, 0).into())
            .context("cannot open a UDP socket for discovery")?;
        let mut targets: Vec<SocketAddr> = ports
            .iter()
            .map(|p| SocketAddr::from((Ipv4Addr::LOCALHOST, *p)))
            .collect();
        if scope == Scope::Lan {
            socket
                .set_broadcast(true)
                .context("cannot enable UDP broadcast")?;
            targets.extend(
                ports
                    .iter()
                    .map(|p| SocketAddr::from((Ipv4Addr::BROADCAST, *p))),
            );
        }
        Ok(Discovery {
            socket,
            targets,
            sent: HashMap::new(),
            next_nonce: 1,
            found: Vec::new(),
            buf: vec![0; 2048],
        })
    }

    /// Sends one round of requests.
    pub(crate) fn probe(&mut self, now: Instant) {
        let mut request = Vec::new();
        for target in &self.targets {
            let nonce = self.next_nonce;
            self.next_nonce = self.next_nonce.wrapping_add(1);
            if codec::discover_request(nonce, &mut request).is_ok()
                && self.socket.send_to(&request, *target).is_ok()
            {
                self.sent.insert(nonce, now);
            }
        }
    }

    /// Takes in every answer that has arrived, timing each as it is read.
    pub(crate) fn receive(&mut self) {
        loop {
            let (n, from) = match self.socket.recv_from(&mut self.buf) {
                Ok(got) => got,
                // A probe of a loopback port nobody listens on comes back on Windows as
                // WSAECONNRESET on a later read: the answers behind it are still there.
                Err(e) if after_recv_error(&e) == AfterError::ReadOn => continue,
                Err(_) => break,
            };
            let now = Instant::now();
            let Some(info) = codec::decode_info(&self.buf[..n]) else {
                continue;
            };
            let Some(sent) = self.sent.get(&info.nonce) else {
                continue;
            };
            let found = Found {
                address: from,
                name: sanitize_text(&info.name, MAX_INFO_NAME_CHARS),
                map: sanitize_text(&info.map, MAX_INFO_NAME_CHARS),
                players: info.players,
                max_players: info.max_players,
                version: info.version,
                compatible: info.version == PROTOCOL_VERSION,
                ping_ms: now.saturating_duration_since(*sent).as_secs_f64() * 1000.0,
                key: crate::net::secure::short_fingerprint(&info.key),
            };
            self.take(found);
        }

        // Forget requests nobody answered within a few seconds.
        let now = Instant::now();
        self.sent
            .retain(|_, at| now.saturating_duration_since(*at) < Duration::from_secs(3));
    }

    /// One answer. A server heard both on loopback and on the LAN (the same name,
    /// map, size and port) is one row: under its loopback address.
    fn take(&mut self, found: Found) {
        let same = |f: &Found| {
            f.address == found.address
                || (f.address.port() == found.address.port()
                    && f.name == found.name
                    && f.map == found.map
                    && f.max_players == found.max_players)
        };
        match self.found.iter_mut().find(|f| same(f)) {
            Some(f) if f.address.ip().is_loopback() && !found.address.ip().is_loopback() => {
                // Keep the loopback row; only what changes (players) is news.
                f.players = found.players;
            }
            Some(f) => *f = found,
            None => self.found.push(found),
        }
        // Nearest first; pings within a millisecond count as equal, so a list of
        // servers on one machine keeps a steady order.
        self.found.sort_by(|a, b| {
            let ms = |f: &Found| f.ping_ms.floor() as u64;
            ms(a)
                .cmp(&ms(b))
                .then_with(|| a.name.cmp(&b.name))
                .then_with(|| a.address.cmp(&b.address))
        });
    }

    /// Every server that answered, nearest first.
    pub(crate) fn found(&self) -> &[Found] {
        &self.found
    }

    pub(crate) fn clear(&mut self) {
        self.found.clear();
    }

    /// Lets a mio poll wake when answers arrive.
    pub(crate) fn register(&mut self, registry: &Registry, token: Token) -> std::io::Result<()> {
        registry.register(&mut self.socket, token, Interest::READABLE)
    }
}

/// Asks for `wait`, re-asking a few times to ride out a lost datagram.
pub fn search(scope: Scope, ports: &[u16], wait: Duration) -> anyhow::Result<Vec<Found>> {
    let mut d = Discovery::new(scope, ports)?;
    let mut poll = Poll::new().context("cannot create poll")?;
    d.register(poll.registry(), Token(0))?;
    let mut events = Events::with_capacity(8);
    let start = Instant::now();
    let end = start + wait;
    let mut next_probe = start;
    loop {
        let now = Instant::now();
        if now >= end {
            break;
        }
        if now >= next_probe {
            d.probe(now);
            next_probe = now + wait / 3;
        }
        d.receive();
        let until = next_probe.min(end);
        if let Err(e) = poll.poll(&mut events, Some(until.saturating_duration_since(now)))
            && e.kind() != std::io::ErrorKind::Interrupted
        {
            return Err(e).context("poll failed");
        }
    }
    d.receive();
    let mut found = d.found().to_vec();
    found.sort_by(|a, b| a.ping_ms.total_cmp(&b.ping_ms));
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(ip: [u8; 4], name: &str, ping_ms: f64) -> Found {
        Found {
            address: SocketAddr::from((ip, 7777)),
            name: name.into(),
            map: "arena".into(),
            players: 1,
            max_players: 16,
            version: PROTOCOL_VERSION,
            compatible: true,
            ping_ms,
            key: "3f9a-1c07-88e2-05bd".into(),
        }
    }

    #[test]
    fn the_ports_asked_are_named_in_runs() {
        let ports: Vec<u16> = DEFAULT_PORTS.collect();
        assert_eq!(
            describe(Scope::Lan, &ports),
            "ports 7777-7781 on this machine and the LAN"
        );
        assert_eq!(
            describe(Scope::Loopback, &[9000, 7777, 7778, 9000, 9002]),
            "ports 7777-7778, 9000, 9002 on this machine"
        );
        assert_eq!(
            describe(Scope::Loopback, &[9000]),
            "port 9000 on this machine"
        );
    }

    /// A server on this machine answered on 127.0.0.1 and on the LAN address, and was
    /// listed twice; the list was in the order answers came.
    #[test]
    fn one_row_per_server_nearest_first() {
        let mut d = Discovery::new(Scope::Loopback, &[7777]).unwrap();
        d.take(found([192, 168, 1, 9], "far", 12.0));
        d.take(found([192, 168, 1, 5], "home", 0.4));
        d.take(found([127, 0, 0, 1], "home", 0.2));
        d.take(found([192, 168, 1, 5], "home", 0.3));
        let rows: Vec<String> = d.found().iter().map(|f| f.address.to_string()).collect();
        assert_eq!(rows, ["127.0.0.1:7777", "192.168.1.9:7777"]);
    }

    /// A probe of a loopback port nobody listens on comes back as an ICMP error on a
    /// later read: on Windows always (`WSAECONNRESET`), on Linux with `IP_RECVERR`, which
    /// the test turns on so the kernel makes the fault. The answer of the server behind
    /// it is still taken (before, the first error ended the reading).
    #[cfg(target_os = "linux")]
    #[test]
    fn an_icmp_error_from_an_empty_port_does_not_hide_the_answers() {
        use crate::net::protocol::{ClientMsg, ServerInfo};
        use nix::sys::socket::{setsockopt, sockopt};
        let closed = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        let closed_port = closed.local_addr().unwrap().port();
        drop(closed);
        let server = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        server
            .set_read_timeout(Some(Duration::from_secs(2)))
            .unwrap();
        let port = server.local_addr().unwrap().port();
        let mut d = Discovery::new(Scope::Loopback, &[port, closed_port]).unwrap();
        setsockopt(&d.socket, sockopt::Ipv4RecvErr, &true).unwrap();
        d.probe(Instant::now());
        let mut buf = [0u8; 2048];
        let (n, from) = server.recv_from(&mut buf).unwrap();
        let Ok(ClientMsg::Discover { nonce, .. }) = codec::decode_client(&buf[..n]) else {
            panic!("not a discovery request: {:?}", &buf[..n]);
        };
        let info = ServerInfo {
            version: PROTOCOL_VERSION,
            nonce,
            name: "behind".into(),
            map: "duel".into(),
            players: 0,
            max_players: 16,
            key: [7; 8],
        };
        let mut out = Vec::new();
        codec::encode_server(&crate::net::protocol::ServerMsg::Info(info), &mut out).unwrap();
        server.send_to(&out, from).unwrap();
        // The ICMP error and the answer are both in before the read.
        std::thread::sleep(Duration::from_millis(50));
        d.receive();
        let names: Vec<&str> = d.found().iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["behind"]);
    }
}
