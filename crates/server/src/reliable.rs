//! Game events a client must receive in order and without loss: each gets a sequence
//! number and is resent with every snapshot until the client acknowledges it.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use netarena_net::codec;
use netarena_net::protocol::GameEvent;
use netarena_sim::world::PlayerId;

/// Unacknowledged events carried by one snapshot at most, oldest first (fewer when their
/// bytes would not fit the datagram).
const EVENTS_PER_SNAPSHOT: usize = 64;
/// Events a client may leave unacknowledged at most: the memory bound. A 16-player
/// fight makes about 50 a second, so this is minutes of them; the rule that drops a
/// client that cannot keep up is [`EventQueue::behind`].
const MAX_PENDING_EVENTS: usize = 8192;
/// A client whose oldest pending event has waited this long for its acknowledgement
/// makes no progress: it is too far behind (unless its server is still cutting its
/// rate, see [`EventQueue::behind`]).
pub(crate) const NO_PROGRESS_FOR: Duration = Duration::from_secs(10);
/// An event larger than this can never ride in a snapshot, which needs some room of its
/// own; the server makes none (tests/datagram_budget.rs).
const MAX_EVENT_BYTES: usize = codec::MAX_SERVER_MESSAGE - 64;

#[derive(Clone, Debug)]
pub(crate) struct EventQueue {
    /// Not yet acknowledged, by seq.
    pending: VecDeque<(u32, GameEvent)>,
    next: u32,
    /// The queue overflowed: its client must go.
    overflowed: bool,
    /// Since when the oldest pending event has waited (as of the last acknowledgement).
    waiting_since: Option<Instant>,
}

impl Default for EventQueue {
    fn default() -> EventQueue {
        EventQueue {
            pending: VecDeque::new(),
            next: 1,
            overflowed: false,
            waiting_since: None,
        }
    }
}

impl EventQueue {
    pub(crate) fn push(&mut self, events: &[GameEvent]) {
        for e in events {
            self.pending.push_back((self.next, e.clone()));
            self.next += 1;
        }
        if self.pending.len() > MAX_PENDING_EVENTS {
            // Stop queueing; the tick drops this client.
            self.pending.truncate(MAX_PENDING_EVENTS);
            self.overflowed = true;
        }
    }

    /// The newest event's seq (0 before any).
    pub(crate) fn newest(&self) -> u32 {
        self.next - 1
    }

    /// Events up to `ack` have arrived (as the client said at `now`): stop resending
    /// them.
    pub(crate) fn ack(&mut self, now: Instant, ack: u32) {
        let ack = ack.min(self.next.saturating_sub(1));
        let mut progress = false;
        while self.pending.front().is_some_and(|(seq, _)| *seq <= ack) {
            self.pending.pop_front();
            progress = true;
        }
        if progress || self.pending.is_empty() || self.waiting_since.is_none() {
            self.waiting_since = Some(now);
        }
    }

    /// Whether the client is too far behind to stay: its queue overflowed the memory
    /// bound, or its acknowledgements have not moved for [`NO_PROGRESS_FOR`] while
    /// events waited, and its server is not `cutting` its rate to fit the link (then the
    /// events wait for the rate, not for a client that cannot keep up).
    pub(crate) fn behind(&self, now: Instant, cutting: bool) -> bool {
        let stalled = !self.pending.is_empty()
            && self
                .waiting_since
                .is_some_and(|t| now.saturating_duration_since(t) > NO_PROGRESS_FOR);
        self.overflowed || (stalled && !cutting)
    }

