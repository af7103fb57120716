//! A player's incoming commands on the server: ordered, deduplicated, and paced.
//!
//! Input packets repeat every unacknowledged command, so most commands arrive several
//! times; only the first copy of each seq is kept. How the kept ones are applied is the
//! server's [`InputBuffer`] setting:
//!
//! - **credit** (the default): at most one command per server tick on average: each tick
//!   adds one credit, a command costs one, and credit saved up while packets were late
//!   is capped. A client that sends commands faster than real time therefore only fills
//!   its own queue; it never moves faster. A packet of two commands is applied at once,
//!   so a walker's server position advances in pairs.
//! - **a jitter buffer of N ticks**: nothing is applied until N commands wait; then
//!   exactly one a tick. A tick that finds the buffer empty counts a late command and
//!   waits for N again; a command that would make the buffer hold more than N plus
//!   [`MAX_CREDIT`] pushes the oldest out, counted as dropped.
//! - **adaptive**: the same buffer, its depth the spread of the commands' arrival
//!   times (in ticks, over the last [`JITTER_WINDOW`] ticks) plus one.

use std::collections::VecDeque;
use std::fmt;
use std::str::FromStr;

use crate::sim::world::Command;

/// Credit that may be saved up: how far behind real time a client may fall (after a late
/// packet burst) and still catch up at once. 6 ticks is 100 ms at 60 Hz. A jitter
/// buffer holds at most this many commands beyond its depth.
pub const MAX_CREDIT: u32 = 6;
/// Commands held waiting. A client beyond this is refused new commands until the queue
/// drains; it will resend them, since they stay unacknowledged.
pub(crate) const MAX_QUEUED: usize = 128;
/// Largest gap in seqs accepted: 10 s of lost commands at 240 Hz.
pub(crate) const MAX_SEQ_JUMP: u32 = 2400;
/// The deepest jitter buffer, fixed or adaptive, in ticks.
pub const MAX_BUFFER_TICKS: u8 = 32;
/// Ticks of arrivals the adaptive buffer sizes itself from.
pub const JITTER_WINDOW: u32 = 60;
/// Ticks whose applied counts [`BufferFigures::applied`] keeps.
pub const APPLIED_KEPT: usize = 8;

/// How the server applies a client's commands (`--input-buffer`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum InputBuffer {
    /// Up to one command a tick on average, catching up to [`MAX_CREDIT`] at once.
    #[default]
    Credit,
    /// A jitter buffer of this many ticks (1 to [`MAX_BUFFER_TICKS`]).
    Fixed(u8),
    /// A jitter buffer as deep as the measured arrival jitter needs.
    Adaptive,
}

impl fmt::Display for InputBuffer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InputBuffer::Credit => f.write_str("credit"),
            InputBuffer::Fixed(n) => write!(f, "{n}"),
            InputBuffer::Adaptive => f.write_str("adaptive"),
        }
    }
}

impl FromStr for InputBuffer {
    type Err = String;

    /// `credit`, `adaptive`, or a depth in ticks (1 to [`MAX_BUFFER_TICKS`]).
    fn from_str(s: &str) -> Result<InputBuffer, String> {
        match s {
            "credit" => Ok(InputBuffer::Credit),
            "adaptive" => Ok(InputBuffer::Adaptive),
            n => match n.parse::<u8>() {
                Ok(n) if (1..=MAX_BUFFER_TICKS).contains(&n) => Ok(InputBuffer::Fixed(n)),
                _ => Err(format!(
                    "expected credit, adaptive or a depth of 1 to {MAX_BUFFER_TICKS} ticks, got {s:?}"
                )),
            },
        }
    }
}

/// What one client's input buffer shows: what waits, how deep it aims to be, what the
/// last ticks applied, and what came too late or overflowed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct BufferFigures {
    /// Commands waiting.
    pub queued: usize,
    /// The depth the buffer fills to before it applies (0 for the credit queue).
    pub target: u32,
    /// Commands applied on each of the last ticks, oldest first.
    pub applied: [u8; APPLIED_KEPT],
    /// Ticks that found the jitter buffer empty: a command due was late.
    pub late: u64,
    /// Commands pushed out of a full jitter buffer, never applied.
    pub dropped: u64,
}

