//! How evenly each client draws the lab's walkers while they walk straight: the
//! coefficient of variation (standard deviation over mean) of their drawn speed, sampled
//! once a server tick (`remote_motion_cv` in the headless report).
//!
//! The lab knows the truth: a walker walks straight from one tick to another when its
//! velocity on the server stayed the same, and not zero, over every tick the client's
//! drawing could have come from (the render tick, a snapshot interval either side). Its
//! true speed is then constant, so any variation in the drawn speed is the netcode's
//! (each sample is taken as a share of the true speed, as walkers slide along walls
//! slower than they walk free): on
//! a clean LAN, a credit queue that applies a packet's two commands at once draws 12 and
//! 6 cells/s in turn where the walker walks 9.

use std::collections::VecDeque;
use std::time::Instant;

use crate::client::netcode::session::ClientSession;
use crate::sim::world::{PlayerId, World};

/// Server ticks of walker velocities kept: more than any render delay the lab's
/// profiles give (about 2 s at 128 Hz).
const KEPT_TICKS: usize = 256;

/// One walker's velocity on the server, tick by tick.
struct Walker {
    id: PlayerId,
    /// (tick, vx, vy), oldest first.
    velocities: VecDeque<(u32, i32, i32)>,
}

/// A client's previous sample of one walker: where it was drawn, at which render tick,
/// when.
#[derive(Clone, Copy)]
struct Sample {
    at: (f64, f64),
    render_tick: f64,
    when: Instant,
}

/// Running sums of drawn speeds (as a share of the true speed), so a long run keeps
/// no list.
#[derive(Clone, Copy, Debug, Default)]
struct Sums {
    n: u64,
    sum: f64,
    squares: f64,
}

impl Sums {
    fn add(&mut self, v: f64) {
        self.n += 1;
        self.sum += v;
        self.squares += v * v;
    }

    /// Standard deviation over mean; None without two samples or with no motion.
    fn cv(&self) -> Option<f64> {
        if self.n < 2 || self.sum <= 0.0 {
            return None;
        }
        let n = self.n as f64;
        let mean = self.sum / n;
        let var = (self.squares / n - mean * mean).max(0.0);
        Some(var.sqrt() / mean)
    }
}

/// Every client's view of every walker.
#[derive(Default)]
pub(crate) struct Motion {
    walkers: Vec<Walker>,
    /// Per client, per walker (in the walkers' order).
    last: Vec<Vec<Option<Sample>>>,
    sums: Vec<Sums>,
}

impl Motion {
    pub(crate) fn new(walkers: impl IntoIterator<Item = PlayerId>, clients: usize) -> Motion {
        let walkers: Vec<Walker> = walkers
            .into_iter()
            .map(|id| Walker {
                id,
                velocities: VecDeque::new(),
            })
            .collect();
        Motion {
            last: vec![vec![None; walkers.len()]; clients],
            sums: vec![Sums::default(); clients],
            walkers,
        }
    }

    /// Notes each walker's velocity after server tick `world.tick - 1`.
    pub(crate) fn server_ticked(&mut self, world: &World) {
        let tick = world.tick.saturating_sub(1);
        for w in &mut self.walkers {
            let (vx, vy) = world.get(w.id).map_or((0, 0), |s| (s.vx, s.vy));
            w.velocities.push_back((tick, vx, vy));
            if w.velocities.len() > KEPT_TICKS {
                w.velocities.pop_front();
            }
        }
    }

    /// Samples where client `n` draws each walker at `now`; `interval` is the server's
    /// ticks between snapshots.
    pub(crate) fn sample(
        &mut self,
        n: usize,
        session: &ClientSession,
        now: Instant,
        (tick_rate, interval): (f64, u32),
    ) {
        let Some(render_tick) = session.render_tick(now) else {
            return;
        };
        let position = session.remote_positions(now);
        for (w, walker) in self.walkers.iter().enumerate() {
            let Some(at) = position(walker.id) else {
                self.last[n][w] = None;
                continue;
            };
            let here = Sample {
                at,
                render_tick,
                when: now,
            };
            if let Some(prev) = self.last[n][w].replace(here) {
                let from = prev.render_tick.min(render_tick).floor() - f64::from(interval);
                let to = prev.render_tick.max(render_tick).ceil() + f64::from(interval);
                let dt = now.saturating_duration_since(prev.when).as_secs_f64();
                if let Some((vx, vy)) = straight(walker, from, to)
                    && dt > 0.0
                {
                    let moved = (at.0 - prev.at.0).hypot(at.1 - prev.at.1) / dt;
                    let truth = f64::from(vx).hypot(f64::from(vy)) * tick_rate;
                    self.sums[n].add(moved / truth);
                }
            }
        }
    }

    /// Forgets every client's drawn speeds so far: the next `cv` measures from now.
    pub(crate) fn restart(&mut self) {
        self.sums.iter_mut().for_each(|s| *s = Sums::default());
    }

    /// Client `n`'s coefficient of variation of the walkers' drawn speed while they
    /// walked straight (None before two such samples).
    pub(crate) fn cv(&self, n: usize) -> Option<f64> {
        self.sums.get(n).and_then(Sums::cv)
    }
}

/// The one velocity `walker` had, not zero, over every tick from `from` to `to`, all of
/// them known; None if it changed, stood or is not known that far.
fn straight(walker: &Walker, from: f64, to: f64) -> Option<(i32, i32)> {
    if from < 0.0 {
        return None;
    }
    let (from, to) = (from as u32, to as u32);
    // Ticks are in order: start at `from` by halving, not by reading every one kept.
    let start = walker.velocities.partition_point(|(t, _, _)| *t < from);
    let mut seen = walker
        .velocities
        .range(start..)
        .take_while(|(t, _, _)| *t <= to);
    let &(first, vx, vy) = seen.next()?;
    let mut last = first;
    for &(t, x, y) in seen {
        if (x, y) != (vx, vy) {
            return None;
        }
        last = t;
    }
    (first == from && last == to && (vx, vy) != (0, 0)).then_some((vx, vy))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cv_of_an_even_speed_is_zero_and_of_pairs_a_third() {
        let mut even = Sums::default();
        let mut pairs = Sums::default();
        for i in 0..100 {
            even.add(9.0);
            pairs.add(if i % 2 == 0 { 12.0 } else { 6.0 });
        }
        assert!(even.cv().unwrap() < 1e-9);
        assert!((pairs.cv().unwrap() - 1.0 / 3.0).abs() < 1e-9);
        assert_eq!(Sums::default().cv(), None);
    }

    #[test]
    fn straight_needs_every_tick_the_same_and_moving() {
        let walker = |v: &[(i32, i32)]| Walker {
            id: 1,
            velocities: v
                .iter()
                .enumerate()
                .map(|(t, &(x, y))| (t as u32, x, y))
                .collect(),
        };
        let w = walker(&[(0, 0), (3, 0), (3, 0), (3, 0), (0, 3)]);
        assert_eq!(straight(&w, 1.0, 3.0), Some((3, 0)));
        assert_eq!(straight(&w, 0.0, 3.0), None, "standing at tick 0");
        assert_eq!(straight(&w, 1.0, 4.0), None, "turned at tick 4");
        assert_eq!(straight(&w, 1.0, 5.0), None, "tick 5 unknown");
    }
}
