//! One client's netcode: prediction of the local player, the snapshot buffer that
//! remote players are interpolated from, and the server clock. Messages are taken in by
//! `intake` (`intake.rs`, a part of this impl: the fields are private to the two
//! files); the counts go to `super::net_stats` and what a frame shows is built by
//! `view` through the read methods here. The netcode switches are kept here and
//! nowhere else: keys and a replay's what-if change them through
//! [`ClientSession::set_switches`].
//!
//! A state machine fed with decoded server messages, command ticks and frames, each with
//! the time it happened; it owns no socket and reads no clock, so tests can step it
//! against a [`crate::server::Server`] with any latency they like.

use std::borrow::Cow;
use std::time::Instant;

#[path = "intake.rs"]
mod intake;

use super::causes::Cause;
use super::clock::{RecentLoss, ServerClock, Timeline, interp_delay_target};
use super::combat::Combat;
pub(crate) use super::interpolation::DrawnFrom;
use super::interpolation::{BufferedSnapshot, Motion, RemoteError, SnapshotBuffer};
use super::lagometer::Lagometer;
use super::match_log::MatchLog;
use super::net_stats::{NetStats, RemoteSeen, SessionStats};
use super::outage::{self, Resync};
use super::pacer::{InputPacer, bound_redundancy};
use super::prediction::{Correction, CorrectionPath, Prediction, Reconcile, Stepping};
use super::tell::Tell;
use super::tuning::Tuning;
use crate::client::{CorrectionStyle, Switches};
use crate::net::map_chunks::MapAssembler;
use crate::net::protocol::{
    ClientMsg, InputPacket, MAX_COMMANDS_PER_INPUT, PlayerSnap, RailShot, RosterEntry, Snapshot,
    Welcome,
};
use crate::net::roster_pages::RosterPages;
use crate::net::safe_text;
use crate::sim::map::{CELL, Map, MapError};
use crate::sim::step::Rulebook;
use crate::sim::world::{Command, PlayerId, PlayerState};

/// With interpolation, how far past the newest snapshot a remote player may be
/// extrapolated when the buffer runs dry before it is held still: long enough to hide
/// one late packet, short enough not to run through walls.
const MAX_EXTRAPOLATE_SECS: f64 = 0.1;
/// With dead reckoning (the `extrapolation` switch) remote players are projected to the
/// estimated present, half a round trip and the time since past the newest snapshot, up
/// to this far by default: on the `bad` profile's 300 ms round trip that is 150 ms, and
/// up to a snapshot period and the jitter more before the next one arrives.
pub const DEFAULT_EXTRAPOLATION_LIMIT_MS: u16 = 300;
/// A remote player's correction further than this many cells (a respawn, a teleport) is
/// a jump whatever the style: gliding there would draw it where it never was. Dead
/// reckoning alone can be wrong by twice its limit's walk (a player that turned back):
/// 5.4 cells at 300 ms.
const MAX_BLENDED_CELLS: i32 = 8;

pub use super::tuning::DEFAULT_INPUT_RATE;

/// Why a session ended from the server's side.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SessionEnd {
    ServerSaidBye(String),
    /// The server moved to a map this client cannot parse: playing on would mean
    /// predicting on one map while the server plays another.
    UnusableMap(String),
}

impl std::fmt::Display for SessionEnd {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            // Printed after the terminal is restored: nothing in it may act on it.
            SessionEnd::ServerSaidBye(reason) => {
                let reason = safe_text::safe(reason);
                write!(f, "the server closed the connection: {reason}")
            }
            SessionEnd::UnusableMap(e) => {
                let e = safe_text::safe(e);
                write!(f, "the server changed to a map this client cannot use: {e}")
            }
        }
    }
}

