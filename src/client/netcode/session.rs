//! One client's netcode: prediction of the local player, the snapshot buffer that
//! remote players are interpolated from, and the server clock. Messages are taken in by
//! `intake` (`intake.rs`, a part of this impl, as are `drawing.rs`, `timing.rs` and
//! `reads.rs`: the fields are private to these files). The session owns named parts
//! (`session_parts.rs`): its timing, its own player, the remote players and the event
//! feed. The counts go to `super::net_stats` and what a frame shows is built by `view`
//! through the read methods. The netcode switches are kept here and
//! nowhere else: keys and a replay's what-if change them through
//! [`ClientSession::set_switches`].
//!
//! A state machine fed with decoded server messages, command ticks and frames, each with
//! the time it happened; it owns no socket and reads no clock, so tests can step it
//! against a [`crate::server::Server`] with any latency they like.

use std::borrow::Cow;
use std::time::Instant;

#[path = "drawing.rs"]
mod drawing;
#[path = "intake.rs"]
mod intake;
#[path = "session_parts.rs"]
mod parts;
#[path = "reads.rs"]
mod reads;
#[path = "timing.rs"]
mod timing;

use super::cadence::FrameClock;
use super::causes::Cause;
use super::clock::{RecentLoss, ServerClock, Timeline, interp_delay_target};
use super::combat::Combat;
pub(crate) use super::interpolation::DrawnFrom;
use super::interpolation::{BufferedSnapshot, RemoteError, SnapshotBuffer};
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
use crate::net::{codec, safe_text, wire_bytes};
use crate::sim::map::{Map, MapError};
use crate::sim::step::Rulebook;
use crate::sim::world::{Command, PlayerId, PlayerState};
use parts::{Feed, OwnPlayer, Remotes, Timing};

