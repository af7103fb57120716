//! One client's view of a match: prediction of the local player, interpolation of the
//! others, the server clock, and the numbers that show how well each is doing.
//!
//! A state machine fed with decoded server messages, command ticks and frames, each with
//! the time it happened; it owns no socket and reads no clock, so tests can step it
//! against a [`crate::server::Server`] with any latency they like.

use std::time::Instant;

use serde::Serialize;

use super::Switches;
use super::clock::{ServerClock, interp_delay_target};
use super::combat::{BEAM_SECS, CombatState};
use super::interpolation::{Sample, SnapshotBuffer};
use super::lagometer::{self, Lagometer};
use super::prediction::{Correction, Prediction};
use super::rates::Rates;
use crate::net::map_chunks::MapAssembler;
use crate::net::protocol::GameEvent;
use crate::net::protocol::PlayerStatus;
use crate::net::protocol::{
    ClientMsg, InputPacket, MAX_COMMANDS_PER_INPUT, PlayerSnap, RosterEntry, ServerMsg, Snapshot,
    SnapshotDelta, Welcome,
};
use crate::net::roster_pages::RosterPages;
use crate::net::{codec, delta};
use crate::sim::combat::CombatRules;
use crate::sim::map::{CELL, Map, MapError};
use crate::sim::world::{Buttons, Command, PlayerId, PlayerState, Rules};
use crate::ui::{
    Beam, CombatHud, Hud, ResultsView, RosterLine, ScoreLine, Sprite, SpriteKind, StatsView, View,
};

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

/// How long the muzzle flash tell stays up.
const MUZZLE_SECS: f64 = 0.15;

/// How long a correction's two positions stay marked on screen.
const CORRECTION_FLASH_SECS: f64 = 0.5;

/// Why a session ended from the server's side.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SessionEnd {
    ServerSaidBye(String),
}

/// Running counts of what the netcode did, for the HUD, overlays and the JSON report.
#[derive(Clone, Debug, Default, Serialize)]
pub struct SessionStats {
    pub commands_sent: u64,
    pub snapshots_received: u64,
    /// Snapshots the server sent that never arrived, counted from gaps in their ticks.
    pub snapshots_lost: u64,
    pub corrections: u64,
    pub last_correction_cells: f64,
    pub max_correction_cells: f64,
    pub rtt_ms: f64,
    pub rtt_ms_mean: f64,
    #[serde(skip)]
    rtt_sum: f64,
    #[serde(skip)]
    rtt_samples: u64,
    /// Loss measured from sequence numbers: input packets the server never saw, and
    /// snapshots that never arrived, in percent.
    pub loss_up_pct: f64,
    pub loss_down_pct: f64,
    pub frames_interpolated: u64,
    pub frames_extrapolated: u64,
    pub frames_held: u64,
    /// Times the render time ran past the newest snapshot (interpolation ran dry).
    pub underruns: u64,
    pub interp_delay_ms_mean: f64,
    /// Snapshots that could not be decoded (baseline gone, or malformed).
    pub undecodable: u64,
    /// Mean size of a snapshot datagram as received, and of the same snapshot encoded
    /// in full, in bytes.
    pub snapshot_bytes_mean: f64,
    pub full_state_bytes_mean: f64,
    #[serde(skip)]
    snapshot_bytes_sum: u64,
    #[serde(skip)]
    full_state_bytes_sum: u64,
    #[serde(skip)]
    delay_sum: f64,
    #[serde(skip)]
    delay_samples: u64,
}

/// What the client has seen of another player, for reports and tests.
#[derive(Clone, Debug, Default, Serialize)]
pub struct RemoteSeen {
    pub id: PlayerId,
    pub name: String,
    /// Total distance travelled between consecutive snapshots, in cells.
    pub distance_cells: f64,
}