#[derive(Clone, serde::Serialize, serde::Deserialize)]
pub struct ClientSession {
    player_id: PlayerId,
    map: Map,
    rules: Rulebook,
    tick_rate: f64,
    /// The server's ticks as seconds, across its tick-rate changes.
    timeline: Timeline,
    /// After a tick-rate change: our first command the server applied by the new rules,
    /// and the rules it applied the ones before by.
    earlier_rules: Option<(u32, Rulebook)>,
    /// Ticks between snapshots, as the server said exactly.
    snapshot_interval: u32,
    snapshot_period: f64,
    /// The server's count of our placements, from the newest snapshot.
    placed: Option<u8>,
    server_name: String,
    #[serde(with = "crate::net::instants")]
    start: Instant,
    prediction: Option<Prediction>,
    buffer: SnapshotBuffer,
    clock: ServerClock,
    /// The newest snapshot received (by tick).
    latest: Option<Snapshot>,
    /// The server's tick in the welcome: what the first snapshot's tick is widened
    /// against (see [`crate::net::widen`]).
    welcome_tick: u32,
    roster: Vec<RosterEntry>,
    interp_delay: f64,
    /// The recent snapshot loss the interpolation delay is sized for.
    recent_loss: RecentLoss,
    /// The recent share of snapshot slots the server held back for our link's rate (the
    /// same moving average as loss): the period snapshots really come at grows with it.
    recent_withheld: RecentLoss,
    #[serde(with = "crate::net::instants")]
    last_frame: Option<Instant>,
    #[serde(with = "crate::net::instants")]
    last_heard: Instant,
    #[serde(with = "crate::net::instants")]
    last_correction: Option<(Instant, Correction)>,
    /// Slowing the command clock to drain a backlog on the server (see
    /// [`ClientSession::command_period_scale`]).
    draining: bool,
    /// Quickening it to refill the server's jitter buffer, which runs below half its
    /// depth.
    hurrying: bool,
    /// Command slots to skip so a backlog on the server drains at once.
    resync: Resync,
    /// When the newest snapshot arrived (the session's start before any).
    #[serde(with = "crate::net::instants")]
    last_snapshot: Instant,
    /// The next reliable game event expected; events arrive resent, in seq order.
    next_event: u32,
    combat: Combat,
    match_log: MatchLog,
    tell: Tell,
    pacer: InputPacer,
    /// The player's own dials (see [`Tuning`]).
    tuning: Tuning,
    switches: Switches,
    /// The correction-loop bug back on, for the lab to set beside its fix
    /// ([`ClientSession::set_correction_loop`]); never on in the game, and not kept in a
    /// keyframe.
    #[serde(skip)]
    correction_loop: bool,
    /// A speed hack: the command clock runs this much faster than the server's ticks
    /// (1.0: honest). Only the lab sets it, for a lesson to show what stops it; not
    /// kept in a keyframe.
    #[serde(skip, default = "honest")]
    clock_rate: f64,
    /// How remote players are brought onto a snapshot that disagrees with where they
    /// were drawn ([`ClientSession::set_correction`]).
    correction: CorrectionStyle,
    /// What the newest snapshots found wrong with where remote players were drawn,
    /// fading as the correction style says (one per player at most).
    remote_errors: Vec<RemoteError>,
    net: NetStats,
    /// A new map's text arrives in chunks among the events, before its match start.
    map_chunks: MapAssembler,
    /// The roster arrives in pages that together make one.
    roster_pages: RosterPages,
}

