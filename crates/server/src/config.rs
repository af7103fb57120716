//! What a server is started with, and the bounds every value must keep so that no tick
//! arithmetic can overflow, whoever built the config (the CLI, a test, a benchmark).

use std::ops::RangeInclusive;
use std::time::Duration;

use super::commands::{InputBuffer, MAX_BUFFER_TICKS};
use super::game::MatchConfig;
use netarena_net::bounds::{ConfigError, check};
use netarena_net::protocol::PROTOCOL_VERSION;
use netarena_net::secure::ServerKey;
use netarena_sim::map::Map;

/// Most players one server holds: 64 people and 64 bots. A snapshot carries at most 64
/// of them (`interest::SNAPSHOT_PLAYERS`: the client and those nearest it), which fits
/// one 1,200-byte datagram (`codec::MAX_SERVER_DATAGRAM`) with room left for events:
/// 64 players in full take about 600 bytes (tests/datagram_budget.rs). Player ids are
/// one byte, so this could grow to 256; the bound is what the server was measured with
/// (docs/BENCHMARKS.md).
pub const PLAYER_LIMIT: u16 = 128;

/// Simulation ticks per second.
pub const TICK_RATES: RangeInclusive<u16> = 10..=240;
/// Snapshots per second; never above the tick rate either.
pub const SNAPSHOT_RATES: RangeInclusive<u16> = 1..=240;
/// Players at once, humans and bots.
pub const MAX_PLAYERS: RangeInclusive<u16> = 1..=PLAYER_LIMIT;
/// Bot skill, slow and sloppy to quick and precise.
pub const BOT_SKILLS: RangeInclusive<u8> = 1..=5;
/// Frags that win: a player's frag count is an `i16` on the wire.
pub const FRAG_LIMITS: RangeInclusive<u16> = 1..=i16::MAX as u16;
/// Match length in seconds: up to a day, so the match clock (in ticks) fits a `u32`.
pub const TIME_LIMITS: RangeInclusive<u32> = 10..=86_400;
/// The furthest lag compensation rewinds, in ms; the position history keeps one second.
pub const MAX_REWINDS_MS: RangeInclusive<u32> = 0..=1000;
/// Seconds the results stay up between matches.
pub const RESULTS_SECS: RangeInclusive<u32> = 0..=3600;
/// Seconds of silence after which a client is dropped.
pub const CLIENT_TIMEOUTS_SECS: RangeInclusive<u64> = 1..=3600;
/// Longest server name, in characters: it goes out in every welcome.
pub const MAX_SERVER_NAME_CHARS: usize = 64;

/// The defaults of a server and its match, one table that every front end reads: the
/// `host`, `server` and `lab` flags, the learn mode, the config file's template and
/// [`ServerConfig::new`] (tests included).
pub mod defaults {
    pub const TICK_RATE: u16 = 60;
    pub const SNAPSHOT_RATE: u16 = 20;
    pub const MAX_PLAYERS: u16 = 16;
    pub const NAME: &str = "netarena";
    pub const CLIENT_TIMEOUT_SECS: u64 = 5;
    /// The bots' and the simulated networks' seed: the same seed, the same run.
    pub const SEED: u64 = 7;
    pub const BOT_SKILL: u8 = 2;
    /// With three bots the leader gets there in about 3 minutes (20 took 2).
    pub const FRAG_LIMIT: u16 = 30;
    pub const TIME_LIMIT_SECS: u32 = 300;
    pub const MAX_REWIND_MS: u32 = 250;
    pub const RESULTS_SECS: u32 = 5;
}

#[derive(Clone, Debug)]
pub struct ServerConfig {
    pub bots: u16,
    pub tick_rate: u16,
    pub snapshot_rate: u16,
    pub max_players: u16,
    pub name: String,
    /// A client not heard from for this long is dropped.
    pub client_timeout: Duration,
    pub seed: u64,
    /// Testing aid: the event loop panics this long after starting.
    pub debug_panic_after: Option<Duration>,
    /// Answer LAN discovery requests.
    pub discoverable: bool,
    /// The protocol version spoken; other values only to test version mismatches.
    pub protocol_version: u16,
    /// 1 (slow, sloppy) to 5 (quick, precise).
    pub bot_skill: u8,
    /// How clients' commands are applied: the credit queue, or a jitter buffer.
    pub input_buffer: InputBuffer,
    /// Maps, limits and lag compensation.
    pub game: MatchConfig,
    /// The server's long-lived key (`net::secure`): a fresh one here; the `server`
    /// and `host` commands keep theirs in the state directory.
    pub key: ServerKey,
}