pub struct ClientSession {
    player_id: PlayerId,
    map: Map,
    rules: Rules,
    tick_rate: f64,
    snapshot_period: f64,
    server_name: String,
    start: Instant,
    prediction: Option<Prediction>,
    buffer: SnapshotBuffer,
    clock: ServerClock,
    /// The newest snapshot received (by tick).
    latest: Option<Snapshot>,
    roster: Vec<RosterEntry>,
    remotes: Vec<RemoteSeen>,
    interp_delay: f64,
    last_frame: Option<Instant>,
    last_heard: Instant,
    last_correction: Option<(Instant, Correction)>,
    packets_sent: u32,
    /// Slowing the command clock to drain a backlog on the server (see
    /// [`ClientSession::command_period_scale`]).
    draining: bool,
    pub combat: CombatState,
    combat_rules: CombatRules,
    /// When our weapon is ready again by our own count, and the last tell shown.
    local_next_fire: Option<Instant>,
    muzzle: Option<(Instant, u8)>,
    /// Command ticks per input packet, when the buttons do not change.
    input_interval: u32,
    unsent_ticks: u32,
    last_command: Option<Command>,
    last_mode: Option<Sample>,
    lagometer: Lagometer,
    pub switches: Switches,
    /// Overlays drawn from session data: the scoreboard, and the rewound hitboxes of
    /// rail shots.
    pub show_scoreboard: bool,
    pub show_lag_compensation: bool,
    stats: SessionStats,
    map_chunks: MapAssembler,
    roster_pages: RosterPages,
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
            remotes: Vec::new(),
            interp_delay: interp_delay_target(snapshot_period, 0.0),
            last_frame: None,
            last_heard: now,
            last_correction: None,
            packets_sent: 0,
            draining: false,
            combat: CombatState::default(),
            local_next_fire: None,
            muzzle: None,
            combat_rules: CombatRules::for_tick_rate(welcome.tick_rate),
            input_interval: input_interval(welcome.tick_rate, DEFAULT_INPUT_RATE),
            unsent_ticks: 0,
            last_command: None,
            last_mode: None,
            lagometer: Lagometer::default(),
            switches,
            show_scoreboard: false,
            show_lag_compensation: false,
            stats: SessionStats::default(),
            map_chunks: MapAssembler::default(),
            roster_pages: RosterPages::default(),
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
        self.input_interval = input_interval(self.tick_rate as u16, rate);
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

    pub fn server_name(&self) -> &str {
        &self.server_name
    }

    pub fn last_heard(&self) -> Instant {
        self.last_heard
    }

    pub fn stats(&self) -> &SessionStats {
        &self.stats
    }

    pub fn remotes_seen(&self) -> &[RemoteSeen] {
        &self.remotes
    }

    pub fn interp_delay_secs(&self) -> f64 {
        self.interp_delay
    }

    pub fn jitter_secs(&self) -> f64 {
        self.clock.jitter_secs()
    }

    pub fn lagometer(&self) -> &Lagometer {
        &self.lagometer
    }

    pub fn buffered_snapshots(&self) -> usize {
        self.buffer.len()
    }

