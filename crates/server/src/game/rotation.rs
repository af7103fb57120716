//! How a match ends and the next begins: the frag and time limits, the results screen
//! with its standings, and the rotation to the next map (sent in chunks before the start
//! that names it).

use netarena_net::map_chunks::{self, EVENT_CHUNK_BYTES};
use netarena_net::protocol::GameEvent;
use netarena_sim::world::{PlayerId, World};

use super::{MAX_STANDINGS, Match, Phase};

impl Match {
    pub(super) fn check_limits(&mut self, tick: u32, events: &mut Vec<GameEvent>) {
        // Saturating, and the limit clamped to what a frag count can reach: even a
        // config that skipped `ServerConfig::validate` can neither wrap nor end at once.
        let time_limit = self.config.time_limit_secs.saturating_mul(self.tick_rate);
        let time_up = tick.saturating_sub(self.started) >= time_limit;
        let limit = i16::try_from(self.config.frag_limit).unwrap_or(i16::MAX);
        let frag_limit = self.players.values().any(|c| c.frags >= limit);
        if !(time_up || frag_limit) {
            return;
        }
        let mut standings = self.statuses();
        // Most frags, then fewest deaths, then lowest id: always one winner.
        standings.sort_by(|a, b| {
            b.frags
                .cmp(&a.frags)
                .then(a.deaths.cmp(&b.deaths))
                .then(a.id.cmp(&b.id))
        });
        // The best ones are what a results screen shows; all of them would not fit a
        // datagram with hundreds of players.
        standings.truncate(MAX_STANDINGS);
        let next = (self.map_index + 1) % self.config.maps.len();
        events.push(GameEvent::MatchEnd {
            winner: standings.first().map(|s| s.id),
            standings,
            next_map: self.config.maps[next].name().to_owned(),
        });
        self.projectiles.clear();
        self.carried.clear();
        self.phase = Phase::Results {
            until: tick.saturating_add(self.config.results_secs.saturating_mul(self.tick_rate)),
        };
    }

    pub(super) fn next_map(&mut self, tick: u32, world: &mut World, events: &mut Vec<GameEvent>) {
        self.map_index = (self.map_index + 1) % self.config.maps.len();
        self.started = tick;
        self.phase = Phase::Playing;
        self.history.clear();
        let ids: Vec<PlayerId> = self.players.keys().copied().collect();
        for (_, c) in self.players.iter_mut() {
            c.frags = 0;
            c.deaths = 0;
            c.fragged_by = None;
        }
        for id in &ids {
            world.remove(*id);
        }
        // The new map in chunks, each small enough to ride beside a snapshot, then the
        // start that names it.
        let chunks = map_chunks::split(self.map().text(), EVENT_CHUNK_BYTES);
        events.extend(chunks.into_iter().map(GameEvent::MapChunk));
        events.push(self.start_event(true));
        for id in ids {
            self.respawn(id, tick, world, events);
        }
    }
}
