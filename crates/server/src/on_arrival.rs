//! Variable-rate commands: applied to their player the moment their packet arrives,
//! each for its own length, as the article on client-side prediction revisited has it
//! (the client runs at its own frame rate and sends each frame's time with its input;
//! the server carries it out at once, so no input is late).
//!
//! A command of span `n` (sixteenths of a tick, [`netarena_sim::step::step_span`])
//! claims `n` sub-ticks of the player's time. What a client may claim is capped by the
//! server's own clock: a budget that fills at real time, one tick's worth a tick, and
//! holds at most [`SAVED_TICKS`] ticks' worth (the credit queue's
//! [`MAX_CREDIT`], so a client is allowed no more here
//! than there). A command the budget cannot pay for waits, in order, and is applied
//! at the ticks that fill the budget enough; at most [`MAX_WAITING`] wait, and one
//! more is refused (the client resends it while it stays unacknowledged). A client
//! whose clock runs fast so claims more time than passes, and gets only the time that
//! passed: its surplus waits, then is refused.
//!
//! Commands of one fixed tick (span 0) go through the input buffer as before
//! (`commands.rs`); a variable-rate one waits behind any older one still queued there,
//! and a tick applies the variable-rate ones older than its queued ones first, so a
//! player's commands are applied in seq order whichever way each came.

use std::collections::VecDeque;
use std::time::Instant;

use netarena_sim::step::{SUBTICKS, Span};
use netarena_sim::world::{Command, PlayerId};

use super::Server;
use super::commands::{APPLIED_KEPT, MAX_CREDIT};

/// Ticks' worth of time the budget saves at most.
pub const SAVED_TICKS: u32 = MAX_CREDIT;
/// Variable-rate commands that may wait for the budget.
pub const MAX_WAITING: usize = 128;

const NANOS: u128 = 1_000_000_000;

/// One variable-rate command waiting: seq, command, span, the tick its client viewed.
type Waiting = (u32, Command, u8, u32);

/// What one player's variable-rate commands came to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct ArrivalFigures {
    /// Variable-rate commands applied.
    pub applied: u64,
    /// Their time, in sub-ticks (sixteenths of a tick).
    pub applied_subticks: u64,
    /// Applied the moment they arrived (the others waited for the budget, or behind
    /// fixed-tick commands).
    pub on_arrival: u64,
    /// Waiting now.
    pub waiting: usize,
    /// Refused: more were waiting than [`MAX_WAITING`].
    pub refused: u64,
    /// The player's time the server applied on each of the last ticks, oldest first, in
    /// sub-ticks: a fixed-tick command counts 16, a variable-rate one its span (one
    /// applied between two ticks counts to the later). How even the server's step of
    /// this player is.
    pub per_tick: [u16; APPLIED_KEPT],
}

/// One player's variable-rate commands: the time budget and what waits for it.
#[derive(Clone, Debug, Default)]
pub(crate) struct OnArrival {
    /// The budget, in sub-tick nanoseconds (sub-ticks x 10^9), so that real time at any
    /// tick rate adds to it exactly.
    budget: u128,
    /// When the budget was last filled (None before the first command).
    filled: Option<Instant>,
    waiting: VecDeque<Waiting>,
    /// The span of the last command applied to this player (0: a fixed tick): the
    /// unit its weapon timer is in.
    last_span: u8,
    /// Sub-ticks applied since the last tick ended.
    this_tick: u32,
    figures: ArrivalFigures,
}

impl OnArrival {
    const CAP: u128 = SAVED_TICKS as u128 * SUBTICKS as u128 * NANOS;

    /// Adds the time since the last fill at `tick_rate`; a first command finds the
    /// budget full.
    fn fill(&mut self, now: Instant, tick_rate: u16) {
        let cap = Self::CAP;
        let added = match self.filled {
            None => cap,
            Some(then) => {
                let ns = now.saturating_duration_since(then).as_nanos();
                ns.saturating_mul(u128::from(tick_rate) * u128::from(SUBTICKS))
            }
        };
        self.budget = self.budget.saturating_add(added).min(cap);
        self.filled = Some(now);
    }

    /// Whether another command may wait; if not, counts it refused.
    pub(crate) fn has_room(&mut self) -> bool {
        let room = self.waiting.len() < MAX_WAITING;
        if !room {
            self.figures.refused += 1;
        }
        room
    }

    /// Takes command `seq`, of `span` sub-ticks, to apply in order (after
    /// [`OnArrival::has_room`]).
    pub(crate) fn offer(&mut self, seq: u32, cmd: Command, span: u8, view: u32) {
        self.waiting.push_back((seq, cmd, span, view));
    }

    /// The waiting commands the budget pays for at `now`, oldest first and older than
    /// seq `before` (the oldest fixed-tick command queued, if any), each with its span
    /// and the one before it; `arriving`: taken as their packet arrives.
    pub(crate) fn take(
        &mut self,
        now: Instant,
        tick_rate: u16,
        arriving: bool,
        before: Option<u32>,
    ) -> Vec<(u32, Command, Span, u32)> {
        self.fill(now, tick_rate);
        let mut out = Vec::new();
        while let Some(&(seq, cmd, span, view)) = self.waiting.front() {
            let cost = u128::from(span) * NANOS;
            if cost > self.budget || before.is_some_and(|b| seq > b) {
                break;
            }
            self.budget -= cost;
            self.waiting.pop_front();
            out.push((
                seq,
                cmd,
                Span {
                    this: span,
                    before: self.last_span,
                },
                view,
            ));
            self.last_span = span;
            self.figures.applied += 1;
            self.figures.applied_subticks += u64::from(span);
            self.this_tick += u32::from(span);
            self.figures.on_arrival += u64::from(arriving);
        }
        out
    }

