//! The parts a [`ClientSession`](super::ClientSession) is made of, as naia's connection
//! owns its sequence buffer, ack manager and ping manager: its timing, its own player,
//! the remote players and the event feed. Their fields are the session's (its impl
//! files reach into them); each part is serialized in a keyframe in this order.

use std::time::Instant;

use super::*;

/// The session's clocks: the tick and snapshot rates it keeps to, the rules for ticks before a change, and the server clock.
#[derive(Clone, serde::Serialize, serde::Deserialize)]
pub(super) struct Timing {
    pub(super) tick_rate: f64,
    /// The server's ticks as seconds, across its tick-rate changes.
    pub(super) timeline: Timeline,
    /// After a tick-rate change: our first command the server applied by the new rules,
    /// and the rules it applied the ones before by.
    pub(super) earlier_rules: Option<(u32, Rulebook)>,
    /// Ticks between snapshots, as the server said exactly.
    pub(super) snapshot_interval: u32,
    pub(super) snapshot_period: f64,
    pub(super) clock: ServerClock,
    /// The server's tick in the welcome: what the first snapshot's tick is widened
    /// against (see [`crate::net::widen`]).
    pub(super) welcome_tick: u32,
    /// When the newest snapshot arrived (the session's start before any).
    #[serde(with = "crate::net::instants")]
    pub(super) last_snapshot: Instant,
}

/// The local player: its prediction, the pacer that sends its commands, and how its commands are held back or hurried.
#[derive(Clone, serde::Serialize, serde::Deserialize)]
pub(super) struct OwnPlayer {
    pub(super) prediction: Option<Prediction>,
    pub(super) pacer: InputPacer,
    /// Command slots to skip so a backlog on the server drains at once.
    pub(super) resync: Resync,
    /// Slowing the command clock to drain a backlog on the server (see
    /// [`ClientSession::command_period_scale`]).
    pub(super) draining: bool,
    /// Quickening it to refill the server's jitter buffer, which runs below half its
    /// depth.
    pub(super) hurrying: bool,
    /// The player's own dials (see [`Tuning`]).
    pub(super) tuning: Tuning,
    #[serde(with = "crate::net::instants")]
    pub(super) last_correction: Option<(Instant, Correction)>,
    /// The correction-loop bug back on, for the lab to set beside its fix
    /// ([`ClientSession::set_correction_loop`]); never on in the game, and not kept in a
    /// keyframe.
    #[serde(skip)]
    pub(super) correction_loop: bool,
    /// A speed hack: the command clock runs this much faster than the server's ticks
    /// (1.0: honest). Only the lab sets it, for a lesson to show what stops it; not
    /// kept in a keyframe.
    #[serde(skip, default = "honest")]
    pub(super) clock_rate: f64,
    /// The variable-rate client (the lab's `command rate` dial): a command a frame, each
    /// lasting its frame, instead of one a tick (None). Lab only; not kept in a keyframe.
    #[serde(skip)]
    pub(super) frames: Option<FrameClock>,
}

/// Remote players: the snapshot buffer they are drawn from, its delay, the recent loss it sizes against, the roster, and their corrections.
#[derive(Clone, serde::Serialize, serde::Deserialize)]
pub(super) struct Remotes {
    pub(super) buffer: SnapshotBuffer,
    pub(super) interp_delay: f64,
    /// The recent snapshot loss the interpolation delay is sized for.
    pub(super) recent_loss: RecentLoss,
    /// The recent share of snapshot slots the server held back for our link's rate (the
    /// same moving average as loss): the period snapshots really come at grows with it.
    pub(super) recent_withheld: RecentLoss,
    /// The newest snapshot received (by tick).
    pub(super) latest: Option<Snapshot>,
    pub(super) roster: Vec<RosterEntry>,
    /// The roster arrives in pages that together make one.
    pub(super) roster_pages: RosterPages,
    /// What the newest snapshots found wrong with where remote players were drawn,
    /// fading as the correction style says (one per player at most).
    pub(super) remote_errors: Vec<RemoteError>,
    /// How remote players are brought onto a snapshot that disagrees with where they
    /// were drawn ([`ClientSession::set_correction`]).
    pub(super) correction: CorrectionStyle,
    /// Nobody sees this session's view or figures (the lab's walkers): remote players
    /// are not corrected, nor their distances or the snapshots' full sizes kept.
    /// Nothing the session sends depends on those.
    #[serde(skip)]
    pub(super) unseen: bool,
}

/// The event feed: the next event expected, and what the events build (combat, the match log, the tells).
#[derive(Clone, serde::Serialize, serde::Deserialize)]
pub(super) struct Feed {
    /// The next reliable game event expected; events arrive resent, in seq order.
    pub(super) next_event: u32,
    pub(super) combat: Combat,
    pub(super) match_log: MatchLog,
    pub(super) tell: Tell,
}
