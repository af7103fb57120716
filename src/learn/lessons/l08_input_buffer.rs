//! Lesson 8: the server's input buffer and speed hacks: its steps' words and checks.

use super::*;

pub(super) fn credit(lab: &mut Lab) {
    set(lab, "input buffer", 0);
}

pub(super) fn l8_ask(_: &Lab) -> Vec<String> {
    vec![
        "The server applies client 1's commands as they come (the credit queue). Walk with `WASD` and watch the right end of its lane: the digits are commands applied on each of the last ticks.".to_owned(),
    ]
}

pub(super) fn applied_text(w: &Watch) -> (u64, String) {
    let [z, o, t] = w.applied;
    (
        z + o + t,
        format!(
            "{} applied none, {} one, {} two or more",
            measured(z),
            measured(o),
            measured(t)
        ),
    )
}

pub(super) fn l8_judge(w: &Watch, memo: &mut Memo) -> Verdict {
    if let Err(v) = walked(w) {
        return v;
    }
    let (sent, _) = w.packets_up();
    let (n, text) = applied_text(w);
    if w.applied[0] == 0 || w.applied[2] == 0 {
        return Verdict::NotYet(format!(
            "of {} ticks so far, {text}: no tick without a command and one with two yet",
            measured(n)
        ));
    }
    memo.keep("one", w.applied[1] as f64 / n.max(1) as f64);
    Verdict::Pass(vec![format!(
        "Of {} ticks, {text}: each input packet brings about {} commands at once (batching: {} packets for {} commands), and the credit queue applies them as they come, so on some ticks client 1 takes two steps on the server and on others none, and others see it so. Jitter bunches packets further.",
        measured(n),
        measured_f(w.commands() as f64 / sent.max(1) as f64, 1),
        measured(sent),
        measured(w.commands())
    )])
}

pub(super) fn l8_buffer_ask(_: &Lab) -> Vec<String> {
    vec![format!(
        "Set the input buffer to three ticks or more ({}), and walk again.",
        turn("input buffer", "]", "3")
    )]
}

pub(super) fn l8_buffer_wants(setup: &Setup) -> Result<(), String> {
    match setup.dial("input buffer") {
        v if (3..AUTO).contains(&v) => Ok(()),
        _ => Err(now_is(setup, "input buffer", "]", "3")),
    }
}

pub(super) fn l8_buffer_judge(w: &Watch, memo: &mut Memo) -> Verdict {
    if let Err(v) = walked(w) {
        return v;
    }
    let (n, text) = applied_text(w);
    let one = w.applied[1] as f64 / n.max(1) as f64;
    if one < 0.8 {
        return Verdict::NotYet(format!("of {} ticks so far, {text}", measured(n)));
    }
    let depth = w.setup.dial("input buffer");
    let tick_ms = 1000.0 / f64::from(w.tick_rate);
    let before = memo.get("one").map_or_else(String::new, |b| {
        format!(" (credit queue: {}%)", measured_f(b * 100.0, 0))
    });
    let dropped = w.buffer_dropped;
    Verdict::Pass(vec![format!(
        "Of {} ticks, {text}: {}% with one command{before}. The buffer waits {} ticks, {} ms of latency, to even out arrival. It also stops speed hacks: one command a tick whatever arrives, so a client sending faster than the tick rate gains nothing ({} commands pushed out of a full buffer so far).",
        measured(n),
        measured_f(one * 100.0, 0),
        measured(depth),
        measured_f(f64::from(depth) * tick_ms, 0),
        measured(dropped)
    )])
}
