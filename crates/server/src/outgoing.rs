//! Turning the outbox into datagrams: a session's messages sealed with its keys
//! (`net::secure`), the answers to strangers as they are. An encode failure is counted
//! and logged; the reliable events a failed snapshot carried stay queued (only an
//! acknowledgement removes them), so the next snapshot carries them again.

use std::net::SocketAddr;

use super::connection::Controller;
use super::{PlayerId, Server};
use netarena_net::codec::{self, CodecError};
use netarena_net::protocol::ServerMsg;

/// What went wrong on the way out, for logs and tests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SendFailures {
    /// Messages that could not be encoded (and were not sent).
    pub encode: u64,
    /// Of those, snapshots that carried reliable events, which stay queued.
    pub(crate) with_events: u64,
}

impl Server {
    /// Queues `msg` for `to`: a session's message for the session at that address now,
    /// so it goes sealed with that session's keys whatever comes to the address before
    /// the outbox goes out.
    pub(crate) fn queue(&mut self, to: SocketAddr, msg: ServerMsg) {
        let session = if codec::is_session_server_msg(&msg) {
            self.by_addr.get(&to).copied()
        } else {
            None
        };
        self.outbox.push((to, msg, session));
    }

    /// Encodes every message in the outbox, sealed with the session it was queued for,
    /// and hands each datagram to `send`. The departed sessions' keys go with it.
    pub fn send_outbox(&mut self, buf: &mut Vec<u8>, mut send: impl FnMut(SocketAddr, &[u8])) {
        let outbox = std::mem::take(&mut self.outbox);
        let mut scratch = Vec::new();
        for (addr, msg, id) in outbox {
            let budget = id.map_or(codec::MAX_SERVER_DATAGRAM, |id| self.budget(id));
            let session = id.and_then(|id| self.session_mut(id));
            match codec::seal_server(&msg, session, buf, &mut scratch) {
                Ok(()) if buf.len() <= budget => send(addr, buf),
                Ok(()) => {
                    // Built to fit (`snapshots`, `roster_pages`, `map_chunks`); a path
                    // this small would drop it unseen.
                    self.send_failures.encode += 1;
                    tracing::error!(
                        "not sent: a {}-byte datagram for {addr}, whose path carries {budget}",
                        buf.len()
                    );
                }
                Err(e) => {
                    self.send_failures.encode += 1;
                    let events = match &msg {
                        ServerMsg::Snapshot(s) => s.events.len(),
                        _ => 0,
                    };
                    if events > 0 {
                        self.send_failures.with_events += 1;
                    }
                    tracing::error!(
                        "cannot encode a message for {addr} ({events} reliable events kept queued): {e}"
                    );
                }
            }
        }
        self.departed.clear();
    }

    /// The largest datagram session `id` is sent (one that departed: any).
    fn budget(&self, id: PlayerId) -> usize {
        match self
            .slots
            .iter()
            .find(|s| s.id == id)
            .map(|s| &s.controller)
        {
            Some(Controller::Remote(c)) => c.budget,
            _ => codec::MAX_SERVER_DATAGRAM,
        }
    }

    /// The keys of session `id`: a player's, or one that departed since the outbox last
    /// went out.
    fn session_mut(&mut self, id: PlayerId) -> Option<&mut netarena_net::secure::Session> {
        match self.slots.iter_mut().find(|s| s.id == id) {
            Some(slot) => match &mut slot.controller {
                Controller::Remote(c) => Some(&mut c.session),
                Controller::Bot(_) => None,
            },
            None => self.departed.get_mut(&id).map(|(_, s)| s),
        }
    }

    /// Encodes `msg` for `to` as [`Server::send_outbox`] does: a session's message
    /// sealed with the session at that address (or the one that just left from it), any
    /// other as it is. For a caller that takes the outbox itself (the lab).
    pub fn encode_for(
        &mut self,
        to: SocketAddr,
        msg: &ServerMsg,
        buf: &mut Vec<u8>,
        scratch: &mut Vec<u8>,
    ) -> Result<(), CodecError> {
        let id = self.by_addr.get(&to).copied().or_else(|| {
            self.departed
                .iter()
                .find_map(|(id, (addr, _))| (*addr == to).then_some(*id))
        });
        let session = id.and_then(|id| self.session_mut(id));
        codec::seal_server(msg, session, buf, scratch)
    }

