//! A/B runs (`netarena lab --compare KEY=VALUE`): two labs from one seed, the same
//! inputs driving both (the same keys, the same bots' seeds), differing only in one
//! setting. Lab A runs as configured; lab B with KEY set to VALUE.
//!
//! The keys come from the tables that already name every setting: each dial of
//! [`DIALS`](super::dials::DIALS) by its flag (`snapshot-rate`) or its name (`rewind-bound`), each switch by
//! the name the game's key table gives it (`prediction`, `interpolation`), the tick
//! rate (lab B starts at that rate), and `correction-loop`, the movement-corrections
//! article's bug put back in lab B's clients (`on`; never in the game, and only here,
//! where nothing is recorded). A key may be shortened while it names one setting
//! (`lag-comp`).
//!
//! Headless, [`run`] writes both reports and the list of their differences; in the
//! terminal, `view` puts each lab's server view and chosen client's view side by side,
//! A left and B right, with the differences so far in a panel.
#![doc(hidden)] // Public for the binary, tests or fuzz targets: see the crate docs.

use std::cell::RefCell;
use std::path::Path;
use std::rc::Rc;
use std::time::{Duration, Instant};

use anyhow::Context;
use serde::Serialize;
use serde_json::Value as Json;

use super::headless::{self, LabReport};
use super::{Lab, LabConfig};
use crate::client::ClientConfig;
use crate::client::tap::{LinkTotals, LoopKind, Tap, TapEvent};
use crate::net::protocol::Welcome;
use crate::sim::world::Command;

mod screen;
mod setting;
pub(crate) use screen::{DIFFERENCES_WIDTH, clients_view, view};
pub use setting::Setting;

/// Labs A and B at `start`: A as `config` says, B with `setting`.
pub fn pair(config: &LabConfig, setting: &Setting, start: Instant) -> anyhow::Result<(Lab, Lab)> {
    let a = Lab::new(config, start)?;
    let b_config = setting.config(config);
    b_config
        .validate()
        .with_context(|| format!("lab B ({})", setting.label()))?;
    let mut b = Lab::new(&b_config, start)?;
    setting.apply(&mut b);
    Ok((a, b))
}

/// Runs both labs until `until`: one clock.
pub(crate) fn run_until(a: &mut Lab, b: &mut Lab, until: Instant) {
    a.run_until(until);
    b.run_until(until);
}

/// Runs both labs to the next tick of either server (their tick rates may differ), so
/// one step of the clock is one step for both.
pub(crate) fn step_tick(a: &mut Lab, b: &mut Lab) {
    let until = a.next_tick.min(b.next_tick);
    run_until(a, b, until);
}

/// The setting in each lab, and what it is.
#[derive(Clone, Debug, Serialize)]
pub struct SettingLine {
    pub key: String,
    /// Its value in lab A (client 1's, where it is a client's).
    pub a: String,
    pub b: String,
}

/// What went into both labs: the seed, and each client's commands.
#[derive(Clone, Debug, Serialize)]
pub struct Inputs {
    pub seed: u64,
    /// One per client (headless; the terminal's keys reach both labs alike).
    pub commands: Vec<CommandsMade>,
}

/// The commands one client's bot made in each lab. A bot steers by where its own
/// prediction has its player, and the prediction is blocked by other players where the
/// newest snapshot has them: a setting that changes what a client knows (fewer
/// snapshots, no prediction) can change where its bot walks from then on.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct CommandsMade {
    pub client: usize,
    pub a: usize,
    pub b: usize,
    /// How many of the first commands were the same in both (all of them: `a`).
    pub alike: usize,
}

/// One figure that differs: where it is in the report, its value in each, and B's over
/// A's when both are numbers and A's is not 0.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Difference {
    pub field: String,
    pub a: Json,
    pub b: Json,
    pub ratio: Option<f64>,
}

/// What `lab --headless --compare` writes.
#[derive(Clone, Debug, Serialize)]
pub struct CompareReport {
    pub setting: SettingLine,
    pub inputs: Inputs,
    pub a: LabReport,
    pub b: LabReport,
    pub differences: Vec<Difference>,
}

/// The commands one client's bot made, kept by a tap on its driver.
#[derive(Default)]
struct Made(Rc<RefCell<Vec<Command>>>);

impl Tap for Made {
    fn start(&mut self, _: Instant, _: LoopKind, _: &Welcome, _: &ClientConfig) {}
    fn event(&mut self, _: Instant, event: TapEvent<'_>) {
        if let TapEvent::Ticks(cmds) = event {
            self.0.borrow_mut().extend_from_slice(cmds);
        }
    }
    fn finish(&mut self, _: LinkTotals) {}
}

