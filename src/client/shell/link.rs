//! The client's connection to one server: socket, poll, codec and the join handshake.

use std::collections::VecDeque;
use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr};
use std::time::{Duration, Instant};

use anyhow::Context;
use mio::{Events, Poll, Token};

use crate::client::ClientConfig;
use crate::client::known_servers::ServerPin;
use crate::client::shell::path_probe::PathProbe;
use crate::client::tap::LinkTotals;
use crate::net::codec;
use crate::net::conditioner::Conditions;
use crate::net::protocol::{ClientMsg, ServerMsg};
use crate::net::secure::{self, ClientHandshake, Session};
use crate::net::transport::{Traffic, Transport};

const SOCKET: Token = Token(0);
const TERMINAL: Token = Token(1);

/// Sealed datagrams kept while the handshake's answer is on its way: the welcome and
/// the map's chunks that overtook it. Dropped, each cost the client a repeated connect,
/// which the server reads as a burst its link could not carry.
const OVERTAKEN_KEPT: usize = 16;

/// What came ahead of its turn during a join.
#[derive(Default)]
struct Early {
    msgs: VecDeque<(ServerMsg, usize)>,
    sealed: Vec<Vec<u8>>,
}

mod join;

pub(crate) struct Link {
    poll: Poll,
    events: Events,
    transport: Transport,
    server: SocketAddr,
    buf: Vec<u8>,
    malformed: u64,
    /// Datagrams from addresses other than the server's, and the last such address: a
    /// join that gets no answer says so (the server may answer from another address).
    strangers: u64,
    last_stranger: Option<SocketAddr>,
    /// What came ahead of its turn: messages in the same read as the welcome (for the
    /// first pump), and sealed datagrams that overtook the handshake's answer.
    early: Early,
    /// The simulated delay of the join handshake (two round trips: the challenge, then
    /// the welcome), at the worst of the jitter, for saying why a connect timed out.
    handshake_lag_ms: u32,
    /// The handshake of this join (its hello goes in every connect request), then the
    /// session it made: our id and the keys everything is sealed with both ways.
    handshake: ClientHandshake,
    session: Option<(u8, Session)>,
    /// Which server keys are accepted, and why the last one was not.
    pin: ServerPin,
    /// Where the session keys are appended (`NETARENA_KEYLOG`): tests only, so that a
    /// relay standing in for the network can read what passes.
    key_log: Option<std::path::PathBuf>,
    refused_key: Option<String>,
    scratch: Vec<u8>,
    /// The server answered one of our sealed datagrams with "not connected".
    forgotten: bool,
    /// When a datagram last opened under the session's keys (or the session began).
    last_opened: Instant,
    /// Our `Leave` is going out: the server's unsealed `Left` is taken.
    leaving: bool,
    /// The size connect requests are padded to, which the server budgets the
    /// session's datagrams by.
    probe: PathProbe,
}

/// Appends a session's keys to the key log: a file only its owner may read (made so,
/// or refused if it is not).
fn log_keys(path: &std::path::Path, up: &[u8; 32], down: &[u8; 32]) {
    use std::io::Write;
    let line = format!("{} {}\n", secure::hex(up), secure::hex(down));
    let written =
        crate::platform::fs::append_private(path).and_then(|mut f| f.write_all(line.as_bytes()));
    if let Err(e) = written {
        tracing::warn!("cannot write the key log {}: {e}", path.display());
    }
}

/// How far back a "not connected" may name one of our counters and still be believed:
/// about a second of input packets (a round trip's worth, with room).
const NOT_CONNECTED_BACK: u32 = 64;
/// How long nothing may have opened under the session's keys before a "not connected"
/// is believed: a server that has our session keeps sending snapshots, so a forged
/// one, which must guess a recent counter (1 in 1,024), must also come while the real
/// server's traffic does not reach us.
const NOT_CONNECTED_QUIET: Duration = Duration::from_secs(1);