#[derive(Clone, Debug, Default)]
pub(crate) struct CommandQueue {
    mode: InputBuffer,
    pending: VecDeque<(u32, Command, u32)>,
    last_queued: u32,
    last_applied: u32,
    credit: u32,
    duplicates: u64,
    refused: u64,
    /// Ticks taken so far: the clock arrivals are timed by.
    ticks: u32,
    /// A jitter buffer applies only once filled to its depth, and again after running dry.
    primed: bool,
    /// Each recent new command's arrival tick and how far that is from its seq
    /// (`ticks - seq`): their spread is the arrival jitter, in ticks.
    arrivals: VecDeque<(u32, i64)>,
    target: u32,
    applied: [u8; APPLIED_KEPT],
    late: u64,
    dropped: u64,
}

impl CommandQueue {
    /// An empty queue that applies commands as `mode` says.
    pub(crate) fn new(mode: InputBuffer) -> CommandQueue {
        let target = match mode {
            InputBuffer::Credit => 0,
            InputBuffer::Fixed(n) => u32::from(n),
            InputBuffer::Adaptive => 1,
        };
        CommandQueue {
            mode,
            target,
            ..CommandQueue::default()
        }
    }

    /// Applies commands as `mode` says from the next tick on. What waits stays; a
    /// jitter buffer fills to its depth before it applies, and no credit is carried
    /// over.
    pub(crate) fn set_mode(&mut self, mode: InputBuffer) {
        let arrivals = std::mem::take(&mut self.arrivals);
        let fresh = CommandQueue::new(mode);
        self.mode = mode;
        self.target = fresh.target;
        self.credit = 0;
        self.primed = false;
        self.arrivals = if mode == InputBuffer::Adaptive {
            arrivals
        } else {
            VecDeque::new()
        };
    }

    /// Offers one received command. Seqs at or below the newest queued are duplicates;
    /// a gap (commands lost beyond the redundancy window) is accepted and skipped, but
    /// not an absurd jump ahead, which would make every later honest command look old.
    /// `view` is the tick the client was viewing when it sent it, for lag compensation.
    pub(crate) fn offer(&mut self, seq: u32, cmd: Command, view: u32) {
        if seq <= self.last_queued {
            self.duplicates += 1;
            return;
        }
        if seq - self.last_queued > MAX_SEQ_JUMP {
            self.refused += 1;
            return;
        }
        if self.pending.len() >= MAX_QUEUED {
            self.refused += 1;
            return;
        }
        self.pending.push_back((seq, cmd, view));
        self.last_queued = seq;
        if self.mode == InputBuffer::Credit {
            return;
        }
        self.arrivals
            .push_back((self.ticks, i64::from(self.ticks) - i64::from(seq)));
        if self.pending.len() > (self.target + MAX_CREDIT) as usize
            && let Some((seq, _, _)) = self.pending.pop_front()
        {
            // Pushed out unapplied: the acknowledgement moves past it.
            self.last_applied = seq;
            self.dropped += 1;
        }
    }

