//! Lesson 6: dead reckoning and correction styles: its steps' words and checks.

use super::*;

pub(super) fn l6_ask(lab: &Lab) -> Vec<String> {
    vec![format!(
        "Press `x`: dead reckoning. Client 1 then draws the walker where its last known velocity puts it now, not {} ms in the past. Watch it overshoot when the walker turns.",
        measured_f(interp_ms(lab), 0)
    )]
}

pub(super) fn extrapolating(setup: &Setup) -> Result<(), String> {
    if !setup.switches.extrapolation {
        return Err("client 1 does not extrapolate: press `x`".to_owned());
    }
    Ok(())
}

pub(super) fn l6_judge(w: &Watch, _: &mut Memo) -> Verdict {
    let (guessed, all) = w.frames_extrapolated();
    if guessed == 0 {
        return Verdict::NotYet("no frame extrapolated yet".to_owned());
    }
    Verdict::Pass(vec![format!(
        "{} of {} frames drew the walker guessed forward; the guess was up to {} cells from where the server had it. Each snapshot corrects the guess: how the drawing gets there is the correction style.",
        measured(guessed),
        measured(all),
        measured_f(w.walker_gap, 1)
    )])
}

pub(super) fn dead_reckoning(lab: &mut Lab) {
    lab.act(0, Action::ToggleExtrapolation);
}

pub(super) fn l6_snap_ask(_: &Lab) -> Vec<String> {
    vec![format!(
        "Dead reckoning is on. Set the correction style to snap ({}): a wrong guess jumps onto the snapshot.",
        turn("correction style", "[", "snap")
    )]
}

pub(super) fn style_wants(setup: &Setup, want: Value, name: &str) -> Result<(), String> {
    extrapolating(setup)?;
    if setup.dial("correction style") != want {
        return Err(format!(
            "`k` to the correction style, then turn it to `{name}`"
        ));
    }
    Ok(())
}

pub(super) fn l6_snap_judge(w: &Watch, memo: &mut Memo) -> Verdict {
    if w.walker_jumps == 0 {
        return Verdict::NotYet(
            "no jump yet: watch the walker turn while it is guessed forward".to_owned(),
        );
    }
    memo.keep("jumps", w.walker_jumps as f64);
    Verdict::Pass(vec![format!(
        "With snap, the walker's drawing jumped {} times in {} s (half a cell or more at once), each time onto a snapshot that disagreed with the guess, which was off by up to {} cells.",
        measured(w.walker_jumps),
        secs(w),
        measured_f(w.walker_gap, 1)
    )])
}

pub(super) fn snapping(lab: &mut Lab) {
    dead_reckoning(lab);
    set(lab, "correction style", 0);
}

pub(super) fn l6_blend_ask(_: &Lab) -> Vec<String> {
    vec!["Now turn the correction style up (`]`) to `blend`.".to_owned()]
}

pub(super) fn l6_blend_judge(w: &Watch, memo: &mut Memo) -> Verdict {
    if let Some(snap) = memo.get("jumps")
        && w.walker_jumps as f64 >= snap
    {
        return Verdict::Again(format!(
            "blend jumped {} times, as often as snap ({}): watching again",
            measured(w.walker_jumps),
            measured(snap)
        ));
    }
    let snap = memo.get("jumps").map_or_else(
        || "not measured in this run".to_owned(),
        |j| format!("{} jumps", measured(j)),
    );
    Verdict::Pass(vec![format!(
        "With blend, the same walker on the same path: {} jumps in {} s (snap: {snap}), off by up to {} cells. Snap moves the position at once; smooth closes the gap but its speed jumps; blend (projective velocity blending) changes neither at once: the second-order correction of the latency article.",
        measured(w.walker_jumps),
        secs(w),
        measured_f(w.walker_gap, 1)
    )])
}
