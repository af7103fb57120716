//! `netarena lab`: the server and several clients side by side in this terminal, each
//! under its own simulated network, on one clock that can stop; or, headless, the same
//! run as fast as the machine allows, ending in a report.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicUsize};

use anyhow::Context;

use netarena::client::netcode::tuning::Tuning;
use netarena::lab::compare::{self, Setting};
use netarena::lab::headless::Recording;
use netarena::lab::recording::Journal;
use netarena::lab::{LabConfig, MAX_CLIENTS, headless, terminal};
use netarena::record::recorder::Recorder;
use netarena::server::ServerConfig;

use super::args::LabArgs;
use super::map_file;
use super::signals::finish;

/// The profiles clients get when `--profiles` names fewer: a bad path next to a LAN,
/// the contrast the lab is for, then Wi-Fi and mobile.
const DEFAULT_PROFILES: [&str; MAX_CLIENTS] = ["bad", "lan", "wifi", "mobile"];

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
                let p = self
                    .profiles
                    .get(n)
                    .map_or(DEFAULT_PROFILES[n], |p| p.trim());
                match self.jitter_mode {
                    // Each way's name that does not say its mode gets this one.
                    Some(mode) => p
                        .split('/')
                        .map(|way| match way.contains(':') {
                            true => way.to_owned(),
                            false => format!("{way}:{}", mode.name()),
                        })
                        .collect::<Vec<_>>()
                        .join("/"),
                    None => p.to_owned(),
                }
            })
            .collect();
        let mut server = ServerConfig::new(map_file::load(&self.map)?);
        server.bots = self.bots;
        server.bot_skill = self.bot_skill;
        server.input_buffer = self.input_buffer;
        server.seed = self.seed;
        server.name = "lab".to_owned();
        server.tick_rate = self.tick_rate;
        server.snapshot_rate = self.snapshot_rate;
        server.game.lag_compensation = self.lag_compensation;
        server.game.max_rewind_ms = self.rewind_ms;
        Ok(LabConfig {
            server,
            profiles,
            walkers: self.walkers,
            correction: self.correction.into(),
            keyboard: if self.headless { 0 } else { 2 },
            tuning: Tuning {
                input_rate: self.input_rate,
                interp_ratio: self.interp_delay.0,
                redundancy: self.redundancy,
                extrapolation_limit_ms: self.extrapolation_limit_ms,
            },
        })
    }
}

