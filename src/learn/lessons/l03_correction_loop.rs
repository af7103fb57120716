//! Lesson 3: the correction loop: its steps' words and checks.

use super::*;

/// Lesson 3's link: this loss each way, and enough delay (50 ms each way) that a few
/// commands are always in flight, which is what the correction loop feeds on.
pub(super) fn far_lossy(lab: &mut Lab, pct: f64) {
    let mut c = Conditions::profile("lan").unwrap_or_default();
    c.loss_pct = pct;
    c.latency_ms = 50;
    lab.set_link(0, c.clone(), c);
    set(lab, "redundancy", 1);
}

pub(super) fn l3_setup(lab: &mut Lab) {
    far_lossy(lab, 5.0);
}

pub(super) fn l3_ask(lab: &Lab) -> Vec<String> {
    vec![
        format!(
            "Client 1's link now takes {} ms each way and loses {}% of its packets, and each command rides in {} packet (redundancy): a lost packet takes its commands with it, the server never applies them, and client 1 is corrected (`corr`).",
            measured(lab.link(0, crate::lab::Way::Up).latency_ms),
            measured(lab.link(0, crate::lab::Way::Up).loss_pct),
            measured(dial(lab, "redundancy"))
        ),
        "The movement-corrections article's bug was a client that kept correcting while it moved and stopped only when it stood. Walk until `corr` counts up, then let go of the keys for a second.".to_owned(),
    ]
}

pub(super) fn l3_judge(w: &Watch, _: &mut Memo) -> Verdict {
    let corr = w.corrections();
    if corr == 0 {
        return Verdict::NotYet("walk with `WASD` until `corr` counts up".to_owned());
    }
    let Some((stood, after)) = w.standing() else {
        return Verdict::NotYet(format!(
            "{} corrections so far: now stand still (let go of the keys)",
            measured(corr)
        ));
    };
    if stood < 1.0 {
        return Verdict::NotYet("keep standing still".to_owned());
    }
    let (sent, lost) = w.packets_up();
    if let Some(looping) = looping(corr, lost) {
        return Verdict::Again(looping);
    }
    Verdict::Pass(vec![
        format!(
            "While you walked, {} of {} input packets were lost, and with them {} commands the server never received (the lane's `lost`); client 1 was corrected {} times, each time replaying the moves after the acknowledged one. Standing still for {} s: {} corrections. No loop.",
            measured(lost),
            measured(sent),
            measured(w.commands_lost()),
            measured(corr),
            measured_f(stood, 1),
            measured(after)
        ),
        "Every command has a number: the server applies each once, and the client replays exactly those not yet acknowledged, so one correction never causes the next. Here the client finds the mismatch, comparing its saved move with each snapshot; the alternative is server-side detection: the client sends where it predicted itself, and the server corrects it only when that is wrong.".to_owned(),
    ])
}

/// The correction loop's mark, or None: more corrections than lost input packets, so
/// some came with no new loss behind them (each correction of the fixed client needs a
/// command the server never got; the loop corrects on every snapshot while it moves).
pub(super) fn looping(corrections: u64, lost_packets: u64) -> Option<String> {
    (corrections > lost_packets).then(|| {
        format!(
            "{} corrections for {} lost input packets: client 1 was corrected again with no new loss behind it, the correction loop; walk and stand again",
            measured(corrections),
            measured(lost_packets)
        )
    })
}

/// Lab B's setting in lesson 3's A/B step: the article's bug put back.
pub(super) const LOOP_BUG: &str = "correction-loop=on";

/// Client 1 of the A/B step loses few packets: one loss, then the bug's loop.
pub(super) fn l3_rare_loss(lab: &mut Lab) {
    far_lossy(lab, 3.0);
}

pub(super) fn l3_ab_ask(a: &Lab, _: &Lab) -> Vec<String> {
    vec![
        format!(
            "An A/B run (`lab --compare {LOOP_BUG}`): client 1 loses {}% of its input packets in both labs. On the right the article's bug is back: on a correction, client 1 drops the commands in flight instead of replaying them, though the server still applies them.",
            measured(a.link(0, crate::lab::Way::Up).loss_pct)
        ),
        "Walk until `corr` counts up on the right, then let go of the keys for a second."
            .to_owned(),
    ]
}

pub(super) fn l3_ab_judge(w: &Watch, wb: &Watch, _: &mut Memo) -> Verdict {
    let (corr_b, (_, lost_b)) = (wb.corrections(), wb.packets_up());
    if w.moved < 2.0 || looping(corr_b, lost_b).is_none() {
        return Verdict::NotYet(
            "walk with `WASD` until the right-hand client is corrected more often than it loses packets".to_owned(),
        );
    }
    let Some((stood, _)) = w.standing() else {
        return Verdict::NotYet("now stand still (let go of the keys)".to_owned());
    };
    if stood < 1.0 {
        return Verdict::NotYet("keep standing still".to_owned());
    }
    let corr_a = w.corrections();
    let (_, lost_a) = w.packets_up();
    if let Some(looping) = looping(corr_a, lost_a) {
        return Verdict::Again(format!("on the left: {looping}"));
    }
    Verdict::Pass(vec![format!(
        "Left, as netarena does: {} corrections for {} lost input packets, each one a command the server never got. Right, with the bug: {} corrections for {} lost packets: one correction left the prediction without the commands in flight, the server applied them, so the next snapshot disagreed again, until you stood still. The fix: clear what was in flight from the old guess and replay the unacknowledged commands on the server's state.",
        measured(corr_a),
        measured(lost_a),
        measured(corr_b),
        measured(lost_b)
    )])
}
