//! Lesson 2: prediction and reconciliation: its steps' words and checks.

use super::*;

pub(super) fn l2_ask(lab: &Lab) -> Vec<String> {
    vec![
        format!(
            "Walk with `WASD`. Client 1 predicts: it moves its `@` at once with the same rules the server runs, though the server hears of each move about {} ms later. The dumb client of the first lesson was conservative (it showed only what the server confirmed); prediction is optimistic (it shows the move now and corrects it if the server disagrees).",
            measured_f(rtt(lab) / 2.0, 0)
        ),
        "Compare `sent #` on client 1's status line with `acked: c1 #` under the server view: the moves between them are saved, waiting for the server's word. `pend` counts more: it counts from the number acknowledged in the newest snapshot client 1 has, which left the server half a round trip ago, while `acked` is the server's now.".to_owned(),
    ]
}

pub(super) fn l2_judge(w: &Watch, memo: &mut Memo) -> Verdict {
    if let Err(v) = walked(w) {
        return v;
    }
    let (corr, snaps) = (w.corrections(), w.snapshots());
    if corr * 2 > snaps {
        return Verdict::Again(format!(
            "{} of {} snapshots needed a correction: the prediction disagreed with the server most of the time; walk again",
            measured(corr),
            measured(snaps)
        ));
    }
    memo.keep("pending", f64::from(w.max_pending));
    Verdict::Pass(vec![
        format!(
            "While you walked, up to {} moves were saved and unacknowledged, each under its command number in a ring. Each snapshot acknowledged a number and gave the server's position after it: the client dropped the saved moves up to it and replayed the rest from there.",
            measured(w.max_pending)
        ),
        format!(
            "{} of {} snapshots needed a correction: the replay landed where the prediction already was.",
            measured(corr),
            measured(snaps)
        ),
    ])
}

pub(super) fn l2_ghost_ask(_: &Lab) -> Vec<String> {
    vec![
        "Press `g` for the ghost: an `o` where the server last had client 1 (a debug switch). Walk again and watch how far it trails your `@`.".to_owned(),
    ]
}

pub(super) fn l2_ghost_wants(setup: &Setup) -> Result<(), String> {
    if !setup.switches.ghosts.server() {
        return Err("no ghost yet: press `g`".to_owned());
    }
    Ok(())
}

pub(super) fn l2_ghost_judge(w: &Watch, memo: &mut Memo) -> Verdict {
    if let Err(v) = walked(w) {
        return v;
    }
    let saved = memo
        .get("pending")
        .map_or_else(String::new, |p| format!(" ({} saved moves)", measured(p)));
    // The ghost is where the server had client 1 when it sent the newest snapshot: a
    // round trip behind the key, the commands' wait in the input buffer, and on average
    // half a snapshot period for the snapshot's turn; at most a whole period, and the
    // link's jitter each way (its mean deviation, about half its widest swing, twice).
    let speed = walk_cells_per_sec(w.tick_rate);
    let tick = 1000.0 / f64::from(w.tick_rate);
    let buffer = f64::from(w.buffer_ticks) * tick;
    let typical = speed * (w.rtt_ms + buffer + w.period_ms / 2.0) / 1000.0;
    let longest = speed * (w.rtt_ms + buffer + w.period_ms + tick + 4.0 * w.jitter_ms) / 1000.0;
    if w.max_gap > longest + 0.5 {
        return Verdict::Again(format!(
            "the ghost trailed by {} cells, more than the walk of a round trip, the input buffer, a snapshot period and the jitter ({} cells) explains; walk again",
            measured_f(w.max_gap, 1),
            measured_f(longest, 1)
        ));
    }
    Verdict::Pass(vec![format!(
        "The ghost trailed your `@` by up to {} cells{saved}. At {} cells a second, the round trip of {} ms, {} ms in the server's input buffer and half a snapshot period make {} cells; the longest trail adds the rest of the period ({} ms) and the link's jitter ({} ms): {} cells. That is how far ahead prediction draws you, and what reconciliation keeps honest.",
        measured_f(w.max_gap, 1),
        measured_f(speed, 0),
        measured_f(w.rtt_ms, 0),
        measured_f(buffer, 0),
        measured_f(typical, 1),
        measured_f(w.period_ms, 0),
        measured_f(w.jitter_ms, 0),
        measured_f(longest, 1)
    )])
}

/// How fast a player walks, in cells a second, at this tick rate.
pub(super) fn walk_cells_per_sec(tick_rate: u16) -> f64 {
    let speed = crate::sim::step::Rulebook::for_tick_rate(tick_rate)
        .movement
        .speed;
    f64::from(speed) * f64::from(tick_rate) / f64::from(crate::sim::map::CELL)
}
