//! What the client knows of the fighting: everyone's health and score, projectiles in
//! flight (flown locally from their birth events), and recent rail shots. Fed by the
//! server's reliable game events; the rest of them go to [`super::match_log`].

use std::collections::{BTreeMap, VecDeque};
use std::time::Instant;

use crate::net::protocol::{GameEvent, PlayerStatus, RailShot};
use crate::sim::combat::{CombatRules, Projectile};
use crate::sim::map::Map;
use crate::sim::world::PlayerId;

/// How long a rail beam stays drawn.
pub(crate) const BEAM_SECS: f64 = 0.6;

#[derive(Clone, Debug)]
pub struct Flight {
    pub shot: Projectile,
    /// Positions from birth, one per tick, until a wall or old age.
    pub path: Vec<(i32, i32)>,
    /// The tick the server removed it, once known.
    pub ended: Option<u32>,
}

#[derive(Clone, Debug, Default)]
pub struct Combat {
    pub(crate) statuses: BTreeMap<PlayerId, PlayerStatus>,
    flights: Vec<Flight>,
    pub rails: VecDeque<(Instant, RailShot)>,
}

impl Combat {
    /// Takes in one event (in seq order); those about the match, not the fighting, are
    /// left to the match log.
    pub(crate) fn on_event(
        &mut self,
        now: Instant,
        event: &GameEvent,
        map: &Map,
        rules: &CombatRules,
    ) {
        match event {
            GameEvent::Status(s) => {
                self.statuses.insert(s.id, *s);
            }
            GameEvent::Shot(p) => self.flights.push(Flight {
                shot: *p,
                path: p.flight(map, rules),
                ended: None,
            }),
            GameEvent::ShotEnd { id, tick, .. } => {
                if let Some(f) = self.flights.iter_mut().find(|f| f.shot.id == *id) {
                    f.ended = Some(*tick);
                }
            }
            GameEvent::Rail(r) => self.rails.push_back((now, *r)),
            // A new match, or its end: nothing in flight carries over.
            GameEvent::MatchStart { .. } | GameEvent::MatchEnd { .. } => self.flights.clear(),
            GameEvent::Kill { .. } | GameEvent::Chat { .. } => {}
        }
    }

    /// Forgets what has faded: beams, finished flights.
    pub(crate) fn prune(&mut self, now: Instant, render_tick: Option<f64>) {
        let older =
            |at: &Instant, secs: f64| now.saturating_duration_since(*at).as_secs_f64() > secs;
        // Kept past their showing time by a margin for the interpolation delay.
        while self
            .rails
            .front()
            .is_some_and(|(at, _)| older(at, BEAM_SECS + 1.0))
        {
            self.rails.pop_front();
        }
        if let Some(t) = render_tick {
            self.flights.retain(|f| {
                let last = f.shot.born + f.path.len() as u32;
                let end = f.ended.map_or(last, |e| e.min(last));
                // Keep a flight a while past its end, until the removal event is in.
                t < f64::from(end) + if f.ended.is_some() { 0.0 } else { 120.0 }
            });
        }
    }

    /// Projectiles to draw at `render_tick`: (owner, x, y) in sub-cell units.
    pub(crate) fn projectiles_at(&self, render_tick: f64) -> Vec<(PlayerId, f64, f64)> {
        self.flights
            .iter()
            .filter_map(|f| {
                let age = render_tick - f64::from(f.shot.born);
                if age < 0.0 || f.ended.is_some_and(|e| render_tick >= f64::from(e)) {
                    return None;
                }
                let i = age.floor() as usize;
                let (a, b) = (f.path.get(i)?, f.path.get(i + 1).unwrap_or(f.path.get(i)?));
                let k = age - age.floor();
                Some((
                    f.shot.owner,
                    f64::from(a.0) + f64::from(b.0 - a.0) * k,
                    f64::from(a.1) + f64::from(b.1 - a.1) * k,
                ))
            })
            .collect()
    }

    /// Projectiles being flown locally, with their paths and end ticks if known.
    pub fn flights(&self) -> &[Flight] {
        &self.flights
    }

    pub(crate) fn status(&self, id: PlayerId) -> Option<&PlayerStatus> {
        self.statuses.get(&id)
    }
}
