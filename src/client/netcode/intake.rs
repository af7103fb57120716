//! Taking in what the server sends: snapshots (decoded against their baselines,
//! counted for loss, timed for the clock and RTT, checked against the prediction), the
//! reliable game events they carry, and the roster.
//!
//! A part of [`ClientSession`]'s impl (the module `session::intake`, kept in its own
//! file): it changes the session's private fields, which nothing outside these two
//! files can.

use std::time::Instant;

use super::{ClientSession, SessionEnd, find, name_in, name_ref, others_of};
use crate::client::netcode::causes::{Cause, explain};
use crate::client::netcode::clock::interp_delay_target;
use crate::client::netcode::outage;
use crate::client::netcode::prediction::{Prediction, Reconcile, Stepping};
use crate::net::protocol::{GameEvent, ServerMsg, Snapshot, SnapshotDelta};
use crate::net::widen::Known;
use crate::net::{codec, delta};
use crate::sim::map::Map;
use crate::sim::step::Phase;
use crate::sim::world::PlayerState;

/// Commands the server may hold for us before we slow down (input packets carry two
/// commands and jitter brings bursts, so a few are normal), and the level we then
/// drain to before going back to full speed.
const QUEUE_HIGH: u8 = 3;
const QUEUE_LOW: u8 = 1;
/// The same beyond a jitter buffer's depth, which already allows for the pairs and the
/// jitter: more than two over it is a backlog, drained down to the depth.
const BUFFER_HIGH: u8 = 2;
const BUFFER_LOW: u8 = 0;
/// The largest ack a prediction starts from. No server applies 2^31 commands of one
/// client (a year at 60 Hz); an ack beyond would leave our seqs no room to count up.
const MAX_START_ACK: u32 = u32::MAX / 2;

impl ClientSession {
    /// Applies one message from the server, which arrived as `wire_bytes` bytes.
    pub fn on_message(
        &mut self,
        now: Instant,
        msg: ServerMsg,
        wire_bytes: usize,
    ) -> Option<SessionEnd> {
        self.last_heard = now;
        match msg {
            ServerMsg::Snapshot(mut delta) => {
                delta.widen(&self.known());
                return self.on_delta(now, &delta, wire_bytes);
            }
            ServerMsg::Roster(page) => {
                if let Some(roster) = self.remotes.roster_pages.add(page) {
                    self.remotes.roster = roster;
                }
            }
            ServerMsg::Bye(reason) => return Some(SessionEnd::ServerSaidBye(reason)),
            // A repeated welcome (our connect was retried) or a late reject: nothing new.
            ServerMsg::Welcome(_)
            | ServerMsg::Reject(_)
            | ServerMsg::Challenge(_)
            | ServerMsg::Info(_)
            | ServerMsg::MapChunk(_)
            // The link's business (see `Link::server_forgot_us`), and a goodbye's answer.
            | ServerMsg::NotConnected { .. }
            | ServerMsg::Accept(_)
            | ServerMsg::Left => {}
        }
        None
    }

    /// What the snapshot's wrapped counters are widened against: the newest tick, the
    /// newest command (or acknowledgement) and the next event expected.
    pub(crate) fn known(&self) -> Known {
        let ack = match (&self.own.prediction, &self.remotes.latest) {
            (Some(p), _) => Some(p.latest_seq()),
            (None, Some(s)) => Some(s.header.ack_seq),
            (None, None) => None,
        };
        Known {
            tick: self.latest_tick().unwrap_or(self.timing.welcome_tick),
            ack,
            next_event: self.feed.next_event,
        }
    }

