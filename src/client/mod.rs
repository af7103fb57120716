//! The client, in rooms that follow the loop. `netcode` is the session: a state
//! machine that takes in messages and instants, predicts, interpolates and counts, and
//! owns no socket and reads no clock. `play` is the player's side: keys become
//! actions, actions change the player's state (or a `play::brain` plays instead).
//! `shell` holds the thin I/O front ends (`shell::interactive` for a terminal,
//! `shell::headless` for tests and benchmarks) and what they own: the socket, the
//! terminal, the server browser. `view` turns a frame's state into what the UI draws.
//!
//! Here at the top, beside the config: the one loop body that joins them
//! (`driver::Driver`: a `netcode::session::ClientSession`, a `play::app::App` and a
//! `netcode::cadence::CommandClock`), the `tap` a recorder listens on, the
//! `keyframe` a replay starts from, and `validate`.

pub mod dials;
pub mod driver;
pub(crate) mod explain;
mod keyframe;
pub mod known_servers;
pub mod netcode;
pub mod play;
pub mod shell;
pub mod tap;
pub mod validate;
mod view;

use std::net::SocketAddr;
use std::time::Duration;

use crate::net::conditioner::Conditions;
use play::input::Action;

/// The netcode techniques a player can switch on and off to see what each one does.
/// The session holds the ones in force ([`netcode::session::ClientSession::switches`]); a
/// key (or a replay's what-if) names a [`Switch`] and [`Switches::toggled`] says what
/// flipping it makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Switches {
    /// Draw the local player where our own simulation of our commands puts it (on), or
    /// where the server last said it was (off: a "dumb terminal").
    pub prediction: bool,
    /// Correct the prediction when the server disagrees (off: drift and stay wrong).
    pub reconciliation: bool,
    /// Draw remote players between buffered snapshots (off: jump to each newest one).
    pub interpolation: bool,
    /// Dead reckoning: project remote players along their last velocity to the estimated
    /// present (the newest snapshot's time, half the RTT, the time since it arrived)
    /// instead of drawing them in the past.
    pub extrapolation: bool,
    /// Hide small corrections by letting the visual error decay (off: snap).
    pub smoothing: bool,
    pub ghosts: GhostMode,
}

/// One of the [`Switches`], as a key names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Switch {
    Prediction,
    Reconciliation,
    Interpolation,
    Extrapolation,
    Smoothing,
    /// Not on and off: off, the server's, the server's with a trail, in turn.
    Ghosts,
}

impl Switch {
    /// The switch a game action flips, if it flips one: the one mapping the game's keys,
    /// the lab's and the replay's what-if go through.
    pub fn of(action: Action) -> Option<Switch> {
        Some(match action {
            Action::TogglePrediction => Switch::Prediction,
            Action::ToggleReconciliation => Switch::Reconciliation,
            Action::ToggleInterpolation => Switch::Interpolation,
            Action::ToggleExtrapolation => Switch::Extrapolation,
            Action::ToggleSmoothing => Switch::Smoothing,
            Action::CycleGhosts => Switch::Ghosts,
            _ => return None,
        })
    }
}

impl Switches {
    /// Reconciliation corrects a prediction: without prediction there is none. The one
    /// place that rule is kept; every change of switches goes through it.
    pub(crate) fn normalized(self) -> Switches {
        Switches {
            reconciliation: self.reconciliation && self.prediction,
            ..self
        }
    }

    /// These switches with `which` flipped (the ghosts to their next mode), by the
    /// rule: prediction takes reconciliation with it, on or off, and reconciliation
    /// cannot go on without prediction.
    pub fn toggled(self, which: Switch) -> Switches {
        let mut s = self;
        match which {
            Switch::Prediction => {
                s.prediction = !s.prediction;
                s.reconciliation = s.prediction;
            }
            Switch::Reconciliation => s.reconciliation = !s.reconciliation,
            Switch::Interpolation => s.interpolation = !s.interpolation,
            Switch::Extrapolation => s.extrapolation = !s.extrapolation,
            Switch::Smoothing => s.smoothing = !s.smoothing,
            Switch::Ghosts => s.ghosts = s.ghosts.next(),
        }
        s.normalized()
    }

    /// Whether remote players are drawn from the snapshot buffer (interpolated, or dead
    /// reckoned), not where their newest snapshot has them.
    pub(crate) fn remotes_sampled(self) -> bool {
        self.interpolation || self.extrapolation
    }
}

