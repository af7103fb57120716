//! A player's incoming commands on the server: ordered, deduplicated, and paced.
//!
//! Input packets repeat every unacknowledged command, so most commands arrive several
//! times; only the first copy of each seq is kept. Commands are applied at most one per
//! server tick on average: each tick adds one credit, a command costs one, and credit
//! saved up while packets were late is capped. A client that sends commands faster than
//! real time therefore only fills its own queue; it never moves faster.

use std::collections::VecDeque;

use crate::sim::world::Command;

/// Credit that may be saved up: how far behind real time a client may fall (after a late
/// packet burst) and still catch up at once. 6 ticks is 100 ms at 60 Hz.
pub(crate) const MAX_CREDIT: u32 = 6;
/// Commands held waiting. A client beyond this is refused new commands until the queue
/// drains; it will resend them, since they stay unacknowledged.
pub(crate) const MAX_QUEUED: usize = 128;
/// Largest gap in seqs accepted: 10 s of lost commands at 240 Hz.
pub(crate) const MAX_SEQ_JUMP: u32 = 2400;

#[derive(Clone, Debug, Default)]
pub(crate) struct CommandQueue {
    pending: VecDeque<(u32, Command, u32)>,
    last_queued: u32,
    last_applied: u32,
    credit: u32,
    duplicates: u64,
    refused: u64,
}

impl CommandQueue {
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
    }

    /// Adds this tick's credit and takes the commands it pays for, oldest first.
    pub(crate) fn take_for_tick(&mut self) -> impl Iterator<Item = (u32, Command, u32)> + '_ {
        self.credit = (self.credit + 1).min(MAX_CREDIT);
        let n = (self.credit as usize).min(self.pending.len());
        self.credit -= n as u32;
        if let Some(&(seq, _, _)) = self.pending.get(n.wrapping_sub(1)) {
            self.last_applied = seq;
        }
        self.pending.drain(..n)
    }

    /// The last seq applied: what snapshots acknowledge.
    pub(crate) fn last_applied(&self) -> u32 {
        self.last_applied
    }

    pub(crate) fn len(&self) -> usize {
        self.pending.len()
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
}
