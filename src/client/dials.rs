//! The player's own dials, turned live: the input-packet rate, the interpolation delay,
//! the redundancy window, the extrapolation bound and the correction style, each one row
//! of [`DIALS`] (its name, its flag, the steps the keys go through, how to read and set
//! it, and the derived numbers it explains itself with). The game's `k` `[` `]` turn
//! them (`Driver::turn_dial`), and the lab's dials table (`lab::dials`) takes its client
//! rows from here, so the game and the lab explain a dial in the same words.
//!
//! What a dial sets is [`Settings`]: the session's settings that no datagram carries.
//! A change goes through `Driver::set_settings`, which hands it to the tap, so a
//! recording holds it at its time and a replay applies it there.

use super::CorrectionStyle;
use super::netcode::session::ClientSession;
use super::netcode::tuning::Tuning;
use crate::net::protocol::MAX_COMMANDS_PER_INPUT;
use crate::ui::DialLine;

/// A dial's value: a number in the dial's unit; [`AUTO`] where it has an automatic
/// setting.
pub type Value = u32;
/// The automatic setting of a dial that has one.
pub const AUTO: Value = u32::MAX;

/// What a client runs with that no message from the server says: the player's own
/// dials, the correction style, and how often snapshots come (the welcome says it; the
/// lab's snapshot-rate dial changes it live).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Settings {
    pub tuning: Tuning,
    pub correction: CorrectionStyle,
    /// Server ticks between two snapshots.
    pub snapshot_interval: u32,
}

impl Settings {
    /// The settings `session` runs with now.
    pub fn of(session: &ClientSession) -> Settings {
        Settings {
            tuning: session.tuning(),
            correction: session.correction(),
            snapshot_interval: session.snapshot_interval(),
        }
    }

    /// Puts them in force in `session`.
    pub(crate) fn apply_to(self, session: &mut ClientSession) {
        session.set_tuning(self.tuning);
        session.set_correction(self.correction);
        session.set_snapshot_interval(self.snapshot_interval);
    }
}

/// One of the player's dials.
pub struct Dial {
    pub name: &'static str,
    /// The flag that sets it at the start (`lab`; `host` and `join` where they have it).
    pub flag: &'static str,
    /// Its name in the stats overlay's dials line.
    pub short: &'static str,
    /// The steps the keys turn it through, lowest first.
    pub steps: &'static [Value],
    pub(crate) get: fn(&Settings) -> Value,
    pub(crate) set: fn(&mut Settings, Value),
    /// What its value now means in `session`, in derived numbers.
    pub(crate) explain: fn(&ClientSession) -> String,
    /// A value as the game's stats overlay writes it.
    pub(crate) show: fn(Value) -> String,
}

pub const INPUT_RATE: Dial = Dial {
    name: "input rate",
    flag: "--input-rate",
    short: "input",
    steps: &[5, 10, 15, 20, 30, 60, 128],
    get: |s| Value::from(s.tuning.input_rate),
    set: |s, v| s.tuning.input_rate = u16::try_from(v).unwrap_or(u16::MAX).max(1),
    explain: |s| {
        let k = commands_a_packet(s);
        format!(
            "input packets {}/s while keys stay the same: one every {} = {:.0} ms, {} each (a key change goes at once)",
            hz(s.tick_rate() / f64::from(k)),
            counted(k, "tick"),
            ms(f64::from(k) / s.tick_rate()),
            counted(k, "new command")
        )
    },
    show: |v| format!("{v}/s"),
};

pub const INTERP_DELAY: Dial = Dial {
    name: "interpolation delay",
    flag: "--interp-delay",
    short: "interp",
    // Tenths of a snapshot period.
    steps: &[5, 10, 15, 20, 30, 40, AUTO],
    get: |s| {
        s.tuning
            .interp_ratio
            .map_or(AUTO, |r| (r * 10.0).round() as Value)
    },
    set: |s, v| s.tuning.interp_ratio = (v != AUTO).then(|| f64::from(v) / 10.0),
    explain: |s| {
        let period = ms(s.snapshot_period());
        match s.tuning().interp_ratio {
            Some(r) => format!(
                "interpolation delay {r} x {period:.0} ms snapshot period = {:.0} ms behind the server (easing there from {:.0} ms)",
                r * period,
                ms(s.interp_delay_secs())
            ),
            None => format!(
                "interpolation delay automatic: 2 x {period:.0} ms + 3 x jitter {:.1} ms, more under loss (now {:.0} ms)",
                ms(s.jitter_secs()),
                ms(s.interp_delay_secs())
            ),
        }
    },
    show: |v| match v {
        AUTO => "auto".to_owned(),
        v => format!("{:.1}x", f64::from(v) / 10.0),
    },
};

