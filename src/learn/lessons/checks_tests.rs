//! Every lesson check fed crafted watches (issue 32): for each task, a learner who does
//! the wrong thing is refused (its setup, or what it did), and a run that misbehaves is
//! noticed. A check is a pure function of a [`Setup`] or a [`Watch`] (and the memo),
//! so these need no lab.

use std::time::{Duration, Instant};

use super::*;
use crate::net::protocol::RailShot;

/// A watch of `secs` seconds in which client 1 walked `moved` cells, at a 300 ms round
/// trip, 20 snapshots a second of 60 ticks.
fn ran(secs: f64, moved: f64) -> Watch {
    let since = Instant::now();
    let mut w = Watch::blank(since);
    w.now = since + Duration::from_secs_f64(secs);
    w.moved = moved;
    w.rtt_ms = 300.0;
    w.period_ms = 50.0;
    w.interp_ms = 100.0;
    w.tick_rate = 60;
    w
}

fn passes(v: &Verdict) -> bool {
    matches!(v, Verdict::Pass(_))
}

fn not_yet(v: &Verdict) -> bool {
    matches!(v, Verdict::NotYet(_))
}

fn again(v: &Verdict) -> bool {
    matches!(v, Verdict::Again(_))
}

fn judge(f: fn(&Watch, &mut Memo) -> Verdict, w: &Watch) -> Verdict {
    f(w, &mut Memo::default())
}

fn switched(f: impl FnOnce(&mut crate::client::Switches)) -> Setup {
    let mut s = Setup::default();
    s.switches = crate::client::Switches::default();
    f(&mut s.switches);
    s
}

/// Client 1 with `corr` corrections and `sent`/`lost` input packets, `commands_lost`
/// commands lost, over the watch.
fn counted(mut w: Watch, corr: u64, sent: u64, lost: u64, commands_lost: u64) -> Watch {
    w.latest.corrections = corr;
    w.up_now = (sent, lost);
    w.lost_now = commands_lost;
    w
}

#[test]
fn lesson_1_refuses_a_predicting_client_and_a_move_sooner_than_the_round_trip() {
    assert!(l1_wants(&switched(|s| s.prediction = true)).is_err());
    assert!(l1_wants(&switched(|s| s.prediction = false)).is_ok());
    let key = |delay_ms: u64| {
        let mut w = ran(3.0, 5.0);
        w.key_at = Some(w.since);
        w.drawn_moved_at = Some(w.since + Duration::from_millis(delay_ms));
        w.buffer_ticks = 2;
        w
    };
    // The learner who never walks.
    assert!(not_yet(&judge(l1_judge, &ran(3.0, 0.0))));
    // Drawn 40 ms after the key at a 300 ms round trip: it was predicted.
    assert!(again(&judge(l1_judge, &key(40))));
    let Verdict::Pass(lines) = judge(l1_judge, &key(400)) else {
        panic!("a dumb client's move a round trip and waits after the key passes")
    };
    // The gap past the round trip is put down to the waits it does not time.
    assert!(lines[0].contains("⟨100⟩ ms more"), "{lines:?}");
    assert!(
        lines[0].contains("⟨2⟩ ticks in the server's input buffer"),
        "{lines:?}"
    );
}

#[test]
fn lesson_2_refuses_a_standing_learner_a_prediction_that_keeps_missing_and_a_ghost_too_far() {
    assert!(not_yet(&judge(l2_judge, &ran(2.0, 0.5))));
    let mut w = counted(ran(2.0, 6.0), 0, 60, 0, 0);
    w.latest.snapshots_received = 40;
    assert!(passes(&judge(l2_judge, &w)));
    // Corrected on most snapshots: the prediction is wrong, not the link.
    w.latest.corrections = 30;
    assert!(again(&judge(l2_judge, &w)));

    assert!(l2_ghost_wants(&Setup::default()).is_err());
    assert!(l2_ghost_wants(&switched(|s| s.ghosts = crate::client::GhostMode::Server)).is_ok());
    let ghost = |gap: f64| {
        let mut w = ran(2.0, 6.0);
        w.max_gap = gap;
        w.jitter_ms = 5.0;
        judge(l2_ghost_judge, &w)
    };
    // 9 cells a second over 300 ms and half of 50: 2.9 cells.
    let Verdict::Pass(lines) = ghost(3.0) else {
        panic!("a ghost a round trip behind passes")
    };
    assert!(lines[0].contains("make ⟨2.9⟩ cells"), "{lines:?}");
    // Eight cells behind is not the round trip's doing.
    assert!(again(&ghost(8.0)));
}

