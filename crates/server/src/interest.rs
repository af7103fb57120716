//! Interest management: which players a client's snapshot carries.
//!
//! A snapshot must fit one 1,200-byte datagram beside its events, and 64 players in
//! full take about 600 bytes of it. A server may hold more than that, so each client
//! gets at most [`SNAPSHOT_PLAYERS`]: itself and the others nearest to it, measured the
//! way a terminal shows the arena (a cell is two columns wide, so the view is about
//! twice as wide as it is tall, in cells). Players it already had keep their place
//! against newcomers a few cells nearer, so one at the edge of the set does not blink in
//! and out. With no more players than that, everyone goes to everyone, as before. A
//! client of a small path (548-byte datagrams) gets fewer: as many as first fitted
//! (`snapshots.rs` narrows a snapshot that did not, [`Interest::narrow`]).
//!
//! Each client's delta refers to a snapshot it acknowledged, which held the players
//! chosen for it then: [`Interest`] remembers those sets by tick, so the baseline can be
//! rebuilt from the server's shared history.

use std::collections::VecDeque;

use netarena_net::protocol::PlayerSnap;
use netarena_sim::map::CELL;
use netarena_sim::world::{PlayerId, PlayerState};

/// Most players in one snapshot, the client's own included: the count the datagram
/// budget is checked with (tests/datagram_budget.rs).
pub(crate) const SNAPSHOT_PLAYERS: usize = 64;
/// How much nearer (in view distance) a newcomer must be to take a held player's place.
const KEEP_MARGIN: i64 = 4 * CELL as i64;
/// Sets remembered: as many as the snapshots kept as baselines.
const SETS_KEPT: usize = 32;

/// A set of player ids (a bit for each of the 256).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub(crate) struct IdSet([u64; 4]);

impl IdSet {
    pub(crate) fn insert(&mut self, id: PlayerId) {
        self.0[usize::from(id >> 6)] |= 1 << (id & 63);
    }

    pub(crate) fn contains(&self, id: PlayerId) -> bool {
        self.0[usize::from(id >> 6)] & (1 << (id & 63)) != 0
    }

    pub(crate) fn len(&self) -> usize {
        self.0.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// The players of `players` in the set, in their order.
    pub(crate) fn filter(&self, players: &[PlayerSnap]) -> Vec<PlayerSnap> {
        players
            .iter()
            .filter(|p| self.contains(p.id))
            .copied()
            .collect()
    }
}

/// What one client was sent: the player set of each recent snapshot, and where it was
/// looking from.
#[derive(Clone, Debug, Default)]
pub(crate) struct Interest {
    sent: VecDeque<(u32, IdSet)>,
    /// The client's player's last place: the centre while it is dead (out of the world).
    centre: Option<(i32, i32)>,
    /// Scratch: the others by view distance.
    ranked: Vec<(i64, PlayerId)>,
    /// Fewer players than [`SNAPSHOT_PLAYERS`] fit this client's datagrams (a small
    /// path): this many at most, from the snapshot that first did not fit on.
    narrowed: Option<usize>,
}

impl Interest {
    /// The set snapshot `tick` carried, if still remembered.
    pub(crate) fn sent_at(&self, tick: u32) -> Option<&IdSet> {
        self.sent.iter().find(|(t, _)| *t == tick).map(|(_, s)| s)
    }

    /// Chooses the players of snapshot `tick` for the client playing `me`, and
    /// remembers the choice.
    pub(crate) fn choose(
        &mut self,
        tick: u32,
        me: PlayerId,
        players: &[(PlayerId, PlayerState)],
    ) -> IdSet {
        if let Some((_, s)) = players.iter().find(|(id, _)| *id == me) {
            self.centre = Some((s.x, s.y));
        }
        let previous = self.sent.back().map(|(_, s)| *s);
        let centre = self.centre.unwrap_or_default();
        let most = self.narrowed.unwrap_or(SNAPSHOT_PLAYERS);
        let set = nearest(players, me, centre, previous, most, &mut self.ranked);
        self.sent.push_back((tick, set));
        if self.sent.len() > SETS_KEPT {
            self.sent.pop_front();
        }
        set
    }

    /// The `most` players the newest choice would have been with no more room, for a
    /// snapshot that did not fit the client's datagram budget. Nothing is remembered:
    /// [`Interest::narrow`] does, once the snapshot goes with it.
    pub(crate) fn narrowed(
        &self,
        me: PlayerId,
        players: &[(PlayerId, PlayerState)],
        most: usize,
    ) -> IdSet {
        let previous = self.sent.iter().rev().nth(1).map(|(_, s)| *s);
        let centre = self.centre.unwrap_or_default();
        nearest(players, me, centre, previous, most, &mut Vec::new())
    }

    /// Snapshot `tick` went with the narrower `set`, and no more than its players go
    /// from now on: the client's path is small, and its snapshots keep to one set
    /// size, so no player blinks out and in as the budget's margin comes and goes.
    /// Returns the new most, when it fell.
    pub(crate) fn narrow(&mut self, tick: u32, set: IdSet) -> Option<usize> {
        if let Some((_, last)) = self.sent.back_mut().filter(|(t, _)| *t == tick) {
            *last = set;
        }
        let most = self.narrowed.unwrap_or(SNAPSHOT_PLAYERS);
        let fewer = most.min(set.len()).max(1);
        self.narrowed = Some(fewer);
        (fewer < most).then_some(fewer)
    }