impl ClientSession {
    pub fn new(welcome: Welcome, now: Instant, switches: Switches) -> Result<Self, MapError> {
        let map = Map::parse("server map", &welcome.map_text)?
            .with_name(&safe_text::safe(&welcome.map_name));
        let tick_rate = f64::from(welcome.tick_rate.max(1));
        let snapshot_interval = u32::from(welcome.snapshot_interval.max(1));
        let snapshot_period = f64::from(snapshot_interval) / tick_rate;
        Ok(ClientSession {
            player_id: welcome.player_id,
            map,
            rules: Rulebook::for_tick_rate(welcome.tick_rate),
            tick_rate,
            timeline: Timeline::new(tick_rate),
            earlier_rules: None,
            snapshot_interval,
            snapshot_period,
            placed: None,
            server_name: safe_text::safe(&welcome.server_name).into_owned(),
            start: now,
            prediction: None,
            buffer: SnapshotBuffer::default(),
            clock: ServerClock::default(),
            latest: None,
            welcome_tick: welcome.server_tick,
            roster: Vec::new(),
            interp_delay: interp_delay_target(snapshot_period, 0.0, 0.0),
            recent_loss: RecentLoss::default(),
            recent_withheld: RecentLoss::default(),
            last_frame: None,
            last_heard: now,
            last_correction: None,
            draining: false,
            hurrying: false,
            resync: Resync::default(),
            last_snapshot: now,
            next_event: 1,
            combat: Combat::default(),
            match_log: MatchLog::default(),
            tell: Tell::default(),
            pacer: InputPacer::new(welcome.tick_rate, DEFAULT_INPUT_RATE),
            tuning: Tuning::default(),
            correction_loop: false,
            clock_rate: 1.0,
            switches: switches.normalized(),
            correction: CorrectionStyle::default(),
            remote_errors: Vec::new(),
            net: NetStats::default(),
            map_chunks: MapAssembler::default(),
            roster_pages: RosterPages::default(),
        })
    }

    pub fn map(&self) -> &Map {
        &self.map
    }

    /// The rules the server plays by (for this tick rate).
    pub(crate) fn rules(&self) -> &Rulebook {
        &self.rules
    }

    /// Shots, flights and every player's status, as the events and our own prediction
    /// have them.
    pub fn combat(&self) -> &Combat {
        &self.combat
    }

    /// The kill feed, the chat, the match clock and the results.
    pub fn match_log(&self) -> &MatchLog {
        &self.match_log
    }

    /// The newest snapshot received (by tick), decoded.
    pub(crate) fn latest(&self) -> Option<&Snapshot> {
        self.latest.as_ref()
    }

    /// The snapshots remote players are interpolated between, oldest first.
    pub(crate) fn buffered(&self) -> impl Iterator<Item = &BufferedSnapshot> {
        self.buffer.iter()
    }

    /// How many buffered snapshots are still ahead of the tick remote players are
    /// drawn at now.
    pub(crate) fn buffered_ahead(&self, now: Instant) -> usize {
        self.render_tick(now).map_or(0, |t| self.buffer.ahead_of(t))
    }

    /// Where the prediction draws the local player (sub-cell units): its state plus
    /// what is left of the last correction's visual error. None before the first
    /// snapshot.
    pub(crate) fn predicted_drawn(&self) -> Option<(f64, f64)> {
        self.prediction.as_ref().map(Prediction::drawn)
    }

    /// The newest correction of the prediction, and when it was made.
    pub(crate) fn last_correction(&self) -> Option<&(Instant, Correction)> {
        self.last_correction.as_ref()
    }

    /// When our newest shot's muzzle flashed, and its aim.
    pub(crate) fn muzzle(&self) -> Option<(Instant, u8)> {
        self.tell.muzzle
    }

    /// Everyone in the game, as the newest roster says.
    pub(crate) fn roster(&self) -> &[RosterEntry] {
        &self.roster
    }

    pub(crate) fn server_name(&self) -> &str {
        &self.server_name
    }

    /// The lagometer's history of snapshots and frames.
    /// The time between snapshots the server said it sends, in seconds.
    pub(crate) fn snapshot_period_secs(&self) -> f64 {
        self.snapshot_period
    }

    pub(crate) fn lagometer(&self) -> &Lagometer {
        &self.net.lagometer
    }

    /// The newest corrections, oldest first: seconds into the session, cells, cause.
    pub(crate) fn recent_corrections(&self) -> impl Iterator<Item = &(f64, f64, String)> {
        self.net.recent.iter()
    }

    /// The server's time at `now` by the smoothed clock, in seconds (None before the
    /// first snapshot).
    pub(crate) fn server_secs(&self, now: Instant) -> Option<f64> {
        self.clock.server_secs(self.local_secs(now))
    }