/// With dead reckoning (the `extrapolation` switch) remote players are projected to the
/// estimated present, half a round trip and the time since past the newest snapshot, up
/// to this far by default: on the `bad` profile's 300 ms round trip that is 150 ms, and
/// up to a snapshot period and the jitter more before the next one arrives.
pub const DEFAULT_EXTRAPOLATION_LIMIT_MS: u16 = 300;

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
    /// The server's count of our placements, from the newest snapshot.
    placed: Option<u8>,
    server_name: String,
    #[serde(with = "crate::net::instants")]
    start: Instant,
    timing: Timing,
    own: OwnPlayer,
    remotes: Remotes,
    feed: Feed,
    #[serde(with = "crate::net::instants")]
    last_frame: Option<Instant>,
    #[serde(with = "crate::net::instants")]
    last_heard: Instant,
    switches: Switches,
    net: NetStats,
    /// A new map's text arrives in chunks among the events, before its match start.
    map_chunks: MapAssembler,
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
            placed: None,
            server_name: safe_text::safe(&welcome.server_name).into_owned(),
            start: now,
            timing: Timing {
                tick_rate,
                timeline: Timeline::new(tick_rate),
                earlier_rules: None,
                snapshot_interval,
                snapshot_period,
                clock: ServerClock::default(),
                welcome_tick: welcome.server_tick,
                last_snapshot: now,
            },
            own: OwnPlayer {
                prediction: None,
                last_correction: None,
                draining: false,
                hurrying: false,
                resync: Resync::default(),
                pacer: InputPacer::new(welcome.tick_rate, DEFAULT_INPUT_RATE),
                tuning: Tuning::default(),
                correction_loop: false,
                clock_rate: 1.0,
                frames: None,
            },
            remotes: Remotes {
                buffer: SnapshotBuffer::default(),
                latest: None,
                roster: Vec::new(),
                interp_delay: interp_delay_target(snapshot_period, 0.0, 0.0),
                recent_loss: RecentLoss::default(),
                recent_withheld: RecentLoss::default(),
                correction: CorrectionStyle::default(),
                remote_errors: Vec::new(),
                roster_pages: RosterPages::default(),
                unseen: false,
            },
            feed: Feed {
                next_event: 1,
                combat: Combat::default(),
                match_log: MatchLog::default(),
                tell: Tell::default(),
            },
            last_frame: None,
            last_heard: now,
            switches: switches.normalized(),
            net: NetStats::default(),
            map_chunks: MapAssembler::default(),
        })
    }

    /// The session runs over a real network, whose uplink is not known (see
    /// [`super::pacer::InputPacer::real_network`]).
    pub(crate) fn real_network(&mut self) {
        self.own.pacer.real_network();
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
        self.own.correction_loop = on;
    }

    /// Whether the correction-loop bug is on (see [`Self::set_correction_loop`]).
    pub(crate) fn correction_loop(&self) -> bool {
        self.own.correction_loop
    }

    /// Marks this session as one nobody sees (the lab's walkers): it takes in
    /// snapshots without the work only its view and figures need.
    pub(crate) fn set_unseen(&mut self) {
        self.remotes.unseen = true;
    }

    pub fn set_tuning(&mut self, tuning: Tuning) {
        self.own.tuning = tuning.bounded();
        self.own
            .pacer
            .set_rate(self.timing.tick_rate as u16, self.own.tuning.input_rate);
    }

    /// The player's own dials in force.
    pub fn tuning(&self) -> Tuning {
        self.own.tuning
    }

    pub(in crate::client) fn name_of(&self, id: PlayerId) -> String {
        name_in(&self.remotes.roster, id)
    }

    /// A rail shot's lag compensation verdict in one line, named by this session's
    /// roster; `saw` is where the target's own client predicted itself at the shot
    /// (see [`super::combat::verdict_text`]).
    pub(crate) fn rail_verdict(&self, shot: &RailShot, saw: Option<PlayerState>) -> String {
        super::combat::verdict_text(shot, self.timing.tick_rate, |id| self.name_of(id), saw)
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
        self.command_tick_span(now, cmd, 0)
    }

    /// [`ClientSession::command_tick`] for a command lasting `span` sixteenths of a tick
    /// (0: one fixed tick): the variable-rate client's, one a frame
    /// ([`ClientSession::take_frames`]).
    pub(crate) fn command_tick_span(
        &mut self,
        now: Instant,
        cmd: Command,
        span: u8,
    ) -> Option<ClientMsg> {
        let others = self
            .remotes
            .latest
            .as_ref()
            .map(|s| others_of(&s.players, self.player_id))
            .unwrap_or_default();
        let ack_tick = self.latest_tick().unwrap_or(0);
        let client_ms = self.local_ms(now).max(1);
        let view_tick = self
            .render_tick(now)
            .map_or(0, |t| t.round().max(0.0) as u32);
        let event_ack = self.feed.next_event - 1;
        let rtt_ms = self.net.stats.rtt_ms.round().clamp(0.0, 65535.0) as u16;
        let limit = self.ahead_limit();
        let p = self.own.prediction.as_mut()?;
        // A speed hack does not give back the commands the server holds for it.
        let honest = self.own.clock_rate == 1.0;
        let due = if honest && self.own.resync.take_skip() {
            self.net.command_skipped();
            self.own.pacer.resend_due()
        } else if p.pending() >= limit {
            self.net.command_held();
            self.own.pacer.resend_due()
        } else {
            let at = Stepping {
                map: &self.map,
                rules: &self.rules,
                me: self.player_id,
                others: &others,
                earlier: self.timing.earlier_rules.as_ref().map(|(s, r)| (*s, r)),
            };
            let (seq, shot) = p.push_span(&at, cmd, span);
            if let Some(shot) = shot {
                self.feed.tell.flash(now, shot.aim);
                let rules = &self.rules.combat;
                self.feed
                    .combat
                    .predict(now, self.player_id, seq, shot, &self.map, rules);
            }
            self.net.command_sent();
            self.own.pacer.due(cmd)
        }?;
        // With nothing unacknowledged (a skipped slot) the newest command goes again: the
        // server takes it as a duplicate, and hears from us.
        let commands: Vec<_> = if p.pending() == 0 {
            p.newest_timed().into_iter().collect()
        } else {
            let window = due.window(self.own.tuning.redundancy);
            p.unacked_timed(window.min(MAX_COMMANDS_PER_INPUT))
                .collect()
        };
        if commands.is_empty() {
            return None;
        }
        let mut input = InputPacket::pack_timed(client_ms, due.number, ack_tick, commands);
        bound_redundancy(&mut input);
        input.event_ack = event_ack;
        input.view_tick = view_tick;
        input.rtt_ms = rtt_ms;
        input.snapshots_lost = self.net.stats.snapshots_lost as u8;
        let held = now
            .saturating_duration_since(self.timing.last_snapshot)
            .as_millis();
        input.ack_hold_ms = u16::try_from(held).unwrap_or(u16::MAX);
        let msg = ClientMsg::Input(input);
        // The budget counts the packet sealed, as an IPv4 datagram: its cuts come from
        // packets counted alike, so the family changes little.
        let ipv4 = std::net::IpAddr::V4(std::net::Ipv4Addr::UNSPECIFIED);
        self.own
            .pacer
            .sent(wire_bytes::on_wire(codec::sealed_client_len(&msg), ipv4));
        Some(msg)
    }

    /// The command the local player's facing is drawn from: the newest one made.
    pub(in crate::client) fn last_command(&self) -> Option<Command> {
        self.own.pacer.last_command()
    }

    /// How remote players are brought onto a snapshot that disagrees with where they
    /// were drawn: a setting, for a flag or a dial.
    pub fn set_correction(&mut self, style: CorrectionStyle) {
        self.remotes.correction = style;
    }

    pub fn correction(&self) -> CorrectionStyle {
        self.remotes.correction
    }

    /// Advances per-frame state (error smoothing) and counts how this frame is drawn.
    pub fn frame(&mut self, now: Instant) {
        let dt = self
            .last_frame
            .map_or(0.0, |t| now.saturating_duration_since(t).as_secs_f64());
        self.last_frame = Some(now);
        self.feed.combat.prune(now, self.render_tick(now));
        self.feed.match_log.prune(now);
        if let Some(p) = &mut self.own.prediction {
            p.decay(if self.switches.smoothing {
                dt
            } else {
                f64::INFINITY
            });
        }
        let (secs, style) = (self.local_secs(now), self.remotes.correction);
        self.remotes.remote_errors.retain(|e| !e.spent(style, secs));
        if let Some(t) = self.render_tick(now) {
            let sampled = self.switches.remotes_sampled();
            let mode = self
                .remotes
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
        let Some(latest) = &self.remotes.latest else {
            return;
        };
        let others = others_of(&latest.players, self.player_id);
        let server = find(&latest.players, self.player_id)
            .map(|st| latest.header.me.body(st, latest.header.ack_seq));
        if let (Some(p), Some(server)) = (&mut self.own.prediction, server) {
            let at = Stepping {
                map: &self.map,
                rules: &self.rules,
                me: self.player_id,
                others: &others,
                earlier: self.timing.earlier_rules.as_ref().map(|(s, r)| (*s, r)),
            };
            let _ = p.reconcile(&at, latest.header.ack_seq, server, Reconcile::Snap);
        }
    }

    /// The goodbye to send when quitting.
    pub(crate) fn leave() -> ClientMsg {
        ClientMsg::Leave
    }
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
