//! The lab's dials: the settings a teacher turns while the lab runs, each one row of
//! [`DIALS`] (its name, its flag, whose setting it is, the steps the keys go through,
//! how to read and set it, and the derived numbers it explains itself with). Adding a
//! dial is adding a row. The server's dials act on the server (and on what every
//! client knows of it); the others on the chosen client's session.
//!
//! The tick rate is a dial too: the server switches at a tick boundary (its rules made
//! again for the new rate, what it counts in ticks converted to keep its time, bolts in
//! flight flying on from the sub-steps they have flown) and tells every client by a
//! reliable event with the tick the rate starts at and the client's first command it
//! applies by the new rules; the clients' prediction, command clock and clock sync
//! follow (see `Server::set_tick_rate` and `ClientSession::change_tick_rate`).

use std::time::Duration;

use super::Lab;
use crate::client::dials::{self as player, hz, ms, next_step};
pub use crate::client::dials::{AUTO, Value};
use crate::net::conditioner::JitterMode;
use crate::server::InputBuffer;
use crate::server::commands::{JITTER_WINDOW, MAX_BUFFER_TICKS, MAX_CREDIT};
use crate::sim::combat::{BOLT_CELLS_PER_SEC, BOLT_SUBSTEPS_PER_CELL};
use crate::sim::map::CELL;
use crate::sim::step::Rulebook;

/// Whose setting a dial is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Owner {
    Server,
    /// The chosen client's.
    Client,
}

/// A client's row: the player's dial `$d` of `client::dials`, for the chosen client,
/// in the game's words. A change reaches the client as a setting, which its recording
/// keeps.
macro_rules! player_dial {
    ($d:ident) => {
        Dial {
            name: player::$d.name,
            flag: player::$d.flag,
            owner: Owner::Client,
            steps: player::$d.steps,
            get: |lab, n| (player::$d.get)(&lab.clients[n].driver.settings()),
            set: |lab, n, v| {
                let now = lab.now;
                let driver = &mut lab.clients[n].driver;
                let mut s = driver.settings();
                (player::$d.set)(&mut s, v);
                driver.set_settings(now, s);
            },
            explain: |lab, n| (player::$d.explain)(lab.clients[n].driver.session()),
        }
    };
}

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
            let (interval, now) = (lab.server.snapshot_interval(), lab.now);
            // Each client hears of it as a setting (a recording keeps it at its time).
            for c in lab.clients.iter_mut().chain(&mut lab.walkers) {
                let mut s = c.driver.settings();
                s.snapshot_interval = interval;
                c.driver.set_settings(now, s);
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
    player_dial!(INPUT_RATE),
    player_dial!(INTERP_DELAY),
    player_dial!(REDUNDANCY),
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
    player_dial!(EXTRAPOLATION_LIMIT),
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
    player_dial!(CORRECTION_STYLE),
    Dial {
        name: "tick rate",
        flag: "--tick-rate",
        owner: Owner::Server,
        steps: &[10, 20, 30, 60, 64, 128],
        get: |lab, _| u32::from(lab.server.config().tick_rate),
        set: |lab, _, v| {
            let rates = &super::TICK_RATES;
            lab.server
                .set_tick_rate(clamp_u16(v).clamp(*rates.start(), *rates.end()));
            // The switch is at the last tick: the next comes one new period after it.
            // The clients learn it from the server, over their links.
            let last = lab.next_tick - lab.tick;
            lab.tick = Duration::from_secs(1) / u32::from(lab.server.config().tick_rate);
            lab.next_tick = last + lab.tick;
        },
        explain: tick_rate_explain,
    },
    Dial {
        name: "jitter mode",
        flag: "--jitter-mode",
        owner: Owner::Client,
        // 0: ordered; 1: independent (the order of `JitterMode::NAMES`).
        steps: &[0, 1],
        get: |lab, n| lab.clients[n].up.conditions().jitter_mode as Value,
        set: |lab, n, v| {
            let mode = if v == 0 {
                JitterMode::Ordered
            } else {
                JitterMode::Independent
            };
            let c = &mut lab.clients[n];
            let up = c.up.conditions().clone().with_jitter_mode(mode);
            let down = c.down.conditions().clone().with_jitter_mode(mode);
            c.profile = super::profile_name_each_way(&up, &down);
            c.up.set_conditions(up);
            c.down.set_conditions(down);
        },
        explain: |lab, n| {
            let c = &lab.clients[n];
            let (up, down) = (c.up.conditions(), c.down.conditions());
            let mode = up.jitter_mode.name();
            match up.jitter_mode {
                JitterMode::Ordered => format!(
                    "jitter {mode}: client {}'s delay wanders within {}±{} ms up and {}±{} ms down, never letting a datagram pass the one before it",
                    c.number, up.latency_ms, up.jitter_ms, down.latency_ms, down.jitter_ms
                ),
                JitterMode::Independent => format!(
                    "jitter {mode}: each of client {}'s datagrams draws its own delay, {}±{} ms up and {}±{} ms down, so one that draws short overtakes those before it",
                    c.number, up.latency_ms, up.jitter_ms, down.latency_ms, down.jitter_ms
                ),
            }
        },
    },
];