impl Default for Switches {
    fn default() -> Switches {
        Switches {
            prediction: true,
            reconciliation: true,
            interpolation: true,
            extrapolation: false,
            smoothing: true,
            ghosts: GhostMode::Off,
        }
    }
}

/// How a remote player drawn ahead of its snapshots (dead reckoning, or a buffer run
/// dry) is brought onto a newer snapshot's word when that disagrees with what was
/// drawn: article 2's three ways to correct. The default is `Smooth`: on the `bad`
/// link, watching a walker that turns every 150 ms, it never jumps and is drawn closest
/// to the server's position of the two that never jump (1.15 cells on average; blend
/// 1.29, snap 1.09 with 248 jumps in 20 s), though blend's speed changes less abruptly.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum CorrectionStyle {
    /// Jump to the new position at once.
    Snap,
    /// Close the gap exponentially (60 ms time constant): no jump in position, but the
    /// speed jumps.
    #[default]
    Smooth,
    /// Projective velocity blending: over 200 ms, the old velocity blends into the new
    /// and the old path's projection into the new path's; neither position nor speed
    /// jumps.
    Blend,
}

impl CorrectionStyle {
    /// The style's name, as the `--correction` flag spells it.
    pub fn name(self) -> &'static str {
        match self {
            CorrectionStyle::Snap => "snap",
            CorrectionStyle::Smooth => "smooth",
            CorrectionStyle::Blend => "blend",
        }
    }
}

/// What the debug ghost overlay shows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum GhostMode {
    #[default]
    Off,
    /// Where the newest snapshot puts each player.
    Server,
    /// Server positions plus the snapshot positions still in the interpolation buffer.
    Trail,
}

impl GhostMode {
    pub(crate) fn server(self) -> bool {
        self != GhostMode::Off
    }

    pub(crate) fn trail(self) -> bool {
        self == GhostMode::Trail
    }

    pub(crate) fn next(self) -> GhostMode {
        match self {
            GhostMode::Off => GhostMode::Server,
            GhostMode::Server => GhostMode::Trail,
            GhostMode::Trail => GhostMode::Off,
        }
    }
}

/// Everything a client needs to know to join, built from the command line in one place.
#[derive(Clone, Debug)]
pub struct ClientConfig {
    pub server: SocketAddr,
    pub name: String,
    pub switches: Switches,
    /// Simulated conditions on datagrams we send, and on those we receive.
    pub outgoing: Conditions,
    pub incoming: Conditions,
    /// Frame rate cap; None renders as fast as the terminal takes frames.
    pub fps_cap: Option<u32>,
    /// Give up joining, or declare the server gone, after this much silence.
    pub timeout: Duration,
    pub seed: u64,
    /// The player's own dials: input rate, interpolation delay, redundancy,
    /// extrapolation bound.
    pub tuning: netcode::tuning::Tuning,
    /// How remote players are brought onto a snapshot that disagrees with where they
    /// were drawn ahead of it.
    pub correction: CorrectionStyle,
    /// Testing aid: panic this long after joining (proves the terminal is restored).
    pub debug_panic_after: Option<Duration>,
    /// The screen's colours.
    pub theme: crate::ui::Theme,
    /// Which key does what (the config file's `[keys]` over the defaults).
    pub keys: play::input::Bindings,
    /// Lines shown (where chat goes) while nobody else is in the game: `host` says how
    /// to add bots and how friends join.
    pub alone: Vec<String>,
    /// Which server keys the join accepts (`join` pins them in the known-servers file).
    pub pin: known_servers::ServerPin,
    /// A file the session keys are appended to, one session a line (the two keys in
    /// hex), for a relay that reads the traffic ([`crate::net::codec::KeyLog`]): the
    /// tests' and the benchmark's, from `NETARENA_KEYLOG`. Never otherwise.
    pub key_log: Option<std::path::PathBuf>,
}

impl ClientConfig {
    pub fn new(server: SocketAddr, name: &str) -> ClientConfig {
        ClientConfig {
            server,
            name: name.to_owned(),
            switches: Switches::default(),
            outgoing: Conditions::default(),
            incoming: Conditions::default(),
            fps_cap: None,
            timeout: Duration::from_secs(5),
            seed: 7,
            tuning: netcode::tuning::Tuning::default(),
            correction: CorrectionStyle::default(),
            debug_panic_after: None,
            theme: crate::ui::Theme::Auto,
            keys: play::input::Bindings::default(),
            alone: Vec::new(),
            pin: known_servers::ServerPin::Any,
            key_log: None,
        }
    }
}
