//! What the client knows of the fighting: everyone's health and score, projectiles in
//! flight (flown locally from their birth events), and recent rail shots. Fed by the
//! server's reliable game events; the rest of them go to `super::match_log`.
#![doc(hidden)] // Public for the binary, tests or fuzz targets: see the crate docs.

use std::collections::{BTreeMap, VecDeque};
use std::time::Instant;

use crate::net::protocol::{GameEvent, PlayerStatus, RailShot, RailVerdict};
use crate::sim::combat::{self, CombatRules, Projectile, Weapon};
use crate::sim::map::{CELL, Map};
use crate::sim::step::Shot;
use crate::sim::world::{PlayerId, PlayerState};

/// How long a predicted shot is remembered at most: longer than any bolt lives.
const OWN_SHOT_SECS: f64 = 3.0;

/// How long a rail beam stays drawn.
pub(crate) const BEAM_SECS: f64 = 0.6;

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Flight {
    pub shot: Projectile,
    /// Positions from birth, one per tick, until a wall or old age.
    pub path: Vec<(i32, i32)>,
    /// The tick the server removed it, once known.
    pub ended: Option<u32>,
}

/// A shot of the local player's, predicted the moment its command was made, with the
/// rulebook the server fires it with.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct OwnShot {
    pub seq: u32,
    pub shot: Shot,
    /// When it was predicted: the rail beam is drawn from then.
    #[serde(with = "crate::net::instants")]
    pub at: Instant,
    /// The bolt's positions from the muzzle, one per command (blaster).
    pub path: Vec<(i32, i32)>,
    /// The beam as predicted (to the first wall), then as the server traced it (rail).
    pub rail: Option<RailShot>,
    /// The server fired it too.
    pub confirmed: bool,
    /// The server's tick of birth, once confirmed, and its removal tick, once known.
    born: Option<u32>,
    ended: Option<u32>,
}

impl OwnShot {
    /// The server's tick of birth, once it confirmed the shot.
    pub fn born(&self) -> Option<u32> {
        self.born
    }

    /// Where the bolt is `commands` commands after the one that fired it. The server
    /// moves a bolt once in the tick it is fired, so after its own command it is one
    /// step out already.
    pub fn position(&self, commands: u32) -> Option<(i32, i32)> {
        let age = commands + 1;
        if let (Some(born), Some(ended)) = (self.born, self.ended)
            && age >= ended.saturating_sub(born)
        {
            return None;
        }
        self.path.get(age as usize).copied()
    }
}

/// What the server's word made of predicted shots.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct FireVerdict {
    /// Predicted shots the server did not fire, or fired differently.
    pub(crate) mispredicted: u32,
}

#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Combat {
    pub(crate) statuses: BTreeMap<PlayerId, PlayerStatus>,
    flights: Vec<Flight>,
    #[serde(with = "crate::net::instants")]
    pub rails: VecDeque<(Instant, RailShot)>,
    own: Vec<OwnShot>,
}

impl Combat {
    /// A shot the local player `me` fired by our own prediction of command `seq`.
    /// The server ticks by `rules` from `from_tick` on: each bolt in flight then flies
    /// on from where it was, with the sub-steps it has flown, at the new rate's pace, as
    /// the server's does (its path is one point a tick, so the rest is made again).
    pub(crate) fn retime(&mut self, from_tick: u32, rules: &CombatRules, map: &Map) {
        for f in &mut self.flights {
            let Some(k) = from_tick.checked_sub(f.shot.born) else {
                continue;
            };
            let Some(&(x, y)) = f.path.get(k as usize).filter(|_| k > 0) else {
                continue;
            };
            // Sub-steps flown: a bolt's path is a straight run of equal sub-steps.
            let (p, (x0, y0)) = (f.shot, f.path[0]);
            // Checked: a hostile server's bolt may say anything.
            let flown = if p.vx != 0 {
                x.checked_sub(x0).and_then(|d| d.checked_div(p.vx))
            } else {
                y.checked_sub(y0).and_then(|d| d.checked_div(p.vy))
            };
            let rest = Projectile {
                born: from_tick,
                x,
                y,
                ..p
            };
            f.path.truncate(k as usize);
            let flown = flown.and_then(|f| u32::try_from(f).ok()).unwrap_or(0);
            f.path.extend(rest.flight_carried(map, rules, flown));
        }
    }

    pub(crate) fn predict(
        &mut self,
        now: Instant,
        me: PlayerId,
        seq: u32,
        shot: Shot,
        map: &Map,
        rules: &CombatRules,
    ) {
        let (path, rail) = match shot.weapon {
            Weapon::Blaster => (Self::bolt(me, &shot, 0).flight(map, rules), None),
            Weapon::Rail => {
                let (to, _) = combat::rail(map, shot.from, shot.aim, &[]);
                let beam = RailShot {
                    id: shot.id,
                    shooter: me,
                    tick: 0,
                    from: shot.from,
                    to,
                    ..RailShot::default()
                };
                (Vec::new(), Some(beam))
            }
        };
        self.own.retain(|o| o.shot.id != shot.id);
        self.own.push(OwnShot {
            seq,
            shot,
            at: now,
            path,
            rail,
            confirmed: false,
            born: None,
            ended: None,
        });
    }

