//! Turning the outbox into datagrams: a session's messages sealed with its keys
//! (`net::secure`), the answers to strangers as they are. An encode failure is counted
//! and logged; the reliable events a failed snapshot carried stay queued (only an
//! acknowledgement removes them), so the next snapshot carries them again.

use std::net::SocketAddr;

use super::Server;
use super::connection::Controller;
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
    /// Encodes every message in the outbox and hands each datagram to `send`.
    pub fn send_outbox(&mut self, buf: &mut Vec<u8>, mut send: impl FnMut(SocketAddr, &[u8])) {
        let outbox = std::mem::take(&mut self.outbox);
        let mut scratch = Vec::new();
        for (addr, msg) in outbox {
            match self.encode_for(addr, &msg, buf, &mut scratch) {
                Ok(()) => send(addr, buf),
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
        let id = self.by_addr.get(&to).copied();
        let session = match id.and_then(|id| self.slots.iter_mut().find(|s| s.id == id)) {
            Some(slot) => match &mut slot.controller {
                Controller::Remote(c) => Some(&mut c.session),
                Controller::Bot(_) => None,
            },
            None => self.departed.get_mut(&to),
        };
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
                .any(|(_, m)| matches!(m, ServerMsg::Snapshot(_)))
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
}
