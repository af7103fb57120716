//! The client's connection to one server: socket, poll, codec and the join handshake.

use std::collections::VecDeque;
use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use mio::{Events, Poll, Token};

use crate::client::ClientConfig;
use crate::client::tap::LinkTotals;
use crate::net::codec;
use crate::net::conditioner::Conditions;
use crate::net::map_chunks::MapAssembler;
use crate::net::protocol::{ClientMsg, ServerMsg, SessionKey, Welcome};
use crate::net::transport::{Traffic, Transport};

const SOCKET: Token = Token(0);
const TERMINAL: Token = Token(1);
/// How often a connect request is repeated while waiting for an answer.
const CONNECT_RETRY: Duration = Duration::from_millis(250);
/// The longest the connect loop sleeps before asking its caller whether to go on.
const CONNECT_CHECK: Duration = Duration::from_millis(50);

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
    /// Messages that came in the same read as the welcome, for the first pump.
    early: VecDeque<(ServerMsg, usize)>,
    /// The simulated delay of the join handshake (two round trips: the challenge, then
    /// the welcome), at the worst of the jitter, for saying why a connect timed out.
    handshake_lag_ms: u32,
    /// The session our messages are sealed with, and the counter of the next one.
    session: SessionKey,
    next_seq: u32,
    /// The server answered one of our sealed datagrams with "not connected".
    forgotten: bool,
}

/// How far back a "not connected" may name one of our counters and still be believed:
/// a few seconds of input packets.
const NOT_CONNECTED_BACK: u32 = 1024;