    /// The projectile the server makes of `shot` if it fires it at `tick`.
    fn bolt(me: PlayerId, shot: &Shot, tick: u32) -> Projectile {
        let from = PlayerState {
            x: shot.from.0,
            y: shot.from.1,
            ..PlayerState::default()
        };
        Projectile::fire(shot.id, me, &from, shot.aim, tick)
    }

    /// Takes in one event (in seq order); those about the match, not the fighting, are
    /// left to the match log. The local player `me`'s shots are matched to the ones
    /// predicted: the same id, and the same numbers, or a misprediction.
    pub(crate) fn on_event(
        &mut self,
        now: Instant,
        event: &GameEvent,
        map: &Map,
        rules: &CombatRules,
        me: PlayerId,
    ) -> FireVerdict {
        let mut verdict = FireVerdict::default();
        match event {
            GameEvent::Status(s) => {
                self.statuses.insert(s.id, *s);
            }
            GameEvent::Shot(p) => {
                let path = p.flight(map, rules);
                if p.owner == me
                    && let Some(own) = self.own.iter_mut().find(|o| o.shot.id == p.id)
                {
                    if Self::bolt(me, &own.shot, p.born) != *p {
                        verdict.mispredicted += 1;
                        own.path = path.clone();
                    }
                    own.confirmed = true;
                    own.born = Some(p.born);
                }
                self.flights.push(Flight {
                    shot: *p,
                    path,
                    ended: None,
                });
            }
            GameEvent::ShotEnd { id, tick, .. } => {
                if let Some(f) = self.flights.iter_mut().find(|f| f.shot.id == *id) {
                    f.ended = Some(*tick);
                    if f.shot.owner == me
                        && let Some(own) = self.own.iter_mut().find(|o| o.shot.id == *id)
                    {
                        own.ended = Some(*tick);
                    }
                }
            }
            GameEvent::Rail(r) => {
                if r.shooter == me
                    && let Some(own) = self.own.iter_mut().find(|o| o.shot.id == r.id)
                {
                    if r.from != own.shot.from {
                        verdict.mispredicted += 1;
                    }
                    own.confirmed = true;
                    own.rail = Some(*r);
                }
                self.rails.push_back((now, *r));
            }
            // A new match, or its end: nothing in flight carries over.
            GameEvent::MatchStart { .. } | GameEvent::MatchEnd { .. } => {
                self.flights.clear();
                self.own.clear();
            }
            GameEvent::Kill { .. }
            | GameEvent::Chat { .. }
            | GameEvent::MapChunk(_)
            | GameEvent::TickRate { .. } => {}
        }
        verdict
    }

    /// The server has applied our commands up to `ack_seq`, and `complete` says every
    /// event it had for us came with that word: a predicted shot it has not confirmed
    /// by then was never fired. Counted as mispredicted only if `counts` (the player
    /// was playing: a shot lost to a death or the end of a match is the server's call).
    pub(crate) fn judge(&mut self, ack_seq: u32, complete: bool, counts: bool) -> FireVerdict {
        let mut verdict = FireVerdict::default();
        if !complete {
            return verdict;
        }
        self.own.retain(|o| {
            let unfired = !o.confirmed && o.seq <= ack_seq;
            if unfired && counts {
                verdict.mispredicted += 1;
            }
            !unfired
        });
        verdict
    }

    /// Predicted shots still worth drawing or matching.
    pub fn own_shots(&self) -> &[OwnShot] {
        &self.own
    }

    /// Whether `id` names a shot of ours that was predicted (so not drawn twice).
    pub(crate) fn is_own(&self, id: u16) -> bool {
        self.own.iter().any(|o| o.shot.id == id)
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
        self.own.retain(|o| !older(&o.at, OWN_SHOT_SECS));
        if let Some(t) = render_tick {
            self.flights.retain(|f| {
                // Saturating: `born` is the server's word, and may be absurd.
                let last = f.shot.born.saturating_add(f.path.len() as u32);
                let end = f.ended.map_or(last, |e| e.min(last));
                // A bolt that hits nobody ends where its flight does: no event says so.
                t < f64::from(end)
            });
        }
    }