    /// Takes the commands this tick applies, oldest first.
    pub(crate) fn take_for_tick(&mut self) -> impl Iterator<Item = (u32, Command, u32)> + '_ {
        self.ticks += 1;
        let n = match self.mode {
            InputBuffer::Credit => {
                self.credit = (self.credit + 1).min(MAX_CREDIT);
                let n = (self.credit as usize).min(self.pending.len());
                self.credit -= n as u32;
                n
            }
            InputBuffer::Fixed(_) | InputBuffer::Adaptive => self.buffered(),
        };
        self.applied.rotate_left(1);
        self.applied[APPLIED_KEPT - 1] = u8::try_from(n).unwrap_or(u8::MAX);
        if let Some(&(seq, _, _)) = self.pending.get(n.wrapping_sub(1)) {
            self.last_applied = seq;
        }
        self.pending.drain(..n)
    }

    /// How many commands the jitter buffer applies this tick: none until it holds its
    /// depth, then one a tick; a tick that finds it empty is a late command, and it
    /// fills to its depth again.
    fn buffered(&mut self) -> usize {
        if self.mode == InputBuffer::Adaptive {
            let since = self.ticks.saturating_sub(JITTER_WINDOW);
            while self.arrivals.front().is_some_and(|&(t, _)| t < since) {
                self.arrivals.pop_front();
            }
            let lo = self.arrivals.iter().map(|&(_, d)| d).min();
            let hi = self.arrivals.iter().map(|&(_, d)| d).max();
            if let (Some(lo), Some(hi)) = (lo, hi) {
                let spread = u32::try_from(hi - lo).unwrap_or(u32::MAX);
                self.target = spread.saturating_add(1).min(u32::from(MAX_BUFFER_TICKS));
            }
        }
        if !self.primed {
            self.primed = self.pending.len() >= self.target as usize;
            if !self.primed {
                return 0;
            }
        }
        if self.pending.is_empty() {
            self.late += 1;
            self.primed = false;
            return 0;
        }
        1
    }

    /// The last seq applied: what snapshots acknowledge.
    pub(crate) fn last_applied(&self) -> u32 {
        self.last_applied
    }

    pub(crate) fn len(&self) -> usize {
        self.pending.len()
    }

    pub(crate) fn figures(&self) -> BufferFigures {
        BufferFigures {
            queued: self.pending.len(),
            target: self.target,
            applied: self.applied,
            late: self.late,
            dropped: self.dropped,
        }
    }

    #[cfg(test)]
    pub(crate) fn duplicates(&self) -> u64 {
        self.duplicates
    }

    #[cfg(test)]
    pub(crate) fn refused(&self) -> u64 {
        self.refused
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drain(q: &mut CommandQueue) -> Vec<u32> {
        q.take_for_tick().map(|(s, _, _)| s).collect()
    }

    #[test]
    fn duplicates_are_dropped_and_order_kept() {
        let mut q = CommandQueue::default();
        for seq in [1, 2, 1, 3, 2, 3] {
            q.offer(seq, Command::default(), 0);
        }
        assert_eq!(q.len(), 3);
        assert_eq!(q.duplicates(), 3);
        assert_eq!(drain(&mut q), vec![1]);
        assert_eq!(q.last_applied(), 1);
    }

    #[test]
    fn no_faster_than_one_per_tick_in_the_long_run() {
        let mut q = CommandQueue::default();
        let mut seq = 0;
        let mut applied = 0;
        for _ in 0..600 {
            // A speed hack: three commands per tick.
            for _ in 0..3 {
                seq += 1;
                q.offer(seq, Command::default(), 0);
            }
            applied += drain(&mut q).len();
        }
        assert!(applied <= 600, "{applied}");
        // ...and no slower: one a tick is applied all along.
        assert!(applied >= 599, "{applied}");
        assert!(q.refused() > 0);
    }

    #[test]
    fn saved_credit_lets_a_late_burst_catch_up() {
        let mut q = CommandQueue::default();
        for _ in 0..4 {
            assert!(drain(&mut q).is_empty());
        }
        for seq in 1..=5 {
            q.offer(seq, Command::default(), 0);
        }
        assert_eq!(drain(&mut q), vec![1, 2, 3, 4, 5]);
    }

    #[test]
    fn an_absurd_jump_is_refused() {
        let mut q = CommandQueue::default();
        q.offer(1, Command::default(), 0);
        q.offer(1_000_000, Command::default(), 0);
        q.offer(2, Command::default(), 0);
        assert_eq!(drain(&mut q), vec![1]);
        assert_eq!(drain(&mut q), vec![2]);
    }

    #[test]
    fn gaps_are_skipped() {
        let mut q = CommandQueue::default();
        q.offer(1, Command::default(), 0);
        q.offer(5, Command::default(), 0);
        assert_eq!(drain(&mut q), vec![1]);
        assert_eq!(drain(&mut q), vec![5]);
        assert_eq!(q.last_applied(), 5);
    }

    /// A clean LAN: two commands a packet, one packet every other tick, after the
    /// server has ticked a while (as it has when a client joins).
    fn pairs(q: &mut CommandQueue, ticks: u32) -> Vec<usize> {
        for _ in 0..10 {
            drain(q);
        }
        let mut seq = 0;
        (0..ticks)
            .map(|t| {
                if t % 2 == 0 {
                    for _ in 0..2 {
                        seq += 1;
                        q.offer(seq, Command::default(), 0);
                    }
                }
                drain(q).len()
            })
            .collect()
    }

    // The credit queue applied a packet's two commands at once: a walker moved in pairs.
    #[test]
    fn the_credit_queue_applies_pairs_the_jitter_buffer_one_a_tick() {
        let credit = pairs(&mut CommandQueue::new(InputBuffer::Credit), 40);
        assert!(credit[4..].iter().all(|&n| n == 2 || n == 0), "{credit:?}");
        for mode in [InputBuffer::Fixed(2), InputBuffer::Adaptive] {
            let mut q = CommandQueue::new(mode);
            let applied = pairs(&mut q, 200);
            assert!(applied[4..].iter().all(|&n| n == 1), "{mode}: {applied:?}");
            let f = q.figures();
            assert_eq!((f.target, f.late, f.dropped), (2, 0, 0), "{mode}");
            assert_eq!(f.applied, [1; APPLIED_KEPT]);
        }
    }

    #[test]
    fn a_fixed_buffer_waits_for_its_depth_counts_late_and_drops_overflow() {
        let mut q = CommandQueue::new(InputBuffer::Fixed(3));
        q.offer(1, Command::default(), 0);
        q.offer(2, Command::default(), 0);
        assert!(drain(&mut q).is_empty(), "two of three: waiting");
        q.offer(3, Command::default(), 0);
        assert_eq!(drain(&mut q), vec![1]);
        assert_eq!(drain(&mut q), vec![2]);
        assert_eq!(drain(&mut q), vec![3]);
        assert!(drain(&mut q).is_empty());
        assert_eq!(q.figures().late, 1, "a tick found it empty");
        // It fills to its depth again before applying.
        q.offer(4, Command::default(), 0);
        assert!(drain(&mut q).is_empty());
        assert_eq!(q.figures().late, 1, "refilling is not late");
        // A burst past depth + MAX_CREDIT pushes the oldest out.
        for seq in 5..=13 {
            q.offer(seq, Command::default(), 0);
        }
        assert_eq!(q.len(), 3 + MAX_CREDIT as usize);
        assert_eq!(q.figures().dropped, 1);
        assert_eq!(drain(&mut q), vec![5], "4 was pushed out");
    }

    #[test]
    fn the_adaptive_depth_follows_the_arrival_jitter() {
        let mut q = CommandQueue::new(InputBuffer::Adaptive);
        let mut seq = 0;
        // Four commands a packet, every fourth tick: a spread of 3 ticks.
        for t in 0..200 {
            if t % 4 == 0 {
                for _ in 0..4 {
                    seq += 1;
                    q.offer(seq, Command::default(), 0);
                }
            }
            drain(&mut q);
        }
        assert_eq!(q.figures().target, 4);
        assert_eq!(q.figures().applied, [1; APPLIED_KEPT]);
    }

    #[test]
    fn input_buffer_settings_parse() {
        assert_eq!("credit".parse(), Ok(InputBuffer::Credit));
        assert_eq!("adaptive".parse(), Ok(InputBuffer::Adaptive));
        assert_eq!("4".parse(), Ok(InputBuffer::Fixed(4)));
        for bad in ["0", "33", "x", ""] {
            assert!(bad.parse::<InputBuffer>().is_err(), "{bad}");
        }
        for mode in [
            InputBuffer::Credit,
            InputBuffer::Fixed(7),
            InputBuffer::Adaptive,
        ] {
            assert_eq!(mode.to_string().parse(), Ok(mode));
        }
    }

    #[test]
    fn a_mode_changed_mid_run_applies_from_the_next_tick() {
        let mut q = CommandQueue::new(InputBuffer::Credit);
        let before = pairs(&mut q, 20);
        assert!(before[4..].contains(&2), "{before:?}");
        q.set_mode(InputBuffer::Fixed(2));
        let mut seq = q.last_applied();
        let after: Vec<usize> = (0..40)
            .map(|t| {
                if t % 2 == 0 {
                    for _ in 0..2 {
                        seq += 1;
                        q.offer(seq, Command::default(), 0);
                    }
                }
                drain(&mut q).len()
            })
            .collect();
        assert!(after.iter().all(|&n| n == 1), "{after:?}");
        assert_eq!(q.figures().target, 2);
        q.set_mode(InputBuffer::Credit);
        assert_eq!(q.figures().target, 0);
    }
}
