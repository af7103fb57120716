//! Joining and being found: the cookie challenge that proves a client receives at its
//! address, the welcome, the refusals, and the answers to LAN discovery. Nothing sent to
//! an address that has not proved itself is larger than what it sent.

use std::net::SocketAddr;
use std::time::Instant;

use super::Server;
use super::connection::Connection;
use super::connection::Controller;
use super::cookie::{self, CookieError};
use netarena_net::map_chunks::{self, MapAssembler};
use netarena_net::protocol::{
    ClientMsg, Cookie, HELLO_BYTES, MAX_INFO_NAME_CHARS, RejectReason, ServerInfo, ServerMsg,
    Welcome, sanitize_name, sanitize_text,
};
use netarena_net::secure::{self, ClientHandshake};
use netarena_net::{codec, wire_bytes};
use netarena_sim::world::PlayerId;

/// Connect requests without a cookie one host may make: a burst, then a steady trickle,
/// enough for a machine that starts a dozen clients at once. Each gets only a challenge,
/// smaller than the request.
pub(super) const CHALLENGE_BURST: f64 = 40.0;
pub(super) const CHALLENGES_PER_SEC: f64 = 20.0;
/// Connect requests with a cookie one socket address may make. A real client retries
/// every 250 ms for 5 s.
pub(super) const CONNECT_BURST: f64 = 10.0;
pub(super) const CONNECTS_PER_SEC: f64 = 5.0;
/// Discovery requests one address may make: a join screen refreshes a few times a second.
pub(super) const DISCOVER_BURST: f64 = 10.0;
pub(super) const DISCOVERS_PER_SEC: f64 = 4.0;

impl Server {
    /// What a LAN discovery request is answered with.
    pub(super) fn info(&self, nonce: u32) -> ServerInfo {
        let short = |s: &str| sanitize_text(s, MAX_INFO_NAME_CHARS);
        ServerInfo {
            version: self.config.protocol_version,
            nonce,
            name: short(&self.config.name),
            map: short(self.map.name()),
            players: self.slots.len() as u16,
            max_players: self.config.max_players,
            key: secure::first8(&self.config.key.public()),
        }
    }

    /// The welcome, and the map in chunks after it, at once: a LAN takes them in a
    /// moment.
    fn send_welcome(&mut self, to: SocketAddr, id: u8) {
        let burst = self.join_burst(id);
        for m in burst {
            self.queue(to, m);
        }
    }

    /// The welcome and the map's chunks.
    fn join_burst(&self, id: u8) -> Vec<ServerMsg> {
        let chunks = map_chunks::split(self.map.text(), map_chunks::WELCOME_CHUNK_BYTES);
        std::iter::once(self.welcome(id))
            .chain(chunks.into_iter().map(ServerMsg::MapChunk))
            .collect()
    }

    /// The client repeated its connect: part of the welcome or the map was lost, most
    /// likely to a link that holds less than the burst (a 12 kbit/s link queues about
    /// one chunk). It all goes again, paced by the client's delivery bucket at a rate
    /// that halves on each repeat; a repeat while the last round is still going is
    /// ignored (the client asks every 250 ms whatever arrives).
    fn resend_welcome(&mut self, id: u8, now: Instant) {
        let burst = self.join_burst(id);
        let Some(Controller::Remote(c)) = self
            .slots
            .iter_mut()
            .find(|s| s.id == id)
            .map(|s| &mut s.controller)
        else {
            return;
        };
        if c.join_burst.is_empty() {
            c.delivery.join_repeated(now);
            c.join_burst.extend(burst);
        }
    }

    /// Sends what each client's paced join burst may send now.
    pub(super) fn send_join_bursts(&mut self, now: Instant) {
        let mut out = Vec::new();
        for slot in &mut self.slots {
            let Controller::Remote(c) = &mut slot.controller else {
                continue;
            };
            while let Some(msg) = c.join_burst.front() {
                let bytes = codec::encoded_len_server(msg);
                if !c.delivery.take(now, bytes) {
                    break;
                }
                if let Some(msg) = c.join_burst.pop_front() {
                    out.push((c.addr, msg));
                }
            }
        }
        for (to, m) in out {
            self.queue(to, m);
        }
    }

