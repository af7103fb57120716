//! Lesson 10: projectiles, server birth and client flight: its steps' words and checks.

use super::*;

pub(super) fn l10_ask(_: &Lab) -> Vec<String> {
    vec![
        "Press `1` for the blaster, then `space` to fire. Watch the bolt in both views.".to_owned(),
    ]
}

pub(super) fn l10_judge(w: &Watch, _: &mut Memo) -> Verdict {
    if w.fired_at.is_none() {
        return Verdict::NotYet("fire the blaster: `1`, then `space`".to_owned());
    }
    let Some(d) = w.bolt_wait_ms() else {
        return Verdict::NotYet("fired: waiting for the server's bolt".to_owned());
    };
    let tick = 1000.0 / f64::from(w.tick_rate);
    let buffer = f64::from(w.born_buffer_ticks) * tick;
    // Half the round trip, and at most the buffer's depth, give or take two ticks and
    // the jitter.
    let explained = w.rtt_ms / 2.0 + buffer;
    let slack = 2.0 * tick + 2.0 * w.jitter_ms + 10.0;
    if d > explained + slack || d + slack < w.rtt_ms / 2.0 {
        return Verdict::Again(format!(
            "the server's bolt was born {} ms after the shot, not within half a round trip ({} ms) and the input buffer's {} ms: fire again",
            measured_f(d, 0),
            measured_f(w.rtt_ms / 2.0, 0),
            measured_f(buffer, 0)
        ));
    }
    let tick = w
        .bolt_born
        .map_or_else(String::new, |t| format!(", at tick {}", measured(t)));
    Verdict::Pass(vec![format!(
        "Your bolt flew in client 1's view at once: client 1 predicts its own bolt, as it predicts its moves (the muzzle flash is a tell, what a game shows for a shot it cannot predict). The server's bolt was born {} ms later, when the command was applied: half the round trip ({} ms) to arrive, then up to the {} ticks ({} ms) the server's input buffer holds{tick}. The server decides where it ends; client 1 drops its own at the server's removal tick. Other players' bolts are the article's server birth, client flight: born on the server, flown by each client (the walker never fires). Bolts move in sub-steps so none skips a wall.",
        measured_f(d, 0),
        measured_f(w.rtt_ms / 2.0, 0),
        measured(w.born_buffer_ticks),
        measured_f(buffer, 0)
    )])
}
