//! The link's random processes: bursty loss as a two-state Gilbert–Elliott chain, and
//! jitter as a slowly drifting offset that never reorders.

use std::time::Instant;

use rand::Rng;
use rand_pcg::Pcg64Mcg;

/// Fastest rate, in ms of offset per ms of wall time, at which the jitter offset moves.
/// Staying below 1 is what makes jitter on its own unable to reorder: a later packet's
/// offset can shrink by less than the time that separates it from the earlier one.
const JITTER_SPEED_MAX: f64 = 0.8;
const JITTER_SPEED_MIN: f64 = 0.2;

/// Transition probabilities `(p, r)` of a two-state loss chain (good → bad with `p`,
/// bad → good with `r`, every datagram in the bad state lost, none in the good one) with
/// long-run loss `loss` (0 < loss < 1) and mean loss-run length `burst` (> 1).
///
/// Each datagram spent in the bad state leaves it with probability `r`, so the number of
/// consecutive losses is geometric with mean `1/r`, giving `r = 1/burst`. The chain's
/// stationary share of bad states is `p / (p + r)`; setting that to `loss` and solving
/// gives `p = r·loss / (1 − loss)`.
///
/// That `p` exceeds 1 when `loss > burst / (burst + 1)`: with good runs already at their
/// minimum of one datagram, only longer bursts can reach the loss rate. The loss rate is
/// what players notice, so it wins: `p = 1` and `r = (1 − loss) / loss`.
pub(super) fn gilbert_elliott(loss: f64, burst: f64) -> (f64, f64) {
    let r = 1.0 / burst;
    let p = r * loss / (1.0 - loss);
    if p <= 1.0 {
        (p, r)
    } else {
        (1.0, (1.0 - loss) / loss)
    }
}

/// The jitter offset as a function of time: a point that drifts inside `[-span, span]` at
/// a random speed below 1 ms per ms, bouncing off the ends and picking a new speed and
/// direction every so often.
///
/// Drawing each datagram's jitter independently would force a choice between reordering
/// and, once held in order, a mean delay that creeps well above `latency` whenever
/// datagrams are closer together than the jitter range (each one would wait for the
/// slowest of its predecessors). A slowly drifting offset models the queueing delay that
/// causes real jitter: neighbours see similar delays, distant ones independent ones.
/// Since the offset falls more slowly than time passes, departure order follows push
/// order by itself. A point moving back and forth with a direction-symmetric speed and
/// reflecting walls spends equal time everywhere, so the offset is uniform over the
/// range and averages to zero, keeping mean delay at `latency`.
#[derive(Debug, Default)]
pub(super) struct JitterWalk {
    at: Option<Instant>,
    span: f64,
    pos: f64,
    /// Signed drift in ms of offset per ms of time.
    velocity: f64,
    /// Time in ms before a new velocity is drawn.
    leg_left: f64,
}

impl JitterWalk {
    pub(super) fn offset(&mut self, now: Instant, span: f64, rng: &mut Pcg64Mcg) -> f64 {
        if span <= 0.0 {
            self.span = 0.0;
            self.at = None;
            return 0.0;
        }
        let Some(at) = self.at else {
            self.restart(now, span, rng);
            return self.pos;
        };
        if span != self.span {
            // Rescale rather than restart so that a live change doesn't make the delay jump.
            self.pos *= span / self.span;
            self.span = span;
        }
        let mut elapsed = now.saturating_duration_since(at).as_secs_f64() * 1e3;
        self.at = Some(at.max(now));
        // Legs last at most 2·span / JITTER_SPEED_MIN = 10·span ms, so after a long quiet
        // spell the position no longer depends on where it was: a fresh draw from the
        // uniform stationary distribution is equivalent and bounds the loop below.
        if elapsed > 100.0 * span {
            self.restart(now, span, rng);
            return self.pos;
        }
        for _ in 0..64 {
            if elapsed <= 0.0 {
                return self.pos;
            }
            let step = elapsed.min(self.leg_left);
            self.advance(step);
            elapsed -= step;
            self.leg_left -= step;
            if self.leg_left <= 0.0 {
                self.new_leg(rng);
            }
        }
        self.restart(now, span, rng);
        self.pos
    }

    fn restart(&mut self, now: Instant, span: f64, rng: &mut Pcg64Mcg) {
        self.at = Some(now);
        self.span = span;
        self.pos = span * (2.0 * rng.random::<f64>() - 1.0);
        self.new_leg(rng);
    }

    fn new_leg(&mut self, rng: &mut Pcg64Mcg) {
        let speed = JITTER_SPEED_MIN + (JITTER_SPEED_MAX - JITTER_SPEED_MIN) * rng.random::<f64>();
        self.velocity = if rng.random::<bool>() { speed } else { -speed };
        // Travel somewhere between a quarter of the range and all of it before turning:
        // long enough that the loop above rarely needs many legs, short enough that the
        // offset keeps changing direction unpredictably.
        let distance = self.span * (0.25 + 1.75 * rng.random::<f64>());
        self.leg_left = distance / speed;
    }

    /// Moves for `dt` ms, folding the path back into `[-span, span]` at the walls.
    fn advance(&mut self, dt: f64) {
        let width = 2.0 * self.span;
        // Unfold the walls into a line with period 2·width: on the first half of each
        // period the point moves as it did, on the second half it has bounced once.
        let unfolded = (self.pos + self.span + self.velocity * dt).rem_euclid(2.0 * width);
        if unfolded <= width {
            self.pos = unfolded - self.span;
        } else {
            self.pos = 2.0 * width - unfolded - self.span;
            self.velocity = -self.velocity;
        }
    }
}