    fn welcome(&self, id: u8) -> ServerMsg {
        ServerMsg::Welcome(Welcome {
            player_id: id,
            tick_rate: self.config.tick_rate,
            snapshot_interval: u16::try_from(self.config.snapshot_interval()).unwrap_or(1),
            server_tick: self.world.tick,
            server_name: self.config.name.clone(),
            map_name: self.map.name().to_owned(),
            map: map_chunks::info(self.map.text(), map_chunks::WELCOME_CHUNK_BYTES),
            map_text: String::new(),
        })
    }

    /// Sends `msg` to an address that has not proved it receives there, only if the
    /// reply is no larger than the request: no amplification for spoofed sources.
    pub(super) fn reply_unproven(&mut self, to: SocketAddr, request_len: usize, msg: ServerMsg) {
        if codec::encoded_len_server(&msg) <= request_len {
            self.queue(to, msg);
        } else {
            self.refusals.invalid += 1;
        }
    }

    fn cookie_window(&self, now: Instant) -> u32 {
        let since = self
            .epoch
            .map_or(0, |e| now.saturating_duration_since(e).as_secs());
        (since / cookie::WINDOW_SECS) as u32
    }

    /// A connect request that passed the checks on its form: challenge it, or admit it
    /// if it carries a good cookie, answering its hello (`net::secure::accept`).
    pub(super) fn on_connect(
        &mut self,
        now: Instant,
        from: SocketAddr,
        name: &str,
        cookie: Option<Cookie>,
        hello: [u8; HELLO_BYTES],
        wire_len: usize,
    ) {
        // A repeated connect of a session we have, from its address, means our answer or
        // welcome was lost: send them again. The answer is the same one: only the hello's
        // sender can read it. The same hello from elsewhere is a new request like any
        // other (a listener who copied it must not hold its sender out).
        let known = self
            .remotes()
            .find(|(_, c)| c.hello == hello && c.addr == from)
            .map(|(s, c)| (s.id, c.accept.clone()));
        if let Some((id, accept)) = known {
            // (A repeat's size changes no budget: once the session is made the client
            // sends its repeats small.) A client still joining (it has acknowledged
            // no snapshot) is heard: over a thin link the map can take longer than the
            // silence a session may keep. Past its join, only sealed datagrams count.
            if let Some(c) = self.connection_mut(id).filter(|c| c.acked_tick.is_none()) {
                c.last_heard = now;
            }
            self.queue(from, ServerMsg::Accept(accept));
            self.resend_welcome(id, now);
            return;
        }
        let window = self.cookie_window(now);
        let Some(cookie) = cookie else {
            let challenge = ServerMsg::Challenge(self.cookies.issue(from, window));
            self.reply_unproven(from, wire_len, challenge);
            return;
        };
        match self.cookies.redeem(from, cookie, window) {
            Ok(()) => {}
            Err(CookieError::Expired) => {
                // A slow client, most likely: let it try again with a fresh one.
                let challenge = ServerMsg::Challenge(self.cookies.issue(from, window));
                self.reply_unproven(from, wire_len, challenge);
                return;
            }
            Err(e) => {
                tracing::debug!("refused connect from {from}: {e}");
                self.refusals.bad_cookie += 1;
                return;
            }
        }
        // A new session from the address of one we have: that client started over (its
        // program restarted, or it rejoined); the old session is gone with it.
        if let Some(&old) = self.by_addr.get(&from) {
            self.remove_player(old, "rejoined");
        }
        self.make_room();
        let full = ServerMsg::Reject(RejectReason::Full {
            max_players: self.config.max_players,
        });
        let Some(id) = self.free_id().filter(|_| !self.is_full()) else {
            self.queue(from, full);
            return;
        };
        let (accept, session) = match secure::accept(&self.config.key, &hello, id) {
            Ok(done) => done,
            Err(e) => {
                tracing::debug!("refused connect from {from}: {e}");
                self.refusals.invalid += 1;
                return;
            }
        };
        let budget = wire_bytes::session_budget(from.ip(), wire_len);
        if budget < codec::MAX_SERVER_DATAGRAM {
            tracing::info!("{from} joins over a small path: its datagrams keep to {budget} bytes");
        }
        let connection = Connection::new(from, session, hello, accept.clone(), budget, now);
        match self.add_player(
            sanitize_name(name),
            Controller::Remote(Box::new(connection)),
        ) {
            Some(id) => {
                self.queue(from, ServerMsg::Accept(accept));
                self.send_welcome(from, id);
            }
            None => self.queue(from, full),
        }
    }

