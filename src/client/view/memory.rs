//! What the view remembers from frame to frame, to give feedback on changes: being
//! hurt, dying (and to whom), hitting someone, the rail's cooldown, and the newest rail
//! shot's lag compensation marks (kept until the next shot).

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use super::super::netcode::session::ClientSession;
use crate::net::protocol::RailShot;
use crate::sim::combat::Weapon;
use crate::sim::step;
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
    /// The server tick from which each protected player's protection counts: the
    /// snapshot that first said so (at most one snapshot period after the spawn), or
    /// the start of a new match, which respawns everyone.
    protected_since: BTreeMap<PlayerId, u32>,
    /// The start tick of the match being played, to notice the next one.
    match_started: Option<u32>,
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
        let me = s.player_id();
        let render_tick = s.render_tick(now);
        if let Some(t) = render_tick
            && let Some((_, rail)) = s
                .combat()
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
            .combat()
            .flights()
            .iter()
            .filter(|f| f.shot.owner == me && f.ended.is_some())
            .count();
        self.note_protection(s);
        let mut others_hurt = false;
        for st in s.combat().statuses.values() {
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

    /// When each protection began, in server ticks. A player already protected when we
    /// first see it (ourselves on joining) counts from the snapshot that told us: the
    /// count once started only at a respawn seen here, so after joining or a new match
    /// the HUD read the full 3 s until the protection was gone.
    fn note_protection(&mut self, s: &ClientSession) {
        let started = s.match_log().clock.as_ref().map(|c| c.started_tick);
        let new_match = self.match_started.is_some() && started != self.match_started;
        self.match_started = started;
        let Some(tick) = s.latest_tick() else {
            return;
        };
        for st in s.combat().statuses.values() {
            if !(st.alive && st.protected) {
                self.protected_since.remove(&st.id);
            } else if let (true, Some(start)) = (new_match, started) {
                self.protected_since.insert(st.id, start);
            } else {
                self.protected_since.entry(st.id).or_insert(tick);
            }
        }
        self.protected_since
            .retain(|id, _| s.combat().statuses.contains_key(id));
    }

    /// The tell flashed: if the rail fired, it is cooling down.
    fn note_fire(&mut self, s: &ClientSession, now: Instant) {
        let muzzle = s.muzzle().map(|(at, _)| at);
        if muzzle != self.muzzle
            && let Some(at) = muzzle
            && s.combat()
                .status(s.player_id())
                .is_some_and(|st| st.weapon == Weapon::Rail)
        {
            let ticks = s.rules().combat.cooldown(Weapon::Rail);
            self.rail_ready_at =
                Some(at + Duration::from_secs_f64(f64::from(ticks) / s.tick_rate()));
        }
        self.muzzle = muzzle;
        if self.rail_ready_at.is_some_and(|t| now >= t) {
            self.rail_ready_at = None;
        }
    }

    fn note_death(&mut self, s: &ClientSession, now: Instant) {
        let me = s.player_id();
        let alive = s.combat().status(me).is_none_or(|st| st.alive);
        if self.alive && !alive {
            let how = s
                .match_log()
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
    /// many seconds are left at the server now (the snapshot clock plus half the round
    /// trip), counted from when the protection began (it ends sooner when the player
    /// moves or fires). Past the short cap protection lasts only while the player reads
    /// (`reading`: the local player's help or scoreboard is open; unknown for others),
    /// up to the long cap. Whether to count to the long cap is decided by `reading`
    /// alone: a status still saying "protected" after the short cap (it comes half a
    /// round trip late) made the count jump from 0 to the long cap's rest.
    pub(crate) fn protected_for(
        &self,
        s: &ClientSession,
        id: PlayerId,
        now: Instant,
        reading: bool,
    ) -> Option<f64> {
        if !s.combat().status(id)?.protected {
            return None;
        }
        let total = f64::from(step::protection_cap(&s.rules().combat, reading)) / s.tick_rate();
        let (Some(since), Some(server)) = (self.protected_since.get(&id), s.server_secs(now))
        else {
            return Some(total);
        };
        let present = server + s.stats().rtt_ms / 2000.0;
        let elapsed = present - f64::from(*since) / s.tick_rate();
        Some((total - elapsed).clamp(0.0, total))
    }

    /// Seconds until the local player respawns, while dead.
    pub(crate) fn respawn_in(&self, s: &ClientSession, now: Instant) -> Option<f64> {
        let death = self.death.as_ref()?;
        let total = f64::from(s.rules().combat.respawn_ticks) / s.tick_rate();
        Some((total - now.saturating_duration_since(death.at).as_secs_f64()).max(0.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::delta;
    use crate::net::protocol::{
        GameEvent, PlayerSnap, PlayerStatus, ServerMsg, Snapshot, SnapshotHeader,
    };
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
            header: SnapshotHeader {
                tick,
                ..Default::default()
            },
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
                    let cap = f64::from(s.rules().combat.protect_ticks) / s.tick_rate();
                    assert_eq!(m.protected_for(&s, ME, now, false), Some(cap));
                    assert!(
                        m.protected_for(&s, ME, ms(2000), false)
                            .is_some_and(|t| t < cap)
                    );
                }
                _ => assert_eq!(m.protected_for(&s, ME, now, false), None, "protection over"),
            }
        }
    }

    fn match_start(started_tick: u32) -> GameEvent {
        GameEvent::MatchStart {
            map_name: "duel".into(),
            map: None,
            started_tick,
            frag_limit: 20,
            time_limit_secs: 300,
        }
    }

    /// Joining a match (and a new match) finds us alive and protected without a
    /// respawn to count from: the shield read the whole 3.0 s until it was gone. It
    /// counts down from the server tick the protection began.
    #[test]
    fn the_shield_counts_down_from_the_start_after_a_join_and_a_new_match() {
        let t0 = Instant::now();
        let mut s = ClientSession::on_duel(ME, t0);
        let mut m = Memory::default();
        let at = |secs: f64| t0 + Duration::from_secs_f64(secs);
        // Each snapshot on time: tick 600 at t0, 60 ticks a second.
        let mut feed = |m: &mut Memory, secs: f64, seq: u32, events: Vec<GameEvent>| {
            let tick = 600 + (secs * 60.0).round() as u32;
            s.on_message(at(secs), snapshot(tick, seq, events), 100);
            m.update(&s, at(secs));
            m.protected_for(&s, ME, at(secs), false).expect("protected")
        };
        let near = |shown: f64, want: f64| (shown - want).abs() < 0.06;
        // Joined at tick 600 of a match started at tick 0.
        let shown = feed(&mut m, 0.0, 1, vec![match_start(0), status(ME, 100, true)]);
        assert!(near(shown, 3.0), "{shown}");
        let shown = feed(&mut m, 1.0, 3, vec![]);
        assert!(near(shown, 2.0), "a second after joining: {shown}");
        // A new match at tick 690 respawns everyone, still protected.
        let shown = feed(
            &mut m,
            1.5,
            3,
            vec![match_start(690), status(ME, 100, true)],
        );
        assert!(near(shown, 3.0), "{shown}");
        let shown = feed(&mut m, 2.5, 5, vec![]);
        assert!(near(shown, 2.0), "a second into the new match: {shown}");
    }

    /// Issue 30: on a 300 ms link the shield read `shield 6.9s` as spawn protection
    /// ended. The estimate of the server's present passes the 3 s cap half a round trip
    /// before the snapshot saying the protection is over arrives; in between, a player
    /// still protected past the short cap was taken to be reading, and the count jumped
    /// to the 10 s cap. Frames every 10 ms, snapshots every 50 ms, each 150 ms late: the
    /// shield counts down, never up, and ends at most at 3 s.
    #[test]
    fn the_shield_never_counts_up_on_a_slow_link() {
        let t0 = Instant::now();
        let mut s = ClientSession::on_duel(ME, t0);
        let mut m = Memory::default();
        let one_way = Duration::from_millis(150);
        let protected = |on| {
            GameEvent::Status(PlayerStatus {
                id: ME,
                health: 100,
                alive: true,
                frags: 0,
                deaths: 0,
                weapon: Weapon::Blaster,
                protected: on,
            })
        };
        // The server's tick 600 is at t0 + 1 s (sent), its protection from tick 630 to
        // 630 + the short cap, when a status says it ended.
        let cap = step::protection_cap(&s.rules().combat, false);
        let sent_at = |tick: u32| {
            t0 + Duration::from_secs(1) + Duration::from_millis(u64::from(tick - 600) * 1000 / 60)
        };
        let mut seq = 1;
        let mut shown: Vec<(u64, String)> = Vec::new();
        let mut next_snapshot = 600;
        let mut ms = 1150;
        while next_snapshot <= 630 + cap + 30 {
            let now = t0 + Duration::from_millis(ms);
            while sent_at(next_snapshot) + one_way <= now {
                let tick = next_snapshot;
                let events = if tick == 630 {
                    vec![protected(true)]
                } else if tick == 630 + cap {
                    vec![protected(false)]
                } else {
                    vec![]
                };
                let n = events.len() as u32;
                let ServerMsg::Snapshot(mut d) = snapshot(tick, seq, events) else {
                    unreachable!()
                };
                // The echo of our clock says the round trip took 300 ms.
                let arrive = sent_at(tick) + one_way;
                d.header.echo_time_ms = (arrive - t0 - 2 * one_way).as_millis() as u32;
                s.on_message(arrive, ServerMsg::Snapshot(d), 100);
                seq += n;
                next_snapshot += 3;
            }
            m.update(&s, now);
            if let Some(secs) = m.protected_for(&s, ME, now, false) {
                shown.push((ms, format!("{secs:.1}")));
            }
            ms += 10;
        }
        assert!(
            (s.stats().rtt_ms - 300.0).abs() < 1.0,
            "{}",
            s.stats().rtt_ms
        );
        assert!(shown.len() > 250, "{} frames shielded", shown.len());
        let secs = |t: &str| t.parse::<f64>().unwrap();
        assert!(secs(&shown[0].1) <= 3.0, "{shown:?}");
        for w in shown.windows(2) {
            assert!(
                secs(&w[1].1) <= secs(&w[0].1),
                "the shield went from {} s to {} s at {} ms",
                w[0].1,
                w[1].1,
                w[1].0
            );
        }
    }
}
