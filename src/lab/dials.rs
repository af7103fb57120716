//! The lab's dials: the settings a teacher turns while the lab runs, each one row of
//! [`DIALS`] (its name, its flag, whose setting it is, the steps the keys go through,
//! how to read and set it, and the derived numbers it explains itself with). Adding a
//! dial is adding a row. The server's dials act on the server (and on what every
//! client knows of it); the others on the chosen client's session.
//!
//! The tick rate is a flag only: every rule (speeds, timers, the rewind history) is made
//! for one tick rate when the server starts, and every client predicts with the same
//! rules, so changing it live would change the game under the players' feet.

use super::Lab;
use crate::client::CorrectionStyle;
use crate::server::InputBuffer;
use crate::server::commands::{JITTER_WINDOW, MAX_BUFFER_TICKS, MAX_CREDIT};

/// Whose setting a dial is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Owner {
    Server,
    /// The chosen client's.
    Client,
}

/// A dial's value: a number in the dial's unit; [`AUTO`] where it has an automatic
/// setting, 0 and 1 for off and on.
pub type Value = u32;
/// The automatic setting of a dial that has one.
pub const AUTO: Value = u32::MAX;

/// One dial.
pub struct Dial {
    pub name: &'static str,
    /// The `lab` flag that sets it at the start.
    pub flag: &'static str,
    pub(crate) owner: Owner,
    /// The steps the keys turn it through, lowest first.
    pub steps: &'static [Value],
    /// Its value now, for client `n` (0-based) where it is a client's.
    pub(crate) get: fn(&Lab, usize) -> Value,
    /// Sets it, for client `n` where it is a client's.
    pub(crate) set: fn(&mut Lab, usize, Value),
    /// What its value now means, in derived numbers, for client `n`.
    pub(crate) explain: fn(&Lab, usize) -> String,
}