    /// Joins from `addr` the way a client does (request, challenge, request with the
    /// cookie and the hello, the server's answer), for benchmarks and tests that drive a
    /// server without sockets. Messages for other addresses stay in the outbox. The
    /// client's end of the session is kept here: seal its messages with
    /// [`Server::encode_in_process`] and open what the server sends it with
    /// [`Server::open_in_process`].
    pub fn join_in_process(
        &mut self,
        now: Instant,
        addr: SocketAddr,
        name: &str,
    ) -> Option<Welcome> {
        self.join_in_process_padded(now, addr, name, codec::MAX_CLIENT_DATAGRAM)
    }

    /// [`Server::join_in_process`] with connect requests of `size` bytes: 548 makes a
    /// client of a small IPv4 path, whose datagrams keep to that.
    pub fn join_in_process_padded(
        &mut self,
        now: Instant,
        addr: SocketAddr,
        name: &str,
        size: usize,
    ) -> Option<Welcome> {
        let mut buf = Vec::new();
        let mut cookie = None;
        let mut welcome = None;
        let mut accepted = None;
        let mut map = MapAssembler::default();
        let mut handshake = ClientHandshake::new();
        for _ in 0..2 {
            codec::connect_request_padded(name, cookie, handshake.hello(), size, &mut buf).ok()?;
            self.receive(now, addr, &buf);
            let mut kept = Vec::new();
            for (to, msg, session) in self.outbox.drain(..) {
                match msg {
                    ServerMsg::Challenge(c) if to == addr => cookie = Some(c),
                    ServerMsg::Accept(a) if to == addr => accepted = handshake.finish(&a).ok(),
                    ServerMsg::Welcome(w) if to == addr => welcome = Some(w),
                    ServerMsg::MapChunk(c) if to == addr => map.add(now, &c).ok()?,
                    other => kept.push((to, other, session)),
                }
            }
            self.outbox = kept;
            if let (Some(mut w), Some(done)) = (welcome.take(), accepted.take()) {
                w.map_text = map.take(&w.map)?;
                self.in_process
                    .insert(addr, (done.id as PlayerId, done.session));
                return Some(w);
            }
        }
        None
    }

    /// Seals `msg` (input, chat or leave) into `buf` as the client joined from `addr`
    /// with [`Server::join_in_process`] sends it.
    pub fn encode_in_process(
        &mut self,
        addr: SocketAddr,
        msg: &ClientMsg,
        buf: &mut Vec<u8>,
    ) -> Result<(), codec::CodecError> {
        let (id, session) = self
            .in_process
            .get_mut(&addr)
            .ok_or(codec::CodecError::Unsealed)?;
        codec::seal_client(msg, session, *id, buf, &mut Vec::new()).map(|_| ())
    }

