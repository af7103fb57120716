//! The queue a path builds, read from round trips: the shortest round trip of late,
//! the queueing delay over it by window, and whether that delay grows.

use std::time::{Duration, Instant};

use super::*;

/// The queue the path builds, read from round trips and from the uplink's one-way delay.
#[derive(Clone, Debug)]
pub(super) struct QueueDelay {
    /// The smallest queueing delay read in each of the last three windows, oldest
    /// first, and when the newest window began.
    pub(super) queue_windows: [Option<Duration>; 3],
    pub(super) queue_window_start: Option<Instant>,
    /// Since when the queueing delay has been over the target with no cut for it.
    pub(super) over_since: Option<Instant>,
    /// The shortest round trip in this window and in the one before.
    pub(super) min_rtt: [Option<Duration>; 2],
    pub(super) window_start: Option<Instant>,
    pub(super) srtt: Option<Duration>,
    /// The uplink's one-way delay, as arrival time less the client's clock (ms from
    /// `up_base`): its least in this window and the one before, when the window
    /// began, and how far the newest packet's was above that least.
    pub(super) up_base: Option<Instant>,
    pub(super) up_min: [Option<i64>; 2],
    pub(super) up_window_start: Option<Instant>,
    pub(super) up_queue: Duration,
}

impl Delivery {
    /// Takes one round trip; the queueing delay it shows.
    pub(super) fn sample(&mut self, now: Instant, rtt: Duration) -> Duration {
        // Growth goes by the time since the last sample, at most a window's worth.
        let since_growth = self
            .grown_at
            .replace(now)
            .map_or(Duration::ZERO, |t| now.saturating_duration_since(t))
            .min(QUEUE_WINDOW);
        let start = *self.queue.window_start.get_or_insert(now);
        if now.saturating_duration_since(start) > MIN_RTT_WINDOW {
            self.queue.min_rtt = [None, self.queue.min_rtt[0]];
            self.queue.window_start = Some(now);
        }
        self.queue.min_rtt[0] = Some(self.queue.min_rtt[0].map_or(rtt, |m| m.min(rtt)));
        let min = self
            .queue
            .min_rtt
            .iter()
            .flatten()
            .min()
            .copied()
            .unwrap_or(rtt);
        let srtt = self.queue.srtt.map_or(rtt, |s| (s * 7 + rtt) / 8);
        self.queue.srtt = Some(srtt);
        let queue = rtt.saturating_sub(min);
        let growing = self.queue_growing(now, queue);
        // A queue that keeps growing is cut again and again; a path that only got
        // slower (a spike of lag) once: a further cut waits for more delay still.
        let beyond_last = self.cut_queue.is_none_or(|q| queue > q + QUEUE_TARGET / 2);
        let ours = (growing && self.overfilled(now))
            || (self.limited(now) && self.standing_queue() > QUEUE_TARGET);
        if queue > QUEUE_TARGET {
            if ours {
                self.queue.over_since = None;
                if beyond_last && self.cut(now, CUT, queue) {
                    self.cut_queue = Some(queue);
                }
            } else if now.saturating_duration_since(*self.queue.over_since.get_or_insert(now))
                >= STEP_SETTLES
            {
                // Flat, and nothing held back: the path is this long now.
                self.queue.min_rtt = [Some(rtt), None];
                self.queue.window_start = Some(now);
                self.queue.queue_windows = [None; 3];
                self.queue.over_since = None;
            }
            return queue;
        }
        self.queue.over_since = None;
        self.cut_queue = None;
        // Draining the start's queue: the rate holds until it is gone.
        if self.draining.is_some_and(|until| now < until) {
            return queue;
        }
        self.draining = None;
        if self.limited(now) {
            let near = self
                .ceiling
                .is_some_and(|c| self.bucket.rate > NEAR_CEILING * c);
            let share = if queue <= EMPTY_QUEUE && !near {
                FAST_GROW_SHARE
            } else {
                GROW_SHARE
            };
            let secs = since_growth.as_secs_f64();
            self.bucket.rate =
                (self.bucket.rate * (1.0 + share * secs) + GROW_BYTES * secs).min(MAX_RATE);
        }
        queue
    }

    /// The queueing delay of the last two windows: the smaller of their smallest
    /// readings (zero before two are in).
    pub(super) fn standing_queue(&self) -> Duration {
        match self.queue.queue_windows {
            [_, Some(b), Some(c)] => b.min(c),
            _ => Duration::ZERO,
        }
    }

    /// Whether the link carried less than [`CARRIED_SHARE`] of what was offered over
    /// the last second or so: bytes settled (acknowledged or reported missing) a
    /// second against bytes sent a second.
    pub(super) fn overfilled(&self, now: Instant) -> bool {
        let (Some(settled), Some(offered)) = (
            rate_of(&self.ledger.settled_bytes, now),
            rate_of(&self.ledger.offered, now),
        ) else {
            return false;
        };
        settled < CARRIED_SHARE * offered
    }

    /// Whether the last three windows' queueing delay grew (see [`Self::queue_growing`]).
    fn queue_growing_now(&self) -> bool {
        match self.queue.queue_windows {
            [Some(a), Some(b), Some(c)] => b > a + GROWTH && c > b + GROWTH,
            _ => false,
        }
    }

    /// Records a queueing delay; whether the delay grew over the last three windows.
    pub(super) fn queue_growing(&mut self, now: Instant, queue: Duration) -> bool {
        let mut start = *self.queue.queue_window_start.get_or_insert(now);
        for _ in 0..3 {
            if now.saturating_duration_since(start) < QUEUE_WINDOW {
                break;
            }
            self.queue.queue_windows = [
                self.queue.queue_windows[1],
                self.queue.queue_windows[2],
                None,
            ];
            start += QUEUE_WINDOW;
        }
        if now.saturating_duration_since(start) >= QUEUE_WINDOW {
            start = now;
        }
        self.queue.queue_window_start = Some(start);
        let newest = &mut self.queue.queue_windows[2];
        *newest = Some(newest.map_or(queue, |q| q.min(queue)));
        self.queue_growing_now()
    }
}
