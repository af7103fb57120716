//! A/B runs (`netarena lab --compare KEY=VALUE`): two labs from one seed, the same
//! inputs driving both (the same keys, the same bots' seeds), differing only in one
//! setting. Lab A runs as configured; lab B with KEY set to VALUE.
//!
//! The keys come from the tables that already name every setting: each dial of
//! [`DIALS`] by its flag (`snapshot-rate`) or its name (`rewind-bound`), each switch by
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
use ratatui::text::Line;
use serde::Serialize;
use serde_json::Value as Json;

use super::dials::{self, DIALS, Owner, Value};
use super::headless::{self, LabReport};
use super::view::{self, Controls};
use super::{Lab, LabConfig};
use crate::client::play::input::Action;
use crate::client::tap::{LinkTotals, LoopKind, Tap, TapEvent};
use crate::client::{ClientConfig, GhostMode, Switch, Switches};
use crate::net::conditioner::JitterMode;
use crate::net::protocol::Welcome;
use crate::sim::world::Command;
use crate::ui::keys::{self, Game};
use crate::ui::lab::{LabView, LaneView, Pane, Panel};

/// The tick rate's key. Lab B takes the tick rate in its configuration, from its start,
/// so any of the lab's rates (`lab::TICK_RATES`) is compared, not only the dial's steps.
const TICK_RATE_KEY: &str = "tick-rate";
/// The key that puts the correction-loop bug back in lab B's clients.
const CORRECTION_LOOP_KEY: &str = "correction-loop";
/// The correction styles in the order of the correction dial's values.
const CORRECTIONS: [&str; 3] = ["snap", "smooth", "blend"];

/// What a key sets.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Knob {
    /// A row of [`DIALS`].
    Dial(usize),
    /// A switch, by the game action that flips it.
    Switch(Action),
    TickRate,
    /// The correction-loop bug, off (0) or on (1).
    CorrectionLoop,
}

/// One setting lab B has and lab A has as configured: `snapshot-rate=10`.
#[derive(Clone, Debug, PartialEq)]
pub struct Setting {
    /// The key as the tables name it (a shortened key is written out).
    pub key: String,
    knob: Knob,
    value: Value,
}

/// Every key, with what it sets: the dials' flags, then the switches' names, then the
/// tick rate. The first name of each setting is the one errors list.
fn keys() -> Vec<(String, Knob)> {
    let mut all = Vec::new();
    for (d, dial) in DIALS.iter().enumerate() {
        let flag = dial.flag.trim_start_matches("--").to_owned();
        if flag == TICK_RATE_KEY {
            continue;
        }
        let name = dial.name.replace(' ', "-");
        all.push((flag.clone(), Knob::Dial(d)));
        if name != flag {
            all.push((name, Knob::Dial(d)));
        }
    }
    for row in keys::GAME {
        for k in row.keys {
            if let Game::Act(a) = k.does
                && Switch::of(a).is_some()
                && !all.iter().any(|(n, _)| n == k.name)
            {
                all.push((k.name.to_owned(), Knob::Switch(a)));
            }
        }
    }
    all.push((TICK_RATE_KEY.to_owned(), Knob::TickRate));
    all.push((CORRECTION_LOOP_KEY.to_owned(), Knob::CorrectionLoop));
    all
}

/// The keys an error lists: one name per setting.
fn key_list() -> String {
    let mut seen: Vec<Knob> = Vec::new();
    let mut names = Vec::new();
    for (name, knob) in keys() {
        if !seen.contains(&knob) {
            seen.push(knob);
            names.push(name);
        }
    }
    names.join(", ")
}

