//! The course: one row per lesson, each a scenario and its steps (what a step sets up,
//! says, asks and checks), each lesson's words and checks in a file of its own. Every
//! number a text quotes comes from the lab's run, marked with [`measured`]; the values
//! a learner is asked to set are in backticks.

use super::watch::{Memo, Setup, Watch, me, server_cell, walker};
use super::{Act, Judge, Lesson, Say, Scenario, Step, Task, Verdict, measured, measured_f};
use super::{rewind, speed_hack};
use crate::client::play::input::Action;
use crate::lab::Lab;
use crate::lab::dials::{AUTO, DIALS, Value};
use crate::net::conditioner::Conditions;
use crate::sim::world::Buttons;

const R: Buttons = Buttons::RIGHT;
const L: Buttons = Buttons::LEFT;
const U: Buttons = Buttons::UP;
const D: Buttons = Buttons::DOWN;
const NONE: Buttons = Buttons::empty();

/// A learner walking about for a few seconds from `t` ms: right, down, left, up.
macro_rules! walk_from {
    ($t:expr) => {
        [
            ($t, Act::Hold(R)),
            ($t + 500, Act::Hold(D)),
            ($t + 900, Act::Hold(L)),
            ($t + 1400, Act::Hold(U)),
            ($t + 1800, Act::Hold(R)),
            ($t + 2300, Act::Hold(D)),
            ($t + 2700, Act::Hold(L)),
            ($t + 3200, Act::Hold(U)),
            ($t + 3600, Act::Hold(NONE)),
        ]
    };
}

const WALK: [(u64, Act); 9] = walk_from!(100);

/// Walking long enough for a loss or two at a few per cent, then standing.
const LOOP_WALK: [(u64, Act); 17] = {
    let a = walk_from!(100);
    let b = walk_from!(3800);
    [
        a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], b[0], b[1], b[2], b[3], b[4], b[5], b[6],
        b[7], b[8],
    ]
};

fn nothing(_: &mut Lab) {}

fn ok(_: &Setup) -> Result<(), String> {
    Ok(())
}

fn dial_index(name: &str) -> usize {
    DIALS
        .iter()
        .position(|d| d.name == name)
        .expect("a dial of that name")
}

/// Client 1's (or the server's) dial `name` now.
fn dial(lab: &Lab, name: &str) -> Value {
    lab.dial(dial_index(name), 0).unwrap_or_default()
}

fn set(lab: &mut Lab, name: &str, v: Value) {
    lab.set_dial(dial_index(name), 0, v);
}

/// Client 1's link loses this share of its datagrams each way, on a LAN otherwise.
fn lossy(lab: &mut Lab, pct: f64) {
    let mut c = Conditions::profile("lan").unwrap_or_default();
    c.loss_pct = pct;
    lab.set_link(0, c.clone(), c);
}

/// What dial `name` is now, and how to turn it.
fn now_is(setup: &Setup, name: &str, keys: &str, to: &str) -> String {
    let d = &DIALS[dial_index(name)];
    let v = match (name, setup.dial(name)) {
        ("input buffer", 0) => "the credit queue".to_owned(),
        (_, v) => crate::lab::dials::show(d, v),
    };
    format!("the {name} is {}: {}", measured(v), turn(name, keys, to))
}

/// How to turn dial `name` with `keys` to `to`: `k` chooses the next dial, and the
/// bottom line names the one chosen. The first dial is chosen when the lab opens, so
/// for it the keys come first (a `k` would go round every dial).
fn turn(name: &str, keys: &str, to: &str) -> String {
    if name == DIALS[0].name {
        format!(
            "`{keys}` to `{to}`: the {name} is the dial chosen when the lab opens, and after a `k` it is `k` until the bottom line says `dial: {name}` again"
        )
    } else {
        format!("`k` until the bottom line says `dial: {name}`, then `{keys}` to `{to}`")
    }
}

fn rtt(lab: &Lab) -> f64 {
    lab.figures(0).rtt_ms
}

/// The snapshot period, ms.
fn period_ms(lab: &Lab) -> f64 {
    lab.session(0).snapshot_period() * 1000.0
}

fn interp_ms(lab: &Lab) -> f64 {
    lab.session(0).interp_delay_secs() * 1000.0
}

fn glyph(id: crate::sim::world::PlayerId) -> char {
    crate::ui::player_glyph(id)
}