/// Every dial, in the order the dial key goes through them.
pub static DIALS: &[Dial] = &[
    Dial {
        name: "snapshot rate",
        flag: "--snapshot-rate",
        owner: Owner::Server,
        steps: &[1, 2, 5, 10, 15, 20, 30, 60],
        get: |lab, _| u32::from(lab.server.config().snapshot_rate),
        set: |lab, _, v| {
            let cfg = lab.server.config();
            let (lagc, rewind) = (cfg.game.lag_compensation, cfg.game.max_rewind_ms);
            lab.server.retune(clamp_u16(v), lagc, rewind);
            let interval = lab.server.snapshot_interval();
            for c in lab.clients.iter_mut().chain(&mut lab.walkers) {
                c.driver.session_mut().set_snapshot_interval(interval);
            }
        },
        explain: |lab, n| {
            let interval = lab.server.snapshot_interval();
            let tick_rate = f64::from(lab.server.config().tick_rate);
            let period = ms(f64::from(interval) / tick_rate);
            let delay = lab.clients.get(n).map_or(String::new(), |c| {
                let s = c.driver.session();
                match s.tuning().interp_ratio {
                    Some(r) => format!(
                        "; client {}'s interpolation delay now {r} x {period:.0} ms = {:.0} ms",
                        c.number,
                        r * period
                    ),
                    None => format!(
                        "; client {}'s interpolation delay now 2 x {period:.0} ms = {:.0} ms + 3 x jitter",
                        c.number,
                        2.0 * period
                    ),
                }
            });
            format!(
                "snapshots {} Hz: one every {interval} ticks = {period:.0} ms{delay}",
                hz(tick_rate / f64::from(interval))
            )
        },
    },
    Dial {
        name: "input rate",
        flag: "--input-rate",
        owner: Owner::Client,
        steps: &[5, 10, 15, 20, 30, 60, 128],
        get: |lab, n| u32::from(lab.clients[n].driver.session().tuning().input_rate),
        set: |lab, n, v| {
            tune(lab, n, |t| t.input_rate = clamp_u16(v).max(1));
        },
        explain: |lab, n| {
            let s = lab.clients[n].driver.session();
            let k = commands_a_packet(s);
            format!(
                "input packets {}/s while keys stay the same: one every {k} ticks = {:.0} ms, {k} new commands each (a key change goes at once)",
                hz(s.tick_rate() / f64::from(k)),
                ms(f64::from(k) / s.tick_rate())
            )
        },
    },
    Dial {
        name: "interpolation delay",
        flag: "--interp-delay",
        owner: Owner::Client,
        // Tenths of a snapshot period.
        steps: &[5, 10, 15, 20, 30, 40, AUTO],
        get: |lab, n| {
            let t = lab.clients[n].driver.session().tuning();
            t.interp_ratio.map_or(AUTO, |r| (r * 10.0).round() as Value)
        },
        set: |lab, n, v| {
            tune(lab, n, |t| {
                t.interp_ratio = (v != AUTO).then(|| f64::from(v) / 10.0);
            });
        },
        explain: |lab, n| {
            let s = lab.clients[n].driver.session();
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
    },
    Dial {
        name: "redundancy",
        flag: "--redundancy",
        owner: Owner::Client,
        steps: &[1, 2, 4, 8, 16, 32, 64],
        get: |lab, n| u32::from(lab.clients[n].driver.session().tuning().redundancy),
        set: |lab, n, v| {
            tune(lab, n, |t| t.redundancy = v.clamp(1, 64) as u8);
        },
        explain: |lab, n| {
            let s = lab.clients[n].driver.session();
            let r = u32::from(s.tuning().redundancy);
            let k = commands_a_packet(s);
            let span = ms(f64::from(r) / s.tick_rate());
            if r < k {
                format!(
                    "redundancy {r}: a packet carries {r} of its {k} new commands; {} of every {k} are never sent while keys stay the same",
                    k - r
                )
            } else {
                format!(
                    "redundancy {r} commands = {span:.0} ms: at {k} new commands a packet, {} lost packets in a row are made good",
                    r / k - 1
                )
            }
        },
    },
    Dial {
        name: "lag compensation",
        flag: "--lag-compensation",
        owner: Owner::Server,
        steps: &[0, 1],
        get: |lab, _| Value::from(lab.server.config().game.lag_compensation),
        set: |lab, _, v| {
            let cfg = lab.server.config();
            let (rate, rewind) = (cfg.snapshot_rate, cfg.game.max_rewind_ms);
            lab.server.retune(rate, v != 0, rewind);
        },
        explain: rewind_explain,
    },
    Dial {
        name: "rewind bound",
        flag: "--rewind-ms",
        owner: Owner::Server,
        steps: &[0, 50, 100, 150, 250, 500, 1000],
        get: |lab, _| lab.server.config().game.max_rewind_ms,
        set: |lab, _, v| {
            let cfg = lab.server.config();
            let (rate, lagc) = (cfg.snapshot_rate, cfg.game.lag_compensation);
            lab.server.retune(rate, lagc, v);
        },
        explain: rewind_explain,
    },
    Dial {
        name: "extrapolation limit",
        flag: "--extrapolation-limit-ms",
        owner: Owner::Client,
        steps: &[0, 50, 100, 250, 500, AUTO],
        get: |lab, n| {
            let t = lab.clients[n].driver.session().tuning();
            t.extrapolation_limit_ms.unwrap_or(AUTO)
        },
        set: |lab, n, v| {
            tune(lab, n, |t| {
                t.extrapolation_limit_ms = (v != AUTO).then_some(v)
            });
        },
        explain: |lab, n| {
            let s = lab.clients[n].driver.session();
            match s.tuning().extrapolation_limit_ms {
                Some(limit) => format!(
                    "extrapolation limit {limit} ms = {:.1} ticks past the newest snapshot; then others are held still",
                    f64::from(limit) / 1000.0 * s.tick_rate()
                ),
                None => "extrapolation limit automatic: 100 ms past the newest snapshot, 300 ms with dead reckoning (x); then others are held still".to_owned(),
            }
        },
    },
    Dial {
        name: "input buffer",
        flag: "--input-buffer",
        owner: Owner::Server,
        // 0: the credit queue; N: a jitter buffer of N ticks; automatic: adaptive.
        steps: &[0, 1, 2, 3, 4, 6, 8, AUTO],
        get: |lab, _| match lab.server.config().input_buffer {
            InputBuffer::Credit => 0,
            InputBuffer::Fixed(n) => Value::from(n),
            InputBuffer::Adaptive => AUTO,
        },
        set: |lab, _, v| {
            lab.server.set_input_buffer(match v {
                0 => InputBuffer::Credit,
                AUTO => InputBuffer::Adaptive,
                n => InputBuffer::Fixed(u8::try_from(n).unwrap_or(u8::MAX).min(MAX_BUFFER_TICKS)),
            });
        },
        explain: |lab, _| {
            let cfg = lab.server.config();
            let tick = 1000.0 / f64::from(cfg.tick_rate);
            match cfg.input_buffer {
                InputBuffer::Credit => format!(
                    "input buffer: credit queue: a command as it comes, catching up to {MAX_CREDIT} a tick (a walker's pairs move in pairs)"
                ),
                InputBuffer::Fixed(n) => format!(
                    "input buffer: {n} ticks = {:.0} ms: one command a tick once {n} wait (even steps, {:.0} ms more latency)",
                    f64::from(n) * tick,
                    f64::from(n) * tick
                ),
                InputBuffer::Adaptive => format!(
                    "input buffer: adaptive: the 95th percentile of arrival lateness over the last {JITTER_WINDOW} ticks, plus one; late commands caught up one extra a tick"
                ),
            }
        },
    },
    Dial {
        name: "correction style",
        flag: "--correction",
        owner: Owner::Client,
        // 0 snap, 1 smooth, 2 blend.
        steps: &[0, 1, 2],
        get: |lab, n| match lab.clients[n].driver.session().correction() {
            CorrectionStyle::Snap => 0,
            CorrectionStyle::Smooth => 1,
            CorrectionStyle::Blend => 2,
        },
        set: |lab, n, v| {
            let style = match v {
                0 => CorrectionStyle::Snap,
                1 => CorrectionStyle::Smooth,
                _ => CorrectionStyle::Blend,
            };
            lab.clients[n].driver.set_correction(style);
        },
        explain: |lab, n| {
            match lab.clients[n].driver.session().correction() {
            CorrectionStyle::Snap => "correction snap: others jump onto a snapshot that disagrees".to_owned(),
            CorrectionStyle::Smooth => "correction smooth: the gap closes exponentially, 60 ms time constant (no jump; the speed jumps)".to_owned(),
            CorrectionStyle::Blend => "correction blend: 200 ms of projective velocity blending (neither position nor speed jumps)".to_owned(),
        }
        },
    },
];

/// What lag compensation undoes now, in derived numbers.
fn rewind_explain(lab: &Lab, _: usize) -> String {
    let cfg = lab.server.config();
    let period = ms(f64::from(lab.server.snapshot_interval()) / f64::from(cfg.tick_rate));
    let bound = cfg.game.max_rewind_ms;
    if cfg.game.lag_compensation {
        format!(
            "lag compensation on: shots rewound up to {bound} ms of latency + 2 x {period:.0} ms interpolation = {:.0} ms (history keeps 1000 ms)",
            (f64::from(bound) + 2.0 * period).min(1000.0)
        )
    } else {
        format!(
            "lag compensation off: shots tested where targets are now (rewind bound {bound} ms unused)"
        )
    }
}

/// Changes client `n`'s tuning.
fn tune(lab: &mut Lab, n: usize, change: impl FnOnce(&mut crate::client::netcode::tuning::Tuning)) {
    let session = lab.clients[n].driver.session_mut();
    let mut t = session.tuning();
    change(&mut t);
    session.set_tuning(t);
}

/// Commands made between two input packets while the keys stay the same.
fn commands_a_packet(s: &crate::client::netcode::session::ClientSession) -> u32 {
    let rate = f64::from(s.tuning().input_rate.max(1));
    // As the pacer counts: whole ticks between packets, at least one.
    ((s.tick_rate() / rate).floor() as u32).max(1)
}

fn clamp_u16(v: Value) -> u16 {
    u16::try_from(v).unwrap_or(u16::MAX)
}

fn ms(secs: f64) -> f64 {
    secs * 1000.0
}

/// A rate for reading: whole when it is whole.
fn hz(rate: f64) -> String {
    if (rate - rate.round()).abs() < 0.05 {
        format!("{rate:.0}")
    } else {
        format!("{rate:.1}")
    }
}

/// A dial's value as the status line writes it.
pub(crate) fn show(dial: &Dial, v: Value) -> String {
    match (dial.flag, v) {
        (_, AUTO) => "auto".to_owned(),
        ("--lag-compensation", 0) => "off".to_owned(),
        ("--lag-compensation", _) => "on".to_owned(),
        ("--interp-delay", v) => format!("{:.1} x period", f64::from(v) / 10.0),
        ("--snapshot-rate" | "--input-rate", v) => format!("{v} Hz"),
        ("--rewind-ms" | "--extrapolation-limit-ms", v) => format!("{v} ms"),
        (_, v) => v.to_string(),
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

impl Lab {
    /// Sets dial `d` of [`DIALS`] (for client `n`, 0-based, where it is a client's) to
    /// `value`, and says what that makes, in derived numbers. Deterministic: the same
    /// change at the same virtual time gives the same run.
    pub fn set_dial(&mut self, d: usize, n: usize, value: Value) -> Option<String> {
        let dial = DIALS.get(d)?;
        if dial.owner == Owner::Client && n >= self.clients.len() {
            return None;
        }
        (dial.set)(self, n, value);
        Some(self.dial_text(d, n))
    }

    /// Dial `d` now, for client `n`.
    pub fn dial(&self, d: usize, n: usize) -> Option<Value> {
        let dial = DIALS.get(d)?;
        if dial.owner == Owner::Client && n >= self.clients.len() {
            return None;
        }
        Some((dial.get)(self, n))
    }

    /// Turns dial `d` one step up or down for client `n`; what that makes, in words.
    pub(crate) fn turn_dial(&mut self, d: usize, n: usize, up: bool) -> Option<String> {
        let now = self.dial(d, n)?;
        match next_step(DIALS[d].steps, now, up) {
            Some(v) => self.set_dial(d, n, v),
            None => Some(format!(
                "{} (at its {})",
                self.dial_text(d, n),
                if up { "top" } else { "bottom" }
            )),
        }
    }

    /// The explanation line of dial `d` for client `n`.
    pub(crate) fn dial_text(&self, d: usize, n: usize) -> String {
        let dial = &DIALS[d];
        let text = (dial.explain)(self, n);
        match dial.owner {
            Owner::Server => format!(" server: {text}"),
            Owner::Client => format!(" client {}: {text}", n + 1),
        }
    }
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

    #[test]
    fn every_dial_has_distinct_rising_steps_and_a_name() {
        for d in DIALS {
            assert!(d.steps.windows(2).all(|w| w[0] < w[1]), "{}", d.name);
            assert!(d.flag.starts_with("--"), "{}", d.name);
        }
    }
}
