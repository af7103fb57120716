//! Lesson 8's speed-hack step: a cheating client whose clock runs fast (it makes more
//! commands than there are ticks) against the credit queue and against the adaptive
//! input buffer, side by side (`lab --compare input-buffer=adaptive`, the cheat in
//! both labs). Neither lets it move faster; they differ in what becomes of the
//! surplus: the credit queue keeps it (the cheat's own commands wait ever longer), the
//! buffer pushes it out.

use super::watch::{Memo, Watch};
use super::{Lab, Verdict, measured, measured_f};

/// How much faster than the server's ticks the cheat's command clock runs.
pub(super) const CHEAT_RATE: f64 = 1.5;

/// Lab B's setting: the server's default input handling.
pub(super) const BUFFERED: &str = "input-buffer=adaptive";

/// A server that applied this many commands a tick let the cheat through.
const THROUGH: f64 = 1.1;

/// Both labs: the credit queue, and client 1 cheating (lab B then takes the buffer).
pub(super) fn cheat(lab: &mut Lab) {
    let d = crate::lab::dials::DIALS
        .iter()
        .position(|d| d.name == "input buffer")
        .expect("the input buffer dial");
    lab.set_dial(d, 0, 0);
    lab.clients[0].driver.set_clock_rate(CHEAT_RATE);
}

pub(super) fn ask(_: &Lab, _: &Lab) -> Vec<String> {
    vec![
        format!(
            "A speed hack: client 1's clock now runs {} times as fast, so it makes {} commands for every tick of the server's, each a step. A server that applied commands as they came would move it that much faster. On the left the server has its credit queue; on the right its adaptive input buffer (`lab --compare {BUFFERED}`).",
            measured_f(CHEAT_RATE, 1),
            measured_f(CHEAT_RATE, 1)
        ),
        "Walk with `WASD` and compare client 1's speed in the two server views, and the queue on each lane.".to_owned(),
    ]
}

/// Commands applied a tick on the server over the watch.
fn per_tick(w: &Watch) -> f64 {
    w.applied_commands as f64 / (w.applied.iter().sum::<u64>().max(1)) as f64
}

pub(super) fn judge(a: &Watch, b: &Watch, _: &mut Memo) -> Verdict {
    if a.moved < 2.0 {
        return Verdict::NotYet("walk with `WASD`".to_owned());
    }
    let (ra, rb) = (per_tick(a), per_tick(b));
    for (side, rate) in [("left", ra), ("right", rb)] {
        if rate > THROUGH {
            return Verdict::Again(format!(
                "on the {side} the server applied {} commands a tick: the cheat got through",
                measured_f(rate, 2)
            ));
        }
    }
    let pushed = b.buffer_dropped.saturating_sub(b.buffer_dropped_before);
    let held = a.latest.commands_held - a.stats.commands_held;
    if pushed == 0 || a.buffer_queued < 5 {
        return Verdict::NotYet(format!(
            "the cheat's surplus: {} commands waiting on the left, {} pushed out on the right so far",
            measured(a.buffer_queued),
            measured(pushed)
        ));
    }
    Verdict::Pass(vec![format!(
        "Neither server let client 1 move faster: the credit queue applied {} commands a tick, the buffer {}. Each adds one a tick and no more. The surplus differs: the credit queue keeps it ({} commands waiting now, so the cheat's own moves come later; client 1 itself held {} back, past what it lets go unanswered), while the buffer pushed {} out. The FPS-prediction-revisited article's buffer stops a fast clock the same way it evens out jitter; a server that applies commands as they come, with no budget a tick, would not.",
        measured_f(ra, 2),
        measured_f(rb, 2),
        measured(a.buffer_queued),
        measured(held),
        measured(pushed)
    )])
}

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use super::*;

    /// Client 1 walked; the server applied `applied` commands in `ticks` ticks, kept
    /// `queued` waiting and pushed `pushed` out.
    fn walked(applied: u64, ticks: u64, queued: usize, pushed: u64) -> Watch {
        let mut w = Watch::blank(Instant::now());
        w.moved = 5.0;
        w.applied = [0, ticks, 0];
        w.applied_commands = applied;
        w.buffer_queued = queued;
        w.buffer_dropped = pushed;
        w
    }

    #[test]
    fn the_step_needs_the_cheat_stopped_both_ways_and_its_surplus_seen() {
        let judge = |a: &Watch, b: &Watch| judge(a, b, &mut Memo::default());
        let pass = judge(&walked(100, 100, 50, 0), &walked(100, 100, 0, 40));
        assert!(matches!(pass, Verdict::Pass(_)), "{pass:?}");
        // A learner who stands still.
        let mut still = walked(100, 100, 50, 0);
        still.moved = 0.0;
        assert!(matches!(
            judge(&still, &walked(100, 100, 0, 40)),
            Verdict::NotYet(_)
        ));
        // Either server letting the cheat through.
        assert!(matches!(
            judge(&walked(150, 100, 0, 0), &walked(100, 100, 0, 40)),
            Verdict::Again(_)
        ));
        assert!(matches!(
            judge(&walked(100, 100, 50, 0), &walked(150, 100, 0, 0)),
            Verdict::Again(_)
        ));
        // No surplus seen yet: no cheat to speak of.
        assert!(matches!(
            judge(&walked(100, 100, 2, 0), &walked(100, 100, 0, 0)),
            Verdict::NotYet(_)
        ));
    }
}