impl ServerConfig {
    pub fn new(map: Map) -> ServerConfig {
        ServerConfig {
            bots: 0,
            tick_rate: defaults::TICK_RATE,
            snapshot_rate: defaults::SNAPSHOT_RATE,
            max_players: defaults::MAX_PLAYERS,
            name: defaults::NAME.to_owned(),
            client_timeout: Duration::from_secs(defaults::CLIENT_TIMEOUT_SECS),
            seed: defaults::SEED,
            debug_panic_after: None,
            discoverable: true,
            protocol_version: PROTOCOL_VERSION,
            bot_skill: defaults::BOT_SKILL,
            input_buffer: InputBuffer::default(),
            game: MatchConfig::new(map),
            key: ServerKey::generate(),
        }
    }

    /// Server ticks between two snapshots: the tick rate over the snapshot rate,
    /// rounded down, so a rate that does not divide the tick rate sends more often
    /// than asked (25 at 60 Hz ticks: every 2 ticks, 30 a second).
    pub fn snapshot_interval(&self) -> u32 {
        u32::from((self.tick_rate / self.snapshot_rate.max(1)).max(1))
    }

    /// Checks every value against its bounds (the constants above).
    pub fn validate(&self) -> Result<(), ConfigError> {
        check("tick rate", self.tick_rate, &TICK_RATES)?;
        check("snapshot rate", self.snapshot_rate, &SNAPSHOT_RATES)?;
        if self.snapshot_rate > self.tick_rate {
            return Err(ConfigError(format!(
                "snapshot rate ({}) cannot exceed tick rate ({})",
                self.snapshot_rate, self.tick_rate
            )));
        }
        check("max players", self.max_players, &MAX_PLAYERS)?;
        check("bots", self.bots, &(0..=self.max_players))?;
        check("bot skill", self.bot_skill, &BOT_SKILLS)?;
        if let InputBuffer::Fixed(n) = self.input_buffer {
            check("input buffer (ticks)", n, &(1..=MAX_BUFFER_TICKS))?;
        }
        let timeout = self.client_timeout.as_secs();
        check("client timeout (s)", timeout, &CLIENT_TIMEOUTS_SECS)?;
        let chars = self.name.chars().count();
        check("server name length", chars, &(0..=MAX_SERVER_NAME_CHARS))?;
        let game = &self.game;
        if game.maps.is_empty() {
            return Err(ConfigError("the map rotation is empty".to_owned()));
        }
        check("frag limit", game.frag_limit, &FRAG_LIMITS)?;
        check("time limit (s)", game.time_limit_secs, &TIME_LIMITS)?;
        check("max rewind (ms)", game.max_rewind_ms, &MAX_REWINDS_MS)?;
        check("results time (s)", game.results_secs, &RESULTS_SECS)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config() -> ServerConfig {
        ServerConfig::new(Map::builtin("duel").unwrap())
    }

    #[test]
    fn defaults_are_valid() {
        assert_eq!(config().validate(), Ok(()));
    }

    #[test]
    fn each_bound_is_enforced() {
        type Breaker = fn(&mut ServerConfig);
        let cases: [(&str, Breaker); 9] = [
            ("input buffer", |c| c.input_buffer = InputBuffer::Fixed(0)),
            ("tick rate", |c| c.tick_rate = 241),
            ("snapshot rate", |c| c.snapshot_rate = 0),
            ("cannot exceed", |c| c.snapshot_rate = 61),
            ("bots", |c| c.bots = 17),
            ("frag limit", |c| c.game.frag_limit = 32_768),
            ("time limit", |c| c.game.time_limit_secs = 86_401),
            ("max rewind", |c| c.game.max_rewind_ms = 1001),
            ("client timeout", |c| c.client_timeout = Duration::ZERO),
        ];
        for (what, break_it) in cases {
            let mut c = config();
            break_it(&mut c);
            let err = c.validate().unwrap_err().to_string();
            assert!(err.contains(what), "{what}: {err}");
        }
    }
}
