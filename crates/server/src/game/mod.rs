//! The match: health, weapons, projectiles, lag-compensated rails, deaths, respawns,
//! frags, and the frag and time limits with a map rotation. Fed commands and ticks by
//! [`super::Server`]; every outcome is a [`GameEvent`] for the clients.
#![doc(hidden)] // Public for the binary, tests or fuzz targets: see the crate docs.

use std::collections::{BTreeMap, VecDeque};

use super::bots::Score;
use crate::config::defaults;
use netarena_net::map_chunks::{self, EVENT_CHUNK_BYTES};
use netarena_net::protocol::{GameEvent, OwnBody, PlayerStatus};
use netarena_sim::combat::{CombatRules, Leg, Projectile, Weapon};
use netarena_sim::map::Map;
use netarena_sim::step::{self, Rulebook, Shot};
use netarena_sim::world::{Buttons, Command, PlayerId, PlayerState, World};

mod player;
mod rewind;
mod rotation;

use player::Player;

/// Seconds of positions kept for lag compensation: more than any rewind the bound
/// allows at its default, and the cap on the bound itself.
pub(super) const HISTORY_SECS: u32 = 1;
/// Players listed in a match's results, best first.
pub const MAX_STANDINGS: usize = 64;

#[derive(Clone, Debug)]
pub struct MatchConfig {
    /// Maps played in turn; the first is played first.
    pub maps: Vec<Map>,
    pub frag_limit: u16,
    pub time_limit_secs: u32,
    /// Test rail shots where the shooter saw its targets (on), or where they are now.
    pub lag_compensation: bool,
    /// The most latency a shot is compensated for, on top of the standard interpolation
    /// delay (two snapshot periods); a staler view gets no compensation.
    pub max_rewind_ms: u32,
    pub results_secs: u32,
}

