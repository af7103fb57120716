//! When to make the next command: a fixed rate, with three rules on top.
//!
//! - A newly pressed key brings the next command forward to now rather than up to a
//!   tick later, so the local player starts moving in the very next frame; only when at
//!   least half a tick has passed, so key mashing cannot outpace real time by much (and
//!   the server's budget would absorb it anyway).
//! - After a stall (the process suspended or starved) at most a few ticks are caught up,
//!   then the cadence resumes from now.
//! - The period can be scaled: the session asks for 5% slower commands while the server
//!   holds a backlog of ours ([`super::session::ClientSession::command_period_scale`]).
//!
//! Pure: every method takes the time it happens, so a caller can run it on any clock.

use std::time::{Duration, Instant};

use crate::sim::world::Buttons;

/// Ticks caught up in one go after a stall; one more and the cadence restarts from now.
const MAX_CATCH_UP: u32 = 5;

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct CommandClock {
    period: Duration,
    #[serde(with = "crate::net::instants")]
    next: Instant,
    #[serde(with = "crate::net::instants")]
    last: Instant,
    buttons: Buttons,
}

impl CommandClock {
    /// Commands every `period`, the first at `first`.
    pub fn new(period: Duration, first: Instant) -> CommandClock {
        CommandClock {
            period,
            next: first,
            last: first,
            buttons: Buttons::empty(),
        }
    }

    /// One command per server tick.
    pub(crate) fn for_tick_rate(tick_rate: u16, first: Instant) -> CommandClock {
        CommandClock::new(Duration::from_secs(1) / u32::from(tick_rate.max(1)), first)
    }

    /// Notes the buttons held at `now`; a change brings the next command forward to now
    /// if half a tick has passed since the last one.
    pub(crate) fn hold(&mut self, now: Instant, buttons: Buttons) {
        if buttons != self.buttons && now.saturating_duration_since(self.last) >= self.period / 2 {
            self.next = self.next.min(now);
        }
        self.buttons = buttons;
    }

    /// How many commands are due at `now` (0 to 6), each period scaled by `scale`; the
    /// clock moves past them.
    pub(crate) fn take_due(&mut self, now: Instant, scale: f64) -> u32 {
        let mut ticks = 0;
        while now >= self.next {
            self.last = now;
            self.next += self.period.mul_f64(scale);
            ticks += 1;
            if ticks > MAX_CATCH_UP {
                // We were suspended or starved: resume the cadence from now.
                self.next = now + self.period;
            }
        }
        ticks
    }

    /// When the next command is due.
    pub(crate) fn next_due(&self) -> Instant {
        self.next
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TICK: Duration = Duration::from_millis(16);

    fn ms(t0: Instant, n: u64) -> Instant {
        t0 + Duration::from_millis(n)
    }

    /// Commands made by stepping the clock every millisecond for `until` ms.
    fn run(clock: &mut CommandClock, t0: Instant, from: u64, until: u64, scale: f64) -> u32 {
        (from..until)
            .map(|n| clock.take_due(ms(t0, n), scale))
            .sum()
    }

    #[test]
    fn one_command_per_period() {
        let t0 = Instant::now();
        let mut c = CommandClock::new(TICK, t0);
        assert_eq!(c.take_due(t0, 1.0), 1, "the first is due at once");
        assert_eq!(c.take_due(ms(t0, 15), 1.0), 0);
        assert_eq!(c.take_due(ms(t0, 16), 1.0), 1);
        assert_eq!(run(&mut c, t0, 17, 1600, 1.0), 98);
        assert_eq!(c.next_due(), ms(t0, 1600));
    }

    #[test]
    fn a_key_change_brings_the_command_forward_after_half_a_tick() {
        let t0 = Instant::now();
        let mut c = CommandClock::new(TICK, t0);
        assert_eq!(c.take_due(t0, 1.0), 1);
        // Too soon: 5 ms after the last command, less than half a tick.
        c.hold(ms(t0, 5), Buttons::RIGHT);
        assert_eq!(c.take_due(ms(t0, 5), 1.0), 0);
        // Held unchanged: no bring-forward either.
        c.hold(ms(t0, 9), Buttons::RIGHT);
        assert_eq!(c.take_due(ms(t0, 9), 1.0), 0);
        // A change 9 ms after the last command: due now, not at 16 ms.
        c.hold(ms(t0, 9), Buttons::UP);
        assert_eq!(c.take_due(ms(t0, 9), 1.0), 1);
        assert_eq!(c.next_due(), ms(t0, 25), "the cadence continues from there");
    }

    #[test]
    fn after_a_stall_a_few_ticks_are_caught_up_then_the_cadence_restarts() {
        let t0 = Instant::now();
        let mut c = CommandClock::new(TICK, t0);
        assert_eq!(c.take_due(t0, 1.0), 1);
        // A second asleep: 62 ticks were due, 6 are made.
        assert_eq!(c.take_due(ms(t0, 1000), 1.0), 6);
        assert_eq!(c.next_due(), ms(t0, 1016));
        // Three ticks late: all three caught up, the schedule kept.
        assert_eq!(c.take_due(ms(t0, 1048), 1.0), 3);
        assert_eq!(c.next_due(), ms(t0, 1064));
    }

    #[test]
    fn a_scaled_period_makes_commands_slower() {
        let t0 = Instant::now();
        let mut full = CommandClock::new(TICK, t0);
        let mut slow = CommandClock::new(TICK, t0);
        let a = run(&mut full, t0, 0, 10_000, 1.0);
        let b = run(&mut slow, t0, 0, 10_000, 1.05);
        assert_eq!(a, 625);
        // 5% slower: about 30 fewer commands in 10 s.
        assert!((b as i32 - 596).abs() <= 1, "{b}");
    }

    #[test]
    fn tick_rate_sets_the_period() {
        let t0 = Instant::now();
        let mut c = CommandClock::for_tick_rate(60, t0);
        c.take_due(t0, 1.0);
        assert_eq!(c.next_due(), t0 + Duration::from_secs(1) / 60);
        let mut c = CommandClock::for_tick_rate(0, t0);
        c.take_due(t0, 1.0);
        assert_eq!(c.next_due(), t0 + Duration::from_secs(1));
    }
}