#[test]
fn lesson_3_refuses_a_learner_who_never_stands_and_a_correction_loop() {
    let mut w = counted(ran(3.0, 6.0), 2, 100, 3, 6);
    // Corrected but never stood still.
    assert!(not_yet(&judge(l3_judge, &w)));
    w.still_since = Some((w.since + Duration::from_secs(1), 2));
    assert!(passes(&judge(l3_judge, &w)));
    // More corrections than lost packets: the loop.
    w.latest.corrections = 9;
    assert!(again(&judge(l3_judge, &w)));

    let b = counted(ran(3.0, 6.0), 10, 100, 3, 6);
    let mut a = counted(ran(3.0, 6.0), 2, 100, 3, 6);
    a.still_since = Some((a.since + Duration::from_secs(1), 2));
    let ab = |a: &Watch, b: &Watch| l3_ab_judge(a, b, &mut Memo::default());
    assert!(passes(&ab(&a, &b)));
    // Lab B not looping yet: the learner has not walked enough.
    assert!(not_yet(&ab(&a, &counted(ran(3.0, 6.0), 2, 100, 3, 6))));
    // Lab A (netarena as it is) looping: the fix is broken.
    a.latest.corrections = 8;
    assert!(again(&ab(&a, &b)));
}

#[test]
fn lesson_4_refuses_the_wrong_redundancy_and_corrections_with_nothing_lost() {
    let red = |v| Setup::default().with("redundancy", v);
    assert!(l4_wants(&red(8)).is_err());
    assert!(l4_wants(&red(1)).is_ok());
    assert!(not_yet(&judge(
        l4_judge,
        &counted(ran(2.0, 6.0), 0, 60, 10, 20)
    )));
    assert!(passes(&judge(
        l4_judge,
        &counted(ran(2.0, 6.0), 5, 60, 10, 20)
    )));
    assert!(again(&judge(
        l4_judge,
        &counted(ran(2.0, 6.0), 5, 60, 0, 0)
    )));

    assert!(l4_again_wants(&red(4)).is_err());
    assert!(l4_again_wants(&red(8)).is_ok());
    let mut w = counted(ran(2.0, 6.0), 0, 60, 10, 0);
    w.setup = red(8);
    assert!(passes(&judge(l4_again_judge, &w)));
    // Corrected though every lost command came in a later packet.
    w.latest.corrections = 2;
    assert!(again(&judge(l4_again_judge, &w)));
}

#[test]
fn lesson_5_refuses_wrong_dials_an_even_walker_no_underrun_and_underruns() {
    let off = switched(|s| s.interpolation = false);
    assert!(l5_off_wants(&off.clone().with("snapshot rate", 20)).is_err());
    assert!(l5_off_wants(&Setup::default().with("snapshot rate", 5)).is_err());
    assert!(l5_off_wants(&off.with("snapshot rate", 5)).is_ok());
    let mut w = ran(3.0, 0.0);
    assert!(not_yet(&judge(l5_off_judge, &w)));
    w.motion_cv = Some(0.1);
    assert!(not_yet(&judge(l5_off_judge, &w)), "even is not jumpy");
    w.motion_cv = Some(1.4);
    assert!(passes(&judge(l5_off_judge, &w)));

    let delay = |v| Setup::default().with("interpolation delay", v);
    assert!(l5_short_wants(&delay(20)).is_err());
    assert!(l5_short_wants(&delay(5)).is_ok());
    let mut w = ran(3.0, 0.0);
    assert!(not_yet(&judge(l5_short_judge, &w)));
    w.latest.underruns = 4;
    assert!(passes(&judge(l5_short_judge, &w)));

    assert!(l5_long_wants(&delay(10)).is_err());
    assert!(l5_long_wants(&delay(20)).is_ok());
    let mut w = ran(3.0, 0.0);
    w.setup = delay(20);
    w.period_ms = 200.0;
    w.interp_ms = 400.0;
    assert!(passes(&judge(l5_long_judge, &w)));
    w.latest.underruns = 2;
    let Verdict::Again(why) = judge(l5_long_judge, &w) else {
        panic!("underruns two periods behind are noticed")
    };
    assert!(why.contains("still too short"), "{why}");
    // Dry while the delay was still easing up: said so, not restarted silently.
    w.interp_ms = 250.0;
    let Verdict::Again(why) = judge(l5_long_judge, &w) else {
        panic!("underruns while easing are noticed")
    };
    assert!(why.contains("eased up"), "{why}");
}

