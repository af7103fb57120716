//! The headless lab's speed: virtual seconds run per second of wall time, at the lab's
//! default dials and at its extremes, with the whole-lab recording off and on. The
//! headless lab is what A/B runs, lesson checks, whole-lab replays and seeks run, so
//! this is the instrument's own speed.

use std::time::Instant;

use serde::Serialize;

use crate::client::CorrectionStyle;
use crate::client::netcode::tuning::Tuning;
use crate::lab::recording::Journal;
use crate::lab::{LabConfig, headless};
use crate::server::ServerConfig;
use crate::sim::map::Map;

pub struct LabBenchOptions {
    /// Virtual seconds each case runs.
    pub seconds: f64,
}

/// One lab setting: its dials and what it runs.
struct Case {
    name: &'static str,
    tick_rate: u16,
    snapshot_rate: u16,
    profiles: &'static [&'static str],
    walkers: u16,
    bots: u16,
}

/// The lab's defaults (4 clients, 5 bots), its extreme dials, and the extremes' players
/// at the default rates.
const CASES: [Case; 3] = [
    Case {
        name: "defaults",
        tick_rate: 60,
        snapshot_rate: 20,
        profiles: &["bad", "lan", "wifi", "mobile"],
        walkers: 0,
        bots: 5,
    },
    Case {
        name: "crowd",
        tick_rate: 60,
        snapshot_rate: 20,
        profiles: &["bad", "lan", "wifi", "mobile"],
        walkers: 4,
        bots: 4,
    },
    Case {
        name: "extremes",
        tick_rate: 128,
        snapshot_rate: 60,
        profiles: &["bad", "lan", "wifi", "mobile"],
        walkers: 4,
        bots: 4,
    },
];

/// Each case's speed as a multiple of real time (virtual seconds over wall seconds),
/// recording off and on. `crowd` is the extremes' players and walkers at 60/20 Hz.
#[derive(Debug, Serialize)]
pub struct LabBenchResult {
    pub seconds: f64,
    pub defaults_x: f64,
    pub defaults_recorded_x: f64,
    pub crowd_x: f64,
    pub crowd_recorded_x: f64,
    pub extremes_x: f64,
    pub extremes_recorded_x: f64,
}

fn config(case: &Case) -> anyhow::Result<LabConfig> {
    let map = Map::builtin("duel").ok_or_else(|| anyhow::anyhow!("no built-in map duel"))?;
    let mut server = ServerConfig::new(map);
    server.bots = case.bots;
    server.seed = 7;
    server.name = "lab".to_owned();
    server.tick_rate = case.tick_rate;
    server.snapshot_rate = case.snapshot_rate;
    Ok(LabConfig {
        server,
        profiles: case.profiles.iter().map(|p| (*p).to_owned()).collect(),
        walkers: case.walkers,
        keyboard: 0,
        tuning: Tuning::default(),
        correction: CorrectionStyle::default(),
    })
}

/// Runs `case` for `seconds` of virtual time; with `record`, the whole lab is recorded
/// to a file in the temporary directory (removed after). Returns the multiple of real
/// time.
fn speed(case: &Case, seconds: f64, record: bool) -> anyhow::Result<f64> {
    let config = config(case)?;
    let path = record.then(|| {
        std::env::temp_dir().join(format!(
            "netarena-bench-lab-{}-{}.narec",
            std::process::id(),
            case.name
        ))
    });
    let whole = path.as_deref().map(Journal::create).transpose()?;
    let started = Instant::now();
    let run = headless::run_recorded(&config, seconds, None, Vec::new(), whole);
    let wall = started.elapsed().as_secs_f64();
    if let Some(path) = &path {
        let _ = std::fs::remove_file(path);
    }
    run?;
    Ok(seconds / wall.max(1e-9))
}

pub fn run(opts: &LabBenchOptions) -> anyhow::Result<LabBenchResult> {
    let mut x = Vec::new();
    for case in &CASES {
        x.push(speed(case, opts.seconds, false)?);
        x.push(speed(case, opts.seconds, true)?);
    }
    Ok(LabBenchResult {
        seconds: opts.seconds,
        defaults_x: x[0],
        defaults_recorded_x: x[1],
        crowd_x: x[2],
        crowd_recorded_x: x[3],
        extremes_x: x[4],
        extremes_recorded_x: x[5],
    })
}