impl Setting {
    /// Reads `KEY=VALUE`; an error is one line naming the valid keys.
    pub fn parse(text: &str) -> Result<Setting, String> {
        let Some((key, value)) = text.split_once('=') else {
            return Err(format!(
                "--compare takes KEY=VALUE (such as snapshot-rate=10), not {text:?}; the keys: {}",
                key_list()
            ));
        };
        let (key, value) = (key.trim(), value.trim());
        let all = keys();
        let exact = all.iter().find(|(n, _)| n == key);
        let mut prefixed: Vec<&(String, Knob)> =
            all.iter().filter(|(n, _)| n.starts_with(key)).collect();
        prefixed.dedup_by_key(|(_, k)| *k);
        let (name, knob) = match (exact, prefixed.as_slice()) {
            (Some((n, k)), _) => (n.clone(), *k),
            (None, [(n, k)]) if !key.is_empty() => (n.clone(), *k),
            _ => {
                return Err(format!(
                    "unknown --compare key {key:?}; the keys: {}",
                    key_list()
                ));
            }
        };
        let value = parse_value(knob, value).map_err(|want| {
            format!(
                "--compare {name}={value}: {name} takes {want}; the keys: {}",
                key_list()
            )
        })?;
        Ok(Setting {
            key: name,
            knob,
            value,
        })
    }

    /// Lab B's configuration: lab A's, at this tick rate if that is the setting (with
    /// the snapshot rate taken down to it if above, see [`super::fit_snapshot_rate`]).
    pub fn config(&self, a: &LabConfig) -> LabConfig {
        self.fitted(a).0
    }

    /// Lab B's configuration, and the line saying its snapshot rate was taken down.
    pub fn fitted(&self, a: &LabConfig) -> (LabConfig, Option<String>) {
        let mut b = a.clone();
        let mut note = None;
        if self.knob == Knob::TickRate {
            b.server.tick_rate = u16::try_from(self.value).unwrap_or(u16::MAX);
            note = super::fit_snapshot_rate(&mut b.server);
        }
        (b, note)
    }

    /// Sets this on `lab` (every client, where it is a client's): a dial through its
    /// row of [`DIALS`], a switch as its key flips it.
    pub fn apply(&self, lab: &mut Lab) {
        match self.knob {
            Knob::Dial(d) => {
                let clients = match DIALS[d].owner {
                    Owner::Server => 1,
                    Owner::Client => lab.clients.len(),
                };
                for n in 0..clients {
                    lab.set_dial(d, n, self.value);
                }
            }
            Knob::Switch(action) => {
                for c in &mut lab.clients {
                    // Ghosts go round three modes; the others two.
                    for _ in 0..3 {
                        if switch_value(c.driver.session().switches(), action) == self.value {
                            break;
                        }
                        c.driver.handle(action);
                    }
                }
            }
            Knob::TickRate => {}
            Knob::CorrectionLoop => {
                for c in &mut lab.clients {
                    c.driver.set_correction_loop(self.value != 0);
                }
            }
        }
    }

    /// The setting's value in `lab` (for client `n` where it is a client's), as
    /// `KEY=VALUE` writes it.
    pub fn shown(&self, lab: &Lab, n: usize) -> String {
        let v = match self.knob {
            Knob::Dial(d) => lab.dial(d, n).unwrap_or(self.value),
            Knob::Switch(action) => lab.clients.get(n).map_or(self.value, |c| {
                switch_value(c.driver.session().switches(), action)
            }),
            Knob::TickRate => u32::from(lab.server().config().tick_rate),
            Knob::CorrectionLoop => lab.clients.get(n).map_or(self.value, |c| {
                Value::from(c.driver.session().correction_loop())
            }),
        };
        show_value(self.knob, v)
    }

    /// Lab B's label: `snapshot-rate=10`.
    pub fn label(&self) -> String {
        format!("{}={}", self.key, show_value(self.knob, self.value))
    }
}

/// A switch's state as a value: 0 off and 1 on; the ghosts 0 off, 1 server, 2 trail.
fn switch_value(s: Switches, action: Action) -> Value {
    let on = match Switch::of(action) {
        Some(Switch::Prediction) => s.prediction,
        Some(Switch::Reconciliation) => s.reconciliation,
        Some(Switch::Interpolation) => s.interpolation,
        Some(Switch::Extrapolation) => s.extrapolation,
        Some(Switch::Smoothing) => s.smoothing,
        Some(Switch::Ghosts) => {
            return match s.ghosts {
                GhostMode::Off => 0,
                GhostMode::Server => 1,
                GhostMode::Trail => 2,
            };
        }
        None => false,
    };
    Value::from(on)
}

