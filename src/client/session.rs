//! One client's view of a match: prediction of the local player, interpolation of the
//! others, the server clock, and the numbers that show how well each is doing.
//!
//! A state machine fed with decoded server messages, command ticks and frames, each with
//! the time it happened; it owns no socket and reads no clock, so tests can step it
//! against a [`crate::server::Server`] with any latency they like.

use std::time::{Duration, Instant};

use super::Switches;
use super::clock::{ServerClock, interp_delay_target};
use super::combat::Combat;
use super::interpolation::{FrameMode, SnapshotBuffer};
use super::match_log::MatchLog;
use super::net_stats::{NetStats, RemoteSeen, SessionStats};
use super::prediction::{Correction, Prediction};
use crate::net::protocol::{
    ClientMsg, InputPacket, MAX_COMMANDS_PER_INPUT, PlayerSnap, RosterEntry, ServerMsg, Snapshot,
    SnapshotDelta, Welcome,
};
use crate::net::{codec, delta};
use crate::sim::combat::{CombatRules, Weapon};
use crate::sim::map::{Map, MapError};
use crate::sim::world::{Buttons, Command, PlayerId, PlayerState, Rules};

/// How far past the newest snapshot a remote player may be extrapolated before it is
/// held still: long enough to hide one late packet, short enough not to run through walls.
const MAX_EXTRAPOLATE_SECS: f64 = 0.1;
/// With dead reckoning (the `extrapolation` switch) remote players are projected to the
/// present from the newest snapshot, up to this far.
const MAX_DEAD_RECKONING_SECS: f64 = 0.25;

/// Input packets per second while the buttons stay the same: every other command tick
/// at 60 Hz, which halves the 28-byte UDP/IP headers going up and costs at most one tick
/// of extra delay for commands that carry no news.
pub const DEFAULT_INPUT_RATE: u16 = 30;

fn input_interval(tick_rate: u16, input_rate: u16) -> u32 {
    u32::from((tick_rate / input_rate.max(1)).max(1))
}

/// Commands the server may hold for us before we slow down (input packets carry two
/// commands and jitter brings bursts, so a few are normal), and the level we then
/// drain to before going back to full speed.
const QUEUE_HIGH: u8 = 3;
const QUEUE_LOW: u8 = 1;

/// Why a session ended from the server's side.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SessionEnd {
    ServerSaidBye(String),
}

pub struct ClientSession {
    pub(super) player_id: PlayerId,
    map: Map,
    rules: Rules,
    pub(super) tick_rate: f64,
    snapshot_period: f64,
    pub(super) server_name: String,
    start: Instant,
    pub(super) prediction: Option<Prediction>,
    pub(super) buffer: SnapshotBuffer,
    pub(super) clock: ServerClock,
    /// The newest snapshot received (by tick).
    pub(super) latest: Option<Snapshot>,
    pub(super) roster: Vec<RosterEntry>,
    pub(super) interp_delay: f64,
    last_frame: Option<Instant>,
    last_heard: Instant,
    pub(super) last_correction: Option<(Instant, Correction)>,
    /// Slowing the command clock to drain a backlog on the server (see
    /// [`ClientSession::command_period_scale`]).
    draining: bool,
    /// The next reliable game event expected; events arrive resent, in seq order.
    next_event: u32,
    pub combat: Combat,
    pub match_log: MatchLog,
    combat_rules: CombatRules,
    /// When our weapon is ready again by our own count, and the last tell shown.
    local_next_fire: Option<Instant>,
    pub(super) muzzle: Option<(Instant, u8)>,
    pacer: InputPacer,
    switches: Switches,
    pub(super) net: NetStats,
}

/// When to send an input packet: at the input rate, or at once when the command changes.
#[derive(Debug)]
struct InputPacer {
    /// Command ticks per input packet, when the buttons do not change.
    interval: u32,
    unsent_ticks: u32,
    packets_sent: u32,
    last_command: Option<Command>,
}

impl InputPacer {
    /// Whether the packet for this command is due; numbers it if so.
    fn due(&mut self, cmd: Command) -> Option<u32> {
        self.unsent_ticks += 1;
        let changed = self.last_command != Some(cmd);
        self.last_command = Some(cmd);
        if !changed && self.unsent_ticks < self.interval {
            return None;
        }
        self.unsent_ticks = 0;
        self.packets_sent += 1;
        Some(self.packets_sent)
    }
}