    /// Takes in the events a snapshot carries. Repeats (events are resent until
    /// acknowledged) are skipped, and anything after a gap waits for the resend, so
    /// order is always kept. A new map is installed before the next event is read; one
    /// this client cannot parse ends the session.
    fn on_events(&mut self, now: Instant, delta: &SnapshotDelta) -> Option<SessionEnd> {
        for (seq, event) in &delta.events {
            if *seq != self.feed.next_event {
                continue;
            }
            self.feed.next_event += 1;
            if let &GameEvent::TickRate {
                tick_rate,
                snapshot_interval,
                from_tick,
                from_seq,
            } = event
            {
                self.change_tick_rate(now, tick_rate, snapshot_interval, from_tick, from_seq);
            }
            if let GameEvent::MapChunk(chunk) = event
                && let Err(e) = self.map_chunks.add(now, chunk)
            {
                tracing::warn!("the server sent an unusable map chunk: {e}");
            }
            let rules = &self.rules.combat;
            let verdict = self
                .feed
                .combat
                .on_event(now, event, &self.map, rules, self.player_id);
            self.net.fire_mispredicted(verdict.mispredicted);
            if let Some(change) = self.feed.match_log.on_event(now, event, &self.map) {
                let text = self.map_chunks.take(&change.map).unwrap_or_default();
                match Map::parse("server map", &text) {
                    Ok(map) => self.map = map.with_name(&crate::net::safe_text::safe(&change.name)),
                    Err(e) => return Some(SessionEnd::UnusableMap(e.to_string())),
                }
            }
        }
        // A new match respawns everyone: the server counts it as a placement, which
        // the next snapshot's reconciliation takes as its decision, keeping the seqs.
        None
    }

    fn on_delta(
        &mut self,
        now: Instant,
        delta: &SnapshotDelta,
        wire_bytes: usize,
    ) -> Option<SessionEnd> {
        // Events ride in every snapshot until acknowledged, whatever its baseline.
        if let Some(end) = self.on_events(now, delta) {
            return Some(end);
        }
        let baseline = delta::baseline_tick(delta).and_then(|t| self.remotes.buffer.get(t));
        let snap = match delta::decode(delta, baseline) {
            Ok(snap) => snap,
            Err(e) => {
                // Without its baseline (evicted, or the server is confused) a delta
                // means nothing; the next one will be against a newer ack.
                tracing::debug!("dropped snapshot {}: {e}", delta.header.tick);
                self.net.undecodable();
                return None;
            }
        };
        if self.is_duplicate(snap.header.tick) {
            return None;
        }
        if self.remotes.unseen {
            self.on_snapshot(now, snap);
            return None;
        }
        // What the same snapshot, with the same events, would have cost with every player
        // in full, for the compression figures.
        let mut full = delta::encode(&snap, None);
        full.events.clone_from(&delta.events);
        let full = codec::encoded_len_server(&ServerMsg::Snapshot(full));
        self.on_snapshot(now, snap);
        self.net.snapshot_size(wire_bytes, full);
        None
    }

    /// Whether a snapshot for `tick` was already taken in (the network duplicated it).
    fn is_duplicate(&self, tick: u32) -> bool {
        self.remotes.buffer.get(tick).is_some()
            || self
                .remotes
                .latest
                .as_ref()
                .is_some_and(|s| s.header.tick == tick)
    }

