//! Game events a client must receive in order and without loss: each gets a sequence
//! number and is resent with every snapshot until the client acknowledges it.

use std::collections::VecDeque;

use crate::net::protocol::GameEvent;

/// Unacknowledged events carried by one snapshot, oldest first.
const EVENTS_PER_SNAPSHOT: usize = 64;
/// Events a client may leave unacknowledged. Events must arrive in order and none may
/// be lost, so a client this far behind cannot catch up: it is dropped instead.
const MAX_PENDING_EVENTS: usize = 1024;

#[derive(Clone, Debug)]
pub(crate) struct EventQueue {
    /// Not yet acknowledged, by seq.
    pending: VecDeque<(u32, GameEvent)>,
    next: u32,
    /// The queue overflowed: its client must go.
    overflowed: bool,
}

impl Default for EventQueue {
    fn default() -> EventQueue {
        EventQueue {
            pending: VecDeque::new(),
            next: 1,
            overflowed: false,
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

    /// Events up to `ack` have arrived: stop resending them.
    pub(crate) fn ack(&mut self, ack: u32) {
        let ack = ack.min(self.next.saturating_sub(1));
        while self.pending.front().is_some_and(|(seq, _)| *seq <= ack) {
            self.pending.pop_front();
        }
    }

    /// What the next snapshot carries.
    pub(crate) fn for_snapshot(&self) -> Vec<(u32, GameEvent)> {
        self.pending
            .iter()
            .take(EVENTS_PER_SNAPSHOT)
            .cloned()
            .collect()
    }

    /// Whether [`Self::for_snapshot`] carries every pending event.
    pub(crate) fn all_fit_in_snapshot(&self) -> bool {
        self.pending.len() <= EVENTS_PER_SNAPSHOT
    }

    pub(crate) fn overflowed(&self) -> bool {
        self.overflowed
    }
}
