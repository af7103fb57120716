//! One step of the lab's clock: when the next one is due, and what happens in it (links
//! deliver, the server ticks and sends, clients take in what arrived and make the
//! commands due).

use std::net::SocketAddr;
use std::time::Instant;

use super::client::{Drive, commands, note_ack};
use super::{Carried, Lab, RAIL_SHOWN, STEP, SeenRail, recording, wire};
use crate::client::netcode::session::ClientSession;
use crate::net::protocol::{GameEvent, ServerMsg};
use crate::sim::world::Command;

impl Lab {
    /// The next time on the clock's grid (every [`STEP`] from now, and `until`) at
    /// which something is due: the server's tick, a datagram's arrival, a client's
    /// start, command or rate sample, a checkpoint, keys not yet played. A step at any
    /// other grid time does nothing, so skipping them changes no result. Also returns
    /// the grid time just before it, where the millisecond stepper stepped last.
    pub(super) fn next_step(&self, until: Instant) -> (Instant, Instant) {
        let now = self.now;
        let mut due = until.min(self.next_tick);
        if let Some(check) = recording::next_check(self) {
            due = due.min(self.start + check);
        }
        for c in self.clients.iter().chain(&self.walkers) {
            // Nothing reaches a client, nor does it act, before it starts.
            let start = c.started.start;
            let keys = matches!(c.drive, Drive::Keys) && c.played != Some(c.held);
            let soonest = [
                c.down.next_due(),
                c.rates.next_sample(),
                keys.then_some(now),
            ]
            .into_iter()
            .flatten()
            .fold(c.driver.next_command(), Instant::min);
            due = due.min(soonest.max(start));
            if let Some(t) = c.up.next_due() {
                due = due.min(t);
            }
        }
        let steps = due
            .saturating_duration_since(now)
            .as_nanos()
            .div_ceil(STEP.as_nanos());
        let steps = u32::try_from(steps.max(1)).unwrap_or(u32::MAX);
        let next = (now + STEP * steps).min(until);
        let before = now + STEP * (steps - 1);
        (next, before.min(next))
    }

    /// One step of the lab: links deliver, the server ticks and sends, clients take in
    /// what arrived and make the commands due. `before` is the time of the step before
    /// on the millisecond grid, had every one been stepped.
    pub(super) fn step(
        &mut self,
        before: Instant,
        script: &mut impl FnMut(usize, &ClientSession, Instant) -> Command,
    ) {
        let now = self.now;
        let server = &mut self.server;
        for c in self.clients.iter_mut().chain(&mut self.walkers) {
            c.up.drain(now, |from, bytes| server.receive(now, from, bytes));
        }
        let mut ticked = false;
        while now >= self.next_tick {
            let tick = self.server.world().tick;
            self.server.tick(self.next_tick);
            for c in &mut self.clients {
                let id = c.driver.session().player_id();
                let applied = self.server.applied_seq(id).unwrap_or(0);
                c.trail.server_ticked(tick, now, applied);
            }
            self.next_tick += self.tick;
            self.motion.server_ticked(self.server.world());
            ticked = true;
        }
        // The rail shots shown as the step before would have left them: those are the
        // ones a rail in a snapshot going out now is told apart from.
        self.rails.retain(|r| before < r.at + RAIL_SHOWN);
        self.send_outbox(now);
        let shown = self.clients.len();
        for (n, c) in self.clients.iter_mut().chain(&mut self.walkers).enumerate() {
            if now < c.started.start {
                // Not started yet: what arrived waits on the link.
                continue;
            }
            let (driver, log, acked) = (&mut c.driver, &mut c.log, &mut c.acks.ack_delivered);
            let (trail, addr, server) = (&mut c.trail, c.addr, &mut self.server);
            c.down.drain(now, |_, bytes| {
                // Opened as a client opens what its link brings (`net::secure`).
                match (server.open_in_process(addr, bytes), log.as_mut()) {
                    (Ok(msg), log) => {
                        let mut snapshot = None;
                        if let ServerMsg::Snapshot(s) = &msg {
                            // As it came: its low bits, widened against the last.
                            *acked = (*acked).max(crate::net::widen::ack_of(s, *acked));
                            let session = driver.session();
                            let before = session.last_correction().map(|(at, _)| *at);
                            snapshot =
                                (n < shown).then_some((s.header.tick, session.acked_seq(), before));
                        }
                        driver.receive(now, msg, bytes.len());
                        if let Some((tick, acked_before, before)) = snapshot {
                            trail.received(tick, now, driver.session(), acked_before, before);
                        }
                        if let Some(log) = log {
                            note_ack(log, driver.session());
                        }
                    }
                    (Err(_), Some(log)) => log.undecodable += 1,
                    (Err(_), None) => {}
                }
            });
            let made = c.driver.session().latest_seq();
            commands(c, now, &mut self.server, &mut self.buf, |s, t| {
                script(n, s, t)
            });
            // Only the clients shown can be followed: the walkers keep no trail.
            if n < shown {
                let keys = matches!(c.drive, Drive::Keys).then_some(c.held);
                c.trail.made(made, c.driver.session(), now, keys);
            }
            let traffic = c.traffic();
            c.rates.sample(now, traffic, c.driver.session().stats());
        }
        self.rails.retain(|r| now < r.at + RAIL_SHOWN);
        if ticked {
            let config = self.server.config();
            let rates = (f64::from(config.tick_rate), config.snapshot_interval());
            for (n, c) in self.clients.iter().enumerate() {
                if now >= c.started.start {
                    self.motion.sample(n, c.driver.session(), now, rates);
                }
            }
        }
    }

    /// Puts what the server sent on the links down, noting acks and rail shots.
    fn send_outbox(&mut self, now: Instant) {
        let out: Vec<(SocketAddr, ServerMsg)> = self.server.take_outbox().collect();
        let mut shots = Vec::new();
        for (to, msg) in out {
            let Some(c) = self
                .clients
                .iter_mut()
                .chain(&mut self.walkers)
                .find(|c| c.addr == to)
            else {
                continue;
            };
            if let ServerMsg::Snapshot(s) = &msg {
                c.acks.server_ack = s.header.ack_seq;
                for (_, e) in &s.events {
                    if let GameEvent::Rail(shot) = e
                        && !self
                            .rails
                            .iter()
                            .any(|r| r.shot.shooter == shot.shooter && r.shot.tick == shot.tick)
                    {
                        self.rails.push(SeenRail {
                            at: now,
                            shot: *shot,
                        });
                        shots.push(*shot);
                    }
                }
            }
            // Sealed for its session, as the server's socket sends it.
            if self
                .server
                .encode_for(to, &msg, &mut self.buf, &mut self.scratch)
                .is_ok()
            {
                c.bytes.down(now, &msg, self.buf.len());
                let carried = Carried::down(&msg);
                c.down
                    .push_carrying(now, to, &self.buf, wire::down_mark(&msg), carried);
            }
        }
        for shot in &shots {
            self.note_verdict(shot);
        }
    }
}