impl ClientSession {
    pub fn new(welcome: Welcome, now: Instant, switches: Switches) -> Result<Self, MapError> {
        let map = Map::parse("server map", &welcome.map_text)?.with_name(&welcome.map_name);
        let tick_rate = f64::from(welcome.tick_rate.max(1));
        let snapshot_period =
            1.0 / f64::from(welcome.snapshot_rate.clamp(1, welcome.tick_rate.max(1)));
        Ok(ClientSession {
            player_id: welcome.player_id,
            map,
            rules: Rules::for_tick_rate(welcome.tick_rate),
            tick_rate,
            snapshot_period,
            server_name: welcome.server_name,
            start: now,
            prediction: None,
            buffer: SnapshotBuffer::default(),
            clock: ServerClock::default(),
            latest: None,
            roster: Vec::new(),
            interp_delay: interp_delay_target(snapshot_period, 0.0),
            last_frame: None,
            last_heard: now,
            last_correction: None,
            draining: false,
            next_event: 1,
            combat: Combat::default(),
            match_log: MatchLog::default(),
            combat_rules: CombatRules::for_tick_rate(welcome.tick_rate),
            local_next_fire: None,
            muzzle: None,
            pacer: InputPacer {
                interval: input_interval(welcome.tick_rate, DEFAULT_INPUT_RATE),
                unsent_ticks: 0,
                packets_sent: 0,
                last_command: None,
            },
            switches: switches.normalized(),
            net: NetStats::default(),
        })
    }

    pub fn map(&self) -> &Map {
        &self.map
    }

    /// How much longer than a tick to wait before the next command. The server applies
    /// at most one command per tick; commands that piled up there (after a lag spike,
    /// say) would otherwise stay as input delay for good. While its queue for us is
    /// long we make commands 5% slower, which drains it at ~3 commands a second.
    pub fn command_period_scale(&self) -> f64 {
        if self.draining { 1.05 } else { 1.0 }
    }

    /// Sets how many input packets a second to send while the buttons stay the same.
    pub fn set_input_rate(&mut self, rate: u16) {
        self.pacer.interval = input_interval(self.tick_rate as u16, rate);
    }

    /// Newest command seq made.
    pub fn latest_seq(&self) -> u32 {
        self.prediction.as_ref().map_or(0, |p| p.latest_seq())
    }

    pub fn tick_rate(&self) -> f64 {
        self.tick_rate
    }

    pub fn player_id(&self) -> PlayerId {
        self.player_id
    }

    pub fn last_heard(&self) -> Instant {
        self.last_heard
    }

    pub fn stats(&self) -> &SessionStats {
        &self.net.stats
    }

    pub fn remotes_seen(&self) -> &[RemoteSeen] {
        &self.net.remotes
    }

    pub fn jitter_secs(&self) -> f64 {
        self.clock.jitter_secs()
    }

    pub fn switches(&self) -> Switches {
        self.switches
    }

    /// Highest seq the server has acknowledged.
    pub fn acked_seq(&self) -> u32 {
        self.prediction.as_ref().map_or(0, |p| p.acked_seq())
    }

    pub fn pending_commands(&self) -> u32 {
        self.prediction.as_ref().map_or(0, |p| p.pending())
    }

    /// The predicted state of the local player (None until the first snapshot).
    pub fn predicted(&self) -> Option<PlayerState> {
        self.prediction.as_ref().map(|p| p.state())
    }

    /// The newest authoritative state of the local player.
    pub fn server_state(&self) -> Option<PlayerState> {
        self.latest
            .as_ref()
            .and_then(|s| find(&s.players, self.player_id))
    }

    /// The command seq the newest snapshot says the server applied last.
    pub fn server_ack_seq(&self) -> u32 {
        self.latest.as_ref().map_or(0, |s| s.ack_seq)
    }

    pub fn latest_tick(&self) -> Option<u32> {
        self.latest.as_ref().map(|s| s.tick)
    }

    fn local_secs(&self, now: Instant) -> f64 {
        now.saturating_duration_since(self.start).as_secs_f64()
    }

    fn local_ms(&self, now: Instant) -> u32 {
        // Wraps after 49 days; RTT arithmetic below wraps with it.
        now.saturating_duration_since(self.start).as_millis() as u32
    }

