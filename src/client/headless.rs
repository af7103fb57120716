//! The client pipeline without a terminal: the same link, session, prediction and
//! interpolation, driven by a scripted bot, ending with a JSON report. Tests, load tests
//! and benchmarks run this.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use serde::Serialize;

use super::ClientConfig;
use super::link::Link;
use super::session::{ClientSession, RemoteSeen, SessionEnd};
use crate::sim::bot::Wander;
use crate::sim::world::Command;

/// What drives the headless client's keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BotKind {
    /// Wanders the map, turning when blocked.
    Wander,
    /// Holds no keys.
    Idle,
}

/// Written as JSON at the end of a headless run.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub player_id: u8,
    pub commands_sent: u64,
    pub commands_acked: u64,
    pub snapshots_received: u64,
    pub snapshots_lost: u64,
    pub corrections: u64,
    pub max_correction_cells: f64,
    pub rtt_ms_mean: f64,
    pub interp_delay_ms_mean: f64,
    pub frames_interpolated: u64,
    pub frames_extrapolated: u64,
    pub frames_held: u64,
    pub underruns: u64,
    pub loss_up_pct: f64,
    pub loss_down_pct: f64,
    pub jitter_ms: f64,
    pub snapshot_bytes_mean: f64,
    pub full_state_bytes_mean: f64,
    pub undecodable_snapshots: u64,
    pub bytes_in: u64,
    pub bytes_out: u64,
    pub packets_in: u64,
    pub packets_out: u64,
    pub malformed_in: u64,
    pub seconds: f64,
    pub remote_players: Vec<RemoteSeen>,
}

pub fn run(
    config: &ClientConfig,
    bot: BotKind,
    seconds: f64,
    report_path: Option<&Path>,
    stop: &AtomicBool,
) -> anyhow::Result<Report> {
    let mut link = Link::open(config)?;
    let welcome = link.connect(&config.name, config.timeout)?;
    let tick_period = Duration::from_secs(1) / u32::from(welcome.tick_rate.max(1));
    let start = Instant::now();
    let mut session = ClientSession::new(welcome, start, config.switches)
        .context("the server sent a map this client cannot use")?;
    session.set_input_rate(config.input_rate);
    let mut brain = Wander::new(config.seed);
    let end = start + Duration::from_secs_f64(seconds.max(0.0));
    let mut next_command = start;

    while !stop.load(Ordering::Relaxed) {
        let now = Instant::now();
        if now >= end {
            break;
        }
        let mut ended = None;
        link.pump(now, |msg, len| {
            if let Some(e) = session.on_message(now, msg, len) {
                ended = Some(e);
            }
        });
        if let Some(SessionEnd::ServerSaidBye(reason)) = ended {
            bail!("the server closed the connection: {reason}");
        }
        if now.duration_since(session.last_heard()) > config.timeout {
            bail!("the server at {} stopped answering", link.server());
        }
        while now >= next_command {
            let cmd = match (bot, session.predicted()) {
                (BotKind::Wander, Some(me)) => brain.next(&me),
                _ => Command::default(),
            };
            if let Some(msg) = session.command_tick(now, cmd) {
                link.send(now, &msg);
            }
            // One frame per command tick stands in for the terminal's frames.
            session.frame(now);
            next_command += tick_period.mul_f64(session.command_period_scale());
        }
        link.wait(next_command.min(end))?;
    }

    let elapsed = start.elapsed().as_secs_f64();
    let now = Instant::now();
    for _ in 0..3 {
        link.send(now, &ClientSession::leave());
    }
    // Let a conditioned link deliver the goodbyes.
    let deadline = now + Duration::from_millis(600);
    while Instant::now() < deadline {
        link.wait(deadline)?;
        link.pump(Instant::now(), |_, _| {});
    }

    let stats = session.stats();
    let traffic = link.traffic();
    let report = Report {
        player_id: session.player_id(),
        commands_sent: stats.commands_sent,
        commands_acked: u64::from(session.acked_seq()),
        snapshots_received: stats.snapshots_received,
        snapshots_lost: stats.snapshots_lost,
        corrections: stats.corrections,
        max_correction_cells: stats.max_correction_cells,
        rtt_ms_mean: stats.rtt_ms_mean,
        interp_delay_ms_mean: stats.interp_delay_ms_mean,
        frames_interpolated: stats.frames_interpolated,
        frames_extrapolated: stats.frames_extrapolated,
        frames_held: stats.frames_held,
        underruns: stats.underruns,
        loss_up_pct: stats.loss_up_pct,
        loss_down_pct: stats.loss_down_pct,
        jitter_ms: 1000.0 * session.jitter_secs(),
        snapshot_bytes_mean: stats.snapshot_bytes_mean,
        full_state_bytes_mean: stats.full_state_bytes_mean,
        undecodable_snapshots: stats.undecodable,
        bytes_in: traffic.bytes_in,
        bytes_out: traffic.bytes_out,
        packets_in: traffic.packets_in,
        packets_out: traffic.packets_out,
        malformed_in: link.malformed(),
        seconds: elapsed,
        remote_players: session.remotes_seen().to_vec(),
    };
    if let Some(path) = report_path {
        let json = serde_json::to_string_pretty(&report)?;
        std::fs::write(path, json + "\n")
            .with_context(|| format!("cannot write report {}", path.display()))?;
    }
    Ok(report)
}