impl Link {
    pub(crate) fn open(config: &ClientConfig) -> anyhow::Result<Link> {
        let poll = Poll::new().context("cannot create poll")?;
        // An IPv4 address written as IPv6 (`[::ffff:a.b.c.d]`) is that IPv4 address: an
        // IPv4 server answers from it, and anything else is a stranger.
        let server = SocketAddr::new(config.server.ip().to_canonical(), config.server.port());
        let bind: SocketAddr = if server.is_ipv4() {
            (Ipv4Addr::UNSPECIFIED, 0).into()
        } else {
            (Ipv6Addr::UNSPECIFIED, 0).into()
        };
        let transport = Transport::bind(
            bind,
            poll.registry(),
            SOCKET,
            config.outgoing.clone(),
            config.incoming.clone(),
            config.seed,
        )
        .context("cannot open a UDP socket")?;
        Ok(Link {
            poll,
            events: Events::with_capacity(16),
            transport,
            server,
            buf: Vec::with_capacity(codec::MAX_CLIENT_DATAGRAM),
            malformed: 0,
            strangers: 0,
            last_stranger: None,
            early: Early::default(),
            handshake_lag_ms: 2
                * (config.outgoing.latency_ms
                    + config.outgoing.jitter_ms
                    + config.incoming.latency_ms
                    + config.incoming.jitter_ms),
            handshake: ClientHandshake::new(),
            session: None,
            pin: config.pin.clone(),
            key_log: config.key_log.clone(),
            refused_key: None,
            scratch: Vec::new(),
            forgotten: false,
            last_opened: Instant::now(),
            leaving: false,
            probe: PathProbe::default(),
        })
        .map(|mut link| {
            link.new_session();
            link
        })
    }

    /// The server answered our session's traffic with "not connected": it restarted, or
    /// dropped us. Only an answer that echoes our session id and one of our last 64
    /// counters, after a second in which nothing opened under the session's keys,
    /// counts: a spoofer who never saw our traffic must guess the counter, and must
    /// also keep the server's own traffic from us.
    pub(crate) fn server_forgot_us(&self) -> bool {
        self.forgotten
    }

    /// Starts a new handshake (a new ephemeral key), for joining again.
    pub(crate) fn new_session(&mut self) {
        self.handshake = ClientHandshake::new();
        if self.key_log.is_some() {
            self.handshake.log_keys();
        }
        self.session = None;
        self.forgotten = false;
        self.leaving = false;
    }

    /// Our `Leave` is going out: from now on the server's `Left` (unsealed: the server
    /// drops the session's keys with the player) is delivered.
    pub(crate) fn start_leaving(&mut self) {
        self.leaving = true;
    }

    pub(crate) fn server(&self) -> SocketAddr {
        self.server
    }

    /// The IP packet size the join's connect requests were padded to (`PathProbe`).
    pub(crate) fn path_mtu(&self) -> usize {
        self.probe.path_mtu(self.server.ip())
    }

    pub(crate) fn traffic(&self) -> Traffic {
        self.transport.traffic()
    }

    /// Datagrams from the server that did not decode or open, or came unsealed in the
    /// session, and were dropped.
    pub(crate) fn malformed(&self) -> u64 {
        self.malformed
    }

    pub(crate) fn set_conditions(&mut self, outgoing: Conditions, incoming: Conditions) {
        self.transport.set_conditions(outgoing, incoming);
    }

    /// Sends `msg`; true when the simulated link dropped it (see [`Transport::send_judged`]).
    /// Session messages (input, chat, leave) go sealed with the session's key.
    pub(crate) fn send(&mut self, now: Instant, msg: &ClientMsg) -> bool {
        let Some((id, session)) = &mut self.session else {
            tracing::error!("no session to send {msg:?} in");
            return false;
        };
        match codec::seal_client(msg, session, *id, &mut self.buf, &mut self.scratch) {
            Ok(_) => self.transport.send_judged(now, self.server, &self.buf),
            Err(e) => {
                tracing::error!("cannot encode {msg:?}: {e}");
                false
            }
        }
    }