    /// Projectiles to draw at `render_tick`: (owner, x, y) in sub-cell units. Those of
    /// `predicted_by`, if given, that were predicted are drawn from the prediction.
    pub(crate) fn projectiles_at(
        &self,
        render_tick: f64,
        predicted_by: Option<PlayerId>,
    ) -> Vec<(PlayerId, f64, f64)> {
        self.flights
            .iter()
            .filter(|f| predicted_by != Some(f.shot.owner) || !self.is_own(f.shot.id))
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

/// A rail shot's lag compensation verdict in one line: the rewind the shooter's view
/// asked for against the server's bound, where the victim (for a miss, the target
/// nearest the beam) was tested and where it really was, where that player saw itself
/// (`saw`, when known: its own client's prediction at the shot), and the verdict:
/// `rail c1→bot2: rewind 150 ms (bound 250) · tested bot2 at (12.5,5.5), really at
/// (14.0,5.5), bot2 saw itself at (13.5,5.5) · HIT`. Positions in cells.
pub(crate) fn verdict_text(
    shot: &RailShot,
    tick_rate: f64,
    name: impl Fn(PlayerId) -> String,
    saw: Option<PlayerState>,
) -> String {
    let ms = |ticks: u16| (f64::from(ticks) * 1000.0 / tick_rate.max(1.0)).round();
    let at = |(x, y): (i32, i32)| {
        let c = f64::from(CELL);
        format!("({:.1},{:.1})", f64::from(x) / c, f64::from(y) / c)
    };
    let shooter = name(shot.shooter);
    let (target, tested, present) = match (shot.hit, shot.tested_at, shot.present_at) {
        (Some(id), Some(t), Some(p)) => (Some(id), Some(t), Some(p)),
        _ => match shot.nearest {
            Some((id, t, p)) => (Some(id), Some(t), Some(p)),
            None => (None, None, None),
        },
    };
    let head = match shot.hit {
        Some(id) => format!("rail {shooter}→{}", name(id)),
        None => format!("rail {shooter}"),
    };
    let rewind = if shot.bound_ticks == 0 {
        format!("view {} ms back, compensation off", ms(shot.wanted_ticks))
    } else if shot.verdict == RailVerdict::PastBound {
        format!(
            "view {} ms back, past the bound {}: tested at the shot's tick",
            ms(shot.wanted_ticks),
            ms(shot.bound_ticks)
        )
    } else {
        format!(
            "rewind {} ms (bound {})",
            ms(shot.wanted_ticks),
            ms(shot.bound_ticks)
        )
    };
    let mut what = String::new();
    if let (Some(id), Some(t), Some(p)) = (target, tested, present) {
        let who = name(id);
        let kind = if shot.hit.is_some() {
            "tested"
        } else {
            "nearest"
        };
        what = format!(" · {kind} {who} at {}, really at {}", at(t), at(p));
        if let Some(s) = saw {
            what += &format!(", {who} saw itself at {}", at((s.x, s.y)));
        }
    }
    let verdict = match shot.verdict {
        RailVerdict::Hit => "HIT",
        RailVerdict::Miss => "miss",
        RailVerdict::PastBound => "miss: past the bound",
    };
    format!("{head}: {rewind}{what} · {verdict}")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Found by the `client_session` fuzz target: a hostile server's Shot born at a tick
    /// near `u32::MAX` overflowed the next frame's pruning (a panic in debug builds).
    #[test]
    fn a_shot_born_at_the_end_of_time_is_pruned_without_overflow() {
        let map = Map::builtin("duel").unwrap();
        let rules = CombatRules::for_tick_rate(60);
        let (x, y) = map.spawns()[0];
        let from = PlayerState::at_cell(x, y);
        let mut shot = Projectile::fire(7, 1, &from, 0, 0);
        shot.born = u32::MAX;
        let mut combat = Combat::default();
        let now = Instant::now();
        combat.on_event(now, &GameEvent::Shot(shot), &map, &rules, 0);
        assert!(combat.flights()[0].path.len() > 1);
        combat.prune(now, Some(100.0));
        assert_eq!(combat.flights().len(), 1, "not over before it began");
    }

    #[test]
    fn a_verdict_names_the_rewind_the_positions_and_what_the_victim_saw() {
        let c = |x: i32| x * CELL;
        let shot = RailShot {
            shooter: 1,
            hit: Some(2),
            rewound_ticks: 9,
            tested_at: Some((c(12) + CELL / 2, c(5))),
            present_at: Some((c(14), c(5))),
            wanted_ticks: 9,
            bound_ticks: 12,
            verdict: RailVerdict::Hit,
            ..RailShot::default()
        };
        let name = |id: PlayerId| format!("c{id}");
        let saw = PlayerState::at_cell(13, 5);
        assert_eq!(
            verdict_text(&shot, 60.0, name, Some(saw)),
            "rail c1→c2: rewind 150 ms (bound 200) · tested c2 at (12.5,5.0), really at \
             (14.0,5.0), c2 saw itself at (13.5,5.5) · HIT"
        );
        let past = RailShot {
            hit: None,
            tested_at: None,
            present_at: None,
            rewound_ticks: 0,
            wanted_ticks: 24,
            nearest: Some((2, (c(14), c(5)), (c(14), c(5)))),
            verdict: RailVerdict::PastBound,
            ..shot
        };
        assert_eq!(
            verdict_text(&past, 60.0, name, None),
            "rail c1: view 400 ms back, past the bound 200: tested at the shot's tick · \
             nearest c2 at (14.0,5.0), really at (14.0,5.0) · miss: past the bound"
        );
    }
}
