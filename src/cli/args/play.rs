//! The flags of the commands that play in a terminal, `host` and `join`: the player,
//! the view and its switches, the theme (`lab` and `replay` take the theme too).

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use netarena::client::netcode::tuning::{REDUNDANCY, Tuning};
use netarena::client::play::input::Bindings;
use netarena::client::shell::headless::BotKind;
use netarena::client::validate::{FPS_CAPS, INPUT_RATES};
use netarena::client::{CorrectionStyle, GhostMode, netcode::session::DEFAULT_INPUT_RATE};
use netarena::ui::Theme;

use super::super::player_name::default_name;
use super::{DiscoveryArgs, InterpDelay, MatchArgs, NetArgs, bounded, interp_delay};

/// What the debug ghost overlay shows (the CLI's names for [`GhostMode`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub(crate) enum Ghosts {
    #[default]
    Off,
    /// Where the newest snapshot puts each player.
    Server,
    /// Server positions plus the snapshot positions still in the interpolation buffer.
    Trail,
}

impl From<Ghosts> for GhostMode {
    fn from(g: Ghosts) -> GhostMode {
        match g {
            Ghosts::Off => GhostMode::Off,
            Ghosts::Server => GhostMode::Server,
            Ghosts::Trail => GhostMode::Trail,
        }
    }
}

/// How remote players are brought onto a snapshot that disagrees with where they were
/// drawn (the CLI's names for [`CorrectionStyle`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub(crate) enum CorrectionArg {
    /// Jump there at once
    Snap,
    /// Close the gap exponentially (60 ms time constant): the speed jumps
    #[default]
    Smooth,
    /// Projective velocity blending over 200 ms: neither position nor speed jumps
    Blend,
}

impl From<CorrectionArg> for CorrectionStyle {
    fn from(c: CorrectionArg) -> CorrectionStyle {
        match c {
            CorrectionArg::Snap => CorrectionStyle::Snap,
            CorrectionArg::Smooth => CorrectionStyle::Smooth,
            CorrectionArg::Blend => CorrectionStyle::Blend,
        }
    }
}

/// The screen's colours (the CLI's names for [`Theme`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub(crate) enum ThemeArg {
    /// Reads on a dark and on a light background alike
    #[default]
    Auto,
    /// Brighter colours, for a dark background
    Dark,
    /// Deeper colours, for a light background
    Light,
    /// No colour: bold, dim, reverse video and underline only
    Mono,
}

impl From<ThemeArg> for Theme {
    fn from(t: ThemeArg) -> Theme {
        match t {
            ThemeArg::Auto => Theme::Auto,
            ThemeArg::Dark => Theme::Dark,
            ThemeArg::Light => Theme::Light,
            ThemeArg::Mono => Theme::Mono,
        }
    }
}

/// `--theme`, for every command that draws a game screen.
#[derive(Args, Clone, Copy)]
pub(crate) struct ThemeArgs {
    /// Colours for the screen (NO_COLOR in the environment means mono, whatever this says)
    #[arg(long, value_enum, default_value_t = ThemeArg::Auto)]
    pub(crate) theme: ThemeArg,
}

impl ThemeArgs {
    /// The theme to draw with: `mono` when `NO_COLOR` is set (and not empty).
    pub(crate) fn resolve(self) -> Theme {
        with_no_color(self.theme, std::env::var_os("NO_COLOR"))
    }
}

/// `theme`, or `mono` if `no_color` (the variable's value) is set and not empty. Under
/// NO_COLOR crossterm sends `ESC[;m` for each change of colour, and terminals read that
/// as a reset of every attribute: the reverse-video `@`, bold and underline were lost
/// with the colours. `mono` changes no colour, so its attributes reach the screen.
pub(super) fn with_no_color(theme: ThemeArg, no_color: Option<std::ffi::OsString>) -> Theme {
    match no_color {
        Some(v) if !v.is_empty() => Theme::Mono,
        _ => theme.into(),
    }
}

