//! Datagram intake: every datagram is decoded (bounded) and either handed to the room
//! that deals with it or counted in [`Refusals`] with the reason it was refused.
//! Nothing a datagram holds can make this panic.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use super::Server;
use netarena_net::codec::{self, CodecError};
use netarena_net::protocol::{
    ClientMsg, Freshness, GameEvent, MAGIC, MAX_CHAT_CHARS, MIN_CONNECT_BYTES, MIN_DISCOVER_BYTES,
    RejectReason, ServerMsg, sanitize_text,
};
use netarena_net::secure::OpenError;
use netarena_sim::world::PlayerId;

/// "Not connected" answers one host may get: a client that lost its server needs one;
/// its input packets keep coming at 30 a second until it hears it.
pub(super) const NOT_CONNECTED_BURST: f64 = 4.0;
pub(super) const NOT_CONNECTED_PER_SEC: f64 = 2.0;

/// How long a departed client's session is remembered: its repeated `Leave`s arrive
/// within a round trip or two.
const LEFT_MEMORY: Duration = Duration::from_secs(10);
/// Departed sessions remembered at most: a bounded table, whatever leaves.
const LEFT_MAX: usize = 1024;

/// Sessions whose player left within [`LEFT_MEMORY`] (their address and id), bounded
/// by [`LEFT_MAX`].
#[derive(Clone, Debug, Default)]
pub(crate) struct RecentlyLeft {
    at: HashMap<(SocketAddr, PlayerId), Instant>,
}

impl RecentlyLeft {
    fn insert(&mut self, now: Instant, session: (SocketAddr, PlayerId)) {
        if self.at.len() >= LEFT_MAX {
            self.at
                .retain(|_, t| now.saturating_duration_since(*t) < LEFT_MEMORY);
        }
        if self.at.len() >= LEFT_MAX
            && let Some(oldest) = self.at.iter().min_by_key(|(_, t)| **t).map(|(s, _)| *s)
        {
            self.at.remove(&oldest);
        }
        self.at.insert(session, now);
    }

    fn contains(&self, now: Instant, session: (SocketAddr, PlayerId)) -> bool {
        self.at
            .get(&session)
            .is_some_and(|t| now.saturating_duration_since(*t) < LEFT_MEMORY)
    }
}

/// Counters of what the server refused, for logs and tests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Refusals {
    /// Datagrams that did not decode.
    pub malformed: u64,
    /// Decoded, but with values no honest peer sends.
    pub invalid: u64,
    /// Anything but a connect from an address that is not a client.
    pub unknown_sender: u64,
    /// Connect requests over the per-address rate.
    pub rate_limited: u64,
    /// Forged or replayed cookies.
    pub bad_cookie: u64,
    /// Connect requests speaking another protocol version (answered with a reject).
    pub wrong_version: u64,
    /// Session messages without a valid proof: bare (not sealed), or sealed datagrams
    /// that do not open under their session's key. Forgeries, all of them.
    pub unproven: u64,
    /// Sealed datagrams whose counter was taken already: a replay, or a duplicate the
    /// network made (not counted in [`Refusals::total`]: networks duplicate, and a
    /// replay changes nothing).
    pub replayed: u64,
    /// Sealed datagrams of sessions this server does not have (answered with
    /// "not connected"): a client of a server that restarted, or the copies of a
    /// leave. Not counted in [`Refusals::total`]: no attack, and none would hide here.
    pub unknown_session: u64,
}

impl Refusals {
    pub fn total(&self) -> u64 {
        self.malformed
            + self.invalid
            + self.unknown_sender
            + self.rate_limited
            + self.bad_cookie
            + self.wrong_version
            + self.unproven
    }

    /// What was refused since `earlier`.
    pub fn since(&self, earlier: &Refusals) -> Refusals {
        Refusals {
            malformed: self.malformed - earlier.malformed,
            invalid: self.invalid - earlier.invalid,
            unknown_sender: self.unknown_sender - earlier.unknown_sender,
            rate_limited: self.rate_limited - earlier.rate_limited,
            bad_cookie: self.bad_cookie - earlier.bad_cookie,
            wrong_version: self.wrong_version - earlier.wrong_version,
            unproven: self.unproven - earlier.unproven,
            replayed: self.replayed - earlier.replayed,
            unknown_session: self.unknown_session - earlier.unknown_session,
        }
    }
}

impl Server {
    /// Takes one datagram from `from`: decodes it (bounded), and handles it or counts
    /// why not.
    pub fn receive(&mut self, now: Instant, from: SocketAddr, bytes: &[u8]) {
        self.epoch.get_or_insert(now);
        if codec::is_sealed(bytes) {
            self.on_sealed(now, from, bytes);
            return;
        }
        match codec::decode_client(bytes) {
            Ok(msg) => self.handle(now, from, msg, bytes.len()),
            Err(e) => match codec::peek_connect(bytes) {
                // Another version's connect may not decode as ours; answer it anyway.
                Some((MAGIC, version)) if version != self.config.protocol_version => {
                    if self.challenge_limit.allow(from, now) {
                        self.reject_version(from, bytes.len());
                    }
                }
                _ => {
                    tracing::debug!("dropped datagram from {from}: {e}");
                    self.refusals.malformed += 1;
                }
            },
        }
    }