    /// How much longer than a tick to wait before the next command. The server applies
    /// at most one command per tick; commands that piled up there (after a lag spike,
    /// say) would otherwise stay as input delay for good. While its queue for us is
    /// long we make commands 5% slower, which drains it at ~3 commands a second. A
    /// jitter buffer there holds its depth of ours by design; while it runs below half
    /// of it we make commands 5% faster, which refills it.
    pub fn command_period_scale(&self) -> f64 {
        let scale = if self.draining {
            1.05
        } else if self.hurrying {
            0.95
        } else {
            1.0
        };
        scale / self.clock_rate
    }

    /// Makes this client cheat (the lab only): its command clock runs `rate` times
    /// as fast as the server's ticks, so it sends that many commands a tick.
    pub(crate) fn set_clock_rate(&mut self, rate: f64) {
        self.clock_rate = rate;
    }

    /// Takes the config's settings: the player's dials and the correction style (the
    /// switches come with [`ClientSession::new`]).
    pub(crate) fn apply(&mut self, config: &crate::client::ClientConfig) {
        self.set_tuning(config.tuning);
        self.set_correction(config.correction);
    }

    /// Sets the player's own dials, from the next command and snapshot on (the
    /// interpolation delay eases to its new target as the automatic one does).
    /// Puts back (or takes out) the movement-corrections article's correction-loop bug:
    /// a correction drops the commands in flight from the prediction instead of
    /// replaying them (see [`Reconcile::Loop`]). Only the lab sets it, off by default,
    /// so a lesson can show the bug beside its fix.
    pub(crate) fn set_correction_loop(&mut self, on: bool) {
        self.correction_loop = on;
    }

    /// Whether the correction-loop bug is on (see [`Self::set_correction_loop`]).
    pub(crate) fn correction_loop(&self) -> bool {
        self.correction_loop
    }

    pub fn set_tuning(&mut self, tuning: Tuning) {
        self.tuning = tuning.bounded();
        self.pacer
            .set_rate(self.tick_rate as u16, self.tuning.input_rate);
    }

    /// The player's own dials in force.
    pub fn tuning(&self) -> Tuning {
        self.tuning
    }

    /// The server now sends a snapshot every `interval` ticks (the lab's snapshot-rate
    /// dial: a networked server says so only in its welcome).
    pub fn set_snapshot_interval(&mut self, interval: u32) {
        self.snapshot_interval = interval.max(1);
        self.snapshot_period = f64::from(self.snapshot_interval) / self.tick_rate;
    }

    /// Server ticks between two snapshots, as the server sends them.
    pub fn snapshot_interval(&self) -> u32 {
        self.snapshot_interval
    }

    /// Seconds between two snapshots, as the server sends them.
    pub fn snapshot_period(&self) -> f64 {
        self.snapshot_period
    }

    /// Newest command seq made.
    pub fn latest_seq(&self) -> u32 {
        self.prediction.as_ref().map_or(0, |p| p.latest_seq())
    }

    pub(crate) fn tick_rate(&self) -> f64 {
        self.tick_rate
    }

    /// The server's time at `tick`, in seconds, across its tick-rate changes: what a
    /// span of ticks lasted is the difference of two of these.
    pub(crate) fn tick_secs(&self, tick: f64) -> f64 {
        self.timeline.secs(tick)
    }

