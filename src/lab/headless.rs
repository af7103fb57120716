//! The lab without a terminal: every client driven by a bot, run on the virtual clock
//! as fast as the machine allows, ending in one JSON report. Nothing in the report
//! comes from the wall clock, so a seeded run writes the same bytes every time.

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::Context;
use serde::Serialize;

use super::{Lab, LabConfig, Traffic};
use crate::client::headless::Report;

/// What a headless lab run writes.
#[derive(Clone, Debug, Serialize)]
pub struct LabReport {
    pub seed: u64,
    pub seconds: f64,
    pub map: String,
    pub server: ServerFigures,
    pub clients: Vec<ClientReport>,
}

/// The server's side of the run.
#[derive(Clone, Debug, Serialize)]
pub struct ServerFigures {
    pub ticks: u32,
    pub players: usize,
    /// Frags and deaths so far, best first.
    pub standings: Vec<StandingLine>,
}

#[derive(Clone, Debug, Serialize)]
pub struct StandingLine {
    pub id: u8,
    pub frags: i16,
    pub deaths: u16,
}

/// One client: its profile, the same report a headless client writes, and its link.
#[derive(Clone, Debug, Serialize)]
pub struct ClientReport {
    pub client: usize,
    pub profile: String,
    #[serde(flatten)]
    pub report: Report,
    pub link_up: Traffic,
    pub link_down: Traffic,
}

/// Runs `config` for `seconds` of virtual time; writes the report to `path` if given.
pub fn run(config: &LabConfig, seconds: f64, path: Option<&Path>) -> anyhow::Result<LabReport> {
    let start = Instant::now();
    let mut lab = Lab::new(config, start)?;
    lab.run_until(start + Duration::from_secs_f64(seconds.max(0.0)));
    let report = report(&lab, config.server.seed);
    if let Some(path) = path {
        let json = serde_json::to_string_pretty(&report)?;
        std::fs::write(path, json + "\n")
            .with_context(|| format!("cannot write report {}", path.display()))?;
    }
    Ok(report)
}

/// The figures of `lab` as it stands.
pub fn report(lab: &Lab, seed: u64) -> LabReport {
    let seconds = lab.elapsed().as_secs_f64();
    let server = lab.server();
    let clients = lab
        .clients
        .iter()
        .map(|c| {
            let s = c.driver.session();
            let (up, down) = (c.up.traffic(), c.down.traffic());
            ClientReport {
                client: c.number,
                profile: c.profile.clone(),
                report: Report {
                    player_id: s.player_id(),
                    stats: s.stats().clone(),
                    commands_acked: u64::from(s.acked_seq()),
                    jitter_ms: 1000.0 * s.jitter_secs(),
                    bytes_in: down.bytes,
                    bytes_out: up.bytes,
                    packets_in: down.delivered,
                    packets_out: up.sent,
                    malformed_in: 0,
                    seconds,
                    remote_players: s.remotes_seen().to_vec(),
                    ended: "time up".into(),
                },
                link_up: up,
                link_down: down,
            }
        })
        .collect();
    LabReport {
        seed,
        seconds,
        map: server.game().map().name().to_owned(),
        server: ServerFigures {
            ticks: server.world().tick,
            players: server.player_count(),
            standings: standings(lab),
        },
        clients,
    }
}

fn standings(lab: &Lab) -> Vec<StandingLine> {
    let mut lines: Vec<StandingLine> = lab
        .server()
        .game()
        .statuses()
        .into_iter()
        .map(|s| StandingLine {
            id: s.id,
            frags: s.frags,
            deaths: s.deaths,
        })
        .collect();
    lines.sort_by_key(|l| (-l.frags, l.deaths, l.id));
    lines
}