    /// Applies one message from the server, which arrived as `wire_bytes` bytes.
    pub fn on_message(
        &mut self,
        now: Instant,
        msg: ServerMsg,
        wire_bytes: usize,
    ) -> Option<SessionEnd> {
        self.last_heard = now;
        match msg {
            ServerMsg::Snapshot(delta) => self.on_delta(now, &delta, wire_bytes),
            ServerMsg::Roster(roster) => self.roster = roster,
            ServerMsg::Bye(reason) => return Some(SessionEnd::ServerSaidBye(reason)),
            // A repeated welcome (our connect was retried) or a late reject: nothing new.
            ServerMsg::Welcome(_)
            | ServerMsg::Reject(_)
            | ServerMsg::Challenge(_)
            | ServerMsg::Info(_) => {}
        }
        None
    }

    /// Takes in the events a snapshot carries. Repeats (events are resent until
    /// acknowledged) are skipped, and anything after a gap waits for the resend, so
    /// order is always kept. A new map is installed before the next event is read.
    fn on_events(&mut self, now: Instant, delta: &SnapshotDelta) {
        for (seq, event) in &delta.events {
            if *seq != self.next_event {
                continue;
            }
            self.next_event += 1;
            self.combat
                .on_event(now, event, &self.map, &self.combat_rules);
            if let Some(change) = self.match_log.on_event(now, event, &self.map) {
                match Map::parse("server map", &change.text) {
                    Ok(map) => self.map = map.with_name(&change.name),
                    Err(e) => tracing::warn!("the server sent an unusable map: {e}"),
                }
            }
        }
        // A new match respawns everyone by decree: start predicting afresh from the
        // next snapshot instead of counting the jump as a misprediction.
        if self.match_log.take_restart() {
            self.prediction = None;
        }
    }

    fn on_delta(&mut self, now: Instant, delta: &SnapshotDelta, wire_bytes: usize) {
        // Events ride in every snapshot until acknowledged, whatever its baseline.
        self.on_events(now, delta);
        let baseline = delta::baseline_tick(delta).and_then(|t| self.buffer.get(t));
        let snap = match delta::decode(delta, baseline) {
            Ok(snap) => snap,
            Err(e) => {
                // Without its baseline (evicted, or the server is confused) a delta
                // means nothing; the next one will be against a newer ack.
                tracing::debug!("dropped snapshot {}: {e}", delta.tick);
                self.net.undecodable();
                return;
            }
        };
        if self.is_duplicate(snap.tick) {
            return;
        }
        // What the same snapshot would have cost in full, for the compression figures.
        let full = codec::encoded_len_server(&ServerMsg::Snapshot(delta::encode(&snap, None)));
        self.on_snapshot(now, snap);
        self.net.snapshot_size(wire_bytes, full);
    }

    /// Whether a snapshot for `tick` was already taken in (the network duplicated it).
    fn is_duplicate(&self, tick: u32) -> bool {
        self.buffer.get(tick).is_some() || self.latest.as_ref().is_some_and(|s| s.tick == tick)
    }

    fn on_snapshot(&mut self, now: Instant, snap: Snapshot) {
        let newest = self.latest.as_ref().map(|s| s.tick);
        if newest.is_some_and(|t| snap.tick < t) {
            // Late: it was counted lost when a newer one arrived; it still fills a gap
            // in the interpolation buffer.
            self.net.late_snapshot();
            self.buffer.push(snap.tick, snap.players);
            return;
        }
        let dropped = newest.map_or(0, |prev| {
            let interval = (self.tick_rate * self.snapshot_period).round().max(1.0) as u32;
            ((snap.tick - prev) / interval).saturating_sub(1)
        });
        self.net.new_snapshot(dropped);
        if let Some(inputs) = snap.inputs {
            self.net.inputs_seen(inputs.received, inputs.high);
        }
        self.observe_timing(now, &snap, dropped);
        if let Some(prev) = &self.latest {
            let roster = &self.roster;
            self.net
                .remote_motion(&prev.players, &snap.players, self.player_id, |id| {
                    name_in(roster, id)
                });
        }
        if snap.queued > QUEUE_HIGH {
            self.draining = true;
        } else if snap.queued <= QUEUE_LOW {
            self.draining = false;
        }
        self.reconcile(now, &snap);
        self.buffer.push(snap.tick, snap.players.clone());
        self.latest = Some(snap);
    }