pub const REDUNDANCY: Dial = Dial {
    name: "redundancy",
    flag: "--redundancy",
    short: "redund",
    steps: &[1, 2, 4, 8, 16, 32, 64],
    get: |s| Value::from(s.tuning.redundancy),
    set: |s, v| s.tuning.redundancy = v.clamp(1, 64) as u8,
    explain: |s| {
        let r = u32::from(s.tuning().redundancy);
        let k = commands_a_packet(s);
        // A packet holds at most 64 commands: past that, fewer copies than asked.
        let copies = r.min(MAX_COMMANDS_PER_INPUT as u32 / k).max(1);
        let full = if copies < r { ", as many as fit" } else { "" };
        let span = ms(f64::from(copies * k) / s.tick_rate());
        match copies {
            1 => format!(
                "redundancy {r}: each packet carries its {} once{full}; a lost packet loses them",
                counted(k, "new command")
            ),
            _ => {
                let losses = match copies - 1 {
                    1 => "a lost packet is made good".to_owned(),
                    n => format!("{n} lost packets in a row are made good"),
                };
                format!(
                    "redundancy {r} copies = {span:.0} ms: each command rides in {copies} packets{full} ({} a packet at {k} new); {losses}",
                    counted(copies * k, "command")
                )
            }
        }
    },
    show: |v| v.to_string(),
};

pub const EXTRAPOLATION_LIMIT: Dial = Dial {
    name: "extrapolation limit",
    flag: "--extrapolation-limit-ms",
    short: "extrap",
    steps: &[0, 50, 100, 250, 500, AUTO],
    get: |s| s.tuning.extrapolation_limit_ms.unwrap_or(AUTO),
    set: |s, v| s.tuning.extrapolation_limit_ms = (v != AUTO).then_some(v),
    explain: |s| {
        match s.tuning().extrapolation_limit_ms {
        Some(limit) => format!(
            "extrapolation limit {limit} ms = {:.1} ticks past the newest snapshot; then others are held still",
            f64::from(limit) / 1000.0 * s.tick_rate()
        ),
        None => "extrapolation limit automatic: 100 ms past the newest snapshot, 300 ms with dead reckoning (x); then others are held still".to_owned(),
    }
    },
    show: |v| match v {
        AUTO => "auto".to_owned(),
        v => format!("{v}ms"),
    },
};

pub const CORRECTION_STYLE: Dial = Dial {
    name: "correction style",
    flag: "--correction",
    short: "corr",
    // 0 snap, 1 smooth, 2 blend.
    steps: &[0, 1, 2],
    get: |s| match s.correction {
        CorrectionStyle::Snap => 0,
        CorrectionStyle::Smooth => 1,
        CorrectionStyle::Blend => 2,
    },
    set: |s, v| s.correction = style_of(v),
    explain: |s| {
        match s.correction() {
        CorrectionStyle::Snap => {
            "correction snap: others jump onto a snapshot that disagrees".to_owned()
        }
        CorrectionStyle::Smooth => "correction smooth: the gap closes exponentially, 60 ms time constant (no jump; the speed jumps)".to_owned(),
        CorrectionStyle::Blend => "correction blend: 200 ms of projective velocity blending (neither position nor speed jumps)".to_owned(),
    }
    },
    show: |v| style_of(v).name().to_owned(),
};

/// The player's dials, in the order the game's `k` goes through them.
pub static DIALS: [&Dial; 5] = [
    &INTERP_DELAY,
    &INPUT_RATE,
    &REDUNDANCY,
    &CORRECTION_STYLE,
    &EXTRAPOLATION_LIMIT,
];

fn style_of(v: Value) -> CorrectionStyle {
    match v {
        0 => CorrectionStyle::Snap,
        1 => CorrectionStyle::Smooth,
        _ => CorrectionStyle::Blend,
    }
}