    /// Lets [`Link::wait`] wake when the terminal has input too. False when it cannot
    /// (stdin is not the terminal): the caller must then look at the keys itself.
    pub(crate) fn watch_terminal(&mut self) -> bool {
        crate::platform::terminal::watch_stdin(self.poll.registry(), TERMINAL)
    }

    /// Sleeps until a datagram arrives, a delayed datagram falls due, or `until`.
    pub(crate) fn wait(&mut self, until: Instant) -> anyhow::Result<()> {
        let now = Instant::now();
        let wake = self.transport.next_due().map_or(until, |d| d.min(until));
        let timeout = wake.saturating_duration_since(now);
        match self.poll.poll(&mut self.events, Some(timeout)) {
            Err(e) if e.kind() != std::io::ErrorKind::Interrupted => Err(e).context("poll failed"),
            _ => Ok(()),
        }
    }

    /// Sends delayed datagrams that are due and hands every server message that has
    /// arrived to `deliver`. Anything not from the server, not decodable, or a
    /// session's message that does not open under the session's key, is dropped; once
    /// the session exists, so is every unsealed message (a challenge, a refusal, a
    /// discovery answer: anyone can send those from the server's address) but `Left`
    /// while leaving, and "not connected", which the link weighs itself. The
    /// handshake's answer is taken here, so what follows it in the same read opens.
    pub(crate) fn pump(&mut self, now: Instant, mut deliver: impl FnMut(ServerMsg, usize)) {
        for (msg, len) in self.early.msgs.drain(..) {
            deliver(msg, len);
        }
        self.transport.flush(now);
        let server = self.server;
        let malformed = &mut self.malformed;
        let (session, handshake, forgotten) =
            (&mut self.session, &mut self.handshake, &mut self.forgotten);
        let (pin, refused_key, scratch) = (&self.pin, &mut self.refused_key, &mut self.scratch);
        let key_log = self.key_log.as_deref();
        let (strangers, last_stranger) = (&mut self.strangers, &mut self.last_stranger);
        let (last_opened, leaving) = (&mut self.last_opened, self.leaving);
        let overtook = &mut self.early.sealed;
        self.transport.receive(now, |from, bytes| {
            if from != server {
                *strangers += 1;
                *last_stranger = Some(from);
                return;
            }
            let keys = session.as_mut().map(|(_, s)| s);
            let sealed = codec::is_sealed(bytes);
            match codec::open_server(keys, bytes, scratch) {
                Ok(msg) if sealed => {
                    *last_opened = now;
                    deliver(msg, bytes.len());
                }
                Ok(ServerMsg::NotConnected { session: s, seq }) => {
                    let quiet = now.saturating_duration_since(*last_opened) >= NOT_CONNECTED_QUIET;
                    let ours = session.as_ref().is_some_and(|(id, keys)| {
                        let next = keys.next_counter();
                        let low = u32::from(u16::from_le_bytes(seq));
                        let sent = secure::widen(next.saturating_sub(2), low, 16);
                        s == *id && sent < next && next - sent <= NOT_CONNECTED_BACK
                    });
                    if ours && quiet && !*forgotten {
                        tracing::info!("the server at {server} does not know our session");
                        *forgotten = true;
                    }
                }
                Ok(ServerMsg::Accept(answer)) if session.is_none() => {
                    match handshake.finish(&answer) {
                        Ok(done) => match pin.check(server, &done.server_key) {
                            Ok(()) => {
                                if let (Some(path), Some((up, down))) = (key_log, done.keys) {
                                    log_keys(path, &up, &down);
                                }
                                *session = Some((done.id, done.session));
                                *last_opened = now;
                                // What overtook the answer on the way opens now.
                                for b in overtook.drain(..) {
                                    let keys = session.as_mut().map(|(_, s)| s);
                                    match codec::open_server(keys, &b, scratch) {
                                        Ok(msg) => deliver(msg, b.len()),
                                        Err(e) => {
                                            *malformed += 1;
                                            tracing::debug!("dropped datagram from server: {e}");
                                        }
                                    }
                                }
                            }
                            Err(line) => *refused_key = Some(line),
                        },
                        Err(e) => {
                            *malformed += 1;
                            tracing::debug!("dropped a handshake answer: {e}");
                        }
                    }
                }
                Ok(ServerMsg::Accept(_)) => {}
                Ok(ServerMsg::Left) if leaving => deliver(ServerMsg::Left, bytes.len()),
                Ok(msg) if session.is_none() => deliver(msg, bytes.len()),
                Ok(msg) => {
                    *malformed += 1;
                    tracing::debug!("dropped an unsealed {msg:?} in the session");
                }
                // Sealed before there is a session: it overtook the handshake's answer
                // (a path that reorders), and opens once that comes.
                Err(_) if sealed && session.is_none() && overtook.len() < OVERTAKEN_KEPT => {
                    overtook.push(bytes.to_vec());
                }
                Err(e) => {
                    *malformed += 1;
                    tracing::debug!("dropped datagram from server: {e}");
                }
            }
        });
    }