    pub fn send_failures(&self) -> SendFailures {
        self.send_failures
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use super::*;
    use crate::ServerConfig;
    use netarena_net::protocol::GameEvent;
    use netarena_sim::map::Map;

    fn pending(server: &Server) -> Vec<u32> {
        server
            .slots
            .iter()
            .find_map(|s| match &s.controller {
                Controller::Remote(c) => Some(c.events.pending_seqs()),
                Controller::Bot(_) => None,
            })
            .unwrap()
    }

    /// Ticks until a snapshot is in the outbox.
    fn tick_to_snapshot(server: &mut Server, now: &mut Instant) {
        loop {
            *now += Duration::from_millis(16);
            server.tick(*now);
            if server
                .outbox
                .iter()
                .any(|(_, m, _)| matches!(m, ServerMsg::Snapshot(_)))
            {
                return;
            }
        }
    }

    #[test]
    fn an_unencodable_snapshot_keeps_its_events_and_is_counted() {
        let mut server = Server::new(ServerConfig::new(Map::builtin("duel").unwrap()));
        let mut now = Instant::now();
        let addr = "127.0.0.1:4000".parse().unwrap();
        server.join_in_process(now, addr, "ann").unwrap();
        // An event no datagram can hold (the server never makes one; this stands for
        // any encode failure).
        let huge = GameEvent::Chat {
            from: 0,
            text: "x".repeat(40_000),
        };
        // The join's own events have arrived; the huge one is next.
        for slot in &mut server.slots {
            if let Controller::Remote(c) = &mut slot.controller {
                c.events.ack(now, u32::MAX);
            }
        }
        server.broadcast(vec![huge.clone()]);
        let before = pending(&server);
        tick_to_snapshot(&mut server, &mut now);
        let mut sent = 0;
        server.send_outbox(&mut Vec::new(), |_, _| sent += 1);
        assert_eq!(server.send_failures().encode, 1, "{sent} sent");
        assert_eq!(server.send_failures().with_events, 1);
        assert_eq!(pending(&server), before, "no event may be lost");
        // The next snapshot carries them again (and fails again, counted again).
        tick_to_snapshot(&mut server, &mut now);
        server.send_outbox(&mut Vec::new(), |_, _| {});
        assert_eq!(server.send_failures().with_events, 2);
        assert_eq!(pending(&server), before);
    }

    /// Ticks past the client's timeout: its `Bye` is queued, the player removed.
    fn time_out(server: &mut Server, now: Instant) -> Instant {
        let later = now + server.config.client_timeout + Duration::from_millis(100);
        server.tick(later);
        assert!(
            server
                .outbox
                .iter()
                .any(|(_, m, _)| matches!(m, ServerMsg::Bye(_))),
            "timed out"
        );
        later
    }

    /// A catch-up tick before the outbox went out cleared the departed sessions' keys,
    /// and the timed-out client's goodbye could not be sealed: it went unsent.
    #[test]
    fn a_goodbye_survives_catch_up_ticks_before_the_outbox_goes_out() {
        let mut server = Server::new(ServerConfig::new(Map::builtin("duel").unwrap()));
        let now = Instant::now();
        let addr: SocketAddr = "127.0.0.1:4000".parse().unwrap();
        server.join_in_process(now, addr, "ann").unwrap();
        let later = time_out(&mut server, now);
        server.tick(later + Duration::from_millis(16));
        let mut to_ann = Vec::new();
        server.send_outbox(&mut Vec::new(), |to, b| {
            if to == addr {
                to_ann.push(b.to_vec());
            }
        });
        assert_eq!(server.send_failures().encode, 0);
        let got: Vec<ServerMsg> = to_ann
            .iter()
            .filter_map(|b| server.open_in_process(addr, b).ok())
            .collect();
        assert!(
            got.iter().any(|m| matches!(m, ServerMsg::Bye(_))),
            "{got:?}"
        );
    }

    /// A goodbye queued for a session that departed from an address a new session
    /// then joined from, before the outbox went out, was sealed with the new session's
    /// keys (its client would have taken it as its own goodbye).
    #[test]
    fn a_goodbye_goes_sealed_for_the_session_it_was_queued_for() {
        let mut server = Server::new(ServerConfig::new(Map::builtin("duel").unwrap()));
        let now = Instant::now();
        let addr: SocketAddr = "127.0.0.1:4000".parse().unwrap();
        let old = server.join_in_process(now, addr, "ann").unwrap().player_id;
        let later = time_out(&mut server, now);
        let new = server
            .join_in_process(later, addr, "ann")
            .unwrap()
            .player_id;
        assert_ne!(old, new, "a departed session's id is not given out yet");
        let mut sent = Vec::new();
        server.send_outbox(&mut Vec::new(), |to, b| {
            if to == addr {
                sent.push(b.to_vec());
            }
        });
        let mut byes = 0;
        for b in &sent {
            match server.open_in_process(addr, b) {
                Ok(ServerMsg::Bye(_)) => panic!("the old session's goodbye opened for the new"),
                Ok(_) => {}
                Err(_) => {
                    assert_eq!(codec::sealed_session(b), Some(old));
                    byes += 1;
                }
            }
        }
        assert_eq!(byes, 1, "the goodbye went, sealed for the old session");
    }
}
