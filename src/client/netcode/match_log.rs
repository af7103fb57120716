//! The match as the server tells it: the kill feed, chat, the match clock and the
//! results. Fed by the reliable game events, in order; the fighting itself is
//! [`super::combat`]'s.

use std::collections::VecDeque;
use std::time::Instant;

use crate::net::map_chunks;
use crate::net::protocol::{GameEvent, MapInfo, PlayerStatus};
use crate::sim::combat::Weapon;
use crate::sim::map::Map;
use crate::sim::world::PlayerId;

/// How long kill feed and chat lines stay up.
const FEED_SECS: f64 = 6.0;
const CHAT_SECS: f64 = 12.0;

#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub(crate) struct MatchClock {
    pub(crate) started_tick: u32,
    pub(crate) frag_limit: u16,
    pub(crate) time_limit_secs: u32,
}

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Results {
    #[serde(with = "crate::net::instants")]
    pub at: Instant,
    pub winner: Option<PlayerId>,
    pub standings: Vec<PlayerStatus>,
    pub next_map: String,
}

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub(crate) struct Kill {
    pub(crate) killer: PlayerId,
    pub(crate) victim: PlayerId,
    pub(crate) weapon: Weapon,
}

/// A new map from the server, to be parsed by the session.
pub(crate) struct MapChange {
    pub(crate) name: String,
    /// Which map: its text came in chunks before the match start.
    pub(crate) map: MapInfo,
}

#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct MatchLog {
    #[serde(with = "crate::net::instants")]
    pub(crate) feed: VecDeque<(Instant, Kill)>,
    #[serde(with = "crate::net::instants")]
    pub(crate) chat: VecDeque<(Instant, PlayerId, String)>,
    pub(crate) clock: Option<MatchClock>,
    pub results: Option<Results>,
}

impl MatchLog {
    /// Takes in one event (in seq order); those about the fighting are left to
    /// [`super::combat::Combat`]. A new map is handed back for the session to install
    /// before the next event is read.
    pub(crate) fn on_event(
        &mut self,
        now: Instant,
        event: &GameEvent,
        map: &Map,
    ) -> Option<MapChange> {
        match event {
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
            GameEvent::Chat { from, text } => {
                let text = crate::net::safe_text::safe(text).into_owned();
                self.chat.push_back((now, *from, text));
            }
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
                if let Some(info) = new_map.filter(|i| i.id != map_chunks::map_id(map.text())) {
                    return Some(MapChange {
                        name: map_name.clone(),
                        map: info,
                    });
                }
            }
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
            }
            GameEvent::Status(_)
            | GameEvent::Shot(_)
            | GameEvent::ShotEnd { .. }
            | GameEvent::Rail(_)
            | GameEvent::MapChunk(_)
            | GameEvent::TickRate { .. } => {}
        }
        None
    }

    /// Forgets feed and chat lines that have faded.
    pub(crate) fn prune(&mut self, now: Instant) {
        let older =
            |at: &Instant, secs: f64| now.saturating_duration_since(*at).as_secs_f64() > secs;
        while self
            .feed
            .front()
            .is_some_and(|(at, _)| older(at, FEED_SECS))
        {
            self.feed.pop_front();
        }
        while self
            .chat
            .front()
            .is_some_and(|(at, _, _)| older(at, CHAT_SECS))
        {
            self.chat.pop_front();
        }
    }
}
