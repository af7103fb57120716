//! The flags of `netarena lab` (what they make is in `cli/lab.rs`).

use std::path::PathBuf;

use clap::Args;

use super::play::CorrectionArg;
use super::{InterpDelay, ThemeArgs, bounded, interp_delay};
use netarena::client::netcode::session::DEFAULT_INPUT_RATE;
use netarena::client::netcode::tuning::{EXTRAPOLATION_LIMITS_MS, REDUNDANCY, Tuning};
use netarena::net::conditioner::JitterMode;
use netarena::server::InputBuffer;
use netarena::server::config::{MAX_REWINDS_MS, defaults};

#[derive(Args)]
pub(crate) struct LabArgs {
    /// Client sessions to run, each with its own view and network (1 to 4)
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u8).range(1..=4))]
    pub(crate) clients: u8,
    /// Network profile of each client in turn (off, lan, wifi, mobile, bad), or UP/DOWN
    /// for a link that differs each way (lan/bad: commands over a LAN, snapshots over a
    /// bad path), each name maybe with its jitter mode (bad:independent); clients not
    /// named get bad, lan, wifi, mobile by position
    #[arg(long, value_delimiter = ',', value_name = "A,B")]
    pub(crate) profiles: Vec<String>,
    /// How every client's link jitters where its profile does not say: ordered (the
    /// delay wanders, datagrams stay in order) or independent (each datagram its own
    /// delay, so they overtake one another, as netem does)
    #[arg(long, value_name = "ordered|independent", value_parser = jitter_mode)]
    pub(crate) jitter_mode: Option<JitterMode>,
    /// Built-in map name (arena, duel, warehouse, catacombs) or a path to a map file
    #[arg(long, default_value = "duel")]
    pub(crate) map: String,
    /// Server-side bot players that hunt and shoot
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u16).range(0..=32))]
    pub(crate) bots: u16,
    /// Players that walk about but never shoot (so a teacher can talk undisturbed)
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u16).range(0..=16))]
    pub(crate) walkers: u16,
    /// How the server applies each client's commands: adaptive (a jitter buffer as deep
    /// as the measured arrival jitter needs: one a tick, so others see you move evenly),
    /// N (a jitter buffer: one a tick once N ticks' worth wait), credit (as they come,
    /// catching up to 6 a tick)
    #[arg(long, default_value_t = InputBuffer::default(), value_name = "credit|N|adaptive")]
    pub(crate) input_buffer: InputBuffer,
    /// Bot skill, 1 (slow and sloppy) to 5 (quick and precise)
    #[arg(long, default_value_t = defaults::BOT_SKILL, value_parser = clap::value_parser!(u8).range(1..=5))]
    pub(crate) bot_skill: u8,
    /// Seed for bots and simulated networks: the same seed, the same run
    #[arg(long, default_value_t = defaults::SEED)]
    pub(crate) seed: u64,
    /// Cap the frame rate (0: draw as fast as the terminal takes frames)
    #[arg(long, default_value_t = 60, value_name = "N")]
    pub(crate) fps_cap: u32,
    /// No terminal: every client played by a bot, as fast as the machine allows
    #[arg(long)]
    pub(crate) headless: bool,
    /// Virtual seconds to run, with --headless
    #[arg(long, default_value_t = 10.0, requires = "headless")]
    pub(crate) seconds: f64,
    /// Write the report (every client's, and the server's figures) here: at the end of
    /// --headless, or when you quit
    #[arg(long, visible_alias = "out", value_name = "FILE.json")]
    pub(crate) report: Option<PathBuf>,
    /// An A/B run: two labs from one seed, the same keys and bots driving both, lab B
    /// with KEY set to VALUE (a dial: snapshot-rate=10, input-buffer=4, interp-delay=3,
    /// lag-compensation=off...; a switch: prediction=off, interpolation=off...;
    /// tick-rate=30; or correction-loop=on, the movement-corrections article's bug back
    /// in lab B's clients). Side by side in the terminal; headless, both reports and
    /// their differences
    #[arg(long, value_name = "KEY=VALUE")]
    pub(crate) compare: Option<String>,
    /// Record the whole lab to FILE (server, every client, the wire; `netarena replay
    /// FILE` shows it all again) and each client to FILE with its number before the
    /// extension (lab.narec: lab-1.narec, lab-2.narec, ...)
    #[arg(long, value_name = "FILE")]
    pub(crate) record: Option<PathBuf>,
    /// Simulation ticks per second at the start (the tick-rate dial changes it live)
    #[arg(long, default_value_t = defaults::TICK_RATE, value_parser = bounded(netarena::lab::TICK_RATES, " per second"))]
    pub(crate) tick_rate: u16,
    /// Snapshots the server sends each client per second (at most the tick rate)
    #[arg(long, default_value_t = defaults::SNAPSHOT_RATE, value_parser = bounded(1..=60u16, " per second"))]
    pub(crate) snapshot_rate: u16,
    /// Each client's input packets per second while its keys stay the same
    #[arg(long, default_value_t = DEFAULT_INPUT_RATE, value_parser = bounded(1..=128u16, " per second"))]
    pub(crate) input_rate: u16,
    /// How far behind the server clients draw others: auto (two snapshot periods plus
    /// jitter, more under loss) or this many snapshot periods (0.5 to 10)
    #[arg(long, default_value = "auto", value_name = "auto|RATIO", value_parser = interp_delay)]
    pub(crate) interp_delay: InterpDelay,
    /// How many input packets carry each command, 1 to 64 (a packet always carries the
    /// commands no packet has carried yet)
    #[arg(long, default_value_t = Tuning::default().redundancy, value_parser = bounded(REDUNDANCY, " copies"))]
    pub(crate) redundancy: u8,
    /// Test rail shots where the shooter saw its targets (on) or where they are now
    #[arg(long, default_value = "on", value_name = "on|off", value_parser = on_off, action = clap::ArgAction::Set)]
    pub(crate) lag_compensation: bool,
    /// The most shooter latency (ms) lag compensation undoes, on top of the two
    /// snapshot periods of interpolation
    #[arg(long, default_value_t = defaults::MAX_REWIND_MS, value_parser = bounded(MAX_REWINDS_MS, " ms"))]
    pub(crate) rewind_ms: u32,
    /// How far (ms) past the newest snapshot others may be extrapolated before they are
    /// held (default: 100, 300 with dead reckoning)
    #[arg(long, value_name = "MS", value_parser = bounded(EXTRAPOLATION_LIMITS_MS, " ms"))]
    pub(crate) extrapolation_limit_ms: Option<u32>,
    /// How every client brings remote players drawn ahead of their snapshots (dead
    /// reckoning, or a late one) onto a newer snapshot that disagrees
    #[arg(long, value_enum, default_value_t = CorrectionArg::Smooth)]
    pub(crate) correction: CorrectionArg,
    #[command(flatten)]
    pub(crate) theme: ThemeArgs,
}

/// A jitter mode by name.
pub(crate) fn jitter_mode(text: &str) -> Result<JitterMode, String> {
    JitterMode::parse(text).ok_or_else(|| format!("must be {}", JitterMode::NAMES.join(" or ")))
}

/// `on` or `off`.
fn on_off(text: &str) -> Result<bool, String> {
    match text {
        "on" => Ok(true),
        "off" => Ok(false),
        _ => Err("must be on or off".to_owned()),
    }
}