/// `n` and `noun`, plural but for one: "1 new command", "2 new commands".
fn counted(n: u32, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// Commands made between two input packets while the keys stay the same.
fn commands_a_packet(s: &ClientSession) -> u32 {
    let rate = f64::from(s.tuning().input_rate.max(1));
    // As the pacer counts: whole ticks between packets, at least one.
    ((s.tick_rate() / rate).floor() as u32).max(1)
}

pub(crate) fn ms(secs: f64) -> f64 {
    secs * 1000.0
}

/// A rate for reading: whole when it is whole.
pub(crate) fn hz(rate: f64) -> String {
    if (rate - rate.round()).abs() < 0.05 {
        format!("{rate:.0}")
    } else {
        format!("{rate:.1}")
    }
}

/// The step after `now` (up) or before it, if there is one: a value between steps goes
/// to the nearest one that way.
pub(crate) fn next_step(steps: &[Value], now: Value, up: bool) -> Option<Value> {
    if up {
        steps.iter().copied().find(|&s| s > now)
    } else {
        steps.iter().rev().copied().find(|&s| s < now)
    }
}

/// `settings` with `dial` turned one step up or down; None at its top or bottom.
pub(crate) fn turned(dial: &Dial, settings: Settings, up: bool) -> Option<Settings> {
    let v = next_step(dial.steps, (dial.get)(&settings), up)?;
    let mut s = settings;
    (dial.set)(&mut s, v);
    Some(s)
}

/// The stats overlay's dials line: each dial's short name and value now, the one the
/// keys turn (`chosen`) marked.
pub(crate) fn lines(session: &ClientSession, chosen: usize) -> Vec<DialLine> {
    let s = Settings::of(session);
    DIALS
        .iter()
        .enumerate()
        .map(|(i, d)| DialLine {
            name: d.short,
            value: (d.show)((d.get)(&s)),
            chosen: i == chosen,
        })
        .collect()
}

/// What changed from `before` to `after`, in the words of the dials that changed
/// (read from `session`, which runs with `after`) and of the snapshot rate; None if
/// nothing did.
pub(crate) fn explain_change(
    session: &ClientSession,
    before: &Settings,
    after: &Settings,
) -> Option<String> {
    let mut changed: Vec<String> = DIALS
        .iter()
        .filter(|d| (d.get)(before) != (d.get)(after))
        .map(|d| (d.explain)(session))
        .collect();
    if before.snapshot_interval != after.snapshot_interval {
        // The lab's snapshot-rate dial, as the lab tells its clients.
        let n = after.snapshot_interval;
        changed.push(format!(
            "snapshots {} Hz: one every {n} ticks = {:.0} ms",
            hz(session.tick_rate() / f64::from(n)),
            ms(session.snapshot_period())
        ));
    }
    (!changed.is_empty()).then(|| changed.join("; "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_go_to_the_nearest_one_that_way() {
        let steps = [1, 2, 5, 10];
        assert_eq!(next_step(&steps, 2, true), Some(5));
        assert_eq!(next_step(&steps, 3, true), Some(5));
        assert_eq!(next_step(&steps, 3, false), Some(2));
        assert_eq!(next_step(&steps, 10, true), None);
        assert_eq!(next_step(&steps, 1, false), None);
    }

    /// Issue 30: at one command a packet the dials said "1 new commands" and "one every
    /// 1 ticks".
    #[test]
    fn one_is_singular_in_the_explanations() {
        let mut s = ClientSession::on_duel(1, std::time::Instant::now());
        let mut tuning = s.tuning();
        tuning.input_rate = 60;
        tuning.redundancy = 2;
        s.set_tuning(tuning);
        let input = (INPUT_RATE.explain)(&s);
        assert!(
            input.contains("one every 1 tick = ") && input.contains(", 1 new command each"),
            "{input}"
        );
        let redundancy = (REDUNDANCY.explain)(&s);
        assert!(
            redundancy.starts_with("redundancy 2 copies = ")
                && redundancy.contains("at 1 new); a lost packet is made good"),
            "{redundancy}"
        );
        tuning.redundancy = 1;
        s.set_tuning(tuning);
        let once = (REDUNDANCY.explain)(&s);
        assert!(once.contains("carries its 1 new command once;"), "{once}");
    }

    #[test]
    fn every_dial_has_distinct_rising_steps_that_read_back() {
        let base = Settings {
            tuning: Tuning::default(),
            correction: CorrectionStyle::default(),
            snapshot_interval: 3,
        };
        for d in DIALS {
            assert!(d.steps.windows(2).all(|w| w[0] < w[1]), "{}", d.name);
            assert!(d.flag.starts_with("--"), "{}", d.name);
            for &v in d.steps {
                let mut s = base;
                (d.set)(&mut s, v);
                assert_eq!((d.get)(&s), v, "{} at {v}", d.name);
                // Every step is within the session's bounds: nothing is clamped away.
                assert_eq!(s.tuning.bounded(), s.tuning, "{} at {v}", d.name);
            }
        }
    }
}