#[test]
fn lesson_6_refuses_no_dead_reckoning_the_wrong_style_no_jump_and_a_blend_that_jumps() {
    let x = switched(|s| s.extrapolation = true);
    assert!(extrapolating(&Setup::default()).is_err());
    assert!(extrapolating(&x).is_ok());
    let mut w = ran(3.0, 0.0);
    assert!(not_yet(&judge(l6_judge, &w)));
    w.latest.frames_extrapolated = 100;
    assert!(passes(&judge(l6_judge, &w)));

    let style = |v| x.clone().with("correction style", v);
    assert!(style_wants(&style(2), 0, "snap").is_err());
    assert!(style_wants(&Setup::default().with("correction style", 0), 0, "snap").is_err());
    assert!(style_wants(&style(0), 0, "snap").is_ok());
    let mut memo = Memo::default();
    let mut w = ran(4.0, 0.0);
    // Snap that never jumped has shown nothing.
    assert!(not_yet(&l6_snap_judge(&w, &mut memo)));
    w.walker_jumps = 6;
    assert!(passes(&l6_snap_judge(&w, &mut memo)));
    let mut b = ran(4.0, 0.0);
    b.walker_jumps = 6;
    assert!(
        again(&l6_blend_judge(&b, &mut memo)),
        "blend jumping as snap"
    );
    b.walker_jumps = 0;
    assert!(passes(&l6_blend_judge(&b, &mut memo)));
}

#[test]
fn lesson_7_refuses_wrong_rates_a_rate_not_kept_too_many_packets_and_no_difference() {
    let snap = |v| Setup::default().with("snapshot rate", v);
    assert!(l7_snap_wants(&snap(20)).is_err());
    assert!(l7_snap_wants(&snap(10)).is_ok());
    let mut w = ran(3.0, 0.0);
    w.setup = snap(10);
    assert!(not_yet(&judge(l7_snap_judge, &w)));
    w.latest.snapshots_received = 30;
    w.tick_now = 180;
    assert!(passes(&judge(l7_snap_judge, &w)));
    // Twenty a second came though ten were asked.
    w.latest.snapshots_received = 60;
    assert!(again(&judge(l7_snap_judge, &w)));

    let input = |v| Setup::default().with("input rate", v);
    assert!(l7_input_wants(&input(30)).is_err());
    assert!(l7_input_wants(&input(10)).is_ok());
    let mut w = ran(2.0, 6.0);
    w.setup = input(10);
    assert!(not_yet(&judge(l7_input_judge, &w)));
    w.up_now = (25, 0);
    w.latest.commands_sent = 120;
    assert!(passes(&judge(l7_input_judge, &w)));
    // Sixty packets a second at an input rate of ten.
    w.up_now = (120, 0);
    assert!(again(&judge(l7_input_judge, &w)));

    assert!(interpolation_off(&Setup::default()).is_err());
    assert!(interpolation_off(&switched(|s| s.interpolation = false)).is_ok());
    let (mut a, mut b) = (ran(3.0, 0.0), ran(3.0, 0.0));
    b.period_ms = 100.0;
    let ab = |a: &Watch, b: &Watch| l7_ab_judge(a, b, &mut Memo::default());
    assert!(not_yet(&ab(&a, &b)));
    (a.motion_cv, b.motion_cv) = (Some(1.4), Some(2.2));
    assert!(passes(&ab(&a, &b)));
    // The slower updates drawn more evenly: not what the step shows.
    b.motion_cv = Some(1.0);
    assert!(not_yet(&ab(&a, &b)));
}