    /// The server clock, the interpolation delay, the RTT and the lagometer, from one
    /// new snapshot.
    fn observe_timing(&mut self, now: Instant, snap: &Snapshot, dropped: u32) {
        let local = self.local_secs(now);
        let server = f64::from(snap.tick) / self.tick_rate;
        self.clock.observe(local, server);
        let target = interp_delay_target(self.snapshot_period, self.clock.jitter_secs());
        self.interp_delay += (target - self.interp_delay) * 0.1;
        self.net.interp_delay(self.interp_delay);
        if snap.echo_time_ms != 0 {
            let rtt = self
                .local_ms(now)
                .wrapping_sub(snap.echo_time_ms)
                .wrapping_sub(u32::from(snap.echo_hold_ms));
            // A wrapped (negative) result means a bogus echo.
            if rtt < 60_000 {
                self.net.rtt(f64::from(rtt));
            }
        }
        // A snapshot's one-way delay cannot be measured without shared clocks; half the
        // RTT plus how late it is against the smoothed clock is the honest estimate.
        let rtt_ms = self.net.stats.rtt_ms;
        let lateness = self.clock.lateness_secs(local, server);
        let delay_ms = (rtt_ms / 2.0 + lateness * 1000.0).max(0.0);
        self.net.lagometer.snapshot(now, delay_ms, dropped, rtt_ms);
    }

    /// Checks the prediction against the server's word on the local player.
    fn reconcile(&mut self, now: Instant, snap: &Snapshot) {
        let Some(me) = find(&snap.players, self.player_id) else {
            if let Some(p) = &mut self.prediction {
                p.acknowledge(snap.ack_seq);
            }
            return;
        };
        let was_absent = self
            .latest
            .as_ref()
            .is_some_and(|l| find(&l.players, self.player_id).is_none());
        let others = others_of(&snap.players, self.player_id);
        let Some(p) = &mut self.prediction else {
            self.prediction = Some(Prediction::new(me, snap.ack_seq));
            return;
        };
        // Back from the dead at a spawn point: what we predicted meanwhile was moot.
        // Restart from the server's word; this is no misprediction.
        let (correct, smooth) = if was_absent {
            (true, false)
        } else {
            (self.switches.reconciliation, self.switches.smoothing)
        };
        let correction = p.reconcile(
            &self.map,
            &self.rules,
            snap.ack_seq,
            me,
            &others,
            correct,
            smooth,
        );
        if let Some(c) = correction.filter(|_| !was_absent) {
            self.net.correction(c.cells);
            self.last_correction = Some((now, c));
        }
    }

    pub(super) fn name_of(&self, id: PlayerId) -> String {
        name_in(&self.roster, id)
    }

    /// Makes one command from the buttons held and predicts it. Returns the input packet
    /// to send (every unacknowledged command) when one is due: at the input rate, or at
    /// once when the buttons change, so starting and stopping reach the server without
    /// waiting. None until the server has placed us.
    pub fn command_tick(&mut self, now: Instant, cmd: Command) -> Option<ClientMsg> {
        let others = self
            .latest
            .as_ref()
            .map(|s| others_of(&s.players, self.player_id))
            .unwrap_or_default();
        let ack_tick = self.latest_tick().unwrap_or(0);
        let client_ms = self.local_ms(now).max(1);
        let view_tick = self
            .render_tick(now)
            .map_or(0, |t| t.round().max(0.0) as u32);
        let event_ack = self.next_event - 1;
        let rtt_ms = self.net.stats.rtt_ms.round().clamp(0.0, 65535.0) as u16;
        self.tell(now, cmd);
        let p = self.prediction.as_mut()?;
        p.push(&self.map, &self.rules, cmd, &others);
        self.net.command_sent();
        let number = self.pacer.due(cmd)?;
        let mut input = InputPacket::pack(
            client_ms,
            number,
            ack_tick,
            p.unacked(MAX_COMMANDS_PER_INPUT),
        );
        input.event_ack = event_ack;
        input.view_tick = view_tick;
        input.rtt_ms = rtt_ms;
        Some(ClientMsg::Input(input))
    }