    /// A tick ended that applied `fixed` fixed-tick commands of this player (after
    /// what was applied as it arrived): its time goes to [`ArrivalFigures::per_tick`].
    pub(crate) fn end_tick(&mut self, fixed: u32) {
        if fixed > 0 {
            // Its weapon timer counts commands again.
            self.last_span = 0;
        }
        let time = self.this_tick + fixed * SUBTICKS;
        self.this_tick = 0;
        let kept = &mut self.figures.per_tick;
        kept.rotate_left(1);
        kept[APPLIED_KEPT - 1] = u16::try_from(time).unwrap_or(u16::MAX);
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.waiting.is_empty()
    }

    pub(crate) fn figures(&self) -> ArrivalFigures {
        ArrivalFigures {
            waiting: self.waiting.len(),
            ..self.figures
        }
    }
}

impl Server {
    /// Applies player `id`'s waiting variable-rate commands that its budget pays for at
    /// `now`, those older than any fixed-tick command of its still queued;
    /// `arriving`: as their packet arrives (their game events go out with the next
    /// tick's).
    pub(super) fn apply_arrived(&mut self, now: Instant, id: PlayerId, arriving: bool) {
        let (tick, rate) = (self.world.tick, self.config.tick_rate);
        let Some(slot) = self.slots.iter_mut().find(|s| s.id == id) else {
            return;
        };
        if slot.arrival.is_empty() {
            return;
        }
        let before = slot.queue.first_waiting();
        for (seq, cmd, span, view) in slot.arrival.take(now, rate, arriving, before) {
            let events = &mut self.arrived_events;
            self.game
                .command_span(id, seq, (cmd, span), view, tick, &mut self.world, events);
            slot.queue.applied_elsewhere(seq);
        }
    }

    /// Player `id`'s variable-rate commands so far (None: no such player).
    pub fn arrivals(&self, id: PlayerId) -> Option<ArrivalFigures> {
        let slot = self.slots.iter().find(|s| s.id == id)?;
        Some(slot.arrival.figures())
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    const RATE: u16 = 60;
    /// A tick at 60 Hz, rounded up to the nanosecond.
    const TICK: Duration = Duration::from_nanos(16_666_667);

    /// A client claiming 1.5 times the time that passes (24 sub-ticks a tick, a tick
    /// every 1/60 s, for 10 s) gets the time that passed and the budget's saving, no
    /// more; the surplus waits, then is refused. An honest one gets all it claims.
    #[test]
    fn a_client_cannot_claim_more_time_than_passes() {
        let t0 = Instant::now();
        let tick = TICK;
        for (claim, honest) in [(24u8, false), (16, true)] {
            let mut a = OnArrival::default();
            let mut seq = 0;
            let mut applied = 0u64;
            for n in 0..600u32 {
                let now = t0 + tick * n;
                if a.has_room() {
                    seq += 1;
                    a.offer(seq, Command::default(), claim, 0);
                }
                applied += a.take(now, RATE, true, None).len() as u64;
            }
            let f = a.figures();
            assert_eq!(f.applied, applied);
            // 599 ticks of time passed after the first command; the budget began full.
            let allowed = (599 + u64::from(SAVED_TICKS)) * u64::from(SUBTICKS);
            assert!(f.applied_subticks <= allowed, "{f:?}");
            if honest {
                assert_eq!(f.applied_subticks, 600 * 16, "{f:?}");
                assert_eq!((f.waiting, f.refused), (0, 0));
            } else {
                assert!(f.applied_subticks >= allowed - 24, "{f:?}");
                assert!(f.waiting >= MAX_WAITING - 1, "{f:?}");
                assert!(f.refused > 0, "{f:?}");
            }
        }
    }

    /// A burst after a silence is paid from the saving: up to [`SAVED_TICKS`] at once,
    /// the rest at the ticks that follow, in order, each told the span before it.
    #[test]
    fn a_burst_is_applied_from_the_saving_then_at_real_time() {
        let t0 = Instant::now();
        let mut a = OnArrival::default();
        for seq in 1..=10 {
            a.offer(seq, Command::default(), 16, 0);
        }
        let first = a.take(t0, RATE, true, None);
        assert_eq!(first.len(), SAVED_TICKS as usize);
        assert_eq!(
            first[0].2,
            Span {
                this: 16,
                before: 0
            }
        );
        assert_eq!(
            first[1].2,
            Span {
                this: 16,
                before: 16
            }
        );
        let tick = TICK;
        let next = a.take(t0 + tick, RATE, false, None);
        assert_eq!(next.iter().map(|c| c.0).collect::<Vec<_>>(), [7]);
        let f = a.figures();
        assert_eq!((f.applied, f.on_arrival, f.waiting), (7, 6, 3));
    }

    /// Variable-rate commands queue behind none but older ones: with fixed-tick seq 7
    /// queued, seqs 5 and 6 are applied and 8 waits for it.
    #[test]
    fn older_commands_go_first_whichever_way_they_came() {
        let mut a = OnArrival::default();
        for seq in [5, 6, 8] {
            a.offer(seq, Command::default(), 16, 0);
        }
        let taken = a.take(Instant::now(), RATE, true, Some(7));
        assert_eq!(taken.iter().map(|c| c.0).collect::<Vec<_>>(), [5, 6]);
        assert_eq!(a.figures().waiting, 1);
    }
}