    /// The server ticks `tick_rate` times a second from `from_tick` on, a snapshot every
    /// `interval` ticks, and applies our commands from `from_seq` on by the new rate's
    /// rules (its [`crate::net::protocol::GameEvent::TickRate`]). The rules, the
    /// command and packet rates, the snapshot period and the clock's seconds follow. The
    /// commands made at the old rate and not yet applied are stepped again by the rules
    /// the server applies them by: where that moves the player is a correction, named
    /// for its cause, not a silent jump.
    pub(crate) fn change_tick_rate(
        &mut self,
        now: Instant,
        tick_rate: u16,
        interval: u16,
        from_tick: u32,
        from_seq: u32,
    ) {
        let tick_rate = tick_rate.max(1);
        let before = self.tick_rate.round() as u16;
        if tick_rate == before {
            return;
        }
        let old = std::mem::replace(&mut self.rules, Rulebook::for_tick_rate(tick_rate));
        self.combat.retime(from_tick, &self.rules.combat, &self.map);
        self.tick_rate = f64::from(tick_rate);
        self.timeline.change(from_tick, self.tick_rate);
        self.earlier_rules = Some((from_seq, old));
        self.set_snapshot_interval(u32::from(interval));
        self.pacer.set_rate(tick_rate, self.tuning.input_rate);
        let (Some(latest), Some(p)) = (&self.latest, &mut self.prediction) else {
            return;
        };
        let others = others_of(&latest.players, self.player_id);
        let s = self.switches;
        let how = Reconcile::for_switches(s, false);
        let at = Stepping {
            map: &self.map,
            rules: &self.rules,
            me: self.player_id,
            others: &others,
            earlier: self.earlier_rules.as_ref().map(|(s, r)| (*s, r)),
        };
        let correction = p.replay_pending(&at, how);
        let path = p.take_path();
        if let (Some(c), true) = (correction, s.prediction) {
            let at = self.local_secs(now);
            let cause = Cause::TickRate(before, tick_rate);
            self.net.correction(at, c.cells, &cause);
            self.net.correction_path(at, path);
            self.last_correction = Some((now, c));
        }
    }

    pub fn player_id(&self) -> PlayerId {
        self.player_id
    }

    pub(crate) fn last_heard(&self) -> Instant {
        self.last_heard
    }

    pub fn stats(&self) -> &SessionStats {
        &self.net.stats
    }

    pub(crate) fn remotes_seen(&self) -> &[RemoteSeen] {
        &self.net.remotes
    }

    pub(crate) fn jitter_secs(&self) -> f64 {
        self.clock.jitter_secs()
    }

    /// How far in the past remote players are drawn now.
    pub fn interp_delay_secs(&self) -> f64 {
        self.interp_delay
    }

    /// The netcode switches in force: the one copy there is.
    pub fn switches(&self) -> Switches {
        self.switches
    }

    /// Highest seq the server has acknowledged.
    pub(crate) fn acked_seq(&self) -> u32 {
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

    pub(in crate::client) fn name_of(&self, id: PlayerId) -> String {
        name_in(&self.roster, id)
    }

    /// A rail shot's lag compensation verdict in one line, named by this session's
    /// roster; `saw` is where the target's own client predicted itself at the shot
    /// (see [`super::combat::verdict_text`]).
    pub(crate) fn rail_verdict(&self, shot: &RailShot, saw: Option<PlayerState>) -> String {
        super::combat::verdict_text(shot, self.tick_rate, |id| self.name_of(id), saw)
    }

    /// Makes one command from the buttons held and predicts it. Returns the input packet
    /// to send (every unacknowledged command) when one is due: at the input rate, or at
    /// once when the buttons change, so starting and stopping reach the server without
    /// waiting. None until the server has placed us.
    ///
    /// No command is made in a slot a resync skips, nor while the server has not
    /// acknowledged `outage::ahead_limit` commands (the link is down): the
    /// unacknowledged ones are then resent at the input rate.
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
        let limit = self.ahead_limit();
        let thin = self.net.lagometer.rate_limited();
        let p = self.prediction.as_mut()?;
        // A speed hack does not give back the commands the server holds for it.
        let honest = self.clock_rate == 1.0;
        let due = if honest && self.resync.take_skip() {
            self.net.command_skipped();
            self.pacer.resend_due()
        } else if p.pending() >= limit {
            self.net.command_held();
            self.pacer.resend_due()
        } else {
            let at = Stepping {
                map: &self.map,
                rules: &self.rules,
                me: self.player_id,
                others: &others,
                earlier: self.earlier_rules.as_ref().map(|(s, r)| (*s, r)),
            };
            let (seq, shot) = p.push(&at, cmd);
            if let Some(shot) = shot {
                self.tell.flash(now, shot.aim);
                let rules = &self.rules.combat;
                self.combat
                    .predict(now, self.player_id, seq, shot, &self.map, rules);
            }
            self.net.command_sent();
            self.pacer.due(cmd, thin)
        }?;
        // With nothing unacknowledged (a skipped slot) the newest command goes again: the
        // server takes it as a duplicate, and hears from us.
        let commands: Vec<_> = if p.pending() == 0 {
            p.newest().into_iter().collect()
        } else {
            let window = due.window(self.tuning.redundancy);
            p.unacked(window.min(MAX_COMMANDS_PER_INPUT)).collect()
        };
        if commands.is_empty() {
            return None;
        }
        let mut input = InputPacket::pack(client_ms, due.number, ack_tick, commands);
        bound_redundancy(&mut input);
        input.event_ack = event_ack;
        input.view_tick = view_tick;
        input.rtt_ms = rtt_ms;
        input.snapshots_lost = self.net.stats.snapshots_lost as u8;
        let held = now
            .saturating_duration_since(self.last_snapshot)
            .as_millis();
        input.ack_hold_ms = u16::try_from(held).unwrap_or(u16::MAX);
        Some(ClientMsg::Input(input))
    }

