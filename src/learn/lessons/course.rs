//! The course: every lesson in order, with its scenario, steps and worked examples.

use super::*;

/// Every lesson, in the course's order.
pub(crate) static LESSONS: &[Lesson] = &[
    Lesson {
        title: "Latency and the dumb client",
        articles: &[LATENCY_HANDLING, RECONCILIATION],
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
            RECONCILIATION,
            PREDICTION_REVISITED,
            LATENCY_HANDLING,
            PROOFPS_DEV_DOC,
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
        articles: &[MOVEMENT_CORRECTIONS],
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
        articles: &[PREDICTION_REVISITED],
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
        articles: &[LATENCY_HANDLING, MOVEMENT_CORRECTIONS, PROOFPS_DEV_DOC],
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
        articles: &[LATENCY_HANDLING],
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
        articles: &[PROOFPS_DEV_DOC, MOVEMENT_CORRECTIONS, PREDICTION_REVISITED],
        covers: &[
            "tick rate vs frame rate vs update rate (snapshot rate)",
            "input batched into packets (command rate), rate limits",
            "a variable-rate client: a command a frame carrying its duration, applied on arrival",
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
            ab_task(VARIABLE_RATE, l7_var_ask, ok, 3000, l7_var_judge, &WALK),
        ],
    },
    Lesson {
        title: "The server's input buffer and speed hacks",
        articles: &[PREDICTION_REVISITED],
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
        articles: &[LATENCY_HANDLING, PROOFPS_DEV_DOC],
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
        articles: &[PROOFPS_DEV_DOC, LATENCY_HANDLING],
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
