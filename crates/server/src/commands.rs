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
//!   one a tick. A tick that finds the buffer empty owes its command: the command was
//!   late (its packet was delayed, or lost and its redundant copy came in a later one).
//!   When it comes, it is caught up as Overwatch's servers do: while anything is owed
//!   and more than N wait, a tick applies one extra, so the pace stays even but for a
//!   double step, and the buffer is back at its depth. At most [`MAX_OWED`] ticks are
//!   owed at once (past that the client stopped, and the buffer fills to N again), so
//!   no client ever gets more commands applied than ticks passed. A command that would
//!   make the buffer hold more than N plus [`MAX_CREDIT`] plus what is owed pushes the
//!   oldest out, counted as dropped: only a gap longer than catching up absorbs.
//! - **adaptive**: the same buffer, its depth one more than the 95th percentile of how
//!   late commands arrive (in ticks, against the earliest arrivals of the half second
//!   before, over the last [`JITTER_WINDOW`] ticks): the buffer covers the link's
//!   jitter, not its rare worst case, which catching up absorbs. It deepens at once and
//!   grows shallower one tick every [`SHRINK_EVERY`] ticks when the link calms.
//!
//! Commands that never arrive (a gap in seqs: lost beyond the redundancy window) are
//! counted as lost, in every mode.

use std::collections::VecDeque;
use std::fmt;
use std::str::FromStr;

use netarena_sim::world::Command;

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
pub const JITTER_WINDOW: u32 = 180;
/// Ticks of arrivals whose earliest is what a command's lateness is measured from: short,
/// so a command clock running 5% slow or fast (draining or refilling the buffer) is not
/// taken for jitter.
const REFERENCE_WINDOW: u32 = 15;
/// Ticks a jitter buffer may owe at most (see the module docs): 200 ms at 60 Hz, a
/// burst of lost packets and the jitter after it.
pub const MAX_OWED: u32 = 2 * MAX_CREDIT;
/// The adaptive depth grows shallower by one tick at most this often.
pub const SHRINK_EVERY: u32 = 60;
/// The share of arrivals the adaptive depth covers, in percent.
const COVERED_PCT: usize = 95;
/// Ticks whose applied counts [`BufferFigures::applied`] keeps.
pub const APPLIED_KEPT: usize = 8;

/// How the server applies a client's commands (`--input-buffer`).
/// The default is every front end's (`host`, `server`, `lab`, learn, [`ServerConfig::new`]).
///
/// [`ServerConfig::new`]: crate::ServerConfig::new
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum InputBuffer {
    /// Up to one command a tick on average, catching up to [`MAX_CREDIT`] at once.
    Credit,
    /// A jitter buffer of this many ticks (1 to [`MAX_BUFFER_TICKS`]).
    Fixed(u8),
    /// A jitter buffer as deep as the measured arrival jitter needs: one command a tick,
    /// so others see a player move evenly.
    #[default]
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
    /// Late commands applied as a tick's one extra, so their lateness cost no step.
    pub caught_up: u64,
    /// Commands pushed out of a full jitter buffer, never applied.
    pub dropped: u64,
    /// Commands that never arrived (a gap in seqs), in any mode.
    pub lost: u64,
}

/// Each recent new command's arrival tick and how far that is from its seq
/// (`ticks - seq`), and how late it was against the earliest of the
/// [`REFERENCE_WINDOW`] before it, in ticks; beside them, how many were how late, so
/// a percentile of the lateness is a walk over [`MAX_BUFFER_TICKS`] counts on every
/// tick rather than a selection over the window's arrivals.
#[derive(Clone, Debug, Default)]
struct Arrivals {
    list: VecDeque<(u32, i64, u32)>,
    /// Arrivals by lateness; the last slot counts every lateness that makes the
    /// deepest buffer, [`MAX_BUFFER_TICKS`] - 1 ticks or more.
    counts: [u32; MAX_BUFFER_TICKS as usize],
}

impl Arrivals {
    fn slot(lateness: u32) -> usize {
        (lateness as usize).min(MAX_BUFFER_TICKS as usize - 1)
    }