    fn on_snapshot(&mut self, now: Instant, snap: Snapshot) {
        let newest = self.remotes.latest.as_ref().map(|s| s.header.tick);
        if newest.is_some_and(|t| snap.header.tick < t) {
            // Late: it was counted lost when a newer one arrived; it still fills a gap
            // in the interpolation buffer.
            // The snapshots it says the server held back before it were counted lost
            // with it (the newer one's count starts after it): they were not lost.
            self.net.late_snapshot();
            self.net.lagometer.late(now);
            // Its echo is a round trip like any other: leaving out the overtaken ones
            // kept the quick ones, and the RTT read low under reordering.
            self.echo(now, &snap);
            self.remotes.buffer.push(snap.header.tick, snap.players);
            return;
        }
        // Where each remote player was drawn just before this snapshot: what it is
        // corrected from.
        let mut before = Vec::new();
        if !self.remotes.unseen {
            let at = self.sampling(now);
            before.reserve(snap.players.len());
            before.extend(
                snap.players
                    .iter()
                    .filter(|p| p.id != self.player_id)
                    .filter_map(|p| Some((p.id, self.remote_drawn_at(p.id, &at)?))),
            );
        }
        // Snapshots the server held back for our link's sake were never sent: no loss.
        // Each snapshot carries the running total, so the count between the newest two
        // is right even when the snapshots between that said so were lost.
        // (No more than the slots between them: a total that went back is no count.)
        // Across a tick-rate change the ticks between snapshots were counted at two
        // intervals: the one snapshot that crosses it counts no loss.
        // The first snapshot's total counts what came before this session: none of it.
        let (mut withheld, mut dropped) = (0, 0);
        if let (Some(prev), Some(before)) = (newest, self.remotes.latest.as_ref()) {
            let between =
                ((snap.header.tick - prev) / self.timing.snapshot_interval).saturating_sub(1);
            withheld = snap
                .header
                .withheld_total
                .saturating_sub(before.header.withheld_total)
                .min(between);
            if !self.timing.timeline.changed_within(prev, snap.header.tick) {
                dropped = between - withheld;
            }
        }
        self.net.new_snapshot(dropped);
        self.net.withheld(withheld);
        if let Some(inputs) = snap.header.inputs {
            self.net.inputs_seen(inputs.received, inputs.high);
            let server_ms = self.timing.timeline.secs(f64::from(snap.header.tick)) * 1000.0;
            self.own
                .pacer
                .counts(server_ms, inputs.received, inputs.high);
        }
        self.observe_timing(now, &snap, dropped, withheld);
        if let Some(prev) = self
            .remotes
            .latest
            .as_ref()
            .filter(|_| !self.remotes.unseen)
        {
            let roster = &self.remotes.roster;
            self.net
                .remote_motion(&prev.players, &snap.players, self.player_id, |id| {
                    name_ref(roster, id)
                });
        }
        // A jitter buffer on the server holds `buffer_depth` of ours by design: only
        // what is beyond is a backlog. One below half its depth is running dry.
        let (queued, depth) = (snap.header.queued, snap.header.buffer_depth);
        let backlog = queued.saturating_sub(depth);
        let (high, low) = if depth == 0 {
            (QUEUE_HIGH, QUEUE_LOW)
        } else {
            (BUFFER_HIGH, BUFFER_LOW)
        };
        if backlog > high {
            self.own.draining = true;
        } else if backlog <= low {
            self.own.draining = false;
        }
        if depth >= 2 && u16::from(queued) * 2 < u16::from(depth) {
            self.own.hurrying = true;
        } else if queued >= depth {
            self.own.hurrying = false;
        }
        self.timing.last_snapshot = now;
        let above = outage::resync_above(self.tick_rate());
        self.own
            .resync
            .on_snapshot(backlog, above, snap.header.ack_seq, self.latest_seq());
        self.reconcile(now, &snap);
        self.remotes
            .buffer
            .push(snap.header.tick, snap.players.clone());
        self.remotes.latest = Some(snap);
        if !self.remotes.unseen {
            self.correct_remotes(now, &before);
        }
    }

    /// The server clock, the interpolation delay, the RTT and the lagometer, from one
    /// new snapshot.
    fn observe_timing(&mut self, now: Instant, snap: &Snapshot, dropped: u32, withheld: u32) {
        let local = self.local_secs(now);
        let server = self.timing.timeline.secs(f64::from(snap.header.tick));
        self.timing.clock.observe(local, server);
        self.remotes.recent_loss.observe(dropped);
        self.remotes.recent_withheld.observe(withheld);
        // Snapshots held back for a thin link's rate come further apart than the
        // welcome's period: the delay follows the period they really come at.
        let period =
            self.timing.snapshot_period / (1.0 - self.remotes.recent_withheld.rate()).max(0.1);
        let target = match self.own.tuning.interp_ratio {
            Some(ratio) => ratio * self.timing.snapshot_period,
            None => interp_delay_target(
                period,
                self.timing.clock.jitter_secs(),
                self.remotes.recent_loss.rate(),
            ),
        };
        self.remotes.interp_delay += (target - self.remotes.interp_delay) * 0.1;
        self.net.interp_delay(self.remotes.interp_delay);
        self.echo(now, snap);
        // A snapshot's one-way delay cannot be measured without shared clocks; half the
        // RTT plus how late it is against the smoothed clock is the honest estimate.
        let rtt_ms = self.net.stats.rtt_ms;
        let lateness = self.timing.clock.lateness_secs(local, server);
        let delay_ms = (rtt_ms / 2.0 + lateness * 1000.0).max(0.0);
        self.net
            .lagometer
            .snapshot(now, delay_ms, dropped, withheld, rtt_ms);
    }

