//! The flags of `netarena lab` (what they make is in `cli/lab.rs`).

use std::path::PathBuf;

use clap::Args;

use super::ThemeArgs;
use netarena::server::InputBuffer;

#[derive(Args)]
pub(crate) struct LabArgs {
    /// Client sessions to run, each with its own view and network (1 to 4)
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u8).range(1..=4))]
    pub(crate) clients: u8,
    /// Network profile of each client in turn (off, lan, wifi, mobile, bad); clients
    /// not named get bad, lan, wifi, mobile by position
    #[arg(long, value_delimiter = ',', value_name = "A,B")]
    pub(crate) profiles: Vec<String>,
    /// Built-in map name (arena, duel, warehouse, catacombs) or a path to a map file
    #[arg(long, default_value = "duel")]
    pub(crate) map: String,
    /// Server-side bot players that hunt and shoot
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u16).range(0..=32))]
    pub(crate) bots: u16,
    /// Players that walk about but never shoot (so a teacher can talk undisturbed)
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u16).range(0..=16))]
    pub(crate) walkers: u16,
    /// How the server applies each client's commands: credit (as they come, catching up
    /// to 6 a tick), N (a jitter buffer: one a tick once N ticks' worth wait), adaptive
    /// (a jitter buffer as deep as the measured arrival jitter needs)
    #[arg(long, default_value = "credit", value_name = "credit|N|adaptive")]
    pub(crate) input_buffer: InputBuffer,
    /// Bot skill, 1 (slow and sloppy) to 5 (quick and precise)
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u8).range(1..=5))]
    pub(crate) bot_skill: u8,
    /// Seed for bots and simulated networks: the same seed, the same run
    #[arg(long, default_value_t = 7)]
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
    #[arg(long, value_name = "FILE.json")]
    pub(crate) report: Option<PathBuf>,
    /// Record every client, for `netarena replay`: client 1 to FILE, client 2 to FILE
    /// with -2 before its extension (lab.narec, lab-2.narec), and so on
    #[arg(long, value_name = "FILE")]
    pub(crate) record: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) theme: ThemeArgs,
}
