//! Snapshot fan-out: one snapshot of the world per interval for each client,
//! delta-encoded against the newest one it acknowledged, with its own acks, echo, loss
//! counts and pending events. Each client gets the players `interest` chose for it.
//!
//! Clients take their turns on different ticks, in groups of [`TURN_GROUP`] player ids,
//! so a crowded server spreads the encoding over every tick instead of doing all of it
//! on one tick in three: the tick's worst case, not its average, is what a full server
//! must keep under its period. A small game (ids below the group size) keeps one
//! snapshot tick for everyone, where clients share encodings.
//!
//! A client's link may carry less than its snapshots: `delivery` holds a snapshot back
//! when the client's bucket is empty (the next one says how many were held back) and
//! caps the bytes of those that go, its events waiting for the next one.

use std::collections::{HashMap, VecDeque};
use std::time::{Duration, Instant};

use super::Server;
use super::connection::{Connection, Controller};
use super::interest::IdSet;
use netarena_net::protocol::{
    NEAR_EVENTS, NEAR_TICKS, PlayerSnap, ServerMsg, Snapshot, SnapshotDelta, SnapshotHeader,
};
use netarena_net::{codec, delta, wire_bytes};
use netarena_sim::world::PlayerId;

/// Snapshots kept as possible baselines for each client: 1.6 s at 20 Hz, longer than
/// any useful ack.
const SNAPSHOT_HISTORY: u32 = 32;
/// Player ids whose snapshots go out on the same ticks.
pub(super) const TURN_GROUP: u32 = 8;
/// A baseline older than this is not used: the snapshot goes whole and becomes the
/// fresh baseline. Behind a thin link acknowledgements come late, and a delta against
/// a second-old world costs nearly what the whole one does while it keeps the next
/// deltas tied to an ever older baseline.
const BASELINE_MAX_AGE: Duration = Duration::from_secs(1);
/// Loss counts go out with one snapshot in this many: enough for a statistic.
const INPUT_COUNTS_EVERY: u32 = 10;

/// Recent snapshots by tick, shared by every client's delta encoding.
#[derive(Default)]
pub(crate) struct History(VecDeque<(u32, Vec<PlayerSnap>)>);

impl History {
    fn get(&self, tick: u32) -> Option<&[PlayerSnap]> {
        let at = self.0.binary_search_by_key(&tick, |(t, _)| *t).ok()?;
        Some(&self.0[at].1)
    }

    /// Adds the world at `tick`, forgetting what is `keep` ticks older.
    fn push(&mut self, tick: u32, players: Vec<PlayerSnap>, keep: u32) {
        while self
            .0
            .front()
            .is_some_and(|(t, _)| t.saturating_add(keep) <= tick)
        {
            self.0.pop_front();
        }
        self.0.push_back((tick, players));
    }
}