#[derive(Args, Clone)]
pub(crate) struct ViewArgs {
    /// Start with client-side prediction off (the local player waits for the server)
    #[arg(long)]
    pub(crate) no_prediction: bool,
    /// Start with reconciliation off (prediction errors are never corrected)
    #[arg(long)]
    pub(crate) no_reconciliation: bool,
    /// Start with interpolation off (remote players jump to each snapshot)
    #[arg(long)]
    pub(crate) no_interpolation: bool,
    /// Start with dead reckoning of remote players (to the estimated present: their newest
    /// snapshot plus half the round trip and the time since) instead of interpolation
    #[arg(long)]
    pub(crate) extrapolate: bool,
    /// Start with correction smoothing off (corrections snap)
    #[arg(long)]
    pub(crate) no_smoothing: bool,
    /// How remote players drawn ahead of their snapshots (dead reckoning, or a late
    /// one) are brought onto a newer snapshot that disagrees
    #[arg(long, value_enum, default_value_t = CorrectionArg::Smooth)]
    pub(crate) correction: CorrectionArg,
    /// Debug ghosts: where the server says each player is
    #[arg(long, value_enum, default_value_t = Ghosts::Off)]
    pub(crate) ghosts: Ghosts,
    /// Cap the frame rate (default: uncapped)
    #[arg(long, value_name = "N", value_parser = bounded(FPS_CAPS, " frames per second"))]
    pub(crate) fps_cap: Option<u32>,
    /// Input packets per second while keys stay the same (a change is sent at once)
    #[arg(long, default_value_t = DEFAULT_INPUT_RATE, value_parser = bounded(INPUT_RATES, " per second"))]
    pub(crate) input_rate: u16,
    /// How far behind the server others are drawn: auto (two snapshot periods plus
    /// jitter, more under loss) or this many snapshot periods (0.5 to 10)
    #[arg(long, default_value = "auto", value_name = "auto|RATIO", value_parser = interp_delay)]
    pub(crate) interp_delay: InterpDelay,
    /// How many input packets carry each command, 1 to 64 (a packet always carries the
    /// commands no packet has carried yet)
    #[arg(long, default_value_t = Tuning::default().redundancy, value_parser = bounded(REDUNDANCY, " copies"))]
    pub(crate) redundancy: u8,
    #[command(flatten)]
    pub(crate) theme: ThemeArgs,
    /// Testing aid: panic on this thread a second after start
    #[arg(long, hide = true, value_enum)]
    pub(crate) debug_panic: Option<PanicSite>,
    /// Which key does what: the config file's `[keys]` (no flag sets it).
    #[arg(skip)]
    pub(crate) keys: Bindings,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum PanicSite {
    Client,
    Server,
}

/// What host and join share: who plays, how the session is kept, the view, the
/// simulated network and the log.
#[derive(Args)]
pub(crate) struct PlayerArgs {
    /// Your player name (default: $USER, $USERNAME or $LOGNAME, else this machine's name,
    /// else player-NNNN); a name already in the game gets -2, -3, ...
    #[arg(long, default_value_t = default_name(), hide_default_value = true)]
    pub(crate) name: String,
    /// Record the session to this file, for `netarena replay` (without it, F8 saves)
    #[arg(long, value_name = "FILE")]
    pub(crate) record: Option<PathBuf>,
    /// Write a JSON report of the session here at exit (played or headless: the same
    /// fields)
    #[arg(long, value_name = "FILE")]
    pub(crate) report: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) view: ViewArgs,
    #[command(flatten)]
    pub(crate) net: NetArgs,
    /// Write logs to this file (the screen belongs to the game)
    #[arg(long, value_name = "FILE")]
    pub(crate) log: Option<PathBuf>,
}

#[derive(Args)]
pub(crate) struct HostArgs {
    #[command(flatten)]
    pub(crate) game: MatchArgs,
    /// Server name shown to players browsing the LAN (default: "NAME's game")
    #[arg(long)]
    pub(crate) server_name: Option<String>,
    /// Do not answer LAN discovery (join by address only)
    #[arg(long)]
    pub(crate) no_discovery: bool,
    #[command(flatten)]
    pub(crate) player: PlayerArgs,
}

#[derive(Args)]
pub(crate) struct JoinArgs {
    /// Server address, HOST or HOST:PORT (default port 7777); omit to browse the LAN
    #[arg(required_if_eq("headless", "true"))]
    pub(crate) address: Option<String>,
    #[command(flatten)]
    pub(crate) discovery: DiscoveryArgs,
    /// Run without a terminal, driven by a bot (for tests, load tests and benchmarks)
    #[arg(long)]
    pub(crate) headless: bool,
    /// Headless only: what drives the keys
    #[arg(long, value_enum, default_value_t = BotArg::Wander, requires = "headless")]
    pub(crate) bot: BotArg,
    /// Headless only: how long to play, in seconds
    #[arg(long, default_value_t = 10.0, requires = "headless")]
    pub(crate) seconds: f64,
    #[command(flatten)]
    pub(crate) player: PlayerArgs,
}

/// What drives a headless client's keys (the CLI's names for [`BotKind`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum BotArg {
    /// Wanders the map, turning when blocked.
    Wander,
    /// Wanders, fires both weapons and switches between them.
    Fighter,
    /// A newcomer stand-in: reads help for 8 s, then fights what it sees (90 ms reactions)
    Reflex,
    /// Holds no keys.
    Idle,
}

impl From<BotArg> for BotKind {
    fn from(b: BotArg) -> BotKind {
        match b {
            BotArg::Wander => BotKind::Wander,
            BotArg::Fighter => BotKind::Fighter,
            BotArg::Reflex => BotKind::Reflex,
            BotArg::Idle => BotKind::Idle,
        }
    }
}