/// `text` as a value of `knob`, or what it takes.
fn parse_value(knob: Knob, text: &str) -> Result<Value, String> {
    let named = |names: &[&str]| {
        names
            .iter()
            .position(|n| *n == text)
            .map(|i| i as Value)
            .ok_or_else(|| names.join(" or "))
    };
    let number = |lo: Value, hi: Value, unit: &str| {
        text.parse::<Value>()
            .ok()
            .filter(|v| (lo..=hi).contains(v))
            .ok_or_else(|| format!("a whole number from {lo} to {hi}{unit}"))
    };
    let dial = match knob {
        Knob::Switch(a) if Switch::of(a) == Some(Switch::Ghosts) => {
            return named(&["off", "server", "trail"]);
        }
        Knob::Switch(_) | Knob::CorrectionLoop => return named(&["off", "on"]),
        Knob::TickRate => {
            return number(
                Value::from(*super::TICK_RATES.start()),
                Value::from(*super::TICK_RATES.end()),
                " per second",
            );
        }
        Knob::Dial(d) => &DIALS[d],
    };
    let auto = dial.steps.contains(&dials::AUTO);
    let finite: Vec<Value> = dial
        .steps
        .iter()
        .copied()
        .filter(|&v| v != dials::AUTO)
        .collect();
    let (lo, hi) = (finite[0], finite[finite.len() - 1]);
    if auto && text == "auto" {
        return Ok(dials::AUTO);
    }
    let or_auto = if auto { ", or auto" } else { "" };
    match dial.flag {
        "--lag-compensation" => named(&["off", "on"]),
        "--correction" => named(&CORRECTIONS),
        "--jitter-mode" => named(&JitterMode::NAMES),
        "--input-buffer" => match text {
            "credit" => Ok(0),
            "adaptive" => Ok(dials::AUTO),
            _ => number(1, hi, " ticks").map_err(|w| format!("credit, adaptive or {w}")),
        },
        // Tenths of a snapshot period.
        "--interp-delay" => text
            .parse::<f64>()
            .ok()
            .map(|r| (r * 10.0).round())
            .filter(|t| (f64::from(lo)..=f64::from(hi)).contains(t))
            .map(|t| t as Value)
            .ok_or_else(|| {
                format!(
                    "a ratio of snapshot periods from {} to {}{or_auto}",
                    f64::from(lo) / 10.0,
                    f64::from(hi) / 10.0
                )
            }),
        _ => number(lo, hi, "").map_err(|w| format!("{w}{or_auto}")),
    }
}

/// A value as `KEY=VALUE` writes it (and as [`parse_value`] reads it back).
fn show_value(knob: Knob, v: Value) -> String {
    match knob {
        Knob::Switch(a) if Switch::of(a) == Some(Switch::Ghosts) => ["off", "server", "trail"]
            .get(v as usize)
            .map_or_else(|| v.to_string(), |s| (*s).to_owned()),
        Knob::Switch(_) | Knob::CorrectionLoop => (if v == 0 { "off" } else { "on" }).to_owned(),
        Knob::TickRate => v.to_string(),
        Knob::Dial(d) => match (DIALS[d].flag, v) {
            (_, dials::AUTO) => "auto".to_owned(),
            ("--lag-compensation", 0) => "off".to_owned(),
            ("--lag-compensation", _) => "on".to_owned(),
            ("--correction", v) => CORRECTIONS
                .get(v as usize)
                .map_or_else(|| v.to_string(), |s| (*s).to_owned()),
            ("--input-buffer", 0) => "credit".to_owned(),
            ("--jitter-mode", v) => JitterMode::NAMES
                .get(v as usize)
                .map_or_else(|| v.to_string(), |s| (*s).to_owned()),
            ("--interp-delay", v) => format!("{}", f64::from(v) / 10.0),
            (_, v) => v.to_string(),
        },
    }
}

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