    /// What the next snapshot carries: the oldest events whose encoded size fits
    /// `budget` bytes. The rest waits for the next snapshot, never dropped; no event
    /// the server makes is larger than a snapshot leaves room for.
    ///
    /// An event too large for any datagram (a bug) is taken anyway, alone: its encode
    /// failure is counted and logged, and it stays queued, rather than stalling the queue
    /// without a word.
    ///
    /// Events keep their order (the client applies them in seq order), so priority
    /// works by size: when the oldest do not all fit, a bolt of another player than
    /// `me` whose end is queued too goes as that end (a few bytes, and nothing to fly
    /// late), so the kills, hits and chat behind it reach the client sooner. The
    /// client's own bolts stay whole: it checks its predicted shots against them.
    pub(crate) fn for_snapshot(&self, budget: usize, me: PlayerId) -> Vec<(u32, GameEvent)> {
        let window = || self.pending.iter().take(EVENTS_PER_SNAPSHOT);
        let whole: usize = window().map(codec::encoded_len).sum();
        let compact = |(seq, e): &(u32, GameEvent)| match e {
            GameEvent::Shot(p) if whole > budget && p.owner != me => window()
                .skip_while(|(later, _)| later <= seq)
                .find(|(_, later)| matches!(later, GameEvent::ShotEnd { id, .. } if *id == p.id))
                .map_or_else(|| (*seq, e.clone()), |(_, end)| (*seq, end.clone())),
            _ => (*seq, e.clone()),
        };
        let mut left = budget;
        let fitting: Vec<(u32, GameEvent)> = window()
            .map(compact)
            .take_while(|e| {
                let len = codec::encoded_len(e);
                let fits = len <= left;
                left = left.saturating_sub(len);
                fits
            })
            .collect();
        match self.pending.front() {
            Some(first) if fitting.is_empty() && codec::encoded_len(first) > MAX_EVENT_BYTES => {
                vec![first.clone()]
            }
            _ => fitting,
        }
    }

    /// Events not yet acknowledged.
    pub(crate) fn pending(&self) -> usize {
        self.pending.len()
    }
}

#[cfg(test)]
impl EventQueue {
    pub(crate) fn pending_seqs(&self) -> Vec<u32> {
        self.pending.iter().map(|(seq, _)| *seq).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use netarena_sim::combat::{Projectile, Weapon};

    fn shot(id: u16, owner: PlayerId) -> GameEvent {
        GameEvent::Shot(Projectile {
            id,
            owner,
            born: 1000,
            x: 123_456,
            y: 654_321,
            vx: 1500,
            vy: -1500,
        })
    }

    fn end(id: u16) -> GameEvent {
        GameEvent::ShotEnd {
            id,
            tick: 1010,
            hit: Some(3),
        }
    }

    const KILL: GameEvent = GameEvent::Kill {
        killer: 2,
        victim: 3,
        weapon: Weapon::Blaster,
    };

    // Under the byte cap every unacknowledged bolt went whole ahead of the kill behind
    // it, though each had ended already: the kill waited for snapshots of dead bolts.
    #[test]
    fn under_the_cap_ended_bolts_of_others_go_as_their_ends_and_the_kill_fits() {
        let mut q = EventQueue::default();
        q.push(&[shot(1, 2), shot(2, 2), end(1), end(2), KILL]);
        let whole: usize = q.pending.iter().map(codec::encoded_len).sum();
        let budget = whole - 8;
        let sent = q.for_snapshot(budget, 5);
        let seqs: Vec<u32> = sent.iter().map(|(s, _)| *s).collect();
        assert_eq!(seqs, [1, 2, 3, 4, 5], "in order, the kill included");
        assert_eq!(sent[0].1, end(1));
        assert_eq!(sent[1].1, end(2));
        assert_eq!(sent[4].1, KILL);

        // The client's own bolts stay whole: it checks its predicted shots by them.
        let mine = q.for_snapshot(budget, 2);
        assert_eq!(mine[0].1, shot(1, 2));

        // Room for all: nothing changes (a bolt that ended at once is still drawn).
        let all = q.for_snapshot(whole, 5);
        assert_eq!(all[0].1, shot(1, 2));
        assert_eq!(all.len(), 5);
    }

    // A thin link's client was dropped at 1,024 pending events, about 20 s into a
    // 16-player fight, though it acknowledged events all along.
    #[test]
    fn a_client_that_makes_progress_stays_one_that_makes_none_goes() {
        let t0 = Instant::now();
        let mut q = EventQueue::default();
        let mut acked = 0;
        for i in 0..60u32 {
            // 50 events a second, 30 of them acknowledged.
            let now = t0 + Duration::from_secs(u64::from(i));
            q.push(&vec![KILL; 50]);
            acked += 30;
            q.ack(now, acked);
            assert!(
                !q.behind(now, false),
                "dropped at {i} s, {} pending",
                q.pending()
            );
        }
        assert!(q.pending() > 1024);
        // Then nothing more is acknowledged.
        let later = t0 + Duration::from_secs(59) + NO_PROGRESS_FOR;
        q.ack(t0 + Duration::from_secs(60), acked);
        assert!(!q.behind(later, false), "not yet");
        let later = later + Duration::from_millis(1);
        assert!(q.behind(later, false), "no progress");
        assert!(
            !q.behind(later, true),
            "its server is still cutting its rate"
        );
    }
}
