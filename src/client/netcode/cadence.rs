//! When to make the next command: one per slot of a fixed schedule, with three rules on
//! top.
//!
//! - A newly pressed (or released) key makes the next slot's command now rather than up
//!   to a tick later, so the local player turns and starts moving in the very next
//!   frame. The slot after it stays where the schedule puts it: an early command is
//!   the next one made sooner, not an extra one, so the rate stays one a tick whatever
//!   the keys do. A slot is made early only once the one before it is due, so key
//!   mashing runs at most one command ahead of the schedule (the server's queue holds
//!   it for a tick; its budget is one command a tick).
//! - After a stall (the process suspended or starved) at most a few ticks are caught up,
//!   then the schedule resumes from now.
//! - The period can be scaled: the session asks for 5% slower commands while the server
//!   holds a backlog of ours ([`super::session::ClientSession::command_period_scale`]).
//!
//! Pure: every method takes the time it happens, so a caller can run it on any clock.

use std::time::{Duration, Instant};

use crate::sim::step::{MAX_SPAN, SUBTICKS};
use crate::sim::world::Buttons;

/// Ticks caught up in one go after a stall; one more and the cadence restarts from now.
const MAX_CATCH_UP: u32 = 5;

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct CommandClock {
    period: Duration,
    /// Where the schedule puts the next command.
    #[serde(with = "crate::net::instants")]
    slot: Instant,
    /// When the next command is made: its slot, or sooner for a changed key.
    #[serde(with = "crate::net::instants")]
    due: Instant,
    buttons: Buttons,
}

impl CommandClock {
    /// Commands every `period`, the first at `first`.
    pub fn new(period: Duration, first: Instant) -> CommandClock {
        CommandClock {
            period,
            slot: first,
            due: first,
            buttons: Buttons::empty(),
        }
    }

    /// One command per server tick.
    pub(crate) fn for_tick_rate(tick_rate: u16, first: Instant) -> CommandClock {
        CommandClock::new(Duration::from_secs(1) / u32::from(tick_rate.max(1)), first)
    }

    /// One command per server tick at `tick_rate` from the next slot on (the server
    /// changed its rate): the slot already scheduled stays, the ones after it follow the
    /// new period.
    pub(crate) fn follow_tick_rate(&mut self, tick_rate: u16) {
        self.period = Duration::from_secs(1) / u32::from(tick_rate.max(1));
    }

    /// Notes the buttons held at `now`; a change makes the next command due now, or,
    /// if that command was already brought forward from its slot, as soon as the slot
    /// before it would have been due.
    pub(crate) fn hold(&mut self, now: Instant, buttons: Buttons) {
        if buttons != self.buttons {
            let earliest = self.slot.checked_sub(self.period).unwrap_or(now);
            self.due = self.due.min(now.max(earliest));
        }
        self.buttons = buttons;
    }

    /// How many commands are due at `now` (0 to 6), each period scaled by `scale`; the
    /// clock moves past them.
    pub(crate) fn take_due(&mut self, now: Instant, scale: f64) -> u32 {
        let mut ticks = 0;
        while now >= self.due {
            self.slot += self.period.mul_f64(scale);
            ticks += 1;
            if ticks > MAX_CATCH_UP {
                // We were suspended or starved: resume the cadence from now.
                self.slot = now + self.period;
            }
            self.due = self.slot;
        }
        ticks
    }

    /// When the next command is due.
    pub(crate) fn next_due(&self) -> Instant {
        self.due
    }
}

/// The variable-rate client's clock (the lab's `command rate` dial, after the article
/// on client-side prediction revisited): one command per frame at `fps` frames a
/// second, each lasting the time since the one before, in sixteenths of a tick
/// ([`crate::sim::step::step_span`]). What a frame leaves over a whole sub-tick is
/// carried to the next, so the commands' time adds up to the clock's exactly. A frame
/// longer than [`MAX_SPAN`] makes several commands; after a stall of more than a few
/// frames the schedule restarts from now, as the fixed clock's does.
#[derive(Clone, Debug)]
pub(crate) struct FrameClock {
    fps: u16,
    /// When the next frame's command is made.
    next: Instant,
    /// When the last was.
    last: Instant,
    /// Time not yet in a command, in sub-tick nanoseconds (sub-ticks x 10^9).
    carry: u128,
}

impl FrameClock {
    /// Frames at `fps` a second, the first at `first`.
    pub(crate) fn new(fps: u16, first: Instant) -> FrameClock {
        FrameClock {
            fps: fps.max(1),
            next: first,
            last: first,
            carry: 0,
        }
    }

    pub(crate) fn fps(&self) -> u16 {
        self.fps
    }