impl Server {
    pub(super) fn send_snapshots(&mut self, now: Instant) {
        let tick = self.world.tick;
        let interval = self.config.snapshot_interval();
        // Each client's ticks are shifted by its group; `turn` counts its snapshots.
        let shifted = |id| tick + (u32::from(id) / TURN_GROUP) % interval;
        let turn = |id| shifted(id) / interval;
        let on_turn = |id| shifted(id).is_multiple_of(interval);
        // Of the clients whose turn it is, those whose links take a snapshot now, with
        // how many were held back in all.
        let period =
            Duration::from_secs_f64(f64::from(interval) / f64::from(self.config.tick_rate.max(1)));
        let mut allowed: HashMap<PlayerId, u32> = HashMap::new();
        // The client timestamp each snapshot echoes (for its RTT), and how long it was held.
        let mut echoes: HashMap<PlayerId, (u32, u16)> = HashMap::new();
        for slot in self.slots.iter_mut().filter(|s| on_turn(s.id)) {
            // A client whose join is being sent again at a pace gets that first.
            if let Controller::Remote(c) = &mut slot.controller
                && c.join_burst.is_empty()
                && c.delivery.allow(now, period)
            {
                allowed.insert(slot.id, c.delivery.withheld_total());
                if let Some(echo) = c.next_echo(now) {
                    echoes.insert(slot.id, echo);
                }
            }
        }
        let due = |id| allowed.contains_key(&id);
        if allowed.is_empty() {
            return;
        }
        let players: Vec<PlayerSnap> = self
            .world
            .players()
            .iter()
            .map(|&(id, state)| PlayerSnap { id, state })
            .collect();
        let sets = self.choose_players(tick, due);
        // Clients that acknowledged the same baseline and get the same players get the
        // same body: encode it once.
        let mut bodies: HashMap<(Option<(u32, IdSet)>, IdSet), SnapshotDelta> = HashMap::new();
        let mut out = Vec::new();
        let max_age =
            (BASELINE_MAX_AGE.as_secs_f64() * f64::from(self.config.tick_rate)).round() as u32;
        // Clients whose snapshot took fewer players than chosen, to fit their budget.
        let mut narrowed: Vec<(PlayerId, IdSet)> = Vec::new();
        let world = self.world.players();
        let remotes = self.remotes().filter(|(s, _)| due(s.id));
        for ((slot, c), mut set) in remotes.zip(sets) {
            let fresh = c.acked_tick.filter(|t| tick.saturating_sub(*t) <= max_age);
            let base = fresh.and_then(|t| {
                let players = self.history.get(t)?;
                Some((t, players, *c.interest.sent_at(t)?))
            });
            let body = bodies
                .entry((base.map(|(t, _, s)| (t, s)), set))
                .or_insert_with(|| {
                    let base = base.map(|(t, players, s)| (t, s.filter(players)));
                    let snapshot = Snapshot {
                        header: SnapshotHeader {
                            tick,
                            ..Default::default()
                        },
                        players: set.filter(&players),
                    };
                    delta::encode(&snapshot, base.as_ref().map(|(t, p)| (*t, &p[..])))
                });
            let mut msg = body.clone();
            msg.header.ack_seq = slot.queue.last_applied();
            msg.header.withheld_total = allowed.get(&slot.id).copied().unwrap_or(0);
            // The client has a snapshot this close (the one it acknowledged, or newer)
            // and few events unacknowledged: the tick, the acknowledgement and the first
            // event's seq go in a byte each.
            msg.near = c
                .acked_tick
                .is_some_and(|t| tick.wrapping_sub(t) < NEAR_TICKS)
                && c.events.pending() < NEAR_EVENTS;
            if let Some(&(time, hold)) = echoes.get(&slot.id) {
                msg.header.echo_time_ms = time & 0xffff;
                msg.header.echo_hold_ms = hold;
            }
            // A client whose link the server paces gets them in every snapshot: its
            // uplink's pace follows them (`client/netcode/pacer.rs`), and snapshots are
            // few.
            msg.header.inputs = (turn(slot.id).is_multiple_of(INPUT_COUNTS_EVERY)
                || c.delivery.limited(now))
            .then(|| c.input_counts());
            msg.header.queued = u8::try_from(slot.queue.len()).unwrap_or(u8::MAX);
            msg.header.buffer_depth = u8::try_from(slot.queue.figures().target).unwrap_or(u8::MAX);
            let mut msg = ServerMsg::Snapshot(msg);
            // Players that do not fit the client's budget (a small path, a crowd in
            // full after a keyframe): the farthest give way (see `narrow`). Two bytes
            // stay for the length of the events' list.
            let mut late = false;
            while codec::encoded_len_server(&msg) + 2 > c.budget && set.len() > 1 {
                let over = codec::encoded_len_server(&msg) + 2 - c.budget;
                let ServerMsg::Snapshot(m) = &mut msg else {
                    break;
                };
                set = narrow(m, set, over, c, slot.id, world, &players);
                narrowed.retain(|(id, _)| *id != slot.id);
                narrowed.push((slot.id, set));
            }
            // Events fill what the players leave of the datagram, or of the link's
            // byte cap, and never past IPv4's least path (548 bytes), so a snapshot
            // outgrows a small MTU only by its players; the length of their list grows
            // from one byte to at most three. (Wire bytes: the seal included.)
            let used = codec::encoded_len_server(&msg) + 2;
            let capped = c
                .delivery
                .byte_cap()
                .min(wire_bytes::IPV4_MIN_PAYLOAD)
                .min(c.budget);
            let budget = capped.saturating_sub(used);
            if let ServerMsg::Snapshot(m) = &mut msg {
                m.events = c.events.for_snapshot(budget, slot.id);
                if m.events.is_empty() {
                    // The oldest event goes alone when it is larger than the cap leaves
                    // (within the least path if it can): a cap may slow the events,
                    // never stall them.
                    for limit in [wire_bytes::IPV4_MIN_PAYLOAD.min(c.budget), c.budget] {
                        m.events = c.events.for_snapshot(limit.saturating_sub(used), slot.id);
                        m.events.truncate(1);
                        if !m.events.is_empty() {
                            break;
                        }
                    }
                }
                // The own body says whether every pending event came along (the client
                // judges its predicted shots by it).
                m.header.me = self.game.own_body(
                    slot.id,
                    m.header.ack_seq,
                    m.events.len() == c.events.pending(),
                );
            }
            // Never built over the budget: the estimate above left a byte out once (a
            // 1,201-byte snapshot at a map change); the newest events wait instead,
            // then (the own body grew by its cooldown) the farthest player. (One event
            // too large for any datagram stays, and `outgoing` counts it.)
            while codec::encoded_len_server(&msg) > c.budget {
                let over = codec::encoded_len_server(&msg) - c.budget;
                let ServerMsg::Snapshot(m) = &mut msg else {
                    break;
                };
                if m.events.len() >= 2 {
                    m.events.pop();
                    m.header.me = self.game.own_body(slot.id, m.header.ack_seq, false);
                } else if set.len() > 1 {
                    late = true;
                    set = narrow(m, set, over, c, slot.id, world, &players);
                    narrowed.retain(|(id, _)| *id != slot.id);
                    narrowed.push((slot.id, set));
                } else {
                    break;
                }
            }
            // A message too large to encode is not sent (`outgoing` counts it). Without
            // events or a cooldown it is the one measured above (the own body's flags
            // are a byte whatever they say).
            let measured = match &msg {
                ServerMsg::Snapshot(m) => m.events.is_empty() && m.header.me.ready_in == 0 && !late,
                _ => false,
            };
            let bytes = if measured {
                debug_assert_eq!(used - 2, codec::encoded_len_server(&msg));
                used - 2
            } else {
                codec::encoded_len_server(&msg)
            }
            .min(codec::MAX_SERVER_DATAGRAM);
            out.push((slot.id, c.addr, msg, bytes));
        }
        for (id, set) in narrowed {
            if let Some(Controller::Remote(c)) = self
                .slots
                .iter_mut()
                .find(|s| s.id == id)
                .map(|s| &mut s.controller)
                && let Some(most) = c.interest.narrow(tick, set)
            {
                tracing::info!(
                    "{} gets the {most} players nearest it: no more fit its {}-byte datagrams",
                    c.addr,
                    c.budget
                );
            }
        }
        for (id, _, _, bytes) in &out {
            if let Some(Controller::Remote(c)) = self
                .slots
                .iter_mut()
                .find(|s| s.id == *id)
                .map(|s| &mut s.controller)
            {
                c.delivery.sent(now, tick, *bytes);
            }
        }
        self.outbox.extend(
            out.into_iter()
                .map(|(id, addr, msg, _)| (addr, msg, Some(id))),
        );
        self.history
            .push(tick, players, SNAPSHOT_HISTORY.saturating_mul(interval));
    }