    /// The most commands that may wait unacknowledged (see [`outage`]).
    pub(crate) fn ahead_limit(&self) -> u32 {
        outage::ahead_limit(
            self.net.stats.rtt_ms / 1000.0,
            self.clock.jitter_secs(),
            self.snapshot_period,
            self.tick_rate,
            MAX_COMMANDS_PER_INPUT as u32,
        )
    }

    /// Seconds since the newest snapshot, once that is long enough to call the link
    /// interrupted (None while snapshots come).
    pub fn interrupted(&self, now: Instant) -> Option<f64> {
        let silent = now
            .saturating_duration_since(self.last_snapshot)
            .as_secs_f64();
        (silent >= outage::interrupted_after(self.snapshot_period)).then_some(silent)
    }

    /// The command the local player's facing is drawn from: the newest one made.
    pub(in crate::client) fn last_command(&self) -> Option<Command> {
        self.pacer.last_command()
    }

    /// The server tick remote players are drawn at now: with dead reckoning, the
    /// estimated present (the newest snapshot's time, half the RTT, the time since it
    /// arrived); else the interpolation delay behind the snapshots' stream.
    pub(crate) fn render_tick(&self, now: Instant) -> Option<f64> {
        let local = self.local_secs(now);
        let secs = if self.switches.extrapolation {
            self.clock
                .present_secs(local, self.net.stats.rtt_ms / 1000.0)?
        } else {
            self.clock.server_secs(local)? - self.interp_delay
        };
        Some(self.timeline.tick_at(secs))
    }

    fn extrapolation_limit_ticks(&self) -> f64 {
        let secs = if let Some(ms) = self.tuning.extrapolation_limit_ms {
            f64::from(ms) / 1000.0
        } else if self.switches.extrapolation {
            f64::from(DEFAULT_EXTRAPOLATION_LIMIT_MS) / 1000.0
        } else {
            MAX_EXTRAPOLATE_SECS
        };
        secs * self.tick_rate
    }

    /// How remote players are brought onto a snapshot that disagrees with where they
    /// were drawn: a setting, for a flag or a dial.
    pub fn set_correction(&mut self, style: CorrectionStyle) {
        self.correction = style;
    }

    pub fn correction(&self) -> CorrectionStyle {
        self.correction
    }

