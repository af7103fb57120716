//! The one setting lab B differs in: its keys (dials, switches, the tick rate, the
//! correction loop), how a `KEY=VALUE` is read, applied to lab B and shown.

use crate::client::play::input::Action;
use crate::client::{GhostMode, Switch, Switches};
use crate::lab::dials::{self, DIALS, Owner, Value};
use crate::lab::{Lab, LabConfig};
use crate::net::conditioner::JitterMode;
use crate::ui::keys::{self, Game};

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
    /// the snapshot rate taken down to it if above, see [`crate::lab::fit_snapshot_rate`]).
    pub fn config(&self, a: &LabConfig) -> LabConfig {
        self.fitted(a).0
    }

    /// Lab B's configuration, and the line saying its snapshot rate was taken down.
    pub fn fitted(&self, a: &LabConfig) -> (LabConfig, Option<String>) {
        let mut b = a.clone();
        let mut note = None;
        if self.knob == Knob::TickRate {
            b.server.tick_rate = u16::try_from(self.value).unwrap_or(u16::MAX);
            note = crate::lab::fit_snapshot_rate(&mut b.server);
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
                Value::from(*crate::lab::TICK_RATES.start()),
                Value::from(*crate::lab::TICK_RATES.end()),
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
        "--command-rate" => match text {
            "fixed" => Ok(0),
            _ => number(1, Value::from(dials::MAX_FRAME_RATE), " frames a second")
                .map_err(|w| format!("fixed or {w}")),
        },
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
            ("--command-rate", 0) => "fixed".to_owned(),
            ("--jitter-mode", v) => JitterMode::NAMES
                .get(v as usize)
                .map_or_else(|| v.to_string(), |s| (*s).to_owned()),
            ("--interp-delay", v) => format!("{}", f64::from(v) / 10.0),
            (_, v) => v.to_string(),
        },
    }
}

#[cfg(test)]
mod tests;