impl MatchConfig {
    pub fn new(map: Map) -> MatchConfig {
        MatchConfig {
            maps: vec![map],
            frag_limit: defaults::FRAG_LIMIT,
            time_limit_secs: defaults::TIME_LIMIT_SECS,
            lag_compensation: true,
            max_rewind_ms: defaults::MAX_REWIND_MS,
            results_secs: defaults::RESULTS_SECS,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Playing,
    Results { until: u32 },
}

pub struct Match {
    pub config: MatchConfig,
    book: Rulebook,
    rules: CombatRules,
    tick_rate: u32,
    /// The interpolation delay clients use on a clean link, in ticks.
    interp_window: u32,
    map_index: usize,
    started: u32,
    phase: Phase,
    players: BTreeMap<PlayerId, Player>,
    projectiles: Vec<Projectile>,
    /// Sub-steps flown by the bolts that were in flight when the tick rate changed, by
    /// id: their `born` is then the tick of the change (see [`Match::set_tick_rate`]).
    carried: BTreeMap<u16, u32>,
    /// Alive players' positions after each recent tick, for rewinding.
    history: VecDeque<(u32, Vec<(PlayerId, PlayerState)>)>,
    /// Scratch: the players a command's move is blocked by.
    others: Vec<PlayerState>,
}

impl Match {
    pub(crate) fn new(config: MatchConfig, tick_rate: u16, snapshot_interval: u32) -> Match {
        Match {
            book: Rulebook::for_tick_rate(tick_rate),
            rules: CombatRules::for_tick_rate(tick_rate),
            tick_rate: u32::from(tick_rate.max(1)),
            interp_window: 2 * snapshot_interval,
            map_index: 0,
            started: 0,
            phase: Phase::Playing,
            players: BTreeMap::new(),
            projectiles: Vec::new(),
            carried: BTreeMap::new(),
            history: VecDeque::new(),
            others: Vec::new(),
            config,
        }
    }

    /// New lag compensation settings and snapshot interval, from the next shot on (the
    /// lab's dials).
    pub(crate) fn retune(&mut self, lag_compensation: bool, max_rewind_ms: u32, interval: u32) {
        self.config.lag_compensation = lag_compensation;
        self.config.max_rewind_ms = max_rewind_ms;
        self.interp_window = 2 * interval;
    }

    /// Plays at `tick_rate` from `tick` on (the lab's tick-rate dial), a snapshot every
    /// `interval` ticks. The rules are made again for the new rate (speeds in cells per
    /// second, timers in seconds); what counts in ticks is converted so that it keeps its
    /// time: the match clock, the results' end, each respawn and spawn protection's
    /// start. A bolt in flight keeps the sub-steps it has flown and flies on at the new
    /// rate's pace, so it meets what it would have met. The rewind history keeps its
    /// ticks (a rewind is to a tick); its length and the rewind bound are in seconds and
    /// milliseconds, read at the new rate from the next shot on. A weapon's cooldown
    /// counts commands (see [`netarena_sim::step`]): one running at the change ends after
    /// the commands it was given at the old rate.
    pub(crate) fn set_tick_rate(&mut self, tick_rate: u16, interval: u32, tick: u32) {
        let (old, new) = (self.tick_rate, u32::from(tick_rate.max(1)));
        if old == new {
            self.interp_window = 2 * interval;
            return;
        }
        // Ticks from now to `t` (either way) at the new rate for the same time, rounded.
        let scale = |ticks: u32| {
            ((u64::from(ticks) * u64::from(new) + u64::from(old) / 2) / u64::from(old)) as u32
        };
        let ahead = |t: u32| tick.saturating_add(scale(t.saturating_sub(tick)));
        let behind = |t: u32| tick.saturating_sub(scale(tick.saturating_sub(t)));
        self.started = behind(self.started);
        if let Phase::Results { until } = self.phase {
            self.phase = Phase::Results {
                until: ahead(until),
            };
        }
        for c in self.players.values_mut() {
            c.spawned = behind(c.spawned);
            if !c.alive {
                c.respawn_at = ahead(c.respawn_at);
            }
        }
        for p in &mut self.projectiles {
            let flown = self.carried.get(&p.id).copied().unwrap_or(0);
            let age = tick.saturating_sub(p.born);
            let done = flown.saturating_add(self.rules.bolt_substeps(age));
            self.carried.insert(p.id, done);
            p.born = tick;
        }
        self.book = Rulebook::for_tick_rate(tick_rate);
        self.rules = CombatRules::for_tick_rate(tick_rate);
        self.tick_rate = new;
        self.interp_window = 2 * interval;
    }

    /// Which map of the rotation is in play; changes when a match ends.
    pub(crate) fn map_index(&self) -> usize {
        self.map_index
    }

    pub fn map(&self) -> &Map {
        &self.config.maps[self.map_index]
    }

    pub fn in_results(&self) -> bool {
        matches!(self.phase, Phase::Results { .. })
    }

    pub fn is_alive(&self, id: PlayerId) -> bool {
        self.players.get(&id).is_some_and(|c| c.alive)
    }

    /// Whether a shot at `id` would hurt it at `tick`: alive and not spawn-protected.
    pub(crate) fn is_vulnerable(&self, id: PlayerId, tick: u32) -> bool {
        self.players
            .get(&id)
            .is_some_and(|c| c.vulnerable(tick, &self.rules))
    }

    /// Everyone's score this match, by id: what bots choose by.
    pub(crate) fn scores(&self) -> Vec<Score> {
        let score = |(id, c): (&PlayerId, &Player)| Score {
            id: *id,
            frags: c.frags,
            fragged_by: c.fragged_by,
        };
        self.players.iter().map(score).collect()
    }

    pub fn statuses(&self) -> Vec<PlayerStatus> {
        self.players.iter().map(|(id, c)| c.status(*id)).collect()
    }

    /// The match-start event; with the map's text when the map has just changed.
    pub(crate) fn start_event(&self, with_map: bool) -> GameEvent {
        GameEvent::MatchStart {
            map_name: self.map().name().to_owned(),
            map: with_map.then(|| map_chunks::info(self.map().text(), EVENT_CHUNK_BYTES)),
            started_tick: self.started,
            frag_limit: self.config.frag_limit,
            time_limit_secs: self.config.time_limit_secs,
        }
    }

    /// A new player, placed at `at` at once, in the world as well.
    pub(crate) fn join(
        &mut self,
        id: PlayerId,
        at: PlayerState,
        tick: u32,
        world: &mut World,
    ) -> GameEvent {
        let c = Player::joined(at, tick);
        world.put(id, at);
        let status = c.status(id);
        self.players.insert(id, c);
        GameEvent::Status(status)
    }

    pub(crate) fn leave(&mut self, id: PlayerId, world: &mut World) {
        world.remove(id);
        self.players.remove(&id);
        self.projectiles.retain(|p| p.owner != id);
        let alive: Vec<u16> = self.projectiles.iter().map(|p| p.id).collect();
        self.carried.retain(|shot, _| alive.contains(shot));
    }

    /// Kills `id` at once, protection or not.
    pub(crate) fn kill(&mut self, id: PlayerId, tick: u32, events: &mut Vec<GameEvent>) {
        if let Some(c) = self.players.get_mut(&id) {
            c.body.protected = false;
            c.health = 1;
        }
        self.damage(id, id, Weapon::Rail, tick, events);
    }

    /// Moves `id` by decree, if it is in play (its client is told it was no
    /// misprediction).
    pub(crate) fn place(&mut self, id: PlayerId, at: PlayerState, world: &mut World) {
        if world.get(id).is_none() {
            return;
        }
        if let Some(c) = self.players.get_mut(&id) {
            c.body.state = at;
            c.placed = c.placed.wrapping_add(1);
            world.put(id, at);
        }
    }

    /// What the snapshot tells `id`'s own client of its rule state after `ack_seq`.
    pub(crate) fn own_body(&self, id: PlayerId, ack_seq: u32, events_complete: bool) -> OwnBody {
        self.players.get(&id).map_or_else(OwnBody::default, |c| {
            OwnBody::pack(
                &c.body(self.in_results()),
                ack_seq,
                c.placed,
                events_complete,
            )
        })
    }

    /// Applies command `seq` of `id` at `tick` through the rulebook (the same step the
    /// client predicts with), then carries out what only the server may: the shot's
    /// flight, the rail's hit, and telling everyone of a weapon switch.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn command(
        &mut self,
        id: PlayerId,
        seq: u32,
        cmd: Command,
        view_tick: u32,
        tick: u32,
        world: &mut World,
        events: &mut Vec<GameEvent>,
    ) {
        let timed = (cmd, step::Span::TICK);
        self.command_span(id, seq, timed, view_tick, tick, world, events);
    }

    /// [`Match::command`] for a command of its own length ([`step::step_span`]): a
    /// variable-rate command, applied as it arrives (`on_arrival.rs`).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn command_span(
        &mut self,
        id: PlayerId,
        seq: u32,
        (cmd, span): (Command, step::Span),
        view_tick: u32,
        tick: u32,
        world: &mut World,
        events: &mut Vec<GameEvent>,
    ) {
        // The dead are out of the world: their commands do nothing.
        let frozen = self.in_results();
        let Some(c) = self.players.get(&id).filter(|_| world.get(id).is_some()) else {
            return;
        };
        let state = c.body.state;
        let mut body = c.body(frozen);
        // Everyone else blocks the move; the list is rebuilt in one reused buffer, as
        // a crowded server does this for every command.
        let mut others = std::mem::take(&mut self.others);
        others.clear();
        // Sorted by id, so the others are the players either side of `id`'s: copied
        // as two runs, with no test per player.
        let players = world.players();
        let at = players.partition_point(|(p, _)| *p < id);
        let after = players
            .get(at)
            .map_or(at, |(p, _)| at + usize::from(*p == id));
        others.extend(players[..at].iter().map(|(_, s)| *s));
        others.extend(players[after..].iter().map(|(_, s)| *s));
        let shot = step::step_span(
            self.map(),
            &self.book,
            id,
            &mut body,
            seq,
            (cmd, span),
            &others,
        );
        self.others = others;
        world.put(id, body.state);
        let Some(c) = self.players.get_mut(&id) else {
            return;
        };
        c.reading = cmd.sanitized().buttons.contains(Buttons::READING);
        // A switch, or the end of spawn protection (a move or a shot), is news to all.
        let changed = c.body.weapon != body.weapon || c.body.protected != body.protected;
        c.body = body;
        if changed {
            events.push(GameEvent::Status(c.status(id)));
        }
        match shot {
            Some(
                shot @ Shot {
                    weapon: Weapon::Blaster,
                    ..
                },
            ) => {
                let from = PlayerState {
                    x: shot.from.0,
                    y: shot.from.1,
                    ..state
                };
                let p = Projectile::fire(shot.id, id, &from, shot.aim, tick);
                self.projectiles.retain(|q| q.id != p.id);
                self.carried.remove(&p.id);
                self.projectiles.push(p);
                events.push(GameEvent::Shot(p));
            }
            Some(shot) => self.fire_rail(id, shot, view_tick, tick, world, events),
            None => {}
        }
    }

