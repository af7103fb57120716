//! Lesson 4: redundancy and loss: its steps' words and checks.

use super::*;

pub(super) fn l4_setup(lab: &mut Lab) {
    lossy(lab, 20.0);
}

pub(super) fn l4_ask(lab: &Lab) -> Vec<String> {
    vec![format!(
        "Client 1's link loses {}% of its packets (the red `×` on its lane). Each command rides in {} input packets (redundancy), so a lost packet's commands come in a later one. Turn that down to one copy: {}. Then walk.",
        measured(lab.link(0, crate::lab::Way::Up).loss_pct),
        measured(dial(lab, "redundancy")),
        turn("redundancy", "[", "1")
    )]
}

pub(super) fn l4_wants(setup: &Setup) -> Result<(), String> {
    match setup.dial("redundancy") {
        1 => Ok(()),
        r => Err(format!(
            "redundancy is {}: {}",
            measured(r),
            turn("redundancy", "[", "1")
        )),
    }
}

pub(super) fn l4_judge(w: &Watch, memo: &mut Memo) -> Verdict {
    if let Err(v) = walked(w) {
        return v;
    }
    let corr = w.corrections();
    if corr == 0 {
        return Verdict::NotYet("keep walking: no command lost yet".to_owned());
    }
    let (sent, lost) = w.packets_up();
    if lost == 0 {
        return Verdict::Again(format!(
            "{} corrections with no input packet lost: something else disagreed; walk again",
            measured(corr)
        ));
    }
    memo.keep("corrections", corr as f64);
    Verdict::Pass(vec![format!(
        "{} of {} input packets were lost, and with their one copy {} commands the server never received (the lane's `lost`): it never applied those moves, and client 1 was corrected {} times.",
        measured(lost),
        measured(sent),
        measured(w.commands_lost()),
        measured(corr)
    )])
}

pub(super) fn l4_again_setup(lab: &mut Lab) {
    lossy(lab, 20.0);
    set(lab, "redundancy", 1);
}

pub(super) fn l4_again_ask(_: &Lab) -> Vec<String> {
    vec!["Now turn the redundancy up (`]`) to `8` or more and walk the same way.".to_owned()]
}

pub(super) fn l4_again_wants(setup: &Setup) -> Result<(), String> {
    match setup.dial("redundancy") {
        r if r >= 8 => Ok(()),
        r => Err(format!(
            "redundancy is {}: {}",
            measured(r),
            turn("redundancy", "]", "8")
        )),
    }
}

pub(super) fn l4_again_judge(w: &Watch, memo: &mut Memo) -> Verdict {
    if let Err(v) = walked(w) {
        return v;
    }
    let (sent, lost) = w.packets_up();
    if lost == 0 {
        return Verdict::NotYet("keep walking: nothing lost yet".to_owned());
    }
    let corr = w.corrections();
    if corr > 0 {
        return Verdict::Again(format!(
            "{} corrections: a run of losses longer than the redundancy covers; walk on",
            measured(corr)
        ));
    }
    let before = memo.get("corrections").map_or_else(String::new, |c| {
        format!(" (one copy: {} corrections)", measured(c))
    });
    Verdict::Pass(vec![format!(
        "{} of {} packets lost, {} commands never received, {} corrections{before}: each command rode in {} packets, so the next one to arrive brought the lost ones. Redundant inputs trade a few bytes for loss.",
        measured(lost),
        measured(sent),
        measured(w.commands_lost()),
        measured(corr),
        measured(w.setup.dial("redundancy"))
    )])
}