    /// The spans of the commands due at `now` at `tick_rate`, the clock running `rate`
    /// times as fast as real time (1.0: honest; the lab's speed hack says more).
    pub(crate) fn take_due(&mut self, now: Instant, tick_rate: u16, rate: f64) -> Vec<u8> {
        let mut spans = Vec::new();
        if now < self.next {
            return spans;
        }
        let period = Duration::from_secs(1) / u32::from(self.fps);
        let ns = now.saturating_duration_since(self.last).as_nanos();
        let ns = (ns as f64 * rate) as u128;
        self.carry += ns * u128::from(tick_rate.max(1)) * u128::from(SUBTICKS);
        const NANOS: u128 = 1_000_000_000;
        let most = u128::from(MAX_SPAN) * NANOS;
        while self.carry >= NANOS && spans.len() <= MAX_CATCH_UP as usize {
            let span = self.carry.min(most) / NANOS;
            self.carry -= span * NANOS;
            spans.push(span as u8);
        }
        if spans.len() > MAX_CATCH_UP as usize {
            // A stall: what is left is not made up.
            self.carry = 0;
        }
        self.last = now;
        self.next += period;
        if self.next <= now {
            self.next = now + period;
        }
        spans
    }

    /// When the next frame's command is due.
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
    fn a_key_change_makes_the_next_command_at_once_and_keeps_the_schedule() {
        let t0 = Instant::now();
        let mut c = CommandClock::new(TICK, t0);
        assert_eq!(c.take_due(t0, 1.0), 1);
        // A change 1 ms after the last command: due now, not at 16 ms.
        c.hold(ms(t0, 1), Buttons::RIGHT);
        assert_eq!(c.next_due(), ms(t0, 1));
        assert_eq!(c.take_due(ms(t0, 1), 1.0), 1);
        // That was the 16 ms command made early: the next keeps its slot at 32 ms.
        assert_eq!(c.next_due(), ms(t0, 32), "the schedule is kept");
        // Held unchanged: nothing brought forward.
        c.hold(ms(t0, 5), Buttons::RIGHT);
        assert_eq!(c.take_due(ms(t0, 5), 1.0), 0);
        // Another change before 16 ms: the 32 ms command waits until 16 ms, so the
        // commands never run more than one ahead of the schedule.
        c.hold(ms(t0, 9), Buttons::UP);
        assert_eq!(c.next_due(), ms(t0, 16));
        assert_eq!(c.take_due(ms(t0, 15), 1.0), 0);
        assert_eq!(c.take_due(ms(t0, 16), 1.0), 1);
        assert_eq!(c.next_due(), ms(t0, 48));
        // A change half way through a tick: at once again.
        c.hold(ms(t0, 40), Buttons::empty());
        assert_eq!(c.take_due(ms(t0, 40), 1.0), 1);
        assert_eq!(c.next_due(), ms(t0, 64));
    }

    #[test]
    fn key_mashing_never_outpaces_the_schedule() {
        let t0 = Instant::now();
        let mut c = CommandClock::new(TICK, t0);
        let mut made = 0;
        let mut worst_ahead = 0i64;
        for n in 0..1600u64 {
            // A different key every millisecond.
            let keys = if n % 2 == 0 {
                Buttons::LEFT
            } else {
                Buttons::RIGHT
            };
            c.hold(ms(t0, n), keys);
            made += c.take_due(ms(t0, n), 1.0);
            // Slots whose time has come by now: 1 + n / 16.
            let scheduled = 1 + n as i64 / 16;
            worst_ahead = worst_ahead.max(i64::from(made) - scheduled);
        }
        assert_eq!(worst_ahead, 1, "at most one command ahead");
        assert_eq!(made, 101, "one a tick over 1.6 s, plus the one ahead");
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

    /// Frames at 144 a second on a 60 Hz server, stepped each millisecond for 10 s:
    /// one command a frame, their spans adding up to the ticks that passed (600 x 16
    /// sub-ticks, to within the one carried), none longer than a tick; a clock running
    /// 1.5 times fast claims 1.5 times the time.
    #[test]
    fn a_frame_clock_makes_a_command_a_frame_lasting_the_frame() {
        let t0 = Instant::now();
        for (rate, claimed) in [(1.0, 9600), (1.5, 14_400)] {
            let mut c = FrameClock::new(144, t0);
            let spans: Vec<u8> = (0..=10_000)
                .flat_map(|n| c.take_due(ms(t0, n), 60, rate))
                .collect();
            let total: u32 = spans.iter().map(|&s| u32::from(s)).sum();
            assert!((1439..=1441).contains(&spans.len()), "{}", spans.len());
            assert!((claimed - 1..=claimed).contains(&total), "{total}");
            assert!(spans.iter().all(|&s| (1..=16).contains(&s)), "{spans:?}");
        }
    }
}
