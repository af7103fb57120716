//! The client: thin I/O shells ([`interactive`] for a terminal, [`headless`] for tests
//! and benchmarks) around one `driver::Driver`: the netcode in a
//! [`session::ClientSession`], the player's state in an [`app::App`], and commands made
//! on a [`cadence::CommandClock`]. `view` turns them into what the UI draws.

pub mod app;
pub mod brain;
pub mod cadence;
pub(crate) mod causes;
mod clock;
pub mod combat;
pub mod discovery;
pub mod driver;
pub(crate) mod explain;
mod frames;
pub mod headless;
pub mod input;
pub mod interactive;
mod interpolation;
pub mod join_screen;
mod keyframe;
mod lagometer;
mod link;
pub(crate) mod match_log;
pub(crate) mod net_stats;
mod outage;
mod pacer;
mod prediction;
mod pump;
mod rates;
mod rejoin;
pub mod session;
pub(crate) mod shell;
pub mod tap;
mod tell;
pub mod terminal;
pub mod validate;
mod view;

use std::net::SocketAddr;
use std::time::Duration;

use crate::net::conditioner::Conditions;
use input::Action;

/// The netcode techniques a player can switch on and off to see what each one does.
/// The session holds the ones in force ([`session::ClientSession::switches`]); a key
/// (or a replay's what-if) names a [`Switch`] and [`Switches::toggled`] says what
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
    /// Dead reckoning: project remote players to the present along their last velocity
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
    /// Input packets per second while the buttons stay the same.
    pub input_rate: u16,
    /// Testing aid: panic this long after joining (proves the terminal is restored).
    pub debug_panic_after: Option<Duration>,
    /// The screen's colours.
    pub theme: crate::ui::Theme,
    /// Which key does what (the config file's `[keys]` over the defaults).
    pub keys: input::Bindings,
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
            input_rate: session::DEFAULT_INPUT_RATE,
            debug_panic_after: None,
            theme: crate::ui::Theme::Auto,
            keys: input::Bindings::default(),
        }
    }
}