    pub fn last_correction(&self) -> Option<&(Instant, Correction)> {
        self.last_correction.as_ref()
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
            ServerMsg::Roster(page) => {
                if let Some(roster) = self.roster_pages.add(page) {
                    self.roster = roster;
                }
            }
            ServerMsg::Bye(reason) => return Some(SessionEnd::ServerSaidBye(reason)),
            // A repeated welcome (our connect was retried) or a late reject: nothing new.
            ServerMsg::Welcome(_)
            | ServerMsg::Reject(_)
            | ServerMsg::Challenge(_)
            | ServerMsg::Info(_)
            | ServerMsg::MapChunk(_) => {}
        }
        None
    }

    fn on_delta(&mut self, now: Instant, delta: &SnapshotDelta, wire_bytes: usize) {
        // Events ride in every snapshot until acknowledged, whatever its baseline.
        for (seq, event) in &delta.events {
            if let GameEvent::MapChunk(chunk) = event
                && let Err(e) = self.map_chunks.add(now, chunk)
            {
                tracing::warn!("the server sent an unusable map chunk: {e}");
            }
            if let Some(change) =
                self.combat
                    .on_event(now, *seq, event, &self.map, &self.combat_rules)
            {
                let text = self.map_chunks.take(&change.map).unwrap_or_default();
                match Map::parse("server map", &text) {
                    Ok(map) => self.map = map.with_name(&change.name),
                    Err(e) => tracing::warn!("the server sent an unusable map: {e}"),
                }
            }
        }
        // A new match respawns everyone by decree: start predicting afresh from the
        // next snapshot instead of counting the jump as a misprediction.
        if self.combat.take_restart() {
            self.prediction = None;
        }
        let baseline = delta::baseline_tick(delta).and_then(|t| self.buffer.get(t));
        let snap = match delta::decode(delta, baseline) {
            Ok(snap) => snap,
            Err(e) => {
                // Without its baseline (evicted, or the server is confused) a delta
                // means nothing; the next one will be against a newer ack.
                tracing::debug!("dropped snapshot {}: {e}", delta.tick);
                self.stats.undecodable += 1;
                return;
            }
        };
        if self.is_duplicate(snap.tick) {
            return;
        }
        // What the same snapshot would have cost in full, for the compression figures.
        let full = codec::encoded_len_server(&ServerMsg::Snapshot(delta::encode(&snap, None)));
        self.stats.snapshot_bytes_sum += wire_bytes as u64;
        self.stats.full_state_bytes_sum += full as u64;
        self.on_snapshot(now, snap);
        let n = self.stats.snapshots_received as f64;
        self.stats.snapshot_bytes_mean = self.stats.snapshot_bytes_sum as f64 / n;
        self.stats.full_state_bytes_mean = self.stats.full_state_bytes_sum as f64 / n;
    }

    /// Whether a snapshot for `tick` was already taken in (the network duplicated it).
    fn is_duplicate(&self, tick: u32) -> bool {
        self.buffer.get(tick).is_some() || self.latest.as_ref().is_some_and(|s| s.tick == tick)
    }

    fn on_snapshot(&mut self, now: Instant, snap: Snapshot) {
        if self.is_duplicate(snap.tick) {
            return;
        }
        self.stats.snapshots_received += 1;
        let newest = self.latest.as_ref().map(|s| s.tick);
        if newest.is_some_and(|t| snap.tick < t) {
            // Late: it was counted lost when a newer one arrived; it still fills a gap
            // in the interpolation buffer.
            self.buffer.push(snap.tick, snap.players);
            self.stats.snapshots_lost = self.stats.snapshots_lost.saturating_sub(1);
            return;
        }
        let mut dropped = 0;
        if let Some(prev) = newest {
            let interval = (self.tick_rate * self.snapshot_period).round().max(1.0) as u32;
            dropped = ((snap.tick - prev) / interval).saturating_sub(1);
            self.stats.snapshots_lost += u64::from(dropped);
        }
        let expected = self.stats.snapshots_received + self.stats.snapshots_lost;
        self.stats.loss_down_pct = 100.0 * self.stats.snapshots_lost as f64 / expected as f64;
        if let Some(inputs) = snap.inputs.filter(|i| i.high > 0) {
            let seen = f64::from(inputs.received.min(inputs.high));
            self.stats.loss_up_pct = 100.0 * (1.0 - seen / f64::from(inputs.high));
        }

        let local = self.local_secs(now);
        self.clock
            .observe(local, f64::from(snap.tick) / self.tick_rate);
        let target = interp_delay_target(self.snapshot_period, self.clock.jitter_secs());
        self.interp_delay += (target - self.interp_delay) * 0.1;
        self.stats.delay_sum += self.interp_delay;
        self.stats.delay_samples += 1;
        self.stats.interp_delay_ms_mean =
            1000.0 * self.stats.delay_sum / self.stats.delay_samples as f64;

        if snap.echo_time_ms != 0 {
            let rtt = self
                .local_ms(now)
                .wrapping_sub(snap.echo_time_ms)
                .wrapping_sub(u32::from(snap.echo_hold_ms));
            // A wrapped (negative) result means a bogus echo.
            if rtt < 60_000 {
                let rtt = f64::from(rtt);
                self.stats.rtt_ms = if self.stats.rtt_samples == 0 {
                    rtt
                } else {
                    self.stats.rtt_ms + (rtt - self.stats.rtt_ms) * 0.125
                };
                self.stats.rtt_sum += rtt;
                self.stats.rtt_samples += 1;
                self.stats.rtt_ms_mean = self.stats.rtt_sum / self.stats.rtt_samples as f64;
            }
        }

        // A snapshot's one-way delay cannot be measured without shared clocks; half the
        // RTT plus how late it is against the smoothed clock is the honest estimate.
        let lateness = self
            .clock
            .lateness_secs(local, f64::from(snap.tick) / self.tick_rate);
        let delay_ms = (self.stats.rtt_ms / 2.0 + lateness * 1000.0).max(0.0);
        self.lagometer
            .snapshot(now, delay_ms, dropped, self.stats.rtt_ms);
        self.note_remote_motion(&snap.players);
        if snap.queued > QUEUE_HIGH {
            self.draining = true;
        } else if snap.queued <= QUEUE_LOW {
            self.draining = false;
        }
        let was_absent = self
            .latest
            .as_ref()
            .is_some_and(|l| find(&l.players, self.player_id).is_none());
        if let Some(me) = find(&snap.players, self.player_id) {
            let others = others_of(&snap.players, self.player_id);
            match &mut self.prediction {
                None => self.prediction = Some(Prediction::new(me, snap.ack_seq)),
                // Back from the dead at a spawn point: what we predicted meanwhile was
                // moot. Restart from the server's word; this is no misprediction.
                Some(p) if was_absent => {
                    let _ = p.reconcile(
                        &self.map,
                        &self.rules,
                        snap.ack_seq,
                        me,
                        &others,
                        true,
                        false,
                    );
                }
                Some(p) => {
                    let correction = p.reconcile(
                        &self.map,
                        &self.rules,
                        snap.ack_seq,
                        me,
                        &others,
                        self.switches.reconciliation,
                        self.switches.smoothing,
                    );
                    if let Some(c) = correction {
                        self.stats.corrections += 1;
                        self.stats.last_correction_cells = c.cells;
                        self.stats.max_correction_cells =
                            self.stats.max_correction_cells.max(c.cells);
                        self.last_correction = Some((now, c));
                    }
                }
            }
        }
        if find(&snap.players, self.player_id).is_none()
            && let Some(p) = &mut self.prediction
        {
            p.acknowledge(snap.ack_seq);
        }
        self.buffer.push(snap.tick, snap.players.clone());
        self.latest = Some(snap);
    }

    fn note_remote_motion(&mut self, players: &[PlayerSnap]) {
        let Some(prev) = self.latest.as_ref() else {
            return;
        };
        for p in players.iter().filter(|p| p.id != self.player_id) {
            let Some(before) = find(&prev.players, p.id) else {
                continue;
            };
            let moved = f64::from(p.state.x - before.x).hypot(f64::from(p.state.y - before.y));
            let name = self.name_of(p.id);
            match self.remotes.iter_mut().find(|r| r.id == p.id) {
                Some(r) => {
                    r.distance_cells += moved / f64::from(CELL);
                    r.name = name;
                }
                None => self.remotes.push(RemoteSeen {
                    id: p.id,
                    name,
                    distance_cells: moved / f64::from(CELL),
                }),
            }
        }
    }

    fn name_of(&self, id: PlayerId) -> String {
        self.roster
            .iter()
            .find(|r| r.id == id)
            .map_or_else(|| format!("#{id}"), |r| r.name.clone())
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
        let event_ack = self.combat.event_ack();
        let rtt_ms = self.stats.rtt_ms.round().clamp(0.0, 65535.0) as u16;
        // The tell: show the shot leave the moment fire is pressed, if the weapon is
        // ready by our own count, without waiting a round trip for the server.
        if cmd.buttons.contains(Buttons::FIRE)
            && self.prediction.is_some()
            && self.combat.status(self.player_id).is_none_or(|s| s.alive)
            && self.local_next_fire.is_none_or(|t| now >= t)
        {
            let weapon = crate::sim::combat::Weapon::from_index(cmd.weapon);
            let ticks = self.combat_rules.cooldown(weapon);
            self.local_next_fire =
                Some(now + std::time::Duration::from_secs_f64(f64::from(ticks) / self.tick_rate));
            self.muzzle = Some((now, cmd.aim));
        }
        let p = self.prediction.as_mut()?;
        p.push(&self.map, &self.rules, cmd, &others);
        self.stats.commands_sent += 1;
        self.unsent_ticks += 1;
        let changed = self.last_command != Some(cmd);
        self.last_command = Some(cmd);
        if !changed && self.unsent_ticks < self.input_interval {
            return None;
        }
        self.unsent_ticks = 0;
        self.packets_sent += 1;
        let mut input = InputPacket::pack(
            client_ms,
            self.packets_sent,
            ack_tick,
            p.unacked(MAX_COMMANDS_PER_INPUT),
        );
        input.event_ack = event_ack;
        input.view_tick = view_tick;
        input.rtt_ms = rtt_ms;
        Some(ClientMsg::Input(input))
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
    pub fn frame(&mut self, now: Instant) -> Option<Sample> {
        let dt = self
            .last_frame
            .map_or(0.0, |t| now.saturating_duration_since(t).as_secs_f64());
        self.last_frame = Some(now);
        self.combat.prune(now, self.render_tick(now));
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
        match mode {
            Sample::Interpolated => self.stats.frames_interpolated += 1,
            Sample::Extrapolated => self.stats.frames_extrapolated += 1,
            Sample::Held => self.stats.frames_held += 1,
        }
        if mode != Sample::Interpolated && self.last_mode == Some(Sample::Interpolated) {
            self.stats.underruns += 1;
        }
        self.last_mode = Some(mode);
        self.lagometer.frame(now, mode);
        Some(mode)
    }

    /// Switches prediction on or off. Coming back on, the prediction restarts from the
    /// server's newest word plus the commands it has not applied yet, so nothing jumps
    /// out of sync whatever happened while it was off.
    pub fn set_prediction(&mut self, on: bool) {
        // Reconciliation corrects a prediction: without one it is off too, and it comes
        // back with it.
        self.switches.prediction = on;
        self.switches.reconciliation = on;
        let server = self.server_state();
        let others = self
            .latest
            .as_ref()
            .map(|s| others_of(&s.players, self.player_id))
            .unwrap_or_default();
        if on && let (Some(p), Some(server)) = (&mut self.prediction, server) {
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

    /// Positions (in cells) of every player as drawn this frame, plus ghosts.
    pub fn view(&self, now: Instant, fps: f64, conditions: String) -> View<'_> {
        let mut sprites = Vec::new();
        let to_cells = |(x, y): (f64, f64)| (x / f64::from(CELL), y / f64::from(CELL));
        let render_tick = self.render_tick(now);

        if let Some(latest) = &self.latest {
            if self.switches.ghosts.trail() {
                let newest = latest.tick;
                for snap in self.buffer.iter().filter(|s| s.tick < newest) {
                    let age = (f64::from(newest - snap.tick) / self.tick_rate) as f32;
                    for p in &snap.players {
                        let (x, y) = to_cells((f64::from(p.state.x), f64::from(p.state.y)));
                        sprites.push(Sprite::new(p.id, x, y, SpriteKind::Trail { age_secs: age }));
                    }
                }
            }
            if self.switches.ghosts.server() {
                for p in &latest.players {
                    let (x, y) = to_cells((f64::from(p.state.x), f64::from(p.state.y)));
                    let kind = if p.id == self.player_id {
                        SpriteKind::LocalGhost
                    } else {
                        SpriteKind::Ghost
                    };
                    sprites.push(Sprite::new(p.id, x, y, kind));
                }
            }
            for p in latest.players.iter().filter(|p| p.id != self.player_id) {
                if let Some(pos) = self.remote_position(p.id, now) {
                    let (x, y) = to_cells(pos);
                    sprites.push(Sprite::new(p.id, x, y, SpriteKind::Remote));
                }
            }
        }
        if let Some(t) = render_tick {
            for (owner, x, y) in self.combat.projectiles_at(t) {
                let (x, y) = to_cells((x, y));
                sprites.push(Sprite::new(owner, x, y, SpriteKind::Projectile));
            }
        }
        let mut beams = Vec::new();
        for (_, rail) in &self.combat.rails {
            // Beams are shown on the same clock as the players they start from: in
            // snapshot time, at the render tick (the shot happened during tick T, so
            // the snapshot labelled T + 1 is the first to show it).
            let age = render_tick.map_or(0.0, |t| (t - f64::from(rail.tick + 1)) / self.tick_rate);
            if !(0.0..BEAM_SECS).contains(&age) {
                continue;
            }
            let point = |(x, y): (i32, i32)| to_cells((f64::from(x), f64::from(y)));
            beams.push(Beam {
                id: rail.shooter,
                from: point(rail.from),
                to: point(rail.to),
                fading: age > BEAM_SECS / 2.0,
            });
            if self.show_lag_compensation {
                if let Some(p) = rail.tested_at {
                    let (x, y) = point(p);
                    sprites.push(Sprite::new(
                        rail.hit.unwrap_or(rail.shooter),
                        x,
                        y,
                        SpriteKind::TestedBox,
                    ));
                }
                if let Some(p) = rail.present_at {
                    let (x, y) = point(p);
                    sprites.push(Sprite::new(
                        rail.hit.unwrap_or(rail.shooter),
                        x,
                        y,
                        SpriteKind::PresentBox,
                    ));
                }
            }
        }
        let alive = self.combat.status(self.player_id).is_none_or(|s| s.alive);
        let local = match (&self.prediction, self.switches.prediction) {
            _ if !alive => None,
            (Some(p), true) => Some(p.drawn()),
            _ => self
                .server_state()
                .map(|s| (f64::from(s.x), f64::from(s.y))),
        };
        if let Some((at, c)) = &self.last_correction
            && now.saturating_duration_since(*at).as_secs_f64() < CORRECTION_FLASH_SECS
        {
            for (state, kind) in [
                (c.predicted, SpriteKind::FlashPredicted),
                (c.corrected, SpriteKind::FlashCorrected),
            ] {
                let (x, y) = to_cells((f64::from(state.x), f64::from(state.y)));
                sprites.push(Sprite::new(self.player_id, x, y, kind));
            }
        }
        if let (Some((at, aim)), Some((x, y))) = (self.muzzle, local)
            && now.saturating_duration_since(at).as_secs_f64() < MUZZLE_SECS
        {
            let (dx, dy) = crate::sim::combat::aim_vector(aim);
            let (x, y) = to_cells((x, y));
            sprites.push(Sprite::new(
                self.player_id,
                x + f64::from(dx) * 0.8,
                y + f64::from(dy) * 0.8,
                SpriteKind::Muzzle,
            ));
        }
        // Facing, beside each player: ours is the aim of our newest command; others'
        // is where they last moved.
        let mut facing = Vec::new();
        if let (Some(pos), Some(cmd)) = (local, self.last_command) {
            facing.push((self.player_id, pos, cmd.aim));
        }
        for sprite in sprites.iter().filter(|s| s.kind == SpriteKind::Remote) {
            let moving = self
                .latest
                .as_ref()
                .and_then(|l| find(&l.players, sprite.id))
                .and_then(|s| crate::sim::combat::aim_of(s.vx, s.vy));
            if let Some(aim) = moving {
                let at = (sprite.x * f64::from(CELL), sprite.y * f64::from(CELL));
                facing.push((sprite.id, at, aim));
            }
        }
        // Arrows go under everything else: one splice at the front, not an insert each.
        let arrows = facing.into_iter().map(|(id, (x, y), aim)| {
            let (dx, dy) = crate::sim::combat::aim_vector(aim);
            let (x, y) = to_cells((x, y));
            Sprite::new(
                id,
                x + f64::from(dx) * 0.75,
                y + f64::from(dy) * 0.75,
                SpriteKind::Aim(aim),
            )
        });
        sprites.splice(0..0, arrows);
        if let Some(pos) = local {
            let (x, y) = to_cells(pos);
            sprites.push(Sprite::new(self.player_id, x, y, SpriteKind::Local));
        }

        let roster = self
            .roster
            .iter()
            .map(|r| RosterLine {
                id: r.id,
                name: r.name.clone(),
                local: r.id == self.player_id,
                bot: r.bot,
            })
            .collect();
        let name = |id: PlayerId| self.name_of(id);
        let feed = self
            .combat
            .feed
            .iter()
            .map(|(_, k)| {
                if k.killer == k.victim {
                    format!("{} fragged themselves", name(k.victim))
                } else {
                    format!(
                        "{} [{}] {}",
                        name(k.killer),
                        k.weapon.name(),
                        name(k.victim)
                    )
                }
            })
            .collect();
        let chat = self
            .combat
            .chat
            .iter()
            .map(|(_, from, text)| format!("{}: {text}", name(*from)))
            .collect();
        let me = self.combat.status(self.player_id);
        let clock = self.combat.clock.as_ref();
        let server_tick = f64::from(self.latest_tick().unwrap_or(0));
        let combat = me.map(|s| CombatHud {
            health: s.health,
            alive: s.alive,
            weapon: s.weapon,
            frags: s.frags,
            frag_limit: clock.map_or(0, |c| c.frag_limit),
            time_left_secs: clock.map(|c| {
                let elapsed = (server_tick - f64::from(c.started_tick)) / self.tick_rate;
                (f64::from(c.time_limit_secs) - elapsed).max(0.0) as u32
            }),
        });
        let score_line = |s: &PlayerStatus| ScoreLine {
            id: s.id,
            name: name(s.id),
            frags: s.frags,
            deaths: s.deaths,
            ping_ms: self
                .roster
                .iter()
                .find(|r| r.id == s.id)
                .map_or(0, |r| r.ping_ms),
            local: s.id == self.player_id,
        };
        let results = self.combat.results.as_ref().map(|r| ResultsView {
            winner: r.winner.map_or_else(|| "nobody".to_owned(), name),
            lines: r.standings.iter().map(score_line).collect(),
            next_map: r.next_map.clone(),
        });
        let scoreboard = {
            let mut lines: Vec<ScoreLine> = self.combat.statuses.values().map(score_line).collect();
            lines.sort_by(|a, b| b.frags.cmp(&a.frags).then(a.deaths.cmp(&b.deaths)));
            lines
        };
        View {
            map: &self.map,
            sprites,
            beams,
            combat,
            feed,
            chat,
            chat_input: None,
            scoreboard: self.show_scoreboard.then_some(scoreboard),
            results,
            hud: Hud {
                fps,
                rtt_ms: self.stats.rtt_ms,
                server_tick: self.latest_tick().unwrap_or(0),
                pending: self.pending_commands(),
                corrections: self.stats.corrections,
                switches: self.switches,
                conditions,
            },
            roster,
            stats: None,
            help: false,
            notice: if self.latest.is_none() {
                Some(format!(
                    "joined {}; waiting for the first snapshot…",
                    self.server_name
                ))
            } else {
                None
            },
        }
    }

    /// The numbers for the stats overlay.
    pub fn stats_view(&self, now: Instant, rates: Rates) -> StatsView {
        let s = &self.stats;
        StatsView {
            rtt_ms: s.rtt_ms,
            jitter_ms: 1000.0 * self.clock.jitter_secs(),
            packets_in: rates.packets_in,
            packets_out: rates.packets_out,
            bytes_in: rates.bytes_in,
            bytes_out: rates.bytes_out,
            loss_up_pct: s.loss_up_pct,
            loss_down_pct: s.loss_down_pct,
            snapshots_per_sec: rates.snapshots,
            commands_sent: s.commands_sent,
            commands_acked: self.acked_seq(),
            pending: self.pending_commands(),
            corrections: s.corrections,
            corrections_per_min: rates.corrections_per_min,
            last_correction_cells: s.last_correction_cells,
            max_correction_cells: s.max_correction_cells,
            interp_delay_ms: 1000.0 * self.interp_delay,
            buffered: self.render_tick(now).map_or(0, |t| self.buffer.ahead_of(t)),
            frames_extrapolated: s.frames_extrapolated,
            frames_held: s.frames_held,
            underruns: s.underruns,
            slices: self.lagometer.recent(lagometer::SLICES).copied().collect(),
        }
    }

    /// The goodbye to send when quitting.
    pub fn leave() -> ClientMsg {
        ClientMsg::Leave
    }
}

fn find(players: &[PlayerSnap], id: PlayerId) -> Option<PlayerState> {
    players.iter().find(|p| p.id == id).map(|p| p.state)
}

fn others_of(players: &[PlayerSnap], me: PlayerId) -> Vec<PlayerState> {
    players
        .iter()
        .filter(|p| p.id != me)
        .map(|p| p.state)
        .collect()
}
