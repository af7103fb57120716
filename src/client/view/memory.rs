//! What the view remembers from frame to frame, to give feedback on changes: being
//! hurt, dying (and to whom), hitting someone, the rail's cooldown, and the newest rail
//! shot's lag compensation marks (kept until the next shot).

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use super::super::session::ClientSession;
use crate::net::protocol::RailShot;
use crate::sim::combat::Weapon;
use crate::sim::world::PlayerId;

/// How long the hurt flash and the hit marker show.
pub(crate) const FLASH: Duration = Duration::from_millis(300);

/// How the local player last died.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Death {
    pub(crate) at: Instant,
    /// "fragged by bot-1 with rail", or "fragged themselves".
    pub(crate) how: String,
}

#[derive(Debug, Default)]
pub(crate) struct Memory {
    health: BTreeMap<PlayerId, i16>,
    alive: bool,
    muzzle: Option<Instant>,
    /// Our flights that had ended by the last frame, counted.
    ended_flights: usize,
    pub(crate) hurt_at: Option<Instant>,
    pub(crate) hit_at: Option<Instant>,
    pub(crate) death: Option<Death>,
    /// When the rail is ready again, by our own count.
    pub(crate) rail_ready_at: Option<Instant>,
    /// The newest rail shot already shown, for the lag compensation marks.
    pub(crate) marks: Option<RailShot>,
}

impl Memory {
    /// Takes in the session as it is at `now` (once a frame).
    pub(crate) fn update(&mut self, s: &ClientSession, now: Instant) {
        let me = s.player_id;
        let render_tick = s.render_tick(now);
        if let Some(t) = render_tick
            && let Some((_, rail)) = s
                .combat
                .rails
                .iter()
                .rev()
                .find(|(_, r)| f64::from(r.tick + 1) <= t)
            && self.marks.as_ref() != Some(rail)
        {
            if rail.shooter == me && rail.hit.is_some() {
                self.hit_at = Some(now);
            }
            self.marks = Some(*rail);
        }
        let ended = s
            .combat
            .flights()
            .iter()
            .filter(|f| f.shot.owner == me && f.ended.is_some())
            .count();
        let mut others_hurt = false;
        for st in s.combat.statuses.values() {
            let before = self.health.insert(st.id, st.health);
            let hurt = before.is_some_and(|h| st.health < h);
            if st.id == me && hurt {
                self.hurt_at = Some(now);
            }
            others_hurt |= st.id != me && hurt;
        }
        // One of our bolts ended just as someone lost health: a hit.
        if others_hurt && ended > self.ended_flights {
            self.hit_at = Some(now);
        }
        self.ended_flights = ended;
        self.note_fire(s, now);
        self.note_death(s, now);
    }

    /// The tell flashed: if the rail fired, it is cooling down.
    fn note_fire(&mut self, s: &ClientSession, now: Instant) {
        let muzzle = s.tell.muzzle.map(|(at, _)| at);
        if muzzle != self.muzzle
            && let Some(at) = muzzle
            && s.combat
                .status(s.player_id)
                .is_some_and(|st| st.weapon == Weapon::Rail)
        {
            let ticks = s.combat_rules.cooldown(Weapon::Rail);
            self.rail_ready_at = Some(at + Duration::from_secs_f64(f64::from(ticks) / s.tick_rate));
        }
        self.muzzle = muzzle;
        if self.rail_ready_at.is_some_and(|t| now >= t) {
            self.rail_ready_at = None;
        }
    }

    fn note_death(&mut self, s: &ClientSession, now: Instant) {
        let me = s.player_id;
        let alive = s.combat.status(me).is_none_or(|st| st.alive);
        if self.alive && !alive {
            let how = s
                .match_log
                .feed
                .iter()
                .rev()
                .find(|(_, k)| k.victim == me)
                .map_or_else(
                    || "fragged".to_owned(),
                    |(_, k)| {
                        if k.killer == me {
                            "fragged yourself".to_owned()
                        } else {
                            format!(
                                "fragged by {} with {}",
                                s.name_of(k.killer),
                                k.weapon.name()
                            )
                        }
                    },
                );
            self.death = Some(Death { at: now, how });
        }
        if alive {
            self.death = None;
        }
        self.alive = alive;
    }

    /// Seconds until the local player respawns, while dead.
    pub(crate) fn respawn_in(&self, s: &ClientSession, now: Instant) -> Option<f64> {
        let death = self.death.as_ref()?;
        let total = f64::from(s.combat_rules.respawn_ticks) / s.tick_rate;
        Some((total - now.saturating_duration_since(death.at).as_secs_f64()).max(0.0))
    }
}
