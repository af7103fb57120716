//! The lab without a terminal: every client driven by a bot, run on the virtual clock
//! as fast as the machine allows, ending in one JSON report. Nothing in the report
//! comes from the wall clock, so a seeded run writes the same bytes every time.

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::Context;
use serde::Serialize;

use super::meters::{DownBytes, UpBytes};
use super::recording::{Journal, LabReplay, LabStart};
use super::view::dilation;
use super::{Lab, LabConfig, LaneCounts};
use crate::client::shell::headless::{self, Report};
use crate::client::tap::Tap;
use crate::server::BufferFigures;

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
    pub link_up: LaneCounts,
    pub(crate) link_down: LaneCounts,
    /// The server's input buffer for this client, and its command clock.
    pub input_buffer: BufferLine,
    /// The coefficient of variation of the drawn speed of the lab's walkers while they
    /// walked straight (None without `--walkers`): 0 is perfectly even.
    pub remote_motion_cv: Option<f64>,
    /// The bytes its link carried down and up (every datagram sent, lost ones too), by
    /// kind; each way's kinds add up to its `link_down`/`link_up` bytes.
    pub bytes_down: DownBytes,
    pub bytes_up: UpBytes,
    /// The file its session was recorded to, with `--record`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recording: Option<String>,
}

/// A client's commands on the server: what waits, the depth aimed at, what the last
/// ticks applied, late and dropped commands; and whether the client's command clock
/// runs `slow` (to drain a backlog there), `fast`, or `even`.
#[derive(Clone, Debug, Serialize)]
pub struct BufferLine {
    #[serde(flatten)]
    pub figures: BufferFigures,
    pub clock: &'static str,
}

/// A client's recording: where its inputs go, and the file's name for the report.
pub struct Recording {
    pub tap: Box<dyn Tap>,
    pub name: String,
}

/// Runs `config` for `seconds` of virtual time; writes the report to `path` if given.
pub fn run(config: &LabConfig, seconds: f64, path: Option<&Path>) -> anyhow::Result<LabReport> {
    run_recorded(config, seconds, path, Vec::new(), None)
}

/// [`run`], client 1's inputs recorded by the first of `recordings`, client 2's by the
/// second, and so on; with `whole`, the whole lab recorded there too
/// (`lab::recording`).
pub fn run_recorded(
    config: &LabConfig,
    seconds: f64,
    path: Option<&Path>,
    recordings: Vec<Recording>,
    whole: Option<Journal>,
) -> anyhow::Result<LabReport> {
    let start = Instant::now();
    let mut lab = Lab::new(config, start)?;
    let mut names = Vec::new();
    for (n, r) in recordings.into_iter().enumerate() {
        lab.record(n, r.tap, None)?;
        names.push(r.name);
    }
    if let Some(journal) = whole {
        lab.record_lab(journal, &LabStart::of(config, None, names.clone()))?;
    }
    lab.run_until(start + Duration::from_secs_f64(seconds.max(0.0)));
    let recorded = lab.finish_recordings();
    let mut report = report(&lab, config.server.seed);
    for (c, name) in report.clients.iter_mut().zip(names) {
        c.recording = Some(name);
    }
    let whole = lab.finish_lab_recording("time up", &report);
    if let Some(path) = path {
        write(path, &report)?;
    }
    recorded.and(whole).map(|()| report)
}

/// Runs a whole lab's recording to its end: the lab's report as it ended, each client's
/// own recording named as the live lab named it.
pub fn replayed(replay: &mut LabReplay) -> LabReport {
    replay.run_to_end();
    let mut report = ended_report(replay.lab(), replay.seed(), replay.ended());
    for (c, name) in report
        .clients
        .iter_mut()
        .zip(&replay.file.start.client_files)
    {
        c.recording = Some(name.clone());
    }
    report
}

/// Writes `report` as pretty JSON, a newline at the end.
pub fn write(path: &Path, report: &LabReport) -> anyhow::Result<()> {
    let json = serde_json::to_string_pretty(report)?;
    std::fs::write(path, json + "\n")
        .with_context(|| format!("cannot write report {}", path.display()))
}

/// The figures of `lab` as it stands, at the end of its time.
pub fn report(lab: &Lab, seed: u64) -> LabReport {
    ended_report(lab, seed, "time up")
}

/// The figures of `lab` as it stands, each client's `ended` saying how the lab ended.
pub(crate) fn ended_report(lab: &Lab, seed: u64, ended: &str) -> LabReport {
    let seconds = lab.elapsed().as_secs_f64();
    let server = lab.server();
    let clients = lab
        .clients
        .iter()
        .enumerate()
        .map(|(n, c)| ClientReport {
            client: c.number,
            profile: c.profile.clone(),
            // The report a client writes, with the totals its recording ends with.
            report: headless::report(c.driver.session(), c.totals(seconds), ended.into()),
            link_up: c.up.traffic(),
            link_down: c.down.traffic(),
            input_buffer: BufferLine {
                figures: server
                    .input_buffer(c.driver.session().player_id())
                    .unwrap_or_default(),
                clock: dilation(c.driver.session()),
            },
            remote_motion_cv: lab.remote_motion_cv(n),
            bytes_down: c.bytes.totals().0,
            bytes_up: c.bytes.totals().1,
            recording: None,
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
