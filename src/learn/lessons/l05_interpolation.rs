//! Lesson 5: interpolation and the packet period: its steps' words and checks.

use super::*;

pub(super) fn l5_look(lab: &Lab) -> Vec<String> {
    let s = lab.session(0);
    let Some(w) = walker(lab) else {
        return vec!["The walker has not joined.".to_owned()];
    };
    let truth = server_cell(lab, w).unwrap_or_default();
    let drawn = s.remote_position(w, lab.now()).unwrap_or_default();
    let cell = f64::from(crate::sim::map::CELL);
    let drawn = (drawn.0 / cell, drawn.1 / cell);
    vec![
        format!(
            "The walker `{}`: the server has it at {} (left view); client 1 draws it at {} (right view), {} cells behind: where it was {} ms ago, client 1's interpolation delay.",
            glyph(w),
            fine_cell(truth),
            fine_cell(drawn),
            measured_f((truth.0 - drawn.0).hypot(truth.1 - drawn.1), 1),
            measured_f(interp_ms(lab), 0)
        ),
        format!(
            "Client 1 draws others between two snapshots it already has. A snapshot comes every {} ms (the packet period), so it stays more than one period behind; {} snapshots are buffered ahead of what it draws now.",
            measured_f(period_ms(lab), 0),
            measured(s.buffered_ahead(lab.now()))
        ),
    ]
}

pub(super) fn l5_off_ask(_: &Lab) -> Vec<String> {
    vec![format!(
        "Press `i` to turn client 1's interpolation off, and lower the snapshot rate to `5 Hz` or less ({}). Watch the walker in client 1's view.",
        turn("snapshot rate", "[", "5 Hz")
    )]
}

pub(super) fn l5_off_wants(setup: &Setup) -> Result<(), String> {
    if setup.switches.interpolation {
        return Err("client 1 still interpolates: press `i`".to_owned());
    }
    match setup.dial("snapshot rate") {
        r if r <= 5 => Ok(()),
        r => Err(format!(
            "snapshots come at {} Hz: {}",
            measured(r),
            turn("snapshot rate", "[", "5 Hz")
        )),
    }
}

pub(super) fn l5_off_judge(w: &Watch, memo: &mut Memo) -> Verdict {
    let Some(cv) = w.motion_cv else {
        return Verdict::NotYet("waiting for the walker to walk straight".to_owned());
    };
    if cv < 0.8 {
        return Verdict::NotYet(format!(
            "the walker's drawn speed varies by {} of its mean: not jumpy yet",
            measured_f(cv, 2)
        ));
    }
    memo.keep("cv_off", cv);
    Verdict::Pass(vec![format!(
        "The walker jumped: its drawn speed varied by {} of its mean over {} s (`remote_motion_cv`; `0` is even). It stood still for {} ms between snapshots, then jumped to the newest.",
        measured_f(cv, 2),
        secs(w),
        measured_f(w.period_ms, 0)
    )])
}

pub(super) fn slow_snapshots(lab: &mut Lab) {
    set(lab, "snapshot rate", 5);
}

pub(super) fn l5_short_ask(_: &Lab) -> Vec<String> {
    vec![format!(
        "Snapshots come slowly now, and interpolation is back on. Set the interpolation delay to half a period ({}): then there is often no next snapshot to move toward.",
        turn("interpolation delay", "[", "0.5 x period")
    )]
}

pub(super) fn l5_short_wants(setup: &Setup) -> Result<(), String> {
    match setup.dial("interpolation delay") {
        v if v <= 5 => Ok(()),
        _ => Err(now_is(setup, "interpolation delay", "[", "0.5 x period")),
    }
}

pub(super) fn l5_short_judge(w: &Watch, _: &mut Memo) -> Verdict {
    let dry = w.underruns();
    if dry == 0 {
        return Verdict::NotYet("watching for interpolation to run dry".to_owned());
    }
    Verdict::Pass(vec![format!(
        "Interpolation ran dry {} times in {} s: drawing {} ms behind, it passed the newest snapshot before the next came ({} ms apart), and had one snapshot, not two, to draw from. One full period behind is the least that always has two.",
        measured(dry),
        secs(w),
        measured_f(w.interp_ms, 0),
        measured_f(w.period_ms, 0)
    )])
}

pub(super) fn short_delay(lab: &mut Lab) {
    slow_snapshots(lab);
    set(lab, "interpolation delay", 5);
}

pub(super) fn l5_long_ask(_: &Lab) -> Vec<String> {
    vec![format!(
        "Now raise the interpolation delay to two periods or more ({}).",
        turn("interpolation delay", "]", "2.0 x period")
    )]
}

pub(super) fn l5_long_wants(setup: &Setup) -> Result<(), String> {
    match setup.dial("interpolation delay") {
        v if v >= 20 => Ok(()),
        _ => Err(now_is(setup, "interpolation delay", "]", "2.0 x period")),
    }
}

pub(super) fn l5_long_judge(w: &Watch, _: &mut Memo) -> Verdict {
    let dry = w.underruns();
    let target = f64::from(w.setup.dial("interpolation delay")) / 10.0 * w.period_ms;
    if dry > 0 && w.interp_ms < 0.95 * target {
        return Verdict::Again(format!(
            "ran dry {} times while the delay eased up ({} ms of {} ms so far, a step each snapshot): watching again from now",
            measured(dry),
            measured_f(w.interp_ms, 0),
            measured_f(target, 0)
        ));
    }
    if dry > 0 {
        return Verdict::Again(format!(
            "ran dry {} times at {} ms behind: the delay is still too short",
            measured(dry),
            measured_f(w.interp_ms, 0)
        ));
    }
    let cv = w
        .motion_cv
        .map_or_else(|| "not measured".to_owned(), |cv| measured_f(cv, 2));
    Verdict::Pass(vec![format!(
        "Dry {} times in {} s; the walker's drawn speed varies by {cv}. Two periods behind, a third snapshot is usually on its way: one late or lost still leaves two to draw between (the movement-corrections article keeps three). The price: others are drawn {} ms in the past.",
        measured(dry),
        secs(w),
        measured_f(w.interp_ms, 0)
    )])
}