/// Runs labs A and B headless for `seconds` of virtual time, every client played by
/// its seeded bot; writes the report to `path` if given.
pub fn run(
    config: &LabConfig,
    setting: &Setting,
    seconds: f64,
    path: Option<&Path>,
) -> anyhow::Result<CompareReport> {
    let start = Instant::now();
    let (mut a, mut b) = pair(config, setting, start)?;
    let mut made = Vec::new();
    for n in 0..a.clients.len() {
        let (ma, mb) = (Made::default(), Made::default());
        made.push((Rc::clone(&ma.0), Rc::clone(&mb.0)));
        a.record(n, Box::new(ma), None)?;
        b.record(n, Box::new(mb), None)?;
    }
    run_until(
        &mut a,
        &mut b,
        start + Duration::from_secs_f64(seconds.max(0.0)),
    );
    let inputs = Inputs {
        seed: config.server.seed,
        commands: made
            .iter()
            .enumerate()
            .map(|(n, (x, y))| {
                let (x, y) = (x.borrow(), y.borrow());
                CommandsMade {
                    client: n + 1,
                    a: x.len(),
                    b: y.len(),
                    alike: x.iter().zip(y.iter()).take_while(|(p, q)| p == q).count(),
                }
            })
            .collect(),
    };
    let report = compare_report(&a, &b, setting, config.server.seed, inputs, "time up");
    if let Some(path) = path {
        write(path, &report)?;
    }
    Ok(report)
}

/// Both labs' figures as they stand, and their differences.
pub(crate) fn compare_report(
    a: &Lab,
    b: &Lab,
    setting: &Setting,
    seed: u64,
    inputs: Inputs,
    ended: &str,
) -> CompareReport {
    let (ra, rb) = (
        headless::ended_report(a, seed, ended),
        headless::ended_report(b, seed, ended),
    );
    CompareReport {
        setting: SettingLine {
            key: setting.key.clone(),
            a: setting.shown(a, 0),
            b: setting.shown(b, 0),
        },
        inputs,
        differences: differences(&ra, &rb),
        a: ra,
        b: rb,
    }
}

/// Writes `report` as pretty JSON, a newline at the end.
pub fn write(path: &Path, report: &CompareReport) -> anyhow::Result<()> {
    let json = serde_json::to_string_pretty(report)?;
    std::fs::write(path, json + "\n")
        .with_context(|| format!("cannot write report {}", path.display()))
}

/// Every figure of two reports that differs, in the order of A's report (then what only
/// B has): `clients[0].snapshots_received`.
pub fn differences(a: &impl Serialize, b: &impl Serialize) -> Vec<Difference> {
    let leaves = |r: Json| {
        let mut out = Vec::new();
        flatten(String::new(), &r, &mut out);
        out
    };
    let json = |r: Result<Json, serde_json::Error>| r.unwrap_or_default();
    let (la, lb) = (
        leaves(json(serde_json::to_value(a))),
        leaves(json(serde_json::to_value(b))),
    );
    let mut diffs = Vec::new();
    for (field, va) in &la {
        let vb = lb
            .iter()
            .find(|(f, _)| f == field)
            .map_or(Json::Null, |(_, v)| v.clone());
        if !same(va, &vb) {
            diffs.push(difference(field, va.clone(), vb));
        }
    }
    for (field, vb) in &lb {
        if !la.iter().any(|(f, _)| f == field) {
            diffs.push(difference(field, Json::Null, vb.clone()));
        }
    }
    diffs
}

fn difference(field: &str, a: Json, b: Json) -> Difference {
    let ratio = match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) if x != 0.0 => Some(y / x),
        _ => None,
    };
    Difference {
        field: field.to_owned(),
        a,
        b,
        ratio,
    }
}

/// Equal, numbers within rounding (a mean summed in another order).
fn same(a: &Json, b: &Json) -> bool {
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) => (x - y).abs() <= 1e-9 * x.abs().max(y.abs()).max(1.0),
        _ => a == b,
    }
}

/// The leaves of `v`, each with its path.
fn flatten(path: String, v: &Json, out: &mut Vec<(String, Json)>) {
    match v {
        Json::Object(map) => {
            for (k, v) in map {
                let p = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                flatten(p, v, out);
            }
        }
        Json::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                flatten(format!("{path}[{i}]"), v, out);
            }
        }
        leaf => out.push((path, leaf.clone())),
    }
}

#[cfg(test)]
mod tests;