    /// The tell: show the shot leave the moment fire is pressed, if the weapon is ready
    /// by our own count, without waiting a round trip for the server.
    fn tell(&mut self, now: Instant, cmd: Command) {
        if cmd.buttons.contains(Buttons::FIRE)
            && self.prediction.is_some()
            && self.combat.status(self.player_id).is_none_or(|s| s.alive)
            && self.local_next_fire.is_none_or(|t| now >= t)
        {
            let ticks = self.combat_rules.cooldown(Weapon::from_index(cmd.weapon));
            self.local_next_fire =
                Some(now + Duration::from_secs_f64(f64::from(ticks) / self.tick_rate));
            self.muzzle = Some((now, cmd.aim));
        }
    }

    /// The command the local player's facing is drawn from: the newest one made.
    pub(super) fn last_command(&self) -> Option<Command> {
        self.pacer.last_command
    }

    /// The server tick remote players are drawn at now.
    pub fn render_tick(&self, now: Instant) -> Option<f64> {
        let server = self.clock.server_secs(self.local_secs(now))?;
        let delay = if self.switches.extrapolation {
            0.0
        } else {
            self.interp_delay
        };
        Some((server - delay) * self.tick_rate)
    }

    fn extrapolation_limit_ticks(&self) -> f64 {
        let secs = if self.switches.extrapolation {
            MAX_DEAD_RECKONING_SECS
        } else {
            MAX_EXTRAPOLATE_SECS
        };
        secs * self.tick_rate
    }

    /// Advances per-frame state (error smoothing) and counts how this frame is drawn.
    pub fn frame(&mut self, now: Instant) -> Option<FrameMode> {
        let dt = self
            .last_frame
            .map_or(0.0, |t| now.saturating_duration_since(t).as_secs_f64());
        self.last_frame = Some(now);
        self.combat.prune(now, self.render_tick(now));
        self.match_log.prune(now);
        if let Some(p) = &mut self.prediction {
            p.decay(if self.switches.smoothing {
                dt
            } else {
                f64::INFINITY
            });
        }
        let mode = self
            .buffer
            .mode(self.render_tick(now)?, self.extrapolation_limit_ticks());
        self.net.frame(now, mode);
        Some(mode)
    }

    /// Sets the netcode switches. Prediction coming back on restarts from the server's
    /// newest word plus the commands it has not applied yet, so nothing jumps out of
    /// sync whatever happened while it was off.
    pub fn set_switches(&mut self, switches: Switches) {
        let was_predicting = self.switches.prediction;
        self.switches = switches.normalized();
        if !self.switches.prediction || was_predicting {
            return;
        }
        let server = self.server_state();
        let others = self
            .latest
            .as_ref()
            .map(|s| others_of(&s.players, self.player_id))
            .unwrap_or_default();
        if let (Some(p), Some(server)) = (&mut self.prediction, server) {
            let ack = p.acked_seq();
            let _ = p.reconcile(&self.map, &self.rules, ack, server, &others, true, false);
        }
    }

    /// Where remote player `id` is drawn now, in sub-cell units: interpolated (or dead
    /// reckoned) with those switches on, else at its newest snapshot.
    pub fn remote_position(&self, id: PlayerId, now: Instant) -> Option<(f64, f64)> {
        let newest = find(&self.latest.as_ref()?.players, id)?;
        let sampled = match self.render_tick(now) {
            Some(t) if self.switches.interpolation || self.switches.extrapolation => self
                .buffer
                .sample(id, t, self.extrapolation_limit_ticks())
                .map(|(pos, _)| pos),
            _ => None,
        };
        Some(sampled.unwrap_or((f64::from(newest.x), f64::from(newest.y))))
    }

    /// The goodbye to send when quitting.
    pub fn leave() -> ClientMsg {
        ClientMsg::Leave
    }
}

pub(super) fn find(players: &[PlayerSnap], id: PlayerId) -> Option<PlayerState> {
    players.iter().find(|p| p.id == id).map(|p| p.state)
}

fn others_of(players: &[PlayerSnap], me: PlayerId) -> Vec<PlayerState> {
    players
        .iter()
        .filter(|p| p.id != me)
        .map(|p| p.state)
        .collect()
}

fn name_in(roster: &[RosterEntry], id: PlayerId) -> String {
    roster
        .iter()
        .find(|r| r.id == id)
        .map_or_else(|| format!("#{id}"), |r| r.name.clone())
}