    /// Opens a datagram the server sent to `addr` as the client joined from there
    /// with [`Server::join_in_process`] does.
    pub fn open_in_process(
        &mut self,
        addr: SocketAddr,
        bytes: &[u8],
    ) -> Result<ServerMsg, codec::CodecError> {
        let session = self.in_process.get_mut(&addr).map(|(_, s)| s);
        codec::open_server(session, bytes, &mut Vec::new())
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::ServerConfig;
    use netarena_sim::map::Map;

    // Each connect the client repeated (every 250 ms while its map was not whole) had
    // the welcome and every chunk sent again at once: behind a 12 kbit/s link, whose
    // queue holds about one chunk, a 2.4 KB map never got through.
    #[test]
    fn a_repeated_connect_has_the_join_sent_again_at_a_pace_before_any_snapshot() {
        let mut server = Server::new(ServerConfig::new(Map::builtin("warehouse").unwrap()));
        let mut now = Instant::now();
        let addr: SocketAddr = "127.0.0.1:4000".parse().unwrap();
        server.join_in_process(now, addr, "ann").unwrap();
        server.outbox.clear();
        let hello = server.remotes().next().unwrap().1.hello;
        let mut repeat = Vec::new();
        codec::connect_request("ann", None, hello, &mut repeat).unwrap();
        server.receive(now, addr, &repeat);
        assert!(
            matches!(&server.outbox[..], [(_, ServerMsg::Accept(_), _)]),
            "only the handshake's answer at once: {:?}",
            server.outbox
        );
        server.outbox.clear();

        // Two seconds of ticks, the client repeating every 250 ms while the round goes.
        let start = now;
        let mut sent: Vec<(Duration, usize, bool)> = Vec::new();
        let mut welcomes = 0;
        for t in 1..=120u32 {
            now = start + Duration::from_millis(u64::from(t) * 1000 / 60);
            if t % 15 == 0 && t <= 30 {
                server.receive(now, addr, &repeat);
            }
            server.tick(now);
            for (_, msg, _) in server.outbox.drain(..) {
                welcomes += usize::from(matches!(msg, ServerMsg::Welcome(_)));
                let snapshot = matches!(msg, ServerMsg::Snapshot(_));
                if matches!(
                    msg,
                    ServerMsg::Welcome(_) | ServerMsg::MapChunk(_) | ServerMsg::Snapshot(_)
                ) {
                    sent.push((now - start, codec::encoded_len_server(&msg), snapshot));
                }
            }
        }
        assert_eq!(welcomes, 1, "a repeat during the round started another");
        let chunks = map_chunks::split(server.map.text(), map_chunks::WELCOME_CHUNK_BYTES);
        let burst: Vec<_> = sent.iter().take_while(|(_, _, s)| !s).collect();
        assert_eq!(
            burst.len(),
            1 + chunks.len(),
            "the join before any snapshot: {sent:?}"
        );
        assert!(sent.len() > burst.len(), "snapshots follow");
        // Never faster than the pace, beyond one datagram's worth.
        let mut total = 0;
        for (at, bytes, _) in &burst {
            total += bytes;
            assert!(
                total as f64 <= 4000.0 * at.as_secs_f64() + 1200.0,
                "{total} B by {at:?}"
            );
        }
    }

    // Through a thin link the map took longer than the client timeout after the session
    // was made, and the server dropped the client, repeating its connect all along,
    // just as it finished joining.
    #[test]
    fn a_client_repeating_its_connect_is_heard_until_its_join_is_done() {
        let mut server = Server::new(ServerConfig::new(Map::builtin("warehouse").unwrap()));
        let start = Instant::now();
        let addr: SocketAddr = "127.0.0.1:4000".parse().unwrap();
        server.join_in_process(start, addr, "ann").unwrap();
        let (id, hello) = server
            .remotes()
            .map(|(s, c)| (s.id, c.hello))
            .next()
            .unwrap();
        let mut repeat = Vec::new();
        codec::connect_request("ann", None, hello, &mut repeat).unwrap();
        let timeout = server.config.client_timeout;
        let at = |f: f64| start + timeout.mul_f64(f);
        // Repeats every half timeout, past one and a half timeouts: still there.
        for f in [0.5, 1.0, 1.5] {
            server.receive(at(f), addr, &repeat);
            server.tick(at(f));
        }
        server.tick(at(1.9));
        assert_eq!(server.remotes().count(), 1, "dropped while joining");
        // Once it has acknowledged a snapshot, repeats keep it no longer.
        server.connection_mut(id).unwrap().acked_tick = Some(1);
        server.receive(at(2.0), addr, &repeat);
        server.tick(at(2.9));
        assert_eq!(server.remotes().count(), 0, "kept by unsealed repeats");
    }
}