    /// The most players this client's snapshots carry.
    #[cfg(test)]
    pub(crate) fn most(&self) -> usize {
        self.narrowed.unwrap_or(SNAPSHOT_PLAYERS)
    }
}

/// View distance: how far out of a terminal's view centred on `centre` a place is.
fn view_distance(centre: (i32, i32), s: &PlayerState) -> i64 {
    let dx = (i64::from(s.x) - i64::from(centre.0)).abs();
    let dy = (i64::from(s.y) - i64::from(centre.1)).abs();
    dx.max(2 * dy)
}

/// `me` (if in play) and the others nearest to `centre`, `most` in all; those in
/// `previous` count [`KEEP_MARGIN`] nearer. Ties go to the lower id.
fn nearest(
    players: &[(PlayerId, PlayerState)],
    me: PlayerId,
    centre: (i32, i32),
    previous: Option<IdSet>,
    most: usize,
    ranked: &mut Vec<(i64, PlayerId)>,
) -> IdSet {
    let mut set = IdSet::default();
    let most = most.max(1);
    if players.len() <= most {
        for (id, _) in players {
            set.insert(*id);
        }
        return set;
    }
    let held = |id: PlayerId| previous.is_some_and(|p| p.contains(id));
    let present = players.iter().any(|(id, _)| *id == me);
    ranked.clear();
    ranked.extend(players.iter().filter(|(id, _)| *id != me).map(|(id, s)| {
        let d = view_distance(centre, s);
        (if held(*id) { d - KEEP_MARGIN } else { d }, *id)
    }));
    let others = most - usize::from(present);
    if others == 0 {
        ranked.clear();
    } else if ranked.len() > others {
        ranked.select_nth_unstable(others - 1);
        ranked.truncate(others);
    }
    if present {
        set.insert(me);
    }
    for (_, id) in ranked.iter() {
        set.insert(*id);
    }
    set
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(x: i32, y: i32) -> PlayerState {
        PlayerState {
            x: x * CELL,
            y: y * CELL,
            vx: 0,
            vy: 0,
        }
    }

    /// 128 players in a row, one a cell apart, player 0 at the left end.
    fn row() -> Vec<(PlayerId, PlayerState)> {
        (0..128u8).map(|id| (id, at(i32::from(id), 5))).collect()
    }

    #[test]
    fn a_small_game_sends_everyone() {
        let players: Vec<_> = row().into_iter().take(SNAPSHOT_PLAYERS).collect();
        let set = Interest::default().choose(1, 0, &players);
        assert_eq!(set.len(), SNAPSHOT_PLAYERS);
        assert!(players.iter().all(|(id, _)| set.contains(*id)));
    }

    #[test]
    fn a_crowd_is_cut_to_the_nearest() {
        let players = row();
        let set = Interest::default().choose(1, 0, &players);
        assert_eq!(set.len(), SNAPSHOT_PLAYERS);
        for id in 0..128u8 {
            assert_eq!(set.contains(id), usize::from(id) < SNAPSHOT_PLAYERS, "{id}");
        }
        // From the middle of the row: 63 others around player 64, itself included.
        let set = Interest::default().choose(1, 64, &players);
        assert!(set.contains(64) && set.contains(33) && set.contains(95));
        assert!(!set.contains(0) && !set.contains(127));
    }

    #[test]
    fn rows_count_double_as_a_terminal_shows_them() {
        let mut players = row();
        // The 63 nearest others reach column 63. 127 goes 40 rows down: as far as
        // column 80, out; 20 rows down, as far as column 40, in.
        players[127].1 = at(0, 45);
        let set = Interest::default().choose(1, 0, &players);
        assert!(!set.contains(127), "as far as column 80");
        players[127].1 = at(0, 25);
        let set = Interest::default().choose(1, 0, &players);
        assert!(set.contains(127), "as far as column 40");
    }

    #[test]
    fn a_held_player_keeps_its_place_against_a_slightly_nearer_one() {
        let mut players = row();
        let mut interest = Interest::default();
        let first = interest.choose(1, 0, &players);
        assert!(first.contains(63) && !first.contains(64));
        // 64 steps two cells nearer than 63: not enough to take its place...
        players[64].1 = at(61, 5);
        let second = interest.choose(2, 0, &players);
        assert!(second.contains(63) && !second.contains(64));
        // ...but a newcomer far nearer is.
        players[64].1 = at(10, 6);
        let third = interest.choose(3, 0, &players);
        assert!(third.contains(64) && !third.contains(63));
        assert_eq!(interest.sent_at(2), Some(&second));
        assert_eq!(interest.sent_at(9), None);
    }

    #[test]
    fn a_dead_player_keeps_its_last_place_as_centre() {
        let mut players = row();
        let mut interest = Interest::default();
        interest.choose(1, 127, &players);
        players.pop();
        let set = interest.choose(2, 127, &players);
        assert_eq!(set.len(), SNAPSHOT_PLAYERS, "64 others while it is out");
        assert!(
            set.contains(126) && !set.contains(62),
            "still looking from the right"
        );
    }
}