    fn damage(
        &mut self,
        victim: PlayerId,
        attacker: PlayerId,
        weapon: Weapon,
        tick: u32,
        events: &mut Vec<GameEvent>,
    ) {
        let respawn = self.rules.respawn_ticks;
        let Some(v) = self.players.get_mut(&victim) else {
            return;
        };
        if !v.vulnerable(tick, &self.rules) {
            return;
        }
        v.health -= weapon.damage();
        if v.health > 0 {
            events.push(GameEvent::Status(v.status(victim)));
            return;
        }
        v.health = 0;
        v.alive = false;
        v.deaths = v.deaths.saturating_add(1);
        v.fragged_by = (attacker != victim).then_some(attacker);
        v.respawn_at = tick + respawn;
        events.push(GameEvent::Status(v.status(victim)));
        if attacker != victim
            && let Some(k) = self.players.get_mut(&attacker)
        {
            k.frags = k.frags.saturating_add(1);
            events.push(GameEvent::Status(k.status(attacker)));
        }
        events.push(GameEvent::Kill {
            killer: attacker,
            victim,
            weapon,
        });
    }

    /// The rest of a tick, after every command: projectiles fly and hit, the dead are
    /// taken out and respawned, positions are remembered, limits are checked.
    pub(crate) fn step(&mut self, tick: u32, world: &mut World, events: &mut Vec<GameEvent>) {
        if let Phase::Results { until } = self.phase {
            if tick >= until {
                self.next_map(tick, world, events);
            }
            return;
        }
        // Protection also ends at its cap, for a player who only looks around (or
        // reads the help) and then does not stop.
        for (id, c) in self.players.iter_mut() {
            if c.body.protected && !c.protected_at(tick, &self.rules) {
                c.body.protected = false;
                events.push(GameEvent::Status(c.status(*id)));
            }
        }
        let map = &self.config.maps[self.map_index];
        let mut hits = Vec::new();
        let mut i = 0;
        while i < self.projectiles.len() {
            let p = &mut self.projectiles[i];
            // Sub-step by sub-step, against walls and every player where this tick's
            // commands left them: the same hits at any tick rate.
            let owner = p.owner;
            let age = tick.saturating_sub(p.born);
            let carry = self.carried.get(&p.id).copied().unwrap_or(0);
            let leg = p.fly_tick_carried(map, &self.rules, carry, age, |p| {
                world
                    .players()
                    .iter()
                    .find(|(id, s)| *id != owner && p.touches(s))
                    .map(|(id, _)| *id)
            });
            let hit = match leg {
                Leg::Flying => {
                    i += 1;
                    continue;
                }
                Leg::Hit(victim) => Some(victim),
                Leg::Wall | Leg::Spent => None,
            };
            let p = self.projectiles.swap_remove(i);
            self.carried.remove(&p.id);
            // Only a hit is news: a wall or old age ends a bolt where every client's
            // own flight of it ends (the same code, the same numbers).
            if let Some(victim) = hit {
                // In snapshot time: the snapshot after this tick is the first without it.
                events.push(GameEvent::ShotEnd {
                    id: p.id,
                    tick: tick + 1,
                    hit,
                });
                hits.push((victim, p.owner));
            }
        }
        for (victim, owner) in hits {
            self.damage(victim, owner, Weapon::Blaster, tick, events);
        }
        // The dead leave the world (nobody collides with or shoots a corpse)...
        for (id, c) in &self.players {
            if !c.alive && world.get(*id).is_some() {
                world.remove(*id);
            }
        }
        // ...and come back at the spawn point farthest from everyone, protected.
        let due: Vec<PlayerId> = self
            .players
            .iter()
            .filter(|(_, c)| !c.alive && tick >= c.respawn_at)
            .map(|(id, _)| *id)
            .collect();
        for id in due {
            self.respawn(id, tick, world, events);
        }
        self.remember(tick, world);
        self.check_limits(tick, events);
    }

    fn respawn(&mut self, id: PlayerId, tick: u32, world: &mut World, events: &mut Vec<GameEvent>) {
        let spawn = world.spawn_point(self.map(), id);
        world.put(id, spawn);
        if let Some(c) = self.players.get_mut(&id) {
            c.respawn(spawn, tick);
            events.push(GameEvent::Status(c.status(id)));
        }
    }

    /// Starts the clock (the first tick the match is played).
    pub(crate) fn start(&mut self, tick: u32) {
        self.started = tick;
    }

    pub fn projectiles(&self) -> &[Projectile] {
        &self.projectiles
    }
}

#[cfg(test)]
mod tests;