    fn push(&mut self, tick: u32, offset: i64, lateness: u32) {
        self.list.push_back((tick, offset, lateness));
        self.counts[Self::slot(lateness)] += 1;
    }

    /// Forgets the arrivals before tick `since`.
    fn drop_before(&mut self, since: u32) {
        while let Some(&(t, _, lateness)) = self.list.front()
            && t < since
        {
            self.list.pop_front();
            self.counts[Self::slot(lateness)] -= 1;
        }
    }

    /// The lateness that `pct`% of the arrivals are at or under (the smallest such),
    /// up to the last slot's; None before any arrive.
    fn lateness_at(&self, pct: usize) -> Option<u32> {
        let at = (self.list.len() * pct).div_ceil(100).checked_sub(1)?;
        let mut seen = 0;
        for (lateness, &n) in self.counts.iter().enumerate() {
            seen += n as usize;
            if seen > at {
                return u32::try_from(lateness).ok();
            }
        }
        None
    }
}

/// A queue's running counts: commands offered twice, refused, applied late, caught up
/// on, dropped for being too far behind, and never received.
#[derive(Clone, Debug, Default)]
struct Counts {
    duplicates: u64,
    refused: u64,
    late: u64,
    caught_up: u64,
    dropped: u64,
    lost: u64,
}