    /// Advances per-frame state (error smoothing) and counts how this frame is drawn.
    pub fn frame(&mut self, now: Instant) {
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
        let (secs, style) = (self.local_secs(now), self.correction);
        self.remote_errors.retain(|e| !e.spent(style, secs));
        if let Some(t) = self.render_tick(now) {
            let sampled = self.switches.remotes_sampled();
            let mode = self
                .buffer
                .mode(t, self.extrapolation_limit_ticks(), sampled);
            self.net.frame(now, mode, sampled);
        }
        if self.interrupted(now).is_some() {
            self.net.lagometer.interrupted(now);
        }
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
        let Some(latest) = &self.latest else {
            return;
        };
        let others = others_of(&latest.players, self.player_id);
        let server =
            find(&latest.players, self.player_id).map(|st| latest.me.body(st, latest.ack_seq));
        if let (Some(p), Some(server)) = (&mut self.prediction, server) {
            let at = Stepping {
                map: &self.map,
                rules: &self.rules,
                me: self.player_id,
                others: &others,
                earlier: self.earlier_rules.as_ref().map(|(s, r)| (*s, r)),
            };
            let _ = p.reconcile(&at, latest.ack_seq, server, Reconcile::Snap);
        }
    }

    /// Where remote player `id` is drawn now, in sub-cell units: interpolated (or dead
    /// reckoned) with those switches on, plus what is left of the last correction's
    /// error; else at its newest snapshot.
    pub fn remote_position(&self, id: PlayerId, now: Instant) -> Option<(f64, f64)> {
        let newest = find(&self.latest.as_ref()?.players, id)?;
        let drawn = self.remote_drawn(id, now).map(|m| m.pos);
        Some(drawn.unwrap_or((f64::from(newest.x), f64::from(newest.y))))
    }

    /// Where and how fast remote player `id` is drawn moving now, when it is drawn from
    /// the buffer (interpolation or dead reckoning on).
    fn remote_drawn(&self, id: PlayerId, now: Instant) -> Option<Motion> {
        self.remote_drawn_at(id, &self.sampling(now))
    }

    /// [`ClientSession::remote_drawn`] at the instant `at` was worked out for.
    fn remote_drawn_at(&self, id: PlayerId, at: &Sampling) -> Option<Motion> {
        let m = self.remote_sampled_at(id, at)?;
        let Some(e) = self.remote_errors.iter().find(|e| e.id == id) else {
            return Some(m);
        };
        let offset = |s| e.offset(self.correction, s, self.tick_rate);
        let (ox, oy) = offset(at.secs);
        // The offset's own rate of change, over a millisecond, per tick.
        let (nx, ny) = offset(at.secs + 0.001);
        let per_tick = 1.0 / (0.001 * self.tick_rate);
        Some(Motion {
            pos: (m.pos.0 + ox, m.pos.1 + oy),
            velocity: (
                m.velocity.0 + (nx - ox) * per_tick,
                m.velocity.1 + (ny - oy) * per_tick,
            ),
            mode: m.mode,
        })
    }

    /// What drawing remote players at `now` needs, worked out once for all of them.
    fn sampling(&self, now: Instant) -> Sampling {
        Sampling {
            render_tick: self
                .switches
                .remotes_sampled()
                .then(|| self.render_tick(now))
                .flatten(),
            secs: self.local_secs(now),
            limit: self.extrapolation_limit_ticks(),
        }
    }

    /// After a new snapshot: each remote player drawn at `before` (where it was drawn
    /// just before the snapshot came) now samples elsewhere; the difference becomes the
    /// error that fades as the correction style says. A big one (a respawn, a teleport)
    /// is taken at once whatever the style, as is one too small to see.
    fn correct_remotes(&mut self, now: Instant, before: &[(PlayerId, Motion)]) {
        let at = self.sampling(now);
        let secs = at.secs;
        let big = f64::from(MAX_BLENDED_CELLS * CELL);
        for &(id, drawn) in before {
            self.remote_errors.retain(|e| e.id != id);
            let Some(new) = self.remote_sampled_at(id, &at) else {
                continue;
            };
            let pos = (drawn.pos.0 - new.pos.0, drawn.pos.1 - new.pos.1);
            let velocity = (
                drawn.velocity.0 - new.velocity.0,
                drawn.velocity.1 - new.velocity.1,
            );
            let size = pos.0.abs().max(pos.1.abs());
            let tiny = size < 0.5 && velocity.0.abs().max(velocity.1.abs()) < 0.05;
            if self.correction == CorrectionStyle::Snap || tiny || size > big {
                continue;
            }
            self.remote_errors.push(RemoteError {
                id,
                since: secs,
                pos,
                velocity,
            });
        }
    }