/// The terminal's picture of labs A and B: A's server view and chosen client's view on
/// the left, B's on the right, each titled with the setting's value there; each one's
/// lane for the chosen client; one clock; and a panel of the chosen client's figures
/// that differ so far.
pub(crate) fn view<'a>(a: &'a Lab, b: &'a Lab, setting: &Setting, c: &Controls) -> LabView<'a> {
    let n = c.selected;
    let label_a = format!("A: {}={}", setting.key, setting.shown(a, n));
    let label_b = format!("B: {}={}", setting.key, setting.shown(b, n));
    let mut va = view::build(a, c);
    let mut vb = view::build(b, c);
    let (sa, ca, la) = take(&mut va, n, "A", &label_a);
    let (sb, cb, lb) = take(&mut vb, n, "B", &label_b);
    // A's server, B's server, A's client, B's client: in two columns, A left, B right.
    va.panes = [Some(sa), Some(sb), ca, cb].into_iter().flatten().collect();
    va.lanes = [la, lb].into_iter().flatten().collect();
    va.columns = Some(2);
    va.clock = va.clock.replacen(
        "netarena lab",
        &format!("netarena lab A/B  left {label_a}  right {label_b}"),
        1,
    );
    // Lab A's own panels would show one side only: the differences take their place.
    va.panels = vec![differences_panel(a, b, n)];
    va
}

/// [`view`] without the servers' views: A's chosen client's view on the left, B's on
/// the right. A lesson's A/B step (`netarena learn`) draws this, so its panel keeps the
/// rows the servers' views would take, at 100x30 too.
pub(crate) fn clients_view<'a>(
    a: &'a Lab,
    b: &'a Lab,
    setting: &Setting,
    c: &Controls,
) -> LabView<'a> {
    let mut v = view(a, b, setting, c);
    if v.panes.len() == 4 {
        v.panes.drain(..2);
    }
    v
}

/// The server's pane, client `n`'s pane and its lane out of one lab's view, titled and
/// labelled with the side they show.
fn take<'a>(
    v: &mut LabView<'a>,
    n: usize,
    side: &str,
    label: &str,
) -> (Pane<'a>, Option<Pane<'a>>, Option<LaneView>) {
    let mut client = (n + 1 < v.panes.len()).then(|| v.panes.remove(n + 1));
    let mut server = v.panes.remove(0);
    server.title = format!("{label} · {}", server.title);
    if let Some(cl) = &mut client {
        cl.title = format!("{label} · {}", cl.title);
    }
    let lane = (n < v.lanes.len()).then(|| {
        let mut lane = v.lanes.remove(n);
        lane.label = format!("{side} {}", lane.label.replacen("client ", "c", 1));
        lane
    });
    (server, client, lane)
}

/// The width of the panel of figures that differ.
pub(crate) const DIFFERENCES_WIDTH: u16 = 58;

/// The chosen client's figures that differ between the labs so far, as the headless
/// report names them.
fn differences_panel(a: &Lab, b: &Lab, n: usize) -> Panel {
    let seconds = |lab: &Lab| lab.elapsed().as_secs_f64();
    let report = |lab: &Lab| {
        lab.clients.get(n).map(|c| {
            crate::client::shell::headless::report(
                c.driver.session(),
                c.totals(seconds(lab)),
                String::new(),
            )
        })
    };
    let mut lines = vec![Line::from(format!(
        "{:<24} {:>10} {:>10} {:>7}",
        "field", "A", "B", "B/A"
    ))];
    if let (Some(ra), Some(rb)) = (report(a), report(b)) {
        let mut diffs: Vec<Difference> = differences(&ra, &rb)
            .into_iter()
            .filter(|d| d.a.is_number() && d.b.is_number())
            .collect();
        // The largest differences first, as a factor either way; from nothing first of all.
        let size = |d: &Difference| d.ratio.map_or(f64::INFINITY, |r| r.ln().abs());
        diffs.sort_by(|x, y| size(y).total_cmp(&size(x)));
        for d in diffs {
            let num = |v: &Json| v.as_f64().map_or(String::new(), figure);
            lines.push(Line::from(format!(
                "{:<24} {:>10} {:>10} {:>7}",
                d.field,
                num(&d.a),
                num(&d.b),
                d.ratio.map_or(String::new(), |r| format!("{r:.2}"))
            )));
        }
    }
    if lines.len() == 1 {
        lines.push(Line::from("no figure differs yet"));
    }
    Panel {
        title: format!("A/B: client {} figures that differ", n + 1),
        lines,
        width: DIFFERENCES_WIDTH,
        ..Panel::default()
    }
}

/// A figure as the panel writes it: whole when whole, else to two places.
fn figure(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e12 {
        format!("{x:.0}")
    } else {
        format!("{x:.2}")
    }
}

#[cfg(test)]
mod tests;