    fn reject_version(&mut self, from: SocketAddr, wire_len: usize) {
        self.refusals.wrong_version += 1;
        let reject = RejectReason::Version {
            server: self.config.protocol_version,
        };
        self.reply_unproven(from, wire_len, ServerMsg::Reject(reject));
    }

    fn handle(&mut self, now: Instant, from: SocketAddr, msg: ClientMsg, wire_len: usize) {
        match msg {
            ClientMsg::Connect {
                magic,
                version,
                name,
                cookie,
                hello,
                padding: _,
            } => {
                let limit = match cookie {
                    None => &mut self.challenge_limit,
                    Some(_) => &mut self.connect_limit,
                };
                if magic != MAGIC {
                    self.refusals.invalid += 1;
                } else if !limit.allow(from, now) {
                    self.refusals.rate_limited += 1;
                } else if version != self.config.protocol_version {
                    self.reject_version(from, wire_len);
                } else if wire_len < MIN_CONNECT_BYTES {
                    self.refusals.invalid += 1;
                } else {
                    self.on_connect(now, from, &name, cookie, hello, wire_len);
                }
            }
            ClientMsg::Discover {
                magic,
                version: _,
                nonce,
                padding: _,
            } => {
                // Answered whatever the asker's version: telling it ours is the point.
                if magic != MAGIC || !self.config.discoverable {
                    self.refusals.invalid += 1;
                } else if !self.discover_limit.allow(from, now) {
                    self.refusals.rate_limited += 1;
                } else if wire_len < MIN_DISCOVER_BYTES {
                    self.refusals.invalid += 1;
                } else {
                    let info = ServerMsg::Info(self.info(nonce));
                    self.reply_unproven(from, wire_len, info);
                }
            }
            // Session messages prove themselves, or change nothing.
            ClientMsg::Input(_) | ClientMsg::Chat(_) | ClientMsg::Leave => {
                tracing::debug!("refused an unsealed session message from {from}");
                self.refusals.unproven += 1;
            }
        }
    }

    /// A sealed session message: found by its session id (the player's), whatever
    /// address it came from; opened with the session's key; its counter taken once. A
    /// fresh, authentic datagram from a new address moves the session there (a NAT gave
    /// the client a new port).
    fn on_sealed(&mut self, now: Instant, from: SocketAddr, bytes: &[u8]) {
        let wire_len = bytes.len();
        let Some(id) = codec::sealed_session(bytes) else {
            return;
        };
        let mut plain = Vec::with_capacity(bytes.len());
        let Some(conn) = self.connection_mut(id) else {
            self.no_such_session(now, from, id, bytes);
            return;
        };
        let (msg, freshness) = match codec::open_client(&mut conn.session, bytes, &mut plain) {
            Ok(opened) => opened,
            Err(CodecError::Open(OpenError::Replayed)) => {
                self.refusals.replayed += 1;
                return;
            }
            Err(CodecError::Open(_)) => {
                let elsewhere = from != conn.addr;
                tracing::debug!("refused a forged session message from {from}");
                self.refusals.unproven += 1;
                // From elsewhere it may be a client of a session this id had before a
                // restart: tell it, as for an id nobody has.
                if elsewhere {
                    self.no_such_session(now, from, id, bytes);
                }
                return;
            }
            Err(e) => {
                tracing::debug!("refused a sealed datagram from {from}: {e}");
                self.refusals.invalid += 1;
                return;
            }
        };
        if from != conn.addr && freshness == Freshness::Newest {
            let old = std::mem::replace(&mut conn.addr, from);
            if self.by_addr.get(&old) == Some(&id) {
                self.by_addr.remove(&old);
            }
            self.by_addr.insert(from, id);
            self.events.push(super::ServerEvent::Moved {
                id,
                from: old,
                to: from,
            });
        }
        match msg {
            ClientMsg::Input(input) => self.on_input(now, id, input),
            ClientMsg::Chat(text) => self.on_chat(now, id, &text),
            ClientMsg::Leave => {
                // Answered, so the client stops repeating it; its repeats are answered
                // again (see below).
                self.remove_player(id, "left");
                self.left.insert(now, (from, id));
                self.reply_unproven(from, wire_len, ServerMsg::Left);
            }
            _ => {}
        }
    }

    /// A sealed datagram of a session this server does not have: a repeat of a
    /// goodbye already taken is answered again; anything else with "not connected"
    /// (rate-limited, and smaller than the datagram).
    fn no_such_session(&mut self, now: Instant, from: SocketAddr, id: PlayerId, bytes: &[u8]) {
        if self.left.contains(now, (from, id)) {
            self.reply_unproven(from, bytes.len(), ServerMsg::Left);
            return;
        }
        self.refusals.unknown_session += 1;
        if self.not_connected_limit.allow(from, now) {
            let answer = ServerMsg::NotConnected {
                session: id,
                seq: codec::sealed_counter(bytes),
            };
            self.reply_unproven(from, bytes.len(), answer);
        }
    }

    fn on_chat(&mut self, now: Instant, id: PlayerId, text: &str) {
        let Some((_, conn)) = self.remotes().find(|(s, _)| s.id == id) else {
            return;
        };
        if !self.chat_limit.allow(conn.addr, now) {
            self.refusals.rate_limited += 1;
            return;
        }
        let text = sanitize_text(text, MAX_CHAT_CHARS);
        if !text.is_empty() {
            self.broadcast(vec![GameEvent::Chat { from: id, text }]);
        }
    }
}