    /// A round trip from the snapshot's echo of our clock, if it carries one.
    fn echo(&mut self, now: Instant, snap: &Snapshot) {
        if snap.header.echo_time_ms != 0 {
            // The echo carries the low 16 bits of our clock: any RTT under 65 s reads
            // true in wrapping arithmetic.
            let rtt = (self.local_ms(now) as u16)
                .wrapping_sub(snap.header.echo_time_ms as u16)
                .wrapping_sub(snap.header.echo_hold_ms);
            // A wrapped (negative) result means a bogus echo.
            if rtt < 60_000 {
                self.net.rtt(f64::from(rtt));
                // The server got the echoed packet at the snapshot's tick less its hold:
                // by its clock against ours, the uplink's one-way delay and a constant.
                let server_ms = self.timing.timeline.secs(f64::from(snap.header.tick)) * 1000.0;
                let age = (self.local_ms(now) as u16).wrapping_sub(snap.header.echo_time_ms as u16);
                let went_ms = self.local_secs(now) * 1000.0 - f64::from(age);
                let one_way = server_ms - f64::from(snap.header.echo_hold_ms) - went_ms;
                self.own
                    .pacer
                    .one_way(one_way, f64::from(age) / 1000.0, f64::from(rtt));
            }
        }
    }

    /// Checks the prediction against the server's word on the local player, and judges
    /// the shots predicted for the commands it has now applied.
    fn reconcile(&mut self, now: Instant, snap: &Snapshot) {
        let me = find(&snap.players, self.player_id);
        let placed_before = self.placed.replace(snap.header.me.placed());
        // Placed anew by the server (a respawn, a teleport): what we predicted meanwhile
        // was moot.
        let placed = placed_before.is_some_and(|b| b != snap.header.me.placed());
        // Shots predicted for commands the server applied while we were dead, frozen or
        // being placed were the server's call, not mispredictions.
        let playing = me.is_some()
            && !placed
            && snap.header.me.body(PlayerState::default(), 0).phase == Phase::Playing;
        let verdict = self.feed.combat.judge(
            snap.header.ack_seq,
            snap.header.me.events_complete(),
            playing,
        );
        // With prediction off no predicted shot was shown: nothing was mispredicted.
        if self.switches.prediction {
            self.net.fire_mispredicted(verdict.mispredicted);
        }
        let Some(me) = me else {
            if let Some(p) = &mut self.own.prediction {
                p.acknowledge(snap.header.ack_seq);
            }
            return;
        };
        let server = snap.header.me.body(me, snap.header.ack_seq);
        let others = others_of(&snap.players, self.player_id);
        let Some(p) = &mut self.own.prediction else {
            if snap.header.ack_seq <= MAX_START_ACK {
                self.own.prediction = Some(Prediction::new(server, snap.header.ack_seq));
            }
            return;
        };
        let s = self.switches;
        let how = match Reconcile::for_switches(s, placed) {
            Reconcile::Smooth | Reconcile::Snap if self.own.correction_loop && !placed => {
                Reconcile::Loop
            }
            how => how,
        };
        let at = Stepping {
            map: &self.map,
            rules: &self.rules,
            me: self.player_id,
            others: &others,
            earlier: self.timing.earlier_rules.as_ref().map(|(s, r)| (*s, r)),
        };
        let mut disagreement = p.disagreement(snap.header.ack_seq);
        // Reconciliation off: the prediction was never put where the server had us
        // after the previous acknowledged command; the previous snapshot says where.
        if how == Reconcile::MeasureOnly
            && let (Some(d), Some(prev)) = (&mut disagreement, &self.remotes.latest)
            && prev.header.ack_seq + 1 == d.first_seq
        {
            d.server_agreed = find(&prev.players, self.player_id);
        }
        let correction = p.reconcile(&at, snap.header.ack_seq, server, how);
        let path = p.take_path();
        if !s.prediction {
            return;
        }
        match correction {
            Some(c) if placed || c.decreed => {
                let why = if c.decreed && !placed {
                    "match over"
                } else {
                    "teleport or respawn"
                };
                let at = self.local_secs(now);
                self.net
                    .server_decision(at, c.cells, &Cause::ServerDecision(why));
                self.net.correction_path(at, path);
            }
            Some(c) => {
                let cause = disagreement.map_or(Cause::Unknown, |d| {
                    let roster = &self.remotes.roster;
                    let name = |id| name_in(roster, id);
                    let over = self.feed.match_log.results.is_some();
                    explain(
                        &d,
                        c.cells,
                        over,
                        &self.map,
                        &self.rules.movement,
                        me,
                        &snap.players,
                        self.player_id,
                        name,
                    )
                });
                let at = self.local_secs(now);
                self.net.correction(at, c.cells, &cause);
                self.net.correction_path(at, path);
                self.own.last_correction = Some((now, c));
            }
            None => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::Switches;
    use crate::net::protocol::{PlayerSnap, SnapshotHeader};
    use crate::sim::world::{Buttons, Command};

    fn session_after(ack_seq: u32) -> ClientSession {
        let map = Map::builtin("duel").unwrap();
        let now = Instant::now();
        let mut session = ClientSession::on_duel(0, now);
        let (x, y) = map.spawns()[0];
        let snap = Snapshot {
            header: SnapshotHeader {
                tick: 1,
                ack_seq,
                ..Default::default()
            },
            players: vec![PlayerSnap {
                id: 0,
                state: PlayerState::at_cell(x, y),
            }],
        };
        let msg = ServerMsg::Snapshot(delta::encode(&snap, None));
        assert_eq!(session.on_message(now, msg, 100), None);
        for _ in 0..3 {
            let _ = session.command_tick(now, Command::default());
        }
        session
    }

    /// A late snapshot: it was counted lost when a newer one came, and was not lost.
    /// The one the server held back before it was never counted lost: the newer one's
    /// running total of held-back snapshots says so.
    #[test]
    fn a_late_snapshot_is_given_back_and_the_held_back_one_never_lost() {
        let map = Map::builtin("duel").unwrap();
        let t0 = Instant::now();
        let mut session = ClientSession::on_duel(0, t0);
        let (x, y) = map.spawns()[0];
        // Every 3 ticks: 3 arrives, 6 is held back, 12 overtakes 9.
        for (ms, tick, withheld_total) in [(0, 3, 0), (60, 12, 1), (70, 9, 1)] {
            let snap = Snapshot {
                header: SnapshotHeader {
                    tick,
                    withheld_total,
                    ..Default::default()
                },
                players: vec![PlayerSnap {
                    id: 0,
                    state: PlayerState::at_cell(x, y),
                }],
            };
            let msg = ServerMsg::Snapshot(delta::encode(&snap, None));
            let now = t0 + std::time::Duration::from_millis(ms);
            assert_eq!(session.on_message(now, msg, 100), None);
        }
        let stats = session.stats();
        assert_eq!((stats.snapshots_lost, stats.snapshots_withheld), (0, 1));
        let slices: Vec<_> = session.lagometer().recent(100).copied().collect();
        let sum = |f: fn(&crate::client::netcode::lagometer::Slice) -> u16| -> u16 {
            slices.iter().map(f).sum()
        };
        assert_eq!(sum(|s| s.dropped), 1, "9, when 12 came");
        assert_eq!((sum(|s| s.late), sum(|s| s.unlost)), (1, 1));
    }

    /// The running total of held-back snapshots counts from the session's first
    /// snapshot (a server's first total of four billion was four billion held back),
    /// and a total that went back is no count (it made every gap held back, none lost).
    #[test]
    fn a_held_back_total_counts_from_the_first_snapshot_and_never_backwards() {
        let map = Map::builtin("duel").unwrap();
        let t0 = Instant::now();
        let mut session = ClientSession::on_duel(0, t0);
        let (x, y) = map.spawns()[0];
        // Every 3 ticks: 3 arrives saying 4e9; 6 and 9 are lost; 12 says 5 (went back).
        for (ms, tick, withheld_total) in [(0, 3, 4_000_000_000), (60, 12, 5)] {
            let snap = Snapshot {
                header: SnapshotHeader {
                    tick,
                    withheld_total,
                    ..Default::default()
                },
                players: vec![PlayerSnap {
                    id: 0,
                    state: PlayerState::at_cell(x, y),
                }],
            };
            let msg = ServerMsg::Snapshot(delta::encode(&snap, None));
            let now = t0 + std::time::Duration::from_millis(ms);
            assert_eq!(session.on_message(now, msg, 100), None);
        }
        let stats = session.stats();
        assert_eq!((stats.snapshots_lost, stats.snapshots_withheld), (2, 0));
    }

    /// Found by the `client_session` fuzz target: a hostile server's first snapshot
    /// acking seq `u32::MAX` made the next command's seq overflow (a panic in debug
    /// builds). Such an ack is not believed; an honest one starts the prediction.
    #[test]
    fn an_absurd_first_ack_starts_no_prediction() {
        assert_eq!(session_after(u32::MAX).predicted(), None);
        assert_eq!(session_after(MAX_START_ACK + 1).predicted(), None);
        assert_eq!(session_after(MAX_START_ACK).latest_seq(), MAX_START_ACK + 3);
        assert_eq!(session_after(0).latest_seq(), 3);
    }

    /// The tick, the ack and the event seqs come as their low 16 bits: a session
    /// whose counters cross 65,536 widens them right, through the bytes.
    #[test]
    fn counters_widen_across_a_16_bit_wrap() {
        let map = Map::builtin("duel").unwrap();
        let now = Instant::now();
        let mut session = ClientSession::on_duel(0, now);
        session.timing.welcome_tick = 65_500;
        session.feed.next_event = 65_535;
        let (x, y) = map.spawns()[0];
        let mut buf = Vec::new();
        for (i, tick) in (65_532..65_545).step_by(3).enumerate() {
            let snap = Snapshot {
                header: SnapshotHeader {
                    tick,
                    ack_seq: 65_530 + 2 * i as u32,
                    ..Default::default()
                },
                players: vec![PlayerSnap {
                    id: 0,
                    state: PlayerState::at_cell(x, y),
                }],
            };
            let mut delta = delta::encode(&snap, None);
            let seq = 65_534 + i as u32;
            let chat = GameEvent::Chat {
                from: 0,
                text: format!("{seq}"),
            };
            // Each snapshot repeats the one before's event, as unacknowledged ones are.
            delta.events = vec![(seq - 1, chat.clone()), (seq, chat)];
            codec::encode_server(&ServerMsg::Snapshot(delta), &mut buf).unwrap();
            let msg = codec::decode_server(&buf).unwrap();
            assert_eq!(session.on_message(now, msg, buf.len()), None);
            for _ in 0..2 {
                let _ = session.command_tick(now, Command::default());
            }
            assert_eq!(session.latest_tick(), Some(tick));
            assert_eq!(session.server_ack_seq(), snap.header.ack_seq);
            assert_eq!(session.feed.next_event, seq + 1);
        }
        assert_eq!(session.stats().snapshots_lost, 0);
        assert_eq!(session.latest_seq(), 65_530 + 10);
    }

    /// With prediction off the player is drawn where the server says: the prediction
    /// that still runs underneath (to be ready when it is switched back on) follows the
    /// server silently, and its disagreements are no corrections anybody saw.
    #[test]
    fn with_prediction_off_nothing_counts_as_a_correction() {
        let corrections = |prediction: bool| {
            let now = Instant::now();
            let mut session = session_after(0);
            session.set_switches(Switches {
                prediction,
                ..Switches::default()
            });
            for _ in 0..10 {
                let _ = session.command_tick(now, Command::moving(Buttons::RIGHT));
            }
            // The server acknowledges every command but has not moved us: a disagreement.
            let map = Map::builtin("duel").unwrap();
            let (x, y) = map.spawns()[0];
            let snap = Snapshot {
                header: SnapshotHeader {
                    tick: 4,
                    ack_seq: session.latest_seq(),
                    ..Default::default()
                },
                players: vec![PlayerSnap {
                    id: 0,
                    state: PlayerState::at_cell(x, y),
                }],
            };
            let msg = ServerMsg::Snapshot(delta::encode(&snap, None));
            assert_eq!(session.on_message(now, msg, 100), None);
            session.stats().corrections
        };
        assert_eq!(
            corrections(true),
            1,
            "the setup disagrees with the prediction"
        );
        assert_eq!(corrections(false), 0);
    }

    /// Issue 23: the server changed its tick rate (60 -> 30 Hz) after applying our
    /// command 4; commands 5 and 6 it applied by the 30 Hz rules (twice the step). The
    /// event says so: the commands not yet acknowledged are stepped again, each by the
    /// rules the server applies it by, and where that moves us is one correction named
    /// for the change. The snapshot acknowledging command 6 then agrees: no second
    /// correction (stepping commands 1-4 by the new rules too made one, unexplained).
    #[test]
    fn a_tick_rate_change_is_one_named_correction_and_the_replay_agrees_after() {
        use crate::sim::step::Rulebook;
        use crate::sim::world::move_player;
        let map = Map::builtin("duel").unwrap();
        let now = Instant::now();
        let mut session = session_after(0);
        let walk = Command::moving(Buttons::RIGHT);
        for _ in 4..=10 {
            let _ = session.command_tick(now, walk);
        }
        assert_eq!(session.latest_seq(), 10);
        let (x, y) = map.spawns()[0];
        let mut server = PlayerState::at_cell(x, y);
        // Commands 4, 5 and 6 (1-3 stood still).
        for rate in [60, 30, 30] {
            let rules = Rulebook::for_tick_rate(rate).movement;
            server = move_player(&map, &rules, server, walk, &[]);
        }
        let mut delta = delta::encode(
            &Snapshot {
                header: SnapshotHeader {
                    tick: 12,
                    ack_seq: 6,
                    ..Default::default()
                },
                players: vec![PlayerSnap {
                    id: 0,
                    state: server,
                }],
            },
            None,
        );
        let change = GameEvent::TickRate {
            tick_rate: 30,
            snapshot_interval: 1,
            from_tick: 10,
            from_seq: 5,
        };
        delta.events = vec![(1, change)];
        assert_eq!(
            session.on_message(now, ServerMsg::Snapshot(delta), 100),
            None
        );
        let stats = session.stats();
        assert_eq!(stats.corrections, 1, "{:?}", stats.corrections_by_cause);
        assert_eq!(stats.corrections_by_cause.get("tick_rate"), Some(&1));
        assert!(
            stats
                .last_correction_cause
                .starts_with("the server changed its tick rate (60 -> 30 Hz)"),
            "{}",
            stats.last_correction_cause
        );
        assert_eq!(session.tick_rate(), 30.0);
        assert!((session.snapshot_period() - 1.0 / 30.0).abs() < 1e-12);
        // Ticks 1 to 12 at two intervals: no loss counted by either.
        assert_eq!(session.stats().snapshots_lost, 0);
        // The timeline: tick 10 was 1/6 s in at 60 Hz; tick 12 is 2/30 s later.
        let secs = session.tick_secs(12.0);
        assert!((secs - (10.0 / 60.0 + 2.0 / 30.0)).abs() < 1e-12, "{secs}");
    }

    /// The clock a snapshot's queue figures set: (command period scale) after each of
    /// `(queued, buffer_depth)` in turn.
    fn clock_after(figures: &[(u8, u8)]) -> Vec<f64> {
        let now = Instant::now();
        let mut session = ClientSession::on_duel(0, now);
        figures
            .iter()
            .enumerate()
            .map(|(i, &(queued, buffer_depth))| {
                let snap = Snapshot {
                    header: SnapshotHeader {
                        tick: 3 * (i as u32 + 1),
                        queued,
                        buffer_depth,
                        ..Default::default()
                    },
                    ..Default::default()
                };
                let msg = ServerMsg::Snapshot(delta::encode(&snap, None));
                session.on_message(now, msg, 100);
                session.command_period_scale()
            })
            .collect()
    }

    /// A jitter buffer holds its depth of our commands by design: only what is beyond
    /// is a backlog to drain (the credit queue's depth is 0, as before). Below half its
    /// depth it is running dry, and the clock runs fast until it is full again.
    #[test]
    fn the_clock_drains_only_beyond_the_buffers_depth_and_refills_it() {
        assert_eq!(clock_after(&[(5, 0), (2, 0), (1, 0)]), [1.05, 1.05, 1.0]);
        assert_eq!(
            clock_after(&[(5, 4), (6, 4), (7, 4), (5, 4), (4, 4)]),
            [1.0, 1.0, 1.05, 1.05, 1.0]
        );
        assert_eq!(
            clock_after(&[(1, 4), (3, 4), (4, 4), (0, 1)]),
            [0.95, 0.95, 1.0, 1.0]
        );
    }
}