/// "column X, row Y" of a position in cells.
fn cell_text((x, y): (f64, f64)) -> String {
    format!(
        "column {}, row {}",
        measured_f(x.floor(), 0),
        measured_f(y.floor(), 0)
    )
}

/// "column X.x, row Y.y": to tell apart two places in one cell.
fn fine_cell((x, y): (f64, f64)) -> String {
    format!("column {}, row {}", measured_f(x, 1), measured_f(y, 1))
}

fn secs(w: &Watch) -> String {
    measured_f(w.elapsed().as_secs_f64(), 1)
}

/// The judge's answer until the learner has walked a little.
fn walked(w: &Watch) -> Result<(), Verdict> {
    if w.moved < 2.0 {
        return Err(Verdict::NotYet(
            "now walk with `WASD` (the server has hardly moved client 1 yet)".to_owned(),
        ));
    }
    Ok(())
}

mod l01_latency;
mod l02_prediction;
mod l03_correction_loop;
mod l04_redundancy;
mod l05_interpolation;
mod l06_dead_reckoning;
mod l07_rates;
mod l08_input_buffer;
mod l09_lag_compensation;
mod l10_projectiles;
use l01_latency::*;
use l02_prediction::*;
use l03_correction_loop::*;
use l04_redundancy::*;
use l05_interpolation::*;
use l06_dead_reckoning::*;
use l07_rates::*;
use l08_input_buffer::*;
use l09_lag_compensation::*;
use l10_projectiles::*;

const fn look(setup: fn(&mut Lab), lead_ms: u64, say: fn(&Lab) -> Vec<String>) -> Step {
    Step {
        setup,
        lead_ms,
        compare: None,
        say: Say::One(say),
        task: None,
        example: &[],
    }
}

const fn task(
    setup: fn(&mut Lab),
    say: fn(&Lab) -> Vec<String>,
    wants: fn(&Setup) -> Result<(), String>,
    window_ms: u64,
    judge: fn(&Watch, &mut Memo) -> Verdict,
    example: &'static [(u64, Act)],
) -> Step {
    Step {
        setup,
        lead_ms: 2000,
        compare: None,
        say: Say::One(say),
        task: Some(Task {
            wants,
            window_ms,
            judge: Judge::One(judge),
        }),
        example,
    }
}

/// An A/B task: lab B differs in `setting`; the learner's change must be made in both,
/// and the judge sees both.
const fn ab_task(
    setting: &'static str,
    say: fn(&Lab, &Lab) -> Vec<String>,
    wants: fn(&Setup) -> Result<(), String>,
    window_ms: u64,
    judge: fn(&Watch, &Watch, &mut Memo) -> Verdict,
    example: &'static [(u64, Act)],
) -> Step {
    Step {
        setup: nothing,
        lead_ms: 2000,
        compare: Some(setting),
        say: Say::Both(say),
        task: Some(Task {
            wants,
            window_ms,
            judge: Judge::Both(judge),
        }),
        example,
    }
}

const P: Act = Act::Do(Action::TogglePrediction);
const FIRE: Act = Act::Hold(Buttons::FIRE);

/// A learner with the rail who fires when the walker is in line, every 50 ms for 11 s.
const AIMED: [(u64, Act); 220] = {
    let mut script = [(100, Act::Do(Action::SelectWeapon(1))); 220];
    let mut i = 1;
    while i < script.len() {
        script[i] = (300 + 50 * i as u64, Act::FireAtWalker);
        i += 1;
    }
    script
};

/// A learner doing `first` at 100 ms, then walking about from `t` ms.
const fn then_walk(first: Act, t: u64) -> [(u64, Act); 10] {
    let w = walk_from!(t);
    [
        (100, first),
        w[0],
        w[1],
        w[2],
        w[3],
        w[4],
        w[5],
        w[6],
        w[7],
        w[8],
    ]
}

const EX1: [(u64, Act); 10] = then_walk(P, 400);
const EX2: [(u64, Act); 10] = then_walk(Act::Do(Action::CycleGhosts), 400);
const EX3: [(u64, Act); 10] = then_walk(Act::Dial("redundancy", 1), 300);
const EX4: [(u64, Act); 10] = then_walk(Act::Dial("redundancy", 8), 300);
const EX5: [(u64, Act); 10] = then_walk(Act::Dial("input rate", 10), 300);
const EX6: [(u64, Act); 10] = then_walk(Act::Dial("input buffer", 3), 300);