    /// The players each remote client `due` now gets (see `interest`), in the order of
    /// [`Server::remotes`].
    fn choose_players(&mut self, tick: u32, due: impl Fn(PlayerId) -> bool) -> Vec<IdSet> {
        let world = self.world.players();
        self.slots
            .iter_mut()
            .filter(|s| due(s.id))
            .filter_map(|s| match &mut s.controller {
                Controller::Remote(c) => Some(c.interest.choose(tick, s.id, world)),
                Controller::Bot(_) => None,
            })
            .collect()
    }
}

/// Least bytes a player costs in full (its id, place and velocity): `over` bytes too
/// many take at most this many players' worth out.
const FULL_PLAYER_BYTES: usize = 6;

/// Makes `m`'s players the nearest of `set` but fewer, `over` bytes' worth, for the
/// client of `me`, and returns the new set. The snapshot goes whole, with no baseline:
/// a whole snapshot's size only falls as players leave it, where a delta's may grow
/// (a departed player costs a byte, one that did as predicted half a byte). The
/// client's interpolation sees a set that changed, as when interest changes it for a
/// crowd; its next deltas refer to this snapshot with this set (`Interest::narrow`).
fn narrow(
    m: &mut SnapshotDelta,
    set: IdSet,
    over: usize,
    c: &Connection,
    me: PlayerId,
    world: &[(PlayerId, netarena_sim::world::PlayerState)],
    players: &[PlayerSnap],
) -> IdSet {
    let fewer = over.div_ceil(FULL_PLAYER_BYTES).max(1);
    let set = c
        .interest
        .narrowed(me, world, set.len().saturating_sub(fewer).max(1));
    let snapshot = Snapshot {
        header: SnapshotHeader {
            tick: m.header.tick,
            ..Default::default()
        },
        players: set.filter(players),
    };
    let whole = delta::encode(&snapshot, None);
    m.baseline_age = whole.baseline_age;
    m.removed = whole.removed;
    m.added = whole.added;
    m.masks = whole.masks;
    m.values = whole.values;
    set
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use super::*;
    use crate::ServerConfig;
    use netarena_sim::map::Map;

    /// Ticks `server` `ticks` times; the snapshots its one client got: tick, baseline age.
    fn run(server: &mut Server, now: &mut Instant, ticks: u32) -> Vec<(u32, u8)> {
        let mut got = Vec::new();
        for _ in 0..ticks {
            *now += Duration::from_secs(1) / u32::from(server.config.tick_rate);
            server.tick(*now);
            for (_, msg, _) in server.outbox.drain(..) {
                if let ServerMsg::Snapshot(s) = msg {
                    got.push((s.header.tick, s.baseline_age));
                }
            }
        }
        got
    }

    fn acknowledge(server: &mut Server, tick: u32) {
        for slot in &mut server.slots {
            if let Controller::Remote(c) = &mut slot.controller {
                c.acked_tick = Some(tick);
            }
        }
    }

    /// Ticks `server` until its one client gets a snapshot: its tick and baseline age.
    fn next_snapshot(server: &mut Server, now: &mut Instant) -> (u32, u8) {
        loop {
            if let Some(&s) = run(server, now, 1).first() {
                return s;
            }
        }
    }

    /// Ticks a server with a small-path client (`small`) and a full-path one (`full`)
    /// `ticks` times, acknowledging each client's newest snapshot when `acks`: the
    /// largest datagram each got, and how many.
    fn run_paths(
        server: &mut Server,
        ticks: u32,
        acks: bool,
        budget: Option<usize>,
    ) -> [(usize, usize); 2] {
        let mut now = Instant::now();
        let small: std::net::SocketAddr = "10.0.0.1:4000".parse().unwrap();
        let full: std::net::SocketAddr = "10.0.0.2:4000".parse().unwrap();
        server
            .join_in_process_padded(now, small, "small", wire_bytes::IPV4_MIN_PAYLOAD)
            .expect("joins");
        server.join_in_process(now, full, "full").expect("joins");
        let mut got = [(0, 0); 2];
        let mut buf = Vec::new();
        for t in 0..ticks {
            // A budget of the test's, once the join's datagrams (the roster's pages
            // fill 548 bytes) are out.
            if let Some(budget) = budget.filter(|_| t == 30) {
                for slot in &mut server.slots {
                    if let Controller::Remote(c) = &mut slot.controller
                        && c.addr == small
                    {
                        c.budget = budget;
                    }
                }
            }
            now += Duration::from_secs(1) / u32::from(server.config.tick_rate);
            server.tick(now);
            let sent: Vec<(std::net::SocketAddr, u32)> = server
                .outbox
                .iter()
                .filter_map(|(to, msg, _)| match msg {
                    ServerMsg::Snapshot(s) => Some((*to, s.header.tick)),
                    _ => None,
                })
                .collect();
            let counted = budget.is_none() || t >= 30;
            server.send_outbox(&mut buf, |to, bytes| {
                let which = usize::from(to == full);
                if counted {
                    got[which].0 = got[which].0.max(bytes.len());
                    got[which].1 += 1;
                }
            });
            if acks {
                for (to, tick) in sent {
                    for slot in &mut server.slots {
                        if let Controller::Remote(c) = &mut slot.controller
                            && c.addr == to
                        {
                            c.acked_tick = Some(tick);
                        }
                    }
                }
            }
        }
        assert_eq!(server.send_failures().encode, 0, "datagrams not sent");
        got
    }

    // Every client's snapshots had 1,200 bytes' budget: a 64-player game's went out
    // larger than a 576-byte path carries, and vanished there.
    #[test]
    fn a_crowd_fits_a_small_path_and_outgrows_it_on_a_full_one() {
        let mut config = ServerConfig::new(Map::builtin("warehouse").unwrap());
        config.max_players = 64;
        config.bots = 62;
        let mut server = Server::new(config);
        // Since snapshots are written by hand (protocol 12) 64 players in full take at
        // most about 540 bytes on the builtin maps, under the least path's 548: the
        // budget is made smaller here than any path gives (once the join's datagrams
        // are out), and nothing is acknowledged, so every snapshot goes whole, the
        // crowd outgrows the budget and the farthest players must give way.
        const BUDGET: usize = 300;
        let [small, full] = run_paths(&mut server, 120, false, Some(BUDGET));
        assert!(full.0 > BUDGET, "the game is too small: {full:?}");
        assert!(small.0 <= BUDGET, "{small:?}");
        // Every snapshot went: 30 in the last 1.5 s.
        assert!(small.1 >= 30, "{small:?}");
        let narrowed = server.remotes().find(|(s, _)| s.name == "small").unwrap();
        assert!(narrowed.1.interest.most() < crate::interest::SNAPSHOT_PLAYERS);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]
        /// No datagram is ever built over a session's budget: whatever the game's size
        /// and map, acknowledged (deltas) or not (every snapshot whole).
        #[test]
        fn no_datagram_is_built_over_a_small_paths_budget(
            bots in 0u16..=62,
            map in 0usize..4,
            acks: bool,
        ) {
            let maps = ["arena", "duel", "warehouse", "catacombs"];
            let mut config = ServerConfig::new(Map::builtin(maps[map]).unwrap());
            config.max_players = 64;
            config.bots = bots;
            let mut server = Server::new(config);
            let [small, full] = run_paths(&mut server, 60, acks, None);
            proptest::prop_assert!(small.0 <= wire_bytes::IPV4_MIN_PAYLOAD, "{:?}", small);
            proptest::prop_assert!(full.0 <= codec::MAX_SERVER_DATAGRAM, "{:?}", full);
            proptest::prop_assert!(small.1 >= 20, "{:?}", small);
        }
    }

    // Behind a thin link acknowledgements come late, and deltas went against baselines
    // as old as the history held (1.6 s), each next one tied to the same old world.
    #[test]
    fn a_baseline_older_than_a_second_gives_way_to_a_whole_snapshot() {
        let mut server = Server::new(ServerConfig::new(Map::builtin("duel").unwrap()));
        let mut now = Instant::now();
        let addr = "127.0.0.1:4000".parse().unwrap();
        server.join_in_process(now, addr, "ann").unwrap();
        let rate = u32::from(server.config.tick_rate);
        let mut sent = run(&mut server, &mut now, 2 * rate);
        let interval = server.config.snapshot_interval();

        // A recent acknowledgement (100 ms): the next snapshot is a delta against it.
        let newest = sent.last().unwrap().0;
        let recent = newest - rate / 10 + interval;
        acknowledge(&mut server, recent);
        let next = next_snapshot(&mut server, &mut now);
        assert_eq!(next.0 - u32::from(next.1), recent, "{next:?}");
        sent.push(next);

        // One 1.2 s old at the next snapshot (still in the history): it goes whole.
        let due = next.0 + interval;
        let old = sent
            .iter()
            .map(|(t, _)| *t)
            .rfind(|t| due - t >= rate * 6 / 5)
            .unwrap();
        acknowledge(&mut server, old);
        let next = next_snapshot(&mut server, &mut now);
        assert_eq!(next.0, due);
        assert_eq!(next.1, 0, "a delta against tick {old} in {next:?}");
    }
}
