//! What the client knows of the fighting: everyone's health and score, projectiles in
//! flight (flown locally from their birth events), recent rail shots, the kill feed,
//! chat, and the match clock. Fed by the server's reliable game events.

use std::collections::{BTreeMap, VecDeque};
use std::time::Instant;

use crate::net::map_chunks;
use crate::net::protocol::{GameEvent, MapInfo, PlayerStatus, RailShot};
use crate::sim::combat::{CombatRules, Projectile, Weapon};
use crate::sim::map::Map;
use crate::sim::world::PlayerId;

/// How long kill feed and chat lines stay up.
const FEED_SECS: u64 = 6;
const CHAT_SECS: u64 = 12;
/// How long a rail beam stays drawn.
pub const BEAM_SECS: f64 = 0.6;

#[derive(Clone, Debug)]
pub struct Flight {
    pub shot: Projectile,
    /// Positions from birth, one per tick, until a wall or old age.
    pub path: Vec<(i32, i32)>,
    /// The tick the server removed it, once known.
    pub ended: Option<u32>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct MatchClock {
    pub started_tick: u32,
    pub frag_limit: u16,
    pub time_limit_secs: u32,
}

#[derive(Clone, Debug)]
pub struct Results {
    pub at: Instant,
    pub winner: Option<PlayerId>,
    pub standings: Vec<PlayerStatus>,
    pub next_map: String,
}

#[derive(Clone, Debug)]
pub struct Kill {
    pub killer: PlayerId,
    pub victim: PlayerId,
    pub weapon: Weapon,
}

#[derive(Debug)]
pub struct CombatState {
    next_event: u32,
    pub statuses: BTreeMap<PlayerId, PlayerStatus>,
    flights: Vec<Flight>,
    pub rails: VecDeque<(Instant, RailShot)>,
    pub feed: VecDeque<(Instant, Kill)>,
    pub chat: VecDeque<(Instant, PlayerId, String)>,
    pub clock: Option<MatchClock>,
    pub results: Option<Results>,
    /// A new match began: everyone was put back at a spawn point by decree.
    restarted: bool,
}

impl Default for CombatState {
    fn default() -> Self {
        CombatState {
            next_event: 1,
            statuses: BTreeMap::new(),
            flights: Vec::new(),
            rails: VecDeque::new(),
            feed: VecDeque::new(),
            chat: VecDeque::new(),
            clock: None,
            results: None,
            restarted: false,
        }
    }
}

/// A new map from the server, to be parsed by the session.
pub struct MapChange {
    pub name: String,
    /// Which map: its text came in chunks before the match start.
    pub map: MapInfo,
}

impl CombatState {
    /// Every event up to this seq has been taken in.
    pub fn event_ack(&self) -> u32 {
        self.next_event - 1
    }

    /// Takes in one event if it is the next in seq order. Repeats (events are resent
    /// until acknowledged) are skipped, and anything after a gap waits for the resend,
    /// so order is always kept. A new map is handed back for the session to install
    /// before the next event is read.
    pub fn on_event(
        &mut self,
        now: Instant,
        seq: u32,
        event: &GameEvent,
        map: &Map,
        rules: &CombatRules,
    ) -> Option<MapChange> {
        if seq != self.next_event {
            return None;
        }
        self.next_event += 1;
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
            GameEvent::Kill {
                killer,
                victim,
                weapon,
            } => self.feed.push_back((
                now,
                Kill {
                    killer: *killer,
                    victim: *victim,
                    weapon: *weapon,
                },
            )),
            GameEvent::Chat { from, text } => self.chat.push_back((now, *from, text.clone())),
            GameEvent::MatchStart {
                map_name,
                map: new_map,
                started_tick,
                frag_limit,
                time_limit_secs,
            } => {
                self.clock = Some(MatchClock {
                    started_tick: *started_tick,
                    frag_limit: *frag_limit,
                    time_limit_secs: *time_limit_secs,
                });
                self.results = None;
                self.flights.clear();
                self.restarted = true;
                if let Some(info) = new_map.filter(|i| i.id != map_chunks::map_id(map.text())) {
                    return Some(MapChange {
                        name: map_name.clone(),
                        map: info,
                    });
                }
            }
            // Reassembled by the session, which sees every copy.
            GameEvent::MapChunk(_) => {}
            GameEvent::MatchEnd {
                winner,
                standings,
                next_map,
            } => {
                self.results = Some(Results {
                    at: now,
                    winner: *winner,
                    standings: standings.clone(),
                    next_map: next_map.clone(),
                });
                self.flights.clear();
            }
        }
        None
    }

    /// Whether a match began since the last call.
    pub fn take_restart(&mut self) -> bool {
        std::mem::take(&mut self.restarted)
    }

    /// Forgets what has faded: old feed and chat lines, beams, finished flights.
    pub fn prune(&mut self, now: Instant, render_tick: Option<f64>) {
        let older =
            |at: &Instant, secs: f64| now.saturating_duration_since(*at).as_secs_f64() > secs;
        while self
            .feed
            .front()
            .is_some_and(|(at, _)| older(at, FEED_SECS as f64))
        {
            self.feed.pop_front();
        }
        while self
            .chat
            .front()
            .is_some_and(|(at, _, _)| older(at, CHAT_SECS as f64))
        {
            self.chat.pop_front();
        }
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
    pub fn projectiles_at(&self, render_tick: f64) -> Vec<(PlayerId, f64, f64)> {
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

    pub fn status(&self, id: PlayerId) -> Option<&PlayerStatus> {
        self.statuses.get(&id)
    }
}