#[test]
fn lesson_8_refuses_even_steps_from_the_credit_queue_and_uneven_ones_from_the_buffer() {
    let mut w = ran(2.0, 6.0);
    w.up_now = (60, 0);
    w.latest.commands_sent = 120;
    w.applied = [0, 120, 0];
    // The credit queue never batching: nothing to see yet.
    assert!(not_yet(&judge(l8_judge, &w)));
    w.applied = [20, 83, 17];
    assert!(passes(&judge(l8_judge, &w)));

    let buffer = |v| Setup::default().with("input buffer", v);
    assert!(l8_buffer_wants(&buffer(0)).is_err());
    assert!(l8_buffer_wants(&buffer(AUTO)).is_err());
    assert!(l8_buffer_wants(&buffer(3)).is_ok());
    let mut w = ran(2.0, 6.0);
    w.setup = buffer(3);
    w.applied = [20, 83, 17];
    assert!(not_yet(&judge(l8_buffer_judge, &w)), "as uneven as credit");
    w.applied = [4, 115, 1];
    assert!(passes(&judge(l8_buffer_judge, &w)));
}

fn rail_shot(rewound: u16, hit: bool) -> RailShot {
    RailShot {
        shooter: 1,
        tick: 100,
        hit: hit.then_some(2),
        rewound_ticks: rewound,
        wanted_ticks: 19,
        bound_ticks: 6,
        ..RailShot::default()
    }
}

#[test]
fn lesson_9_refuses_lag_compensation_off_a_miss_and_a_shot_not_rewound() {
    let lagc = |v| Setup::default().with("lag compensation", v);
    assert!(lag_comp_on(&lagc(0)).is_err());
    assert!(lag_comp_on(&lagc(1)).is_ok());
    let shot = |rewound, hit| {
        let mut w = ran(3.0, 0.0);
        w.rails.push(rail_shot(rewound, hit));
        judge(l9_judge, &w)
    };
    assert!(not_yet(&judge(l9_judge, &ran(3.0, 0.0))));
    assert!(again(&shot(0, true)), "not rewound");
    assert!(again(&shot(19, false)), "a miss");
    assert!(passes(&shot(19, true)));

    assert!(l9_bound_wants(&lagc(1).with("rewind bound", 250)).is_err());
    assert!(l9_bound_wants(&lagc(0).with("rewind bound", 0)).is_err());
    assert!(l9_bound_wants(&lagc(1).with("rewind bound", 0)).is_ok());
    let bound = |rewound| {
        let mut w = ran(3.0, 0.0);
        w.rails.push(rail_shot(rewound, false));
        judge(l9_bound_judge, &w)
    };
    assert!(again(&bound(19)), "still rewound past the bound");
    assert!(passes(&bound(0)));
}

#[test]
fn lesson_10_refuses_no_shot_and_a_bolt_born_later_than_its_causes() {
    let mut w = ran(3.0, 0.0);
    assert!(not_yet(&judge(l10_judge, &w)));
    w.fired_at = Some(w.since);
    assert!(not_yet(&judge(l10_judge, &w)), "no bolt on the server yet");
    w.born_buffer_ticks = 3;
    // Half of 300 ms and three ticks: 200 ms.
    w.born_at = Some(w.since + Duration::from_millis(190));
    assert!(passes(&judge(l10_judge, &w)));
    w.born_at = Some(w.since + Duration::from_millis(600));
    assert!(again(&judge(l10_judge, &w)), "born far later");
    w.born_at = Some(w.since + Duration::from_millis(20));
    assert!(
        again(&judge(l10_judge, &w)),
        "born before the command could arrive"
    );
}