/// Every lesson, in the course's order.
pub(crate) static LESSONS: &[Lesson] = &[
    Lesson {
        title: "Latency and the dumb client",
        articles: &[
            "improved-latency-handling",
            "prediction-reconciliation-blog",
        ],
        covers: &[
            "the dumb terminal: a client that waits for the server",
            "RTT measured from echoed timestamps",
        ],
        scenario: Scenario {
            profile: "bad",
            seed: 11,
        },
        steps: &[
            look(nothing, 2500, l1_look),
            task(nothing, l1_ask, l1_wants, 2000, l1_judge, &EX1),
        ],
    },
    Lesson {
        title: "Prediction and reconciliation",
        articles: &[
            "prediction-reconciliation-blog",
            "fps-prediction-revisited",
            "improved-latency-handling",
            "tickrate-lerp-prediction-devdoc",
        ],
        covers: &[
            "saved moves, acks with move id and position, replay of the rest",
            "sent vs acked moves",
            "a ring buffer of predicted moves by prediction id",
            "the ghost: a debug switch showing the server's position",
        ],
        scenario: Scenario {
            profile: "bad",
            seed: 12,
        },
        steps: &[
            task(nothing, l2_ask, ok, 2000, l2_judge, &WALK),
            task(
                nothing,
                l2_ghost_ask,
                l2_ghost_wants,
                2000,
                l2_ghost_judge,
                &EX2,
            ),
        ],
    },
    Lesson {
        title: "The correction loop",
        articles: &["player-movement-corrections"],
        covers: &["the correction-loop bug, and why numbered commands and replay avoid it"],
        scenario: Scenario {
            profile: "lan",
            seed: 13,
        },
        steps: &[
            task(l3_setup, l3_ask, ok, 1500, l3_judge, &WALK),
            Step {
                setup: l3_rare_loss,
                lead_ms: 2000,
                compare: Some(LOOP_BUG),
                say: Say::Both(l3_ab_ask),
                task: Some(Task {
                    wants: ok,
                    window_ms: 1500,
                    judge: Judge::Both(l3_ab_judge),
                }),
                example: &LOOP_WALK,
            },
        ],
    },
    Lesson {
        title: "Redundancy and loss",
        articles: &["fps-prediction-revisited"],
        covers: &[
            "redundant inputs: each command rides in several packets, the commands not yet acknowledged",
        ],
        scenario: Scenario {
            profile: "lan",
            seed: 14,
        },
        steps: &[
            task(l4_setup, l4_ask, l4_wants, 2000, l4_judge, &EX3),
            task(
                l4_again_setup,
                l4_again_ask,
                l4_again_wants,
                2000,
                l4_again_judge,
                &EX4,
            ),
        ],
    },
    Lesson {
        title: "Interpolation and the packet period",
        articles: &[
            "improved-latency-handling",
            "player-movement-corrections",
            "tickrate-lerp-prediction-devdoc",
        ],
        covers: &[
            "interpolation between snapshots; the interpolation period is the packet period",
            "why at least two snapshots, and why three are buffered",
            "lerp of cached positions",
        ],
        scenario: Scenario {
            profile: "lan",
            seed: 15,
        },
        steps: &[
            look(nothing, 3000, l5_look),
            task(
                nothing,
                l5_off_ask,
                l5_off_wants,
                3000,
                l5_off_judge,
                &[
                    (100, Act::Do(Action::ToggleInterpolation)),
                    (200, Act::Dial("snapshot rate", 5)),
                ],
            ),
            task(
                slow_snapshots,
                l5_short_ask,
                l5_short_wants,
                3000,
                l5_short_judge,
                &[(100, Act::Dial("interpolation delay", 5))],
            ),
            task(
                short_delay,
                l5_long_ask,
                l5_long_wants,
                3000,
                l5_long_judge,
                &[(100, Act::Dial("interpolation delay", 20))],
            ),
        ],
    },
    Lesson {
        title: "Dead reckoning and correction styles",
        articles: &["improved-latency-handling"],
        covers: &[
            "dead reckoning: extrapolating others along their velocity",
            "three ways to correct: snap, interpolate (smooth), second order (blend)",
        ],
        scenario: Scenario {
            profile: "mobile",
            seed: 16,
        },
        steps: &[
            task(
                nothing,
                l6_ask,
                extrapolating,
                3000,
                l6_judge,
                &[(100, Act::Do(Action::ToggleExtrapolation))],
            ),
            task(
                dead_reckoning,
                l6_snap_ask,
                |setup| style_wants(setup, 0, "snap"),
                4000,
                l6_snap_judge,
                &[(100, Act::Dial("correction style", 0))],
            ),
            task(
                snapping,
                l6_blend_ask,
                |setup| style_wants(setup, 2, "blend"),
                4000,
                l6_blend_judge,
                &[(100, Act::Dial("correction style", 2))],
            ),
        ],
    },
    Lesson {
        title: "Tick rate, frame rate, update rate",
        articles: &[
            "tickrate-lerp-prediction-devdoc",
            "player-movement-corrections",
        ],
        covers: &[
            "tick rate vs frame rate vs update rate (snapshot rate)",
            "input batched into packets (command rate), rate limits",
        ],
        scenario: Scenario {
            profile: "lan",
            seed: 17,
        },
        steps: &[
            look(nothing, 3000, l7_look),
            task(
                nothing,
                l7_snap_ask,
                l7_snap_wants,
                3000,
                l7_snap_judge,
                &[(100, Act::Dial("snapshot rate", 10))],
            ),
            ab_task(
                HALF_RATE,
                l7_ab_ask,
                interpolation_off,
                3000,
                l7_ab_judge,
                &[(100, Act::Do(Action::ToggleInterpolation))],
            ),
            task(
                nothing,
                l7_input_ask,
                l7_input_wants,
                2000,
                l7_input_judge,
                &EX5,
            ),
        ],
    },
    Lesson {
        title: "The server's input buffer and speed hacks",
        articles: &["fps-prediction-revisited"],
        covers: &[
            "a per-client jitter buffer on the server",
            "the same buffer stops speed hacks",
        ],
        scenario: Scenario {
            profile: "wifi",
            seed: 18,
        },
        steps: &[
            task(credit, l8_ask, ok, 2000, l8_judge, &WALK),
            task(
                credit,
                l8_buffer_ask,
                l8_buffer_wants,
                2000,
                l8_buffer_judge,
                &EX6,
            ),
            Step {
                setup: speed_hack::cheat,
                lead_ms: 2000,
                compare: Some(speed_hack::BUFFERED),
                say: Say::Both(speed_hack::ask),
                task: Some(Task {
                    wants: ok,
                    window_ms: 3000,
                    judge: Judge::Both(speed_hack::judge),
                }),
                example: &WALK,
            },
        ],
    },
    Lesson {
        title: "Lag compensation and its bound",
        articles: &[
            "improved-latency-handling",
            "tickrate-lerp-prediction-devdoc",
        ],
        covers: &[
            "server-side rewind for hitscan weapons",
            "the bound on how far back the server rewinds",
        ],
        scenario: Scenario {
            profile: "mobile",
            seed: 19,
        },
        steps: &[
            task(nothing, l9_ask, lag_comp_on, 300, l9_judge, &AIMED),
            task(
                rail,
                l9_bound_ask,
                l9_bound_wants,
                300,
                l9_bound_judge,
                &[
                    (100, Act::Dial("rewind bound", 0)),
                    (200, FIRE),
                    (400, Act::Hold(NONE)),
                ],
            ),
            task(
                rewind::guessing,
                rewind::ask,
                rewind::wants,
                300,
                rewind::judge,
                &[(800, FIRE), (1400, Act::Hold(NONE))],
            ),
        ],
    },
    Lesson {
        title: "Projectiles: server birth, client flight",
        articles: &[
            "tickrate-lerp-prediction-devdoc",
            "improved-latency-handling",
        ],
        covers: &[
            "client-side bullet travel with server birth and removal",
            "several physics steps per tick (bolt sub-steps)",
            "tells that hide latency (the muzzle flash)",
        ],
        scenario: Scenario {
            profile: "bad",
            seed: 20,
        },
        steps: &[task(
            nothing,
            l10_ask,
            ok,
            300,
            l10_judge,
            &[
                (100, Act::Do(Action::SelectWeapon(0))),
                (200, FIRE),
                (300, Act::Hold(NONE)),
            ],
        )],
    },
];

#[cfg(test)]
mod checks_tests;