#[derive(Clone, Debug, Default)]
pub(crate) struct CommandQueue {
    mode: InputBuffer,
    pending: VecDeque<(u32, Command, u32)>,
    last_queued: u32,
    last_applied: u32,
    credit: u32,
    /// Ticks taken so far: the clock arrivals are timed by.
    ticks: u32,
    /// A jitter buffer applies only once filled to its depth, and again after running dry.
    primed: bool,
    /// The recent new commands' arrivals (see [`Arrivals`]).
    arrivals: Arrivals,
    target: u32,
    /// When the adaptive depth last grew shallower.
    shrunk_at: u32,
    /// Ticks that found the buffer empty, not yet caught up.
    owed: u32,
    applied: [u8; APPLIED_KEPT],
    /// What became of the commands offered that were not applied in turn.
    counts: Counts,
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
        self.owed = 0;
        self.primed = false;
        self.arrivals = if mode == InputBuffer::Adaptive {
            arrivals
        } else {
            Arrivals::default()
        };
    }

    /// Offers one received command. Seqs at or below the newest queued are duplicates;
    /// a gap (commands lost beyond the redundancy window) is accepted and skipped, but
    /// not an absurd jump ahead, which would make every later honest command look old.
    /// `view` is the tick the client was viewing when it sent it, for lag compensation.
    pub(crate) fn offer(&mut self, seq: u32, cmd: Command, view: u32) {
        if seq <= self.last_queued {
            self.counts.duplicates += 1;
            return;
        }
        if seq - self.last_queued > MAX_SEQ_JUMP {
            self.counts.refused += 1;
            return;
        }
        if self.pending.len() >= MAX_QUEUED {
            // Refused, and counted once: past it, so its copies are duplicates and the
            // next seq is no gap of lost commands.
            self.counts.refused += 1;
            self.last_queued = seq;
            return;
        }
        // The first command ever may follow any seq; after it, a gap is lost commands.
        if self.last_queued > 0 {
            self.counts.lost += u64::from(seq - self.last_queued - 1);
        }
        self.pending.push_back((seq, cmd, view));
        self.last_queued = seq;
        if self.mode == InputBuffer::Credit {
            return;
        }
        let offset = i64::from(self.ticks) - i64::from(seq);
        let since = self.ticks.saturating_sub(REFERENCE_WINDOW);
        let earliest = self
            .arrivals
            .list
            .iter()
            .rev()
            .take_while(|&&(t, _, _)| t >= since)
            .map(|&(_, d, _)| d)
            .fold(offset, i64::min);
        let lateness = u32::try_from(offset - earliest).unwrap_or(u32::MAX);
        self.arrivals.push(self.ticks, offset, lateness);
        if self.pending.len() > (self.target + MAX_CREDIT + self.owed) as usize
            && let Some((seq, _, _)) = self.pending.pop_front()
        {
            // Pushed out unapplied: the acknowledgement moves past it.
            self.last_applied = seq;
            self.counts.dropped += 1;
        }
    }

    /// Takes command `seq` for the on-arrival path (`on_arrival.rs`) instead of this
    /// queue, counted as [`CommandQueue::offer`] counts it (a duplicate, an absurd jump
    /// or a gap of lost commands); true if it is new and taken.
    pub(crate) fn take_elsewhere(&mut self, seq: u32) -> bool {
        if seq <= self.last_queued {
            self.counts.duplicates += 1;
            return false;
        }
        if seq - self.last_queued > MAX_SEQ_JUMP {
            self.counts.refused += 1;
            return false;
        }
        if self.last_queued > 0 {
            self.counts.lost += u64::from(seq - self.last_queued - 1);
        }
        self.last_queued = seq;
        true
    }

    /// Command `seq`, taken by [`CommandQueue::take_elsewhere`], was applied: what
    /// snapshots acknowledge.
    pub(crate) fn applied_elsewhere(&mut self, seq: u32) {
        self.last_applied = self.last_applied.max(seq);
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
    /// depth, then one a tick, and one more while a late one is owed and more than the
    /// depth wait. A tick that finds it empty owes a command; past [`MAX_OWED`] owed,
    /// the client has stopped, and the buffer fills to its depth again.
    fn buffered(&mut self) -> usize {
        let since = self.ticks.saturating_sub(JITTER_WINDOW);
        self.arrivals.drop_before(since);
        if self.mode == InputBuffer::Adaptive
            && let Some(needed) = self.depth_needed()
        {
            if needed > self.target {
                self.target = needed;
                self.shrunk_at = self.ticks;
            } else if needed < self.target && self.ticks - self.shrunk_at >= SHRINK_EVERY {
                self.target -= 1;
                self.shrunk_at = self.ticks;
            }
        }
        if !self.primed {
            self.primed = self.pending.len() >= self.target as usize;
            if !self.primed {
                return 0;
            }
        }
        if self.pending.is_empty() {
            if self.owed == MAX_OWED {
                self.primed = false;
            } else {
                self.counts.late += 1;
                self.owed += 1;
            }
            return 0;
        }
        if self.owed > 0 && self.pending.len() > self.target as usize {
            self.owed -= 1;
            self.counts.caught_up += 1;
            return 2;
        }
        1
    }

    /// The depth that covers [`COVERED_PCT`]% of recent arrivals: one tick more than
    /// their lateness at that percentile (None before any arrive).
    fn depth_needed(&self) -> Option<u32> {
        let p = self.arrivals.lateness_at(COVERED_PCT)?;
        Some(p.saturating_add(1).min(u32::from(MAX_BUFFER_TICKS)))
    }

    /// The last seq applied: what snapshots acknowledge.
    pub(crate) fn last_applied(&self) -> u32 {
        self.last_applied
    }

    pub(crate) fn len(&self) -> usize {
        self.pending.len()
    }

    /// The oldest seq waiting (None: none).
    pub(crate) fn first_waiting(&self) -> Option<u32> {
        self.pending.front().map(|&(seq, _, _)| seq)
    }

    pub(crate) fn figures(&self) -> BufferFigures {
        BufferFigures {
            queued: self.pending.len(),
            target: self.target,
            applied: self.applied,
            late: self.counts.late,
            caught_up: self.counts.caught_up,
            dropped: self.counts.dropped,
            lost: self.counts.lost,
        }
    }

    #[cfg(test)]
    pub(crate) fn duplicates(&self) -> u64 {
        self.counts.duplicates
    }

    #[cfg(test)]
    pub(crate) fn refused(&self) -> u64 {
        self.counts.refused
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drain(q: &mut CommandQueue) -> Vec<u32> {
        q.take_for_tick().map(|(s, _, _)| s).collect()
    }

    /// The counts' percentile is the one a sort of the window's lateness gives (past
    /// the deepest buffer's, which makes the same depth), as arrivals come and go.
    #[test]
    fn the_lateness_percentile_is_the_sorted_windows() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_pcg::Pcg32::seed_from_u64(3);
        let mut a = Arrivals::default();
        for tick in 0..2000u32 {
            for _ in 0..rng.random_range(0..3) {
                let lateness = if rng.random_bool(0.1) {
                    rng.random_range(0..100)
                } else {
                    rng.random_range(0..6)
                };
                a.push(tick, 0, lateness);
            }
            a.drop_before(tick.saturating_sub(JITTER_WINDOW));
            let mut late: Vec<u32> = a.list.iter().map(|&(_, _, l)| l).collect();
            late.sort_unstable();
            let pct = rng.random_range(1..=100);
            let want = (late.len() * pct)
                .div_ceil(100)
                .checked_sub(1)
                .map(|at| late[at].min(u32::from(MAX_BUFFER_TICKS) - 1));
            assert_eq!(a.lateness_at(pct), want, "tick {tick}, {pct}%");
        }
    }

    #[test]
    fn duplicates_are_dropped_and_order_kept() {
        let mut q = CommandQueue::new(InputBuffer::Credit);
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
        let mut q = CommandQueue::new(InputBuffer::Credit);
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
        // A refused command is counted once: refused, not lost as well.
        assert_eq!(q.figures().lost, 0);
    }

    #[test]
    fn saved_credit_lets_a_late_burst_catch_up() {
        let mut q = CommandQueue::new(InputBuffer::Credit);
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
        let mut q = CommandQueue::new(InputBuffer::Credit);
        q.offer(1, Command::default(), 0);
        q.offer(1_000_000, Command::default(), 0);
        q.offer(2, Command::default(), 0);
        assert_eq!(drain(&mut q), vec![1]);
        assert_eq!(drain(&mut q), vec![2]);
    }

    #[test]
    fn gaps_are_skipped() {
        let mut q = CommandQueue::new(InputBuffer::Credit);
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
    fn a_fixed_buffer_waits_for_its_depth_and_drops_overflow() {
        let mut q = CommandQueue::new(InputBuffer::Fixed(3));
        q.offer(1, Command::default(), 0);
        q.offer(2, Command::default(), 0);
        assert!(drain(&mut q).is_empty(), "two of three: waiting");
        q.offer(3, Command::default(), 0);
        assert_eq!(drain(&mut q), vec![1]);
        // A burst past depth + MAX_CREDIT pushes the oldest out.
        for seq in 4..=11 {
            q.offer(seq, Command::default(), 0);
        }
        assert_eq!(q.len(), 3 + MAX_CREDIT as usize);
        assert_eq!(q.figures().dropped, 1);
        assert_eq!(drain(&mut q), vec![3], "2 was pushed out");
        assert_eq!(q.last_applied(), 3);
    }

    // A jitter buffer that ran dry waited to fill to its depth again, then applied one a
    // tick: the late commands stayed queued behind, the next late packet overflowed the
    // buffer, and its commands were dropped (16 to 38 in 20 s on `bad` and `mobile`).
    #[test]
    fn late_commands_are_caught_up_one_extra_a_tick() {
        let mut q = CommandQueue::new(InputBuffer::Fixed(2));
        let mut seq = 0;
        let mut offer = |q: &mut CommandQueue, n: u32| {
            for _ in 0..n {
                seq += 1;
                q.offer(seq, Command::default(), 0);
            }
        };
        offer(&mut q, 2);
        let mut applied = Vec::new();
        for tick in 0..40 {
            // One command a tick; ticks 10 to 14 deliver nothing, tick 15 all five late
            // ones with its own (their packets were delayed, or lost and resent).
            match tick {
                10..=14 => {}
                15 => offer(&mut q, 6),
                _ => offer(&mut q, 1),
            }
            applied.push(drain(&mut q).len());
        }
        // Two ticks' worth were waiting: ticks 12-14 find it empty and owe three, caught
        // up one extra a tick.
        assert_eq!(applied[10..12], [1, 1]);
        assert_eq!(applied[12..15], [0, 0, 0]);
        assert_eq!(applied[15..18], [2, 2, 2]);
        assert!(applied[18..].iter().all(|&n| n == 1), "{applied:?}");
        let f = q.figures();
        assert_eq!((f.late, f.caught_up, f.dropped, f.lost), (3, 3, 0, 0));
        // Back at its depth, and every command made was applied.
        assert_eq!(q.len(), 2);
        assert_eq!(applied.iter().sum::<usize>() + q.len(), seq as usize);
    }

    // A client that stops sending is owed at most MAX_OWED ticks: it cannot save up
    // speed by pausing, and the buffer fills to its depth again.
    #[test]
    fn no_more_is_applied_than_ticks_passed() {
        let mut q = CommandQueue::new(InputBuffer::Fixed(2));
        let mut seq = 0;
        let mut applied = 0;
        for tick in 0..200u32 {
            // Silent for a second, then three commands a tick (a speed hack).
            let n = match tick {
                0..10 => 1,
                10..70 => 0,
                _ => 3,
            };
            for _ in 0..n {
                seq += 1;
                q.offer(seq, Command::default(), 0);
            }
            applied += drain(&mut q).len();
            assert!(applied <= tick as usize + 1, "tick {tick}: {applied}");
        }
        assert!(q.figures().caught_up <= u64::from(MAX_OWED));
    }

    // Commands lost beyond the redundancy window were skipped silently.
    #[test]
    fn commands_that_never_arrive_are_counted_lost() {
        for mode in [InputBuffer::Credit, InputBuffer::Fixed(1)] {
            let mut q = CommandQueue::new(mode);
            for seq in [5, 6, 9, 10, 14] {
                q.offer(seq, Command::default(), 0);
                drain(&mut q);
            }
            assert_eq!(q.figures().lost, 5, "{mode}: 7, 8, 11, 12, 13");
        }
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

    // The depth was the whole spread of arrival times over one second, worst case
    // included: one late burst made it deep, and it fell back at once.
    #[test]
    fn the_adaptive_depth_covers_most_arrivals_and_shrinks_slowly() {
        let mut q = CommandQueue::new(InputBuffer::Adaptive);
        let mut seq = 0;
        let mut depths = Vec::new();
        for t in 0..1200u32 {
            // Pairs every other tick, but every 200 ticks three packets come 6 ticks late,
            // with the next one (8 commands at once): 4% of the commands.
            let phase = t % 200;
            let n = if t < 600 && (190..196).contains(&phase) {
                0
            } else if t < 600 && phase == 196 {
                8
            } else if t % 2 == 0 {
                2
            } else {
                0
            };
            for _ in 0..n {
                seq += 1;
                q.offer(seq, Command::default(), 0);
            }
            drain(&mut q);
            depths.push(q.figures().target);
        }
        // The 95th percentile is the pairs': 2 ticks deep.
        assert!(depths[2..600].iter().all(|&d| d == 2), "{depths:?}");
        // A jittery second: half the packets 3 ticks late.
        for t in 0..120u32 {
            let n = match t % 8 {
                0 => 8,
                _ => 0,
            };
            for _ in 0..n {
                seq += 1;
                q.offer(seq, Command::default(), 0);
            }
            drain(&mut q);
        }
        let deep = q.figures().target;
        assert!(deep >= 7, "{deep}");
        // Calm again: one tick shallower a second at most, down to the pairs' 2.
        let mut calm = Vec::new();
        for t in 0..(SHRINK_EVERY * 12) {
            if t % 2 == 0 {
                for _ in 0..2 {
                    seq += 1;
                    q.offer(seq, Command::default(), 0);
                }
            }
            drain(&mut q);
            calm.push(q.figures().target);
        }
        assert!(calm.windows(2).all(|w| w[1] + 1 >= w[0]), "{calm:?}");
        assert!(calm[SHRINK_EVERY as usize] >= deep - 2, "{calm:?}");
        assert_eq!(calm.last(), Some(&2), "{calm:?}");
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
