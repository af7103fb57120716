//! `netarena lab`: the server and several clients side by side in this terminal, each
//! under its own simulated network, on one clock that can stop; or, headless, the same
//! run as fast as the machine allows, ending in a report.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicUsize};

use clap::Args;

use netarena::lab::{LabConfig, MAX_CLIENTS, headless, terminal};
use netarena::server::ServerConfig;

use super::map_file;
use super::signals::finish;

/// The profiles clients get when `--profiles` names fewer: a bad path next to a LAN,
/// the contrast the lab is for, then Wi-Fi and mobile.
const DEFAULT_PROFILES: [&str; MAX_CLIENTS] = ["bad", "lan", "wifi", "mobile"];

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
    /// Write the report (every client's, and the server's figures) here, with --headless
    #[arg(long, value_name = "FILE.json", requires = "headless")]
    pub(crate) report: Option<PathBuf>,
}

impl LabArgs {
    fn config(&self) -> anyhow::Result<LabConfig> {
        let clients = usize::from(self.clients);
        if self.profiles.len() > clients {
            anyhow::bail!(
                "--profiles names {} profiles for {clients} clients (add --clients {})",
                self.profiles.len(),
                self.profiles.len().min(MAX_CLIENTS)
            );
        }
        let profiles = (0..clients)
            .map(|n| {
                self.profiles
                    .get(n)
                    .map_or(DEFAULT_PROFILES[n], |p| p.trim())
                    .to_owned()
            })
            .collect();
        let mut server = ServerConfig::new(map_file::load(&self.map)?);
        server.bots = self.bots;
        server.bot_skill = self.bot_skill;
        server.seed = self.seed;
        server.name = "lab".to_owned();
        Ok(LabConfig {
            server,
            profiles,
            walkers: self.walkers,
            keyboard: if self.headless { 0 } else { 2 },
        })
    }
}

pub(crate) fn run(
    args: LabArgs,
    stop: &AtomicBool,
    signal: &AtomicUsize,
) -> anyhow::Result<ExitCode> {
    let config = args.config()?;
    config.validate()?;
    if args.headless {
        let report = headless::run(&config, args.seconds, args.report.as_deref())?;
        if args.report.is_none() {
            println!("{}", serde_json::to_string_pretty(&report)?);
        }
        return Ok(ExitCode::SUCCESS);
    }
    let cap = (args.fps_cap > 0).then_some(args.fps_cap);
    finish(terminal::run(&config, cap, stop), signal)
}
