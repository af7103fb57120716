//! Datagram intake: every datagram is decoded (bounded) and either handed to the room
//! that deals with it or counted in [`Refusals`] with the reason it was refused.
//! Nothing a datagram holds can make this panic.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use super::Server;
use crate::net::codec;
use crate::net::protocol::{
    ClientMsg, GameEvent, MAGIC, MAX_CHAT_CHARS, MIN_CONNECT_BYTES, MIN_DISCOVER_BYTES,
    RejectReason, ServerMsg, sanitize_text,
};

/// Chat lines one client may send: a burst, then one a second.
pub(super) const CHAT_BURST: f64 = 3.0;
pub(super) const CHATS_PER_SEC: f64 = 1.0;

/// How long a departed client's address is remembered: its repeated `Leave`s and the
/// input packets it sent just before leaving arrive within a round trip or two.
const LEFT_MEMORY: Duration = Duration::from_secs(10);
/// Departed addresses remembered at most: a bounded table, whatever leaves.
const LEFT_MAX: usize = 1024;

/// Addresses whose player left within [`LEFT_MEMORY`], bounded by [`LEFT_MAX`].
#[derive(Clone, Debug, Default)]
pub(crate) struct RecentlyLeft {
    at: HashMap<SocketAddr, Instant>,
}

impl RecentlyLeft {
    fn insert(&mut self, now: Instant, addr: SocketAddr) {
        if self.at.len() >= LEFT_MAX {
            self.at
                .retain(|_, t| now.saturating_duration_since(*t) < LEFT_MEMORY);
        }
        if self.at.len() >= LEFT_MAX
            && let Some(oldest) = self.at.iter().min_by_key(|(_, t)| **t).map(|(a, _)| *a)
        {
            self.at.remove(&oldest);
        }
        self.at.insert(addr, now);
    }

    fn contains(&self, now: Instant, addr: SocketAddr) -> bool {
        self.at
            .get(&addr)
            .is_some_and(|t| now.saturating_duration_since(*t) < LEFT_MEMORY)
    }

    /// Forgets `addr` (it joined again).
    pub(super) fn forget(&mut self, addr: SocketAddr) {
        self.at.remove(&addr);
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
}

impl Refusals {
    pub fn total(&self) -> u64 {
        self.malformed
            + self.invalid
            + self.unknown_sender
            + self.rate_limited
            + self.bad_cookie
            + self.wrong_version
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
        }
    }
}

impl Server {
    /// Takes one datagram from `from`: decodes it (bounded), and handles it or counts
    /// why not.
    pub fn receive(&mut self, now: Instant, from: SocketAddr, bytes: &[u8]) {
        self.epoch.get_or_insert(now);
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
                    self.on_connect(now, from, &name, cookie, wire_len);
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
            ClientMsg::Input(input) => self.on_input(now, from, input),
            ClientMsg::Chat(text) => self.on_chat(now, from, &text),
            ClientMsg::Leave => self.on_leave(now, from, wire_len),
        }
    }

    /// A client says goodbye: it is removed and told so. It repeats its `Leave` until
    /// told, so a repeat from an address that just left is answered again, not counted
    /// as a stranger's.
    fn on_leave(&mut self, now: Instant, from: SocketAddr, wire_len: usize) {
        if let Some(&id) = self.by_addr.get(&from) {
            self.remove_player(id, "left");
            self.left.insert(now, from);
        } else if !self.left.contains(now, from) {
            self.refusals.unknown_sender += 1;
            return;
        }
        self.reply_unproven(from, wire_len, ServerMsg::Left);
    }

    /// A datagram that needs a client from an address that is none: refused, and
    /// counted as a stranger's unless that address's player has just left (its last
    /// input packets were on their way).
    pub(super) fn stranger(&mut self, now: Instant, from: SocketAddr) {
        if !self.left.contains(now, from) {
            self.refusals.unknown_sender += 1;
        }
    }

    fn on_chat(&mut self, now: Instant, from: SocketAddr, text: &str) {
        let Some(&id) = self.by_addr.get(&from) else {
            self.stranger(now, from);
            return;
        };
        if !self.chat_limit.allow(from, now) {
            self.refusals.rate_limited += 1;
            return;
        }
        let text = sanitize_text(text, MAX_CHAT_CHARS);
        if !text.is_empty() {
            self.broadcast(vec![GameEvent::Chat { from: id, text }]);
        }
    }
}
