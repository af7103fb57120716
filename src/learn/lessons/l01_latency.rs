//! Lesson 1: latency and the dumb client: its steps' words and checks.

use super::*;

pub(super) fn l1_look(lab: &Lab) -> Vec<String> {
    let me = me(lab);
    let at = server_cell(lab, me).unwrap_or_default();
    let w = walker(lab).map_or('?', glyph);
    vec![
        format!(
            "Client 1 plays over a `bad` link: its round trip measures {} ms (`rtt` on its pane's bottom line, timed by the server echoing the client's own clock). The left view is the server's: the truth. The right view is what client 1's player sees.",
            measured_f(rtt(lab), 0)
        ),
        format!(
            "Client 1 is `{}` at {} of the server view, and `@` in its own; the walker `{w}` strolls on its own.",
            glyph(me),
            cell_text(at)
        ),
    ]
}

pub(super) fn l1_ask(_: &Lab) -> Vec<String> {
    vec![
        "Make client 1 a dumb client: press `p` (prediction off). Then walk with `WASD` and watch when its `@` moves.".to_owned(),
    ]
}

pub(super) fn l1_wants(setup: &Setup) -> Result<(), String> {
    if setup.switches.prediction {
        return Err("client 1 still predicts: press `p`".to_owned());
    }
    Ok(())
}

pub(super) fn l1_judge(w: &Watch, _: &mut Memo) -> Verdict {
    if let Err(v) = walked(w) {
        return v;
    }
    let (Some(key), Some(moved)) = (w.key_at, w.drawn_moved_at) else {
        return Verdict::NotYet("press a key of `WASD` and hold it".to_owned());
    };
    let delay = moved.saturating_duration_since(key).as_secs_f64() * 1000.0;
    if delay < w.rtt_ms / 2.0 {
        return Verdict::Again(format!(
            "the `@` moved {} ms after the key, sooner than a round trip of {} ms allows: it was predicted; press `p` and walk again",
            measured_f(delay, 0),
            measured_f(w.rtt_ms, 0)
        ));
    }
    let tick = 1000.0 / f64::from(w.tick_rate);
    let gap = delay - w.rtt_ms;
    // Waits a round trip does not time: the key for the client's next command, the
    // command for its tick on the server (after the input buffer), the answer for the
    // next snapshot.
    let waits = 2.0 * tick + f64::from(w.buffer_ticks) * tick + w.period_ms;
    let why = if gap >= 0.0 {
        let jitter = if gap > waits {
            format!(
                ", and {} ms this trip's jitter (the link's measures {} ms)",
                measured_f(gap - waits, 0),
                measured_f(w.jitter_ms, 0)
            )
        } else {
            String::new()
        };
        format!(
            "the {} ms more: up to a tick ({} ms) for the key's command, {} ticks in the server's input buffer and up to one more for its tick, up to a snapshot period ({} ms) for the answer's snapshot{jitter}",
            measured_f(gap, 0),
            measured_f(tick, 1),
            measured(w.buffer_ticks),
            measured_f(w.period_ms, 0)
        )
    } else {
        format!(
            "{} ms less: the jittery link carried this key's round trip quicker than the measured one, a median of the last few",
            measured_f(-gap, 0)
        )
    };
    Verdict::Pass(vec![
        format!(
            "Client 1's `@` moved {} ms after your key: a dumb client draws only what the server said, so every step waits for the round trip, which measures {} ms; {why}.",
            measured_f(delay, 0),
            measured_f(w.rtt_ms, 0)
        ),
        format!(
            "Up to {} commands were sent and not yet answered (`pend`). Press `p` again to predict: the next lesson.",
            measured(w.max_pending)
        ),
    ])
}