/// What the tick rate makes, in derived numbers.
fn tick_rate_explain(lab: &Lab, _: usize) -> String {
    let cfg = lab.server.config();
    let rate = f64::from(cfg.tick_rate);
    let interval = lab.server.snapshot_interval();
    let sent = rate / f64::from(interval);
    let every = if interval == 1 {
        "every tick".to_owned()
    } else {
        format!("one every {interval} ticks")
    };
    let snapshots = if (sent - f64::from(cfg.snapshot_rate)).abs() < 0.05 {
        format!("snapshots stay {} Hz = {every}", cfg.snapshot_rate)
    } else {
        format!(
            "snapshots asked {} Hz = {every} -> {} Hz ({:.0} ms)",
            cfg.snapshot_rate,
            hz(sent),
            ms(f64::from(interval) / rate)
        )
    };
    let walk = Rulebook::for_tick_rate(cfg.tick_rate).movement.speed;
    let rewind = f64::from(cfg.game.max_rewind_ms) * rate / 1000.0;
    format!(
        "tick rate {} Hz: one tick every {:.1} ms; {snapshots}; a walker {:.3} cells a tick (9 cells/s), a bolt {:.1} sub-steps of 1/8 cell; rewind bound {} ms = {rewind:.0} ticks; clients told by a reliable event",
        hz(rate),
        ms(1.0 / rate),
        f64::from(walk) / f64::from(CELL),
        f64::from(BOLT_CELLS_PER_SEC * BOLT_SUBSTEPS_PER_CELL) / rate,
        cfg.game.max_rewind_ms,
    )
}

/// What lag compensation undoes now, in derived numbers.
fn rewind_explain(lab: &Lab, _: usize) -> String {
    let cfg = lab.server.config();
    let period = ms(f64::from(lab.server.snapshot_interval()) / f64::from(cfg.tick_rate));
    let bound = cfg.game.max_rewind_ms;
    if cfg.game.lag_compensation {
        format!(
            "lag compensation on: views up to {bound} ms latency + 2 x {period:.0} ms interpolation = {:.0} ms old are rewound; older ones not at all",
            (f64::from(bound) + 2.0 * period).min(1000.0)
        )
    } else {
        format!(
            "lag compensation off: shots tested where targets are now (rewind bound {bound} ms unused)"
        )
    }
}

fn clamp_u16(v: Value) -> u16 {
    u16::try_from(v).unwrap_or(u16::MAX)
}

/// A dial's value as the status line writes it.
pub(crate) fn show(dial: &Dial, v: Value) -> String {
    // A player's dial is written as the game writes it: one table.
    if let Some(own) = crate::client::dials::DIALS
        .iter()
        .find(|d| d.flag == dial.flag)
    {
        return (own.show)(v);
    }
    match (dial.flag, v) {
        ("--input-buffer", 0) => "credit".to_owned(),
        ("--input-buffer", AUTO) => "adaptive".to_owned(),
        ("--input-buffer", v) => format!("{v} ticks"),
        (_, AUTO) => "auto".to_owned(),
        ("--lag-compensation", 0) => "off".to_owned(),
        ("--lag-compensation", _) => "on".to_owned(),
        ("--snapshot-rate" | "--tick-rate", v) => format!("{v} Hz"),
        ("--rewind-ms", v) => format!("{v} ms"),
        ("--jitter-mode", v) => JitterMode::NAMES
            .get(v as usize)
            .map_or_else(|| v.to_string(), |s| (*s).to_owned()),
        (_, v) => v.to_string(),
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
        let input = super::recording::Input::Dial {
            dial: d as u8,
            client: n as u8,
            value,
        };
        self.note(input, self.now);
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

    /// The rewind bound's words say what the server does past it: nothing (it said
    /// "rewound up to" the bound, as Source's clamp would, while such a shot is rewound
    /// 0 ticks: `tests/integration/combat.rs`).
    #[test]
    fn the_rewind_bound_says_a_shot_past_it_is_not_rewound() {
        let mut server =
            crate::server::ServerConfig::new(crate::sim::map::Map::builtin("duel").unwrap());
        server.game.max_rewind_ms = 0;
        let config = super::super::LabConfig {
            server,
            profiles: vec!["lan".to_owned()],
            walkers: 0,
            keyboard: 1,
            tuning: Default::default(),
            correction: Default::default(),
        };
        let lab = Lab::new(&config, std::time::Instant::now()).unwrap();
        let bound = DIALS.iter().position(|d| d.name == "rewind bound").unwrap();
        let said = (DIALS[bound].explain)(&lab, 0);
        assert!(!said.contains("rewound up to"), "{said}");
        assert!(said.contains("views up to 0 ms latency"), "{said}");
        assert!(said.ends_with("older ones not at all"), "{said}");
    }

    #[test]
    fn every_dial_has_distinct_rising_steps_and_a_name() {
        for d in DIALS {
            assert!(d.steps.windows(2).all(|w| w[0] < w[1]), "{}", d.name);
            assert!(d.flag.starts_with("--"), "{}", d.name);
        }
    }

    /// The dial chooser said `input buffer = 0` and `correction style = 1`: every
    /// value is written in words or with its unit, a player's dial as the game writes it.
    #[test]
    fn every_value_is_shown_in_words_or_with_its_unit() {
        let by = |flag: &str| DIALS.iter().find(|d| d.flag == flag).unwrap();
        assert_eq!(show(by("--input-buffer"), 0), "credit");
        assert_eq!(show(by("--input-buffer"), 3), "3 ticks");
        assert_eq!(show(by("--input-buffer"), AUTO), "adaptive");
        assert_eq!(show(by("--correction"), 1), "smooth");
        assert_eq!(show(by("--input-rate"), 30), "30/s");
        assert_eq!(show(by("--tick-rate"), 60), "60 Hz");
        // The server's dials in words or with a unit (a player's, as the game writes it).
        for d in DIALS.iter().filter(|d| d.owner == Owner::Server) {
            for &v in d.steps {
                let shown = show(d, v);
                assert!(
                    shown.contains(|c: char| c.is_alphabetic()),
                    "{} = {shown}",
                    d.name
                );
            }
        }
    }
}