    /// Where the buffer alone puts remote player `id` at `at` (no correction's error).
    fn remote_sampled_at(&self, id: PlayerId, at: &Sampling) -> Option<Motion> {
        self.buffer.motion(id, at.render_tick?, at.limit)
    }

    /// Which snapshots remote players are drawn from at `now` (None before any).
    pub(crate) fn drawn_from(&self, now: Instant) -> Option<DrawnFrom> {
        let newest = self.buffer.newest()?.tick;
        if !self.switches.remotes_sampled() {
            return Some(DrawnFrom::Newest(newest));
        }
        let t = self.render_tick(now)?;
        self.buffer.drawn_from(t)
    }

    /// The paths of the last few corrections, newest last, with their seconds into the
    /// session.
    pub(crate) fn correction_paths(
        &self,
    ) -> impl DoubleEndedIterator<Item = &(f64, CorrectionPath)> {
        self.net.paths.iter()
    }

    /// The newest run of commands a correction's re-simulation found lost: first seq,
    /// count.
    pub(crate) fn last_lost_commands(&self) -> Option<(u32, u32)> {
        self.net.last_lost
    }

    /// The goodbye to send when quitting.
    pub(crate) fn leave() -> ClientMsg {
        ClientMsg::Leave
    }
}

/// One instant's render tick (None when remote players are not drawn from the buffer,
/// or before the clock is known), session seconds and extrapolation limit: what every
/// remote player drawn at that instant shares.
struct Sampling {
    render_tick: Option<f64>,
    secs: f64,
    limit: f64,
}

pub(in crate::client) fn find(players: &[PlayerSnap], id: PlayerId) -> Option<PlayerState> {
    players.iter().find(|p| p.id == id).map(|p| p.state)
}

pub(in crate::client) fn others_of(players: &[PlayerSnap], me: PlayerId) -> Vec<PlayerState> {
    // Sized at once: a filtered collect grows (and copies) twice for a dozen players.
    let mut others = Vec::with_capacity(players.len());
    others.extend(players.iter().filter(|p| p.id != me).map(|p| p.state));
    others
}

/// An honest command clock's rate (a keyframe does not keep a lab's speed hack).
fn honest() -> f64 {
    1.0
}

pub(in crate::client) fn name_in(roster: &[RosterEntry], id: PlayerId) -> String {
    name_ref(roster, id).into_owned()
}

/// [`name_in`], borrowed from the roster where it has the name.
pub(in crate::client) fn name_ref(roster: &[RosterEntry], id: PlayerId) -> Cow<'_, str> {
    roster.iter().find(|r| r.id == id).map_or_else(
        || Cow::Owned(format!("#{id}")),
        |r| Cow::Borrowed(r.name.as_str()),
    )
}

#[cfg(test)]
impl ClientSession {
    /// A session on the built-in `duel` map for player `id` at 60 Hz, welcomed at `now`
    /// as a server would: the fixture the client's unit tests share.
    pub(crate) fn on_duel(id: PlayerId, now: Instant) -> ClientSession {
        ClientSession::new(duel_welcome(id), now, Switches::default()).expect("duel parses")
    }
}

/// The welcome a server on the built-in `duel` map gives player `id` at 60 Hz, a
/// snapshot every 3 ticks: the fixture the client's and the recorder's tests share.
#[cfg(test)]
pub(crate) fn duel_welcome(id: PlayerId) -> Welcome {
    let map = Map::builtin("duel").expect("built in");
    Welcome {
        player_id: id,
        tick_rate: 60,
        snapshot_interval: 3,
        server_tick: 0,
        server_name: "test".into(),
        map_name: map.name().into(),
        map: crate::net::map_chunks::info(map.text(), 1024),
        map_text: map.text().into(),
    }
}