impl Link {
    pub(crate) fn open(config: &ClientConfig) -> anyhow::Result<Link> {
        let poll = Poll::new().context("cannot create poll")?;
        let bind: SocketAddr = if config.server.is_ipv4() {
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
            server: config.server,
            buf: Vec::with_capacity(codec::MAX_CLIENT_DATAGRAM),
            malformed: 0,
            strangers: 0,
            last_stranger: None,
            early: VecDeque::new(),
            handshake_lag_ms: 2
                * (config.outgoing.latency_ms
                    + config.outgoing.jitter_ms
                    + config.incoming.latency_ms
                    + config.incoming.jitter_ms),
            session: SessionKey::random(),
            next_seq: 1,
            forgotten: false,
        })
    }

    /// The server answered our session's traffic with "not connected": it restarted, or
    /// dropped us. Only an answer that echoes our session id and a counter we used
    /// recently counts, so a spoofer who never saw our traffic cannot make one.
    pub(crate) fn server_forgot_us(&self) -> bool {
        self.forgotten
    }

    /// Starts a new session (a new key, counters from 1), for joining again.
    pub(crate) fn new_session(&mut self) {
        self.session = SessionKey::random();
        self.next_seq = 1;
        self.forgotten = false;
    }

    pub(crate) fn server(&self) -> SocketAddr {
        self.server
    }

    pub(crate) fn traffic(&self) -> Traffic {
        self.transport.traffic()
    }

    /// Datagrams from the server that did not decode, and were dropped.
    pub(crate) fn malformed(&self) -> u64 {
        self.malformed
    }

    pub(crate) fn set_conditions(&mut self, outgoing: Conditions, incoming: Conditions) {
        self.transport.set_conditions(outgoing, incoming);
    }

    /// Sends `msg`; true when the simulated link dropped it (see [`Transport::send_judged`]).
    /// Session messages (input, chat, leave) go sealed with the session's key.
    pub(crate) fn send(&mut self, now: Instant, msg: &ClientMsg) -> bool {
        let seq = self.next_seq;
        if codec::is_session_msg(msg) {
            self.next_seq = self.next_seq.wrapping_add(1).max(1);
        }
        match codec::encode_sealed(msg, &self.session, seq, &mut self.buf) {
            Ok(()) => self.transport.send_judged(now, self.server, &self.buf),
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
    /// arrived to `deliver`. Anything not from the server, or not decodable, is dropped.
    pub(crate) fn pump(&mut self, now: Instant, mut deliver: impl FnMut(ServerMsg, usize)) {
        for (msg, len) in self.early.drain(..) {
            deliver(msg, len);
        }
        self.transport.flush(now);
        let server = self.server;
        let malformed = &mut self.malformed;
        let (session, next_seq, forgotten) = (self.session.id, self.next_seq, &mut self.forgotten);
        let (strangers, last_stranger) = (&mut self.strangers, &mut self.last_stranger);
        self.transport.receive(now, |from, bytes| {
            if from != server {
                *strangers += 1;
                *last_stranger = Some(from);
                return;
            }
            match codec::decode_server(bytes) {
                Ok(ServerMsg::NotConnected { session: s, seq }) => {
                    let ours =
                        s == session && seq < next_seq && next_seq - seq <= NOT_CONNECTED_BACK;
                    if ours && !*forgotten {
                        tracing::info!("the server at {server} does not know our session");
                        *forgotten = true;
                    }
                }
                Ok(msg) => deliver(msg, bytes.len()),
                Err(e) => {
                    *malformed += 1;
                    tracing::debug!("dropped datagram from server: {e}");
                }
            }
        });
    }

    /// Asks to join until welcomed, refused, or `timeout` passes. The server first
    /// answers with a challenge cookie, which the next request echoes. `cancel` is asked
    /// at least every 50 ms; when it says true the attempt ends with None.
    pub(crate) fn connect(
        &mut self,
        name: &str,
        timeout: Duration,
        mut cancel: impl FnMut() -> anyhow::Result<bool>,
    ) -> anyhow::Result<Option<Welcome>> {
        let start = Instant::now();
        let deadline = start + timeout;
        let mut cookie = None;
        let mut next_try = start;
        // The map follows the welcome in chunks; until all are in, retrying the connect
        // request has the server send the welcome and the chunks again.
        let mut welcome: Option<Welcome> = None;
        let mut map = MapAssembler::default();
        let mut early = VecDeque::new();
        loop {
            if cancel()? {
                return Ok(None);
            }
            let now = Instant::now();
            if now >= deadline {
                return Err(self.no_answer(timeout));
            }
            if now >= next_try {
                match codec::connect_request(name, cookie, self.session, &mut self.buf) {
                    Ok(()) => self.transport.send(now, self.server, &self.buf),
                    Err(e) => bail!("cannot encode a connect request: {e}"),
                }
                next_try = now + CONNECT_RETRY;
            }
            let mut refused = None;
            self.pump(now, |msg, len| match msg {
                ServerMsg::Welcome(w) => welcome = Some(w),
                ServerMsg::MapChunk(c) => {
                    if let Err(e) = map.add(now, &c) {
                        tracing::warn!("the server sent an unusable map chunk: {e}");
                    }
                }
                ServerMsg::Reject(reason) => refused = Some(reason),
                ServerMsg::Challenge(c) => {
                    cookie = Some(c);
                    // Answer the challenge at once rather than at the next retry.
                    next_try = now;
                }
                // What follows the welcome (the roster, a snapshot) is the session's:
                // keep it for the first pump.
                other if welcome.is_some() => early.push_back((other, len)),
                _ => {}
            });
            if let Some(w) = &mut welcome
                && let Some(text) = map.take(&w.map)
            {
                w.map_text = text;
                self.early = early;
                return Ok(welcome.take());
            }
            match refused {
                Some(reason) => bail!("{} refused to let us join: {reason}", self.server),
                None if next_try <= now => {}
                None => self.wait(next_try.min(deadline).min(now + CONNECT_CHECK))?,
            }
        }
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

    /// Why a connect got no answer: the simulated lag, if that alone is too long.
    fn no_answer(&self, timeout: Duration) -> anyhow::Error {
        let secs = timeout.as_secs_f64();
        if let Some(other) = self.last_stranger {
            anyhow::anyhow!(
                "no answer from {} within {secs} s, but {} datagrams came from {other}: the server may be answering from another of its addresses; try joining that one",
                self.server,
                self.strangers
            )
        } else if Duration::from_millis(self.handshake_lag_ms.into()) >= timeout {
            anyhow::anyhow!(
                "no answer from {} within {secs} s: the simulated lag alone makes joining take {} ms (two round trips); lower --lag",
                self.server,
                self.handshake_lag_ms
            )
        } else {
            anyhow::anyhow!(
                "no answer from {} within {secs} s: is a netarena server running there?",
                self.server
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use std::net::UdpSocket;

    use super::*;
    use crate::net::protocol::RosterEntry;

    /// With 100 ms of simulated lag the welcome and the roster right behind it came out
    /// of the conditioner in one read, and the roster was thrown away with the rest.
    #[test]
    fn what_follows_the_welcome_in_one_read_reaches_the_session() {
        let server = UdpSocket::bind("127.0.0.1:0").unwrap();
        let mut config = ClientConfig::new(server.local_addr().unwrap(), "ann");
        config.incoming.latency_ms = 100;
        let answer = std::thread::spawn(move || {
            let mut buf = [0u8; 2048];
            let (_, client) = server.recv_from(&mut buf).unwrap();
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
            let mut out = Vec::new();
            for msg in msgs {
                codec::encode_server(&msg, &mut out).unwrap();
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

    /// Only a "not connected" that echoes our session id and a counter we sent lately
    /// makes the link give up its session; session messages leave sealed.
    #[test]
    fn only_a_not_connected_naming_our_session_and_counter_counts() {
        let server = UdpSocket::bind("127.0.0.1:0").unwrap();
        server
            .set_read_timeout(Some(Duration::from_secs(2)))
            .unwrap();
        let config = ClientConfig::new(server.local_addr().unwrap(), "ann");
        let mut link = Link::open(&config).unwrap();
        link.send(Instant::now(), &ClientMsg::Leave);
        let mut buf = [0u8; 2048];
        let (n, client) = server.recv_from(&mut buf).unwrap();
        let Ok(ClientMsg::Sealed(sealed)) = codec::decode_client(&buf[..n]) else {
            panic!("not sealed: {:?}", &buf[..n]);
        };
        assert!(link.session.verify(&sealed));
        assert_eq!(codec::open_sealed(&sealed).unwrap(), ClientMsg::Leave);
        let answer = |session, seq| {
            let mut out = Vec::new();
            codec::encode_server(&ServerMsg::NotConnected { session, seq }, &mut out).unwrap();
            assert!(out.len() < n, "smaller than the sealed datagram");
            server.send_to(&out, client).unwrap();
        };
        let settle = |link: &mut Link| {
            let deadline = Instant::now() + Duration::from_millis(200);
            while Instant::now() < deadline {
                link.pump(Instant::now(), |_, _| {});
                std::thread::sleep(Duration::from_millis(5));
            }
        };
        answer(sealed.session ^ 1, sealed.seq);
        answer(sealed.session, sealed.seq + 1);
        settle(&mut link);
        assert!(
            !link.server_forgot_us(),
            "another session, or a counter never sent"
        );
        answer(sealed.session, sealed.seq);
        settle(&mut link);
        assert!(link.server_forgot_us());
        link.new_session();
        assert!(!link.server_forgot_us());
        assert_ne!(link.session.id, sealed.session);
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
