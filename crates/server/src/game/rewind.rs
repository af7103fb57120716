//! Lag compensation: the recent past of every living player's position, and the rail
//! shot traced against where its shooter saw the targets.

use super::{HISTORY_SECS, Match};
use crate::interest::IdSet;
use netarena_net::protocol::{GameEvent, RailShot, RailVerdict};
use netarena_sim::combat::{self, Weapon};
use netarena_sim::step::Shot;
use netarena_sim::world::{PlayerId, PlayerState, World};

impl Match {
    pub(super) fn fire_rail(
        &mut self,
        shooter: PlayerId,
        shot: Shot,
        view_tick: u32,
        tick: u32,
        world: &World,
        events: &mut Vec<GameEvent>,
    ) {
        let present: Vec<(PlayerId, PlayerState)> = world
            .players()
            .iter()
            .filter(|(id, _)| *id != shooter && self.is_alive(*id))
            .copied()
            .collect();
        // The view is in snapshot time: snapshot V shows the world after tick V - 1,
        // which is history entry V - 1.
        let seen_tick = view_tick.saturating_sub(1);
        let rewind = tick.saturating_sub(seen_tick);
        // The bound is on the shooter's latency: every client draws others two snapshot
        // periods in the past by design, and that part is always undone.
        let rewind_ticks = u64::from(self.config.max_rewind_ms) * u64::from(self.tick_rate) / 1000;
        let max_rewind = u32::try_from(rewind_ticks)
            .unwrap_or(u32::MAX)
            .saturating_add(self.interp_window)
            .min(HISTORY_SECS * self.tick_rate);
        // Test against where the shooter saw the targets, if allowed and remembered;
        // otherwise against the present (no compensation).
        let rewound: Option<Vec<(PlayerId, PlayerState)>> =
            (self.config.lag_compensation && view_tick <= tick && rewind <= max_rewind)
                .then(|| self.history.iter().find(|(t, _)| *t == seen_tick))
                .flatten()
                .map(|(_, players)| {
                    let mut here = IdSet::default();
                    for (id, _) in &present {
                        here.insert(*id);
                    }
                    players
                        .iter()
                        .filter(|(id, _)| here.contains(*id))
                        .copied()
                        .collect()
                });
        let targets = rewound.as_deref().unwrap_or(&present);
        let (to, hit) = combat::rail(self.map(), shot.from, shot.aim, targets);
        let compensated = rewound.is_some();
        let on = self.config.lag_compensation;
        let past_bound = on && view_tick <= tick && rewind > max_rewind;
        let verdict = match hit {
            Some(_) => RailVerdict::Hit,
            None if past_bound => RailVerdict::PastBound,
            None => RailVerdict::Miss,
        };
        // A miss: the target nearest the beam as tested, and where it really was.
        let nearest = hit
            .is_none()
            .then(|| nearest_to(shot.from, to, targets))
            .flatten();
        let nearest = nearest.and_then(|(id, tested)| {
            let (_, now) = present.iter().find(|(p, _)| *p == id)?;
            Some((id, (tested.x, tested.y), (now.x, now.y)))
        });
        let short = |n: u32| u16::try_from(n).unwrap_or(u16::MAX);
        let shot = RailShot {
            id: shot.id,
            shooter,
            tick,
            from: shot.from,
            to,
            hit: hit.map(|(id, _)| id),
            rewound_ticks: if compensated { rewind as u16 } else { 0 },
            tested_at: hit.map(|(_, s)| (s.x, s.y)),
            present_at: hit
                .and_then(|(id, _)| present.iter().find(|(p, _)| *p == id))
                .map(|(_, s)| (s.x, s.y)),
            wanted_ticks: short(rewind),
            bound_ticks: if on { short(max_rewind) } else { 0 },
            nearest,
            verdict,
        };
        events.push(GameEvent::Rail(shot));
        if let Some((victim, _)) = hit {
            self.damage(victim, shooter, Weapon::Rail, tick, events);
        }
    }

    pub(super) fn remember(&mut self, tick: u32, world: &World) {
        // The oldest entry's buffer is reused: a crowded server remembers 128 players
        // 60 times a second.
        let mut alive = if self.history.len() >= (HISTORY_SECS * self.tick_rate) as usize {
            self.history.pop_front().map(|(_, v)| v).unwrap_or_default()
        } else {
            Vec::new()
        };
        alive.clear();
        let players = &self.players;
        alive.extend(
            world
                .players()
                .iter()
                .filter(|(id, _)| players.get(id).is_some_and(|c| c.alive)),
        );
        self.history.push_back((tick, alive));
    }
}

/// The target whose centre is nearest the beam from `from` to `to`, and its state.
fn nearest_to(
    from: (i32, i32),
    to: (i32, i32),
    targets: &[(PlayerId, PlayerState)],
) -> Option<(PlayerId, PlayerState)> {
    let (ax, ay) = (f64::from(from.0), f64::from(from.1));
    let (dx, dy) = (f64::from(to.0) - ax, f64::from(to.1) - ay);
    let len2 = (dx * dx + dy * dy).max(1.0);
    let distance = |s: &PlayerState| {
        let (px, py) = (f64::from(s.x) - ax, f64::from(s.y) - ay);
        let along = ((px * dx + py * dy) / len2).clamp(0.0, 1.0);
        (px - along * dx).hypot(py - along * dy)
    };
    targets
        .iter()
        .min_by(|(_, a), (_, b)| distance(a).total_cmp(&distance(b)))
        .copied()
}