pub(crate) fn run(
    args: LabArgs,
    stop: &AtomicBool,
    signal: &AtomicUsize,
) -> anyhow::Result<ExitCode> {
    let mut config = args.config()?;
    if let Some(note) = netarena::lab::fit_snapshot_rate(&mut config.server) {
        eprintln!("{note}");
    }
    config.validate()?;
    let setting = args
        .compare
        .as_deref()
        .map(Setting::parse)
        .transpose()
        .map_err(anyhow::Error::msg)?;
    if let Some(note) = setting.as_ref().and_then(|s| s.fitted(&config).1) {
        eprintln!("lab B: {note}");
    }
    if setting.is_some() && args.record.is_some() {
        anyhow::bail!("--record does not go with --compare: record each lab in a run of its own");
    }
    if let (Some(setting), true) = (&setting, args.headless) {
        let report = compare::run(&config, setting, args.seconds, args.report.as_deref())?;
        if args.report.is_none() {
            super::console::print_report(&serde_json::to_string_pretty(&report)?)?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    let recordings = recordings(args.record.as_deref(), config.profiles.len())?;
    // The whole lab goes to FILE itself, each client's own recording beside it.
    let whole = match &args.record {
        Some(path) => Some(Journal::create(path)?),
        None => None,
    };
    if args.headless {
        let report = headless::run_recorded(
            &config,
            args.seconds,
            args.report.as_deref(),
            recordings,
            whole,
        )?;
        if args.report.is_none() {
            super::console::print_report(&serde_json::to_string_pretty(&report)?)?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    let names: Vec<String> = recordings.iter().map(|r| r.name.clone()).collect();
    let cap = (args.fps_cap > 0).then_some(args.fps_cap);
    let theme = args.theme.resolve();
    let outcome = terminal::run(
        &config,
        cap,
        theme,
        stop,
        terminal::Writes {
            recordings,
            whole,
            report: args.report.as_deref(),
        },
        setting.as_ref(),
    );
    // The terminal is ours again: say where the lab and each client went.
    if let Some(path) = &args.record {
        println!("the whole lab recorded to {}", path.display());
    }
    for (n, name) in names.iter().enumerate() {
        println!("client {} recorded to {name}", n + 1);
    }
    finish(outcome, signal)
}

/// One recorder per client, every file created before the lab starts (so a bad path
/// fails at once); none without `--record`.
fn recordings(path: Option<&Path>, clients: usize) -> anyhow::Result<Vec<Recording>> {
    let Some(path) = path else {
        return Ok(Vec::new());
    };
    (1..=clients)
        .map(|n| {
            let file = client_file(path, n);
            let recorder = Recorder::create(&file)
                .with_context(|| format!("cannot create the recording {}", file.display()))?;
            Ok(Recording {
                tap: Box::new(recorder),
                name: file.display().to_string(),
            })
        })
        .collect()
}

/// Client n's own recording has `-n` before the extension of `path` (the whole lab's),
/// if any.
fn client_file(path: &Path, n: usize) -> PathBuf {
    let stem = path.file_stem().unwrap_or_default().to_string_lossy();
    let name = match path.extension() {
        Some(ext) => format!("{stem}-{n}.{}", ext.to_string_lossy()),
        None => format!("{stem}-{n}"),
    };
    path.with_file_name(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 23's done-when: `lab --headless --tick-rate 30 --snapshot-rate 10 --seconds
    /// 20` gives 600 ticks and about 200 snapshots per client (those that arrived, were
    /// lost on the way, or held back for a thin link's rate).
    #[test]
    fn rate_flags_set_the_headless_lab() {
        use clap::Parser;
        let cli = crate::cli::args::Cli::try_parse_from([
            "netarena",
            "lab",
            "--headless",
            "--tick-rate",
            "30",
            "--snapshot-rate",
            "10",
            "--seconds",
            "20",
        ])
        .unwrap();
        let crate::cli::args::Subcmd::Lab(args) = cli.command else {
            panic!("not the lab");
        };
        let config = args.config().unwrap();
        config.validate().unwrap();
        let report = headless::run(&config, args.seconds, None).unwrap();
        assert_eq!(report.server.ticks, 600);
        assert_eq!(report.clients.len(), 2);
        for c in &report.clients {
            let s = &c.report.stats;
            let slots = s.snapshots_received + s.snapshots_lost + s.snapshots_withheld;
            assert!(
                (195..=201).contains(&slots),
                "client {} ({}): {} received, {} lost, {} withheld",
                c.client,
                c.profile,
                s.snapshots_received,
                s.snapshots_lost,
                s.snapshots_withheld
            );
        }
        let lan = &report.clients[1];
        assert_eq!(lan.profile, "lan");
        assert!(lan.report.stats.snapshots_received >= 195);
    }

    /// Every dial's flag reaches the lab's config.
    #[test]
    fn dial_flags_reach_the_config() {
        use clap::Parser;
        let cli = crate::cli::args::Cli::try_parse_from(
            "netarena lab --lag-compensation off --rewind-ms 100 --interp-delay 3 \
             --redundancy 4 --input-rate 15 --extrapolation-limit-ms 50 --tick-rate 128 \
             --snapshot-rate 60"
                .split_whitespace(),
        )
        .unwrap();
        let crate::cli::args::Subcmd::Lab(args) = cli.command else {
            panic!("not the lab");
        };
        let config = args.config().unwrap();
        config.validate().unwrap();
        assert!(!config.server.game.lag_compensation);
        assert_eq!(config.server.game.max_rewind_ms, 100);
        assert_eq!(
            (config.server.tick_rate, config.server.snapshot_rate),
            (128, 60)
        );
        let want = Tuning {
            input_rate: 15,
            interp_ratio: Some(3.0),
            redundancy: 4,
            extrapolation_limit_ms: Some(50),
        };
        assert_eq!(config.tuning, want);
        let auto = crate::cli::args::Cli::try_parse_from(["netarena", "lab"]).unwrap();
        let crate::cli::args::Subcmd::Lab(args) = auto.command else {
            panic!("not the lab");
        };
        let config = args.config().unwrap();
        assert!(config.server.game.lag_compensation);
        assert_eq!(config.tuning, Tuning::default());
        for bad in [
            "--interp-delay 0.2",
            "--tick-rate 129",
            "--snapshot-rate 61",
        ] {
            let line = format!("netarena lab {bad}");
            assert!(
                crate::cli::args::Cli::try_parse_from(line.split_whitespace()).is_err(),
                "{bad}"
            );
        }
    }

    #[test]
    fn client_files_get_their_number_before_the_extension() {
        let name = |p: &str, n| client_file(Path::new(p), n).display().to_string();
        assert_eq!(name("runs/lab.narec", 1), "runs/lab-1.narec");
        assert_eq!(name("runs/lab.narec", 2), "runs/lab-2.narec");
        assert_eq!(name("lab", 4), "lab-4");
        assert_eq!(name("a.b/lab.x.narec", 3), "a.b/lab.x-3.narec");
    }
}