    /// What crossed the link in the `seconds` it was used.
    pub(crate) fn totals(&self, seconds: f64) -> LinkTotals {
        let traffic = self.traffic();
        LinkTotals {
            seconds,
            bytes_in: traffic.bytes_in,
            bytes_out: traffic.bytes_out,
            packets_in: traffic.packets_in,
            packets_out: traffic.packets_out,
            malformed_in: self.malformed(),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::net::UdpSocket;

    use super::*;
    use crate::net::protocol::{Cookie, RejectReason, RosterEntry};
    use crate::net::secure::{ServerKey, accept};

    /// Waits for a connect request on `server`: its sender, cookie, hello and size.
    fn connect_request(server: &UdpSocket) -> (SocketAddr, Option<Cookie>, [u8; 32], usize) {
        let mut buf = [0u8; 2048];
        loop {
            let (n, client) = server.recv_from(&mut buf).unwrap();
            if let Ok(ClientMsg::Connect { cookie, hello, .. }) = codec::decode_client(&buf[..n]) {
                return (client, cookie, hello, n);
            }
        }
    }

    /// Answers the next connect request's hello as session `id`: the client's address
    /// and the server's end of the session.
    fn answer_hello(server: &UdpSocket, key: &ServerKey, id: u8) -> (SocketAddr, Session) {
        let (client, _, hello, _) = connect_request(server);
        let (answer, session) = accept(key, &hello, id).unwrap();
        let mut out = Vec::new();
        codec::encode_server(&ServerMsg::Accept(answer), &mut out).unwrap();
        server.send_to(&out, client).unwrap();
        (client, session)
    }

    /// With 100 ms of simulated lag the welcome and the roster right behind it came out
    /// of the conditioner in one read, and the roster was thrown away with the rest.
    #[test]
    fn what_follows_the_welcome_in_one_read_reaches_the_session() {
        let server = UdpSocket::bind("127.0.0.1:0").unwrap();
        let mut config = ClientConfig::new(server.local_addr().unwrap(), "ann");
        config.incoming.latency_ms = 100;
        let answer = std::thread::spawn(move || {
            let (client, mut session) = answer_hello(&server, &ServerKey::generate(), 3);
            let map = crate::sim::map::Map::builtin("duel").unwrap();
            let welcome = ServerMsg::Welcome(crate::client::netcode::session::duel_welcome(3));
            let roster = crate::net::roster_pages::split(
                1,
                &[RosterEntry {
                    id: 3,
                    name: "ann".into(),
                    bot: false,
                    ping_ms: 0,
                }],
            );
            // The welcome, its map in chunks, then the roster: all in one read.
            let msgs = std::iter::once(welcome)
                .chain(
                    crate::net::map_chunks::split(map.text(), 1024)
                        .into_iter()
                        .map(ServerMsg::MapChunk),
                )
                .chain(roster.into_iter().map(ServerMsg::Roster));
            let (mut out, mut scratch) = (Vec::new(), Vec::new());
            for msg in msgs {
                codec::seal_server(&msg, Some(&mut session), &mut out, &mut scratch).unwrap();
                server.send_to(&out, client).unwrap();
            }
        });
        let mut link = Link::open(&config).unwrap();
        let welcome = link
            .connect("ann", Duration::from_secs(5), || Ok(false))
            .unwrap()
            .expect("not cancelled");
        answer.join().unwrap();
        assert_eq!(welcome.player_id, 3);
        // Under load the roster may have been sent a little after the map and still be
        // held by the simulated lag: wait for it (thrown away, it never comes).
        let mut got = Vec::new();
        let deadline = Instant::now() + Duration::from_secs(2);
        while got.is_empty() && Instant::now() < deadline {
            link.pump(Instant::now(), |msg, _| got.push(msg));
            std::thread::sleep(Duration::from_millis(5));
        }
        assert!(
            matches!(&got[..], [ServerMsg::Roster(r)] if r.entries[0].name == "ann"),
            "{got:?}"
        );
    }

    fn settle(link: &mut Link) -> Vec<ServerMsg> {
        let mut got = Vec::new();
        let deadline = Instant::now() + Duration::from_millis(200);
        while Instant::now() < deadline {
            link.pump(Instant::now(), |msg, _| got.push(msg));
            std::thread::sleep(Duration::from_millis(5));
        }
        got
    }

    /// A joined link whose server is `server`, with the server's end of the session.
    fn joined(server: &UdpSocket) -> (Link, SocketAddr, Session) {
        server
            .set_read_timeout(Some(Duration::from_secs(2)))
            .unwrap();
        let config = ClientConfig::new(server.local_addr().unwrap(), "ann");
        let mut link = Link::open(&config).unwrap();
        let now = Instant::now();
        let hello = link.handshake.hello();
        let mut buf = Vec::new();
        codec::connect_request("ann", None, hello, &mut buf).unwrap();
        link.transport.send(now, link.server, &buf);
        let (client, session) = answer_hello(server, &ServerKey::generate(), 4);
        settle(&mut link);
        assert!(link.session.is_some(), "the handshake finished");
        (link, client, session)
    }

    /// Only a "not connected" that echoes our session id and one of our last 64
    /// counters, after a second in which nothing opened under the session's keys,
    /// makes the link give up its session; session messages leave sealed.
    #[test]
    fn only_a_not_connected_naming_our_session_and_a_recent_counter_in_silence_counts() {
        let server = UdpSocket::bind("127.0.0.1:0").unwrap();
        let (mut link, client, mut keys) = joined(&server);
        let mut buf = [0u8; 2048];
        let mut sent = |link: &mut Link| {
            link.send(Instant::now(), &ClientMsg::Leave);
            let (n, _) = server.recv_from(&mut buf).unwrap();
            buf[..n].to_vec()
        };
        let sealed = sent(&mut link);
        assert_eq!(codec::sealed_session(&sealed), Some(4));
        let (msg, _) = codec::open_client(&mut keys, &sealed, &mut Vec::new()).unwrap();
        assert_eq!(msg, ClientMsg::Leave);
        let old = codec::sealed_counter(&sealed);
        for _ in 0..70 {
            sent(&mut link);
        }
        let last = sent(&mut link);
        let seq = codec::sealed_counter(&last);
        let answer = |session, seq| {
            let mut out = Vec::new();
            codec::encode_server(&ServerMsg::NotConnected { session, seq }, &mut out).unwrap();
            assert!(out.len() < sealed.len(), "smaller than the sealed datagram");
            server.send_to(&out, client).unwrap();
        };
        // The server's own traffic opened a moment ago: not believed yet.
        answer(4, seq);
        settle(&mut link);
        assert!(!link.server_forgot_us(), "the server was heard lately");
        link.last_opened = Instant::now() - NOT_CONNECTED_QUIET;
        answer(5, seq);
        answer(4, [seq[0].wrapping_add(1), seq[1]]);
        answer(4, old);
        settle(&mut link);
        assert!(
            !link.server_forgot_us(),
            "another session, a counter never sent, or one 71 back"
        );
        // A sealed message from the server ends the silence again.
        let mut out = Vec::new();
        let bye = ServerMsg::Bye("x".into());
        codec::seal_server(&bye, Some(&mut keys), &mut out, &mut Vec::new()).unwrap();
        server.send_to(&out, client).unwrap();
        answer(4, seq);
        assert_eq!(settle(&mut link), vec![bye]);
        assert!(!link.server_forgot_us(), "heard again");
        link.last_opened = Instant::now() - NOT_CONNECTED_QUIET;
        answer(4, seq);
        settle(&mut link);
        assert!(link.server_forgot_us());
        link.new_session();
        assert!(!link.server_forgot_us());
        assert!(link.session.is_none());
    }

    /// Once the session exists, the unsealed answers anyone can send from the server's
    /// address (a challenge, a refusal, a goodbye's answer) are dropped, and so keep no
    /// dead server alive; `Left` is taken only while our `Leave` goes out.
    #[test]
    fn unsealed_messages_in_the_session_are_dropped_but_left_while_leaving() {
        let server = UdpSocket::bind("127.0.0.1:0").unwrap();
        let (mut link, client, _) = joined(&server);
        let cookie = Cookie {
            window: 1,
            nonce: 2,
            mac: 3,
        };
        let plain = [
            ServerMsg::Challenge(cookie),
            ServerMsg::Reject(RejectReason::Full { max_players: 1 }),
            ServerMsg::Left,
        ];
        let mut out = Vec::new();
        for msg in &plain {
            codec::encode_server(msg, &mut out).unwrap();
            server.send_to(&out, client).unwrap();
        }
        assert_eq!(settle(&mut link), vec![]);
        assert_eq!(link.malformed(), 3);
        link.start_leaving();
        codec::encode_server(&ServerMsg::Left, &mut out).unwrap();
        server.send_to(&out, client).unwrap();
        assert_eq!(settle(&mut link), vec![ServerMsg::Left]);
    }

    /// A goodbye from the server's own address that is not sealed with the session's
    /// key, or sealed but played back, changes nothing; the real one arrives.
    #[test]
    fn a_goodbye_counts_only_sealed_and_fresh() {
        let server = UdpSocket::bind("127.0.0.1:0").unwrap();
        let (mut link, client, mut keys) = joined(&server);
        let bye = ServerMsg::Bye("forged".into());
        let mut out = Vec::new();
        codec::encode_server(&bye, &mut out).unwrap();
        server.send_to(&out, client).unwrap();
        let (_, mut stranger, _) = {
            let key = ServerKey::generate();
            let mut hs = ClientHandshake::new();
            let (answer, s) = accept(&key, &hs.hello(), 4).unwrap();
            (hs.finish(&answer).unwrap(), s, key)
        };
        codec::seal_server(&bye, Some(&mut stranger), &mut out, &mut Vec::new()).unwrap();
        server.send_to(&out, client).unwrap();
        assert_eq!(settle(&mut link), vec![], "neither bare nor another key");
        let real = ServerMsg::Bye("stopping".into());
        codec::seal_server(&real, Some(&mut keys), &mut out, &mut Vec::new()).unwrap();
        server.send_to(&out, client).unwrap();
        server.send_to(&out, client).unwrap();
        assert_eq!(settle(&mut link), vec![real], "once, not twice");
        assert_eq!(link.malformed(), 3);
    }

    /// A forged challenge (its cookie the server refuses, so it never answers) used to
    /// hold the join until its timeout: the link now asks for a fresh one. Its padded
    /// request went unanswered, but the fresh cookie's is answered: the path is not
    /// taken for a small one (the server got a full-size request).
    #[test]
    fn a_forged_challenge_costs_a_retry_not_the_timeout() {
        let server = UdpSocket::bind("127.0.0.1:0").unwrap();
        server
            .set_read_timeout(Some(Duration::from_secs(5)))
            .unwrap();
        let config = ClientConfig::new(server.local_addr().unwrap(), "ann");
        let real = Cookie {
            window: 1,
            nonce: 2,
            mac: 3,
        };
        let fake = std::thread::spawn(move || {
            let key = ServerKey::generate();
            let mut forged_sent = false;
            loop {
                let (client, cookie, hello, len) = connect_request(&server);
                let mut out = Vec::new();
                let answer = match cookie {
                    // The first challenge is a forger's, winning the race.
                    None if !forged_sent => {
                        forged_sent = true;
                        ServerMsg::Challenge(Cookie { mac: 99, ..real })
                    }
                    None => ServerMsg::Challenge(real),
                    Some(c) if c == real => {
                        assert_eq!(len, codec::MAX_CLIENT_DATAGRAM, "the real cookie's request");
                        let (answer, mut session) = accept(&key, &hello, 1).unwrap();
                        codec::encode_server(&ServerMsg::Accept(answer), &mut out).unwrap();
                        server.send_to(&out, client).unwrap();
                        let w = crate::client::netcode::session::duel_welcome(1);
                        let map = crate::sim::map::Map::builtin("duel").unwrap();
                        let msgs = std::iter::once(ServerMsg::Welcome(w)).chain(
                            crate::net::map_chunks::split(map.text(), 1024)
                                .into_iter()
                                .map(ServerMsg::MapChunk),
                        );
                        for msg in msgs {
                            codec::seal_server(&msg, Some(&mut session), &mut out, &mut Vec::new())
                                .unwrap();
                            server.send_to(&out, client).unwrap();
                        }
                        return;
                    }
                    // A forged cookie gets no answer, as from a real server.
                    Some(_) => continue,
                };
                codec::encode_server(&answer, &mut out).unwrap();
                server.send_to(&out, client).unwrap();
            }
        });
        let mut link = Link::open(&config).unwrap();
        let welcome = link.connect("ann", Duration::from_secs(3), || Ok(false));
        fake.join().unwrap();
        assert_eq!(welcome.unwrap().unwrap().player_id, 1);
        assert_eq!(link.path_mtu(), 1228, "a forged cookie is no small path");
    }

    /// A server whose key is not the pinned one is refused with one line.
    #[test]
    fn a_changed_key_is_refused_in_one_line() {
        let server = UdpSocket::bind("127.0.0.1:0").unwrap();
        let mut config = ClientConfig::new(server.local_addr().unwrap(), "ann");
        config.pin = ServerPin::Key([7; 32]);
        let fake = std::thread::spawn(move || {
            answer_hello(&server, &ServerKey::generate(), 1);
        });
        let mut link = Link::open(&config).unwrap();
        let err = link
            .connect("ann", Duration::from_secs(3), || Ok(false))
            .unwrap_err()
            .to_string();
        fake.join().unwrap();
        assert!(err.contains("presents key") && !err.contains('\n'), "{err}");
    }

    #[test]
    fn a_connect_is_cancelled_and_a_lag_too_long_is_named() {
        let silent = UdpSocket::bind("127.0.0.1:0").unwrap();
        let mut config = ClientConfig::new(silent.local_addr().unwrap(), "ann");
        let mut link = Link::open(&config).unwrap();
        let start = Instant::now();
        let mut asked = 0;
        let cancelled = link.connect("ann", Duration::from_secs(5), || {
            asked += 1;
            Ok(asked > 3)
        });
        assert!(matches!(cancelled, Ok(None)));
        assert!(start.elapsed() < Duration::from_millis(400));
        config.outgoing.latency_ms = 1000;
        config.incoming.latency_ms = 1000;
        let mut link = Link::open(&config).unwrap();
        let err = link
            .connect("ann", Duration::from_millis(300), || Ok(false))
            .unwrap_err()
            .to_string();
        assert!(err.contains("simulated lag alone"), "{err}");
        // `--lag 2000` against the default 5 s: the handshake's two round trips take 8 s.
        for (lag, blames_lag) in [(1000, false), (2000, true)] {
            config.outgoing.latency_ms = lag;
            config.incoming.latency_ms = lag;
            let err = Link::open(&config)
                .unwrap()
                .no_answer(Duration::from_secs(5))
                .to_string();
            assert_eq!(err.contains("simulated lag alone"), blames_lag, "{err}");
            assert_eq!(err.contains("is a netarena server running"), !blames_lag);
        }
    }
}
