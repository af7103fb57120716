//! Joining: the connect requests, the challenge and its cookie, the path's probe, and
//! waiting for the welcome and the map.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use anyhow::bail;

use super::Link;
use crate::net::codec;
use crate::net::map_chunks::MapAssembler;
use crate::net::protocol::{Cookie, MIN_CONNECT_BYTES, RejectReason, ServerMsg, Welcome};

/// How often a connect request is repeated while waiting for an answer.
const CONNECT_RETRY: Duration = Duration::from_millis(250);
/// The longest the connect loop sleeps before asking its caller whether to go on.
const CONNECT_CHECK: Duration = Duration::from_millis(50);
/// Connect requests sent with one cookie and left unanswered before the cookie is
/// dropped and a fresh challenge asked for (a padded one counts as all, `path_probe`):
/// a forged or corrupted challenge costs a retry or two, not the whole timeout.
const COOKIE_TRIES: u32 = 2;
/// Challenges answered at once in one retry period: each new cookie is tried as it
/// comes (a forged one beside the real one costs a request, not a retry), but a flood
/// of forged ones does not make the client flood the server.
const PROMPT_ANSWERS: u32 = 2;
/// New challenges kept from one read: the first are answered at once and the last
/// becomes the cookie; more are dropped (a flood of forged ones costs no quadratic
/// search, and the real one comes again on the next retry).
const CHALLENGES_KEPT: usize = 8;
/// How long a refusal must stand, with requests still going out and no answer that
/// opens coming back, before the join gives up (and at least three round trips of the
/// challenge): a refusal carries no proof (an older client must be able to read it),
/// so one forged by a stranger is outlived by the real server's answer.
const REFUSAL_STANDS: Duration = Duration::from_millis(600);

impl Link {
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
        let mut cookie_tries = 0;
        let mut prompt_answers = 0;
        let mut next_try = start;
        // A refusal heard, and since when nothing of the handshake came back.
        let mut refused: Option<(RejectReason, Instant)> = None;
        // From the first request to the first challenge: the handshake's round trip.
        let mut challenge_rtt: Option<Duration> = None;
        // The map follows the welcome in chunks; until all are in, retrying the connect
        // request has the server send the welcome and the chunks again.
        let mut welcome: Option<Welcome> = None;
        let mut map = MapAssembler::default();
        let mut early = VecDeque::new();
        self.probe.restart();
        loop {
            if cancel()? {
                return Ok(None);
            }
            let now = Instant::now();
            if now >= deadline {
                return Err(self.no_answer(timeout));
            }
            if now >= next_try {
                // A cookie the server does not answer is forged or spoiled: ask for a
                // fresh challenge.
                if cookie.is_some() && self.session.is_none() && cookie_tries >= COOKIE_TRIES {
                    (cookie, cookie_tries) = (None, 0);
                }
                cookie_tries += self.send_connect(now, start, name, cookie)?;
                next_try = now + CONNECT_RETRY;
                prompt_answers = 0;
            }
            let had_session = self.session.is_some();
            let mut progress = false;
            let mut challenges: Vec<Cookie> = Vec::new();
            let mut rejection = None;
            self.pump(now, |msg, len| match msg {
                ServerMsg::Welcome(w) => {
                    welcome = Some(w);
                    progress = true;
                }
                ServerMsg::MapChunk(c) => {
                    if let Err(e) = map.add(now, &c) {
                        tracing::warn!("the server sent an unusable map chunk: {e}");
                    }
                }
                ServerMsg::Reject(reason) => rejection = Some(reason),
                ServerMsg::Challenge(c)
                    if challenges.len() < CHALLENGES_KEPT
                        && !challenges.contains(&c)
                        && Some(c) != cookie =>
                {
                    challenges.push(c);
                }
                ServerMsg::Challenge(_) => {}
                // What follows the welcome (the roster, a snapshot) is the session's:
                // keep it for the first pump.
                other if welcome.is_some() => early.push_back((other, len)),
                _ => {}
            });
            // Answer each new challenge at once rather than at the next retry: the real
            // one is answered even when a forged one came in the same read.
            if !challenges.is_empty() {
                challenge_rtt.get_or_insert(now - start);
            }
            for c in challenges {
                (cookie, cookie_tries) = (Some(c), 0);
                if prompt_answers < PROMPT_ANSWERS {
                    prompt_answers += 1;
                    cookie_tries = self.send_connect(now, start, name, cookie)?;
                    next_try = now + CONNECT_RETRY;
                }
            }
            // The server's answer opened (only the server's key makes one that does):
            // after that a refusal cannot be the server's. A challenge is no such proof.
            progress |= self.session.is_some() && !had_session;
            if progress {
                refused = None;
            } else if let Some(reason) = rejection
                && self.session.is_none()
            {
                refused.get_or_insert((reason, now));
            }
            if let Some(w) = &mut welcome
                && let Some(text) = map.take(&w.map)
            {
                w.map_text = text;
                self.early.msgs = early;
                return Ok(welcome.take());
            }
            if let Some(line) = self.refused_key.take() {
                bail!("{line}");
            }
            let stands = REFUSAL_STANDS.max(challenge_rtt.unwrap_or_default() * 3);
            if let Some((reason, since)) = &refused
                && now >= *since + stands
            {
                bail!("{} refused to let us join: {reason}", self.server);
            }
            if next_try > now {
                self.wait(next_try.min(deadline).min(now + CONNECT_CHECK))?;
            }
        }
    }

    /// Sends a connect request with our hello and `cookie`: the cookie's tries it used.
    fn send_connect(
        &mut self,
        now: Instant,
        start: Instant,
        name: &str,
        cookie: Option<Cookie>,
    ) -> anyhow::Result<u32> {
        let hello = self.handshake.hello();
        // A small path is tried once the simulated lag, if any, is waited out.
        let lag = Duration::from_millis(self.handshake_lag_ms.into());
        let (ip, session) = (self.server.ip(), self.session.is_some());
        let size = self
            .probe
            .next_request(ip, now, start + lag, cookie.is_some(), session);
        match codec::connect_request_padded(name, cookie, hello, size, &mut self.buf) {
            Ok(()) => {
                self.transport.send(now, self.server, &self.buf);
                let padded = size > MIN_CONNECT_BYTES;
                Ok(if padded { COOKIE_TRIES } else { 1 })
            }
            Err(e) => bail!("cannot encode a connect request: {e}"),
        }
    }

    /// Why a connect got no answer: the simulated lag, if that alone is too long.
    pub(super) fn no_answer(&self, timeout: Duration) -> anyhow::Error {
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
        } else if let Some(why) = self.probe.no_answer(self.server.ip()) {
            anyhow::anyhow!("no answer from {} within {secs} s {why}", self.server)
        } else {
            anyhow::anyhow!(
                "no answer from {} within {secs} s: is a netarena server running there?",
                self.server
            )
        }
    }
}
