//! Lesson 7: tick rate, frame rate, update rate: its steps' words and checks.

use super::*;

pub(super) fn l7_look(lab: &Lab) -> Vec<String> {
    let secs = lab.elapsed().as_secs_f64().max(0.001);
    let tick = lab.server().world().tick;
    let snaps = lab.session(0).stats().snapshots_received as f64;
    vec![
        format!(
            "Three rates. The tick rate: the server ran {} ticks in {} s, {} a second (the top line counts them); each tick is one step of the rules for everyone. The lab's tick-rate dial (`k`) changes it live.",
            measured(tick),
            measured_f(secs, 1),
            measured_f(f64::from(tick) / secs, 0)
        ),
        format!(
            "The frame rate (`fps`, top line) is how often this screen is drawn: many frames may fall between two ticks. The update rate is how often snapshots come: client 1 received {} a second.",
            measured_f(snaps / secs, 0)
        ),
    ]
}

pub(super) fn l7_snap_ask(_: &Lab) -> Vec<String> {
    vec![format!(
        "Set the snapshot rate, the update rate, to ten a second: {}.",
        turn("snapshot rate", "[", "10 Hz")
    )]
}

pub(super) fn l7_snap_wants(setup: &Setup) -> Result<(), String> {
    match setup.dial("snapshot rate") {
        10 => Ok(()),
        r => Err(format!(
            "the snapshot rate is {} Hz: {}",
            measured(r),
            turn("snapshot rate", "[ ]", "10 Hz")
        )),
    }
}

pub(super) fn l7_snap_judge(w: &Watch, _: &mut Memo) -> Verdict {
    let n = w.snapshots();
    let t = w.ticks();
    let s = w.elapsed().as_secs_f64();
    if n == 0 {
        return Verdict::NotYet("no snapshot yet".to_owned());
    }
    let asked = f64::from(w.setup.dial("snapshot rate"));
    if (n as f64 / s - asked).abs() > 0.3 * asked {
        return Verdict::Again(format!(
            "{} snapshots a second came, not the {} asked: watching again",
            measured_f(n as f64 / s, 1),
            measured(asked)
        ));
    }
    Verdict::Pass(vec![format!(
        "Client 1 received {} snapshots in {} s, {} a second, while the server ran {} ticks: one snapshot every {} ticks. Fewer updates cost less bandwidth and draw others further in the past (interpolation delay now {} ms).",
        measured(n),
        measured_f(s, 1),
        measured_f(n as f64 / s, 1),
        measured(t),
        measured_f(f64::from(t) / n as f64, 1),
        measured_f(w.interp_ms, 0)
    )])
}

pub(super) fn l7_input_ask(_: &Lab) -> Vec<String> {
    vec![format!(
        "Set client 1's input rate to ten packets a second ({}), and walk with `WASD`.",
        turn("input rate", "[", "10 Hz")
    )]
}

pub(super) fn l7_input_wants(setup: &Setup) -> Result<(), String> {
    match setup.dial("input rate") {
        10 => Ok(()),
        r => Err(format!(
            "client 1's input rate is {} Hz: {}",
            measured(r),
            turn("input rate", "[", "10 Hz")
        )),
    }
}

pub(super) fn l7_input_judge(w: &Watch, _: &mut Memo) -> Verdict {
    if let Err(v) = walked(w) {
        return v;
    }
    let (sent, _) = w.packets_up();
    let cmds = w.commands();
    if sent == 0 {
        return Verdict::NotYet("no input packet yet".to_owned());
    }
    let rate = sent as f64 / w.elapsed().as_secs_f64().max(0.001);
    let asked = f64::from(w.setup.dial("input rate"));
    if rate > 1.5 * asked + 3.0 {
        return Verdict::Again(format!(
            "{} input packets a second went, far above the {} asked (key changes go at once, but not that many): watching again",
            measured_f(rate, 1),
            measured(asked)
        ));
    }
    let (n, text) = applied_text(w);
    let buffer = match w.setup.dial("input buffer") {
        0 => "the credit queue applies a packet's commands as they come, so they land together",
        _ => {
            "its input buffer holds them and applies one a tick, catching a late one up with a second on a tick"
        }
    };
    Verdict::Pass(vec![format!(
        "Client 1 sent {} input packets in {} s carrying {} commands: still one command a tick, batched about {} to a packet. Keys are sampled once a tick into a command, which alone adds up to a tick of latency; a key change makes the next command at once, so its first step does not wait. The movement-corrections article batches the same way. On the server, of {} ticks {text} (the lane's digits): {buffer}.",
        measured(sent),
        secs(w),
        measured(cmds),
        measured_f(cmds as f64 / sent as f64, 1),
        measured(n)
    )])
}

/// Lab B's setting in lesson 7's A/B step.
pub(super) const HALF_RATE: &str = "snapshot-rate=10";

pub(super) fn l7_ab_ask(a: &Lab, b: &Lab) -> Vec<String> {
    vec![
        format!(
            "An A/B run from one seed (`lab --compare {HALF_RATE}`): on the left lab A sends {} snapshots a second, on the right lab B {}; all else is alike. Client 1 draws the walker {} ms in the past on the left, {} ms on the right: interpolation waits for the next snapshot.",
            measured(dial(a, "snapshot rate")),
            measured(dial(b, "snapshot rate")),
            measured_f(interp_ms(a), 0),
            measured_f(interp_ms(b), 0)
        ),
        "Press `i`: your keys act on both labs, so interpolation goes off in both. Watch the walker in the two client views.".to_owned(),
    ]
}

pub(super) fn interpolation_off(setup: &Setup) -> Result<(), String> {
    if setup.switches.interpolation {
        return Err("client 1 still interpolates: press `i`".to_owned());
    }
    Ok(())
}

pub(super) fn l7_ab_judge(w: &Watch, wb: &Watch, _: &mut Memo) -> Verdict {
    let (Some(cv_a), Some(cv_b)) = (w.motion_cv, wb.motion_cv) else {
        return Verdict::NotYet("waiting for the walker to walk straight in both labs".to_owned());
    };
    if cv_b <= cv_a {
        return Verdict::NotYet(format!(
            "the walker's drawn speed varies by {} on the left and {} on the right: not yet more unevenly on the slower side",
            measured_f(cv_a, 2),
            measured_f(cv_b, 2)
        ));
    }
    let which = "the slower updates drew it the more unevenly";
    Verdict::Pass(vec![format!(
        "Without interpolation the walker moves only when a snapshot comes, then stands. Over {} s its drawn speed varied by {} of its mean on the left, a snapshot every {} ms, and by {} on the right, every {} ms (`remote_motion_cv`; `0` is even): {which}. The update rate sets how far apart the steps are.",
        secs(w),
        measured_f(cv_a, 2),
        measured_f(w.period_ms, 0),
        measured_f(cv_b, 2),
        measured_f(wb.period_ms, 0)
    )])
}
