//! The client's connection to one server: socket, poll, codec and the join handshake.

use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use mio::{Events, Poll, Token};

use super::ClientConfig;
use crate::net::codec;
use crate::net::conditioner::Conditions;
use crate::net::map_chunks::MapAssembler;
use crate::net::protocol::{ClientMsg, ServerMsg, Welcome};
use crate::net::transport::{Traffic, Transport};

const SOCKET: Token = Token(0);
/// How often a connect request is repeated while waiting for an answer.
const CONNECT_RETRY: Duration = Duration::from_millis(250);

pub(crate) struct Link {
    poll: Poll,
    events: Events,
    transport: Transport,
    server: SocketAddr,
    buf: Vec<u8>,
    malformed: u64,
}

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
        })
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

    pub(crate) fn send(&mut self, now: Instant, msg: &ClientMsg) {
        match codec::encode_client(msg, &mut self.buf) {
            Ok(()) => self.transport.send(now, self.server, &self.buf),
            Err(e) => tracing::error!("cannot encode {msg:?}: {e}"),
        }
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
        self.transport.flush(now);
        let server = self.server;
        let malformed = &mut self.malformed;
        self.transport.receive(now, |from, bytes| {
            if from != server {
                return;
            }
            match codec::decode_server(bytes) {
                Ok(msg) => deliver(msg, bytes.len()),
                Err(e) => {
                    *malformed += 1;
                    tracing::debug!("dropped datagram from server: {e}");
                }
            }
        });
    }

    /// Asks to join until welcomed, refused, or `timeout` passes. The server first
    /// answers with a challenge cookie, which the next request echoes.
    pub(crate) fn connect(&mut self, name: &str, timeout: Duration) -> anyhow::Result<Welcome> {
        let start = Instant::now();
        let deadline = start + timeout;
        let mut cookie = None;
        let mut next_try = start;
        // The map follows the welcome in chunks; until all are in, retrying the connect
        // request has the server send the welcome and the chunks again.
        let mut welcome: Option<Welcome> = None;
        let mut map = MapAssembler::default();
        loop {
            let now = Instant::now();
            if now >= deadline {
                bail!(
                    "no answer from {} within {} s: is a netarena server running there?",
                    self.server,
                    timeout.as_secs()
                );
            }
            if now >= next_try {
                match codec::connect_request(name, cookie, &mut self.buf) {
                    Ok(()) => self.transport.send(now, self.server, &self.buf),
                    Err(e) => bail!("cannot encode a connect request: {e}"),
                }
                next_try = now + CONNECT_RETRY;
            }
            let mut refused = None;
            self.pump(now, |msg, _| match msg {
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
                _ => {}
            });
            if let Some(w) = &mut welcome
                && let Some(text) = map.take(&w.map)
            {
                w.map_text = text;
                return Ok(welcome.take().expect("just matched"));
            }
            match refused {
                Some(reason) => bail!("{} refused to let us join: {reason}", self.server),
                None if next_try <= now => {}
                None => self.wait(next_try.min(deadline))?,
            }
        }
    }
}
