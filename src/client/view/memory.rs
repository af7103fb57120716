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
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub(crate) struct Death {
    #[serde(with = "crate::net::instants")]
    pub(crate) at: Instant,
    /// "fragged by bot-1 with rail", or "fragged themselves".
    pub(crate) how: String,
}

#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct Memory {
    health: BTreeMap<PlayerId, i16>,
    /// Who was alive at the last frame, and when each last came back to life.
    living: BTreeMap<PlayerId, bool>,
    #[serde(with = "crate::net::instants")]
    spawned_at: BTreeMap<PlayerId, Instant>,
    alive: bool,
    #[serde(with = "crate::net::instants")]
    muzzle: Option<Instant>,
    /// Our flights that had ended by the last frame, counted.
    ended_flights: usize,
    #[serde(with = "crate::net::instants")]
    pub(crate) hurt_at: Option<Instant>,
    #[serde(with = "crate::net::instants")]
    pub(crate) hit_at: Option<Instant>,
    pub(crate) death: Option<Death>,
    /// When the rail is ready again, by our own count.
    #[serde(with = "crate::net::instants")]
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
            if st.alive && self.living.insert(st.id, st.alive) == Some(false) {
                self.spawned_at.insert(st.id, now);
            }
            self.living.insert(st.id, st.alive);
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
            let ticks = s.rules.combat.cooldown(Weapon::Rail);
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

    /// While `id` has spawn protection (the server says so in its status): at most how
    /// many seconds are left, counted from when we saw it come back (it ends sooner when
    /// the player moves or fires).
    pub(crate) fn protected_for(
        &self,
        s: &ClientSession,
        id: PlayerId,
        now: Instant,
    ) -> Option<f64> {
        if !s.combat.status(id)?.protected {
            return None;
        }
        let total = f64::from(s.rules.combat.protect_ticks) / s.tick_rate;
        let since = |at: &Instant| now.saturating_duration_since(*at).as_secs_f64();
        Some(
            self.spawned_at
                .get(&id)
                .map_or(total, |at| (total - since(at)).max(0.0)),
        )
    }

    /// Seconds until the local player respawns, while dead.
    pub(crate) fn respawn_in(&self, s: &ClientSession, now: Instant) -> Option<f64> {
        let death = self.death.as_ref()?;
        let total = f64::from(s.rules.combat.respawn_ticks) / s.tick_rate;
        Some((total - now.saturating_duration_since(death.at).as_secs_f64()).max(0.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::delta;
    use crate::net::protocol::{GameEvent, PlayerSnap, PlayerStatus, ServerMsg, Snapshot};
    use crate::sim::world::PlayerState;

    const ME: PlayerId = 1;
    const BOT: PlayerId = 2;

    fn status(id: PlayerId, health: i16, alive: bool) -> GameEvent {
        GameEvent::Status(PlayerStatus {
            id,
            health,
            alive,
            frags: 0,
            deaths: 0,
            weapon: Weapon::Rail,
            // Back from the dead: protected, as the server says.
            protected: alive && health == 100,
        })
    }

    /// A snapshot at `tick` carrying `events`, numbered from `first_seq`.
    fn snapshot(tick: u32, first_seq: u32, events: Vec<GameEvent>) -> ServerMsg {
        let snap = Snapshot {
            tick,
            ack_seq: 0,
            echo_time_ms: 0,
            echo_hold_ms: 0,
            inputs: None,
            queued: 0,
            me: Default::default(),
            players: vec![PlayerSnap {
                id: ME,
                state: PlayerState::at_cell(12, 5),
            }],
        };
        let mut d = delta::encode(&snap, None);
        d.events = (first_seq..).zip(events).collect();
        ServerMsg::Snapshot(d)
    }

    /// Being hurt, dying to someone, coming back protected: each shows in the memory.
    #[test]
    fn hurt_death_and_spawn_protection_are_noticed() {
        let t0 = Instant::now();
        let mut s = ClientSession::on_duel(ME, t0);
        let mut m = Memory::default();
        let ms = |n| t0 + Duration::from_millis(n);
        let steps = [
            vec![status(ME, 100, true), status(BOT, 100, true)],
            vec![status(ME, 40, true)],
            vec![
                GameEvent::Kill {
                    killer: BOT,
                    victim: ME,
                    weapon: Weapon::Rail,
                },
                status(ME, 0, false),
            ],
            vec![status(ME, 100, true)],
            vec![status(ME, 99, true)],
        ];
        let mut seq = 1;
        for (i, events) in steps.into_iter().enumerate() {
            let now = ms(50 * i as u64);
            let n = events.len() as u32;
            s.on_message(now, snapshot(3 * i as u32 + 1, seq, events), 100);
            seq += n;
            m.update(&s, now);
            match i {
                0 => assert_eq!((m.hurt_at, m.death.is_some()), (None, false)),
                1 => assert_eq!(m.hurt_at, Some(now)),
                2 => {
                    let death = m.death.as_ref().expect("dead");
                    assert!(
                        death.how.starts_with("fragged by ") && death.how.ends_with(" with rail")
                    );
                    assert!(m.respawn_in(&s, now).is_some_and(|t| t > 1.9));
                }
                3 => {
                    assert_eq!(m.death, None);
                    let cap = f64::from(s.rules.combat.protect_ticks) / s.tick_rate;
                    assert_eq!(m.protected_for(&s, ME, now), Some(cap));
                    assert!(m.protected_for(&s, ME, ms(2000)).is_some_and(|t| t < cap));
                }
                _ => assert_eq!(m.protected_for(&s, ME, now), None, "protection over"),
            }
        }
    }
}
