//! Every bound of `ServerConfig::validate`, at both ends, runs: the server ticks with
//! remote and bot players, nothing panics or wraps, and every message still encodes.
//! (A frag limit of 32768 once wrapped to -32768 as an `i16` and ended every match on
//! its first tick.)

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use netarena::net::codec;
use netarena::server::config::{
    BOT_SKILLS, CLIENT_TIMEOUTS_SECS, FRAG_LIMITS, MAX_PLAYERS, MAX_REWINDS_MS,
    MAX_SERVER_NAME_CHARS, RESULTS_SECS, SNAPSHOT_RATES, TICK_RATES, TIME_LIMITS,
};
use netarena::server::{Server, ServerConfig, ServerEvent};
use netarena::sim::map::Map;

type Tweak = Box<dyn Fn(&mut ServerConfig)>;

/// One config per end of every bound, named for the failure message.
fn extremes() -> Vec<(String, Tweak)> {
    let mut cases: Vec<(String, Tweak)> = Vec::new();
    let mut add = |name: String, tweak: Tweak| cases.push((name, tweak));
    for v in [*TICK_RATES.start(), *TICK_RATES.end()] {
        add(
            format!("tick rate {v}"),
            Box::new(move |c| {
                c.tick_rate = v;
                c.snapshot_rate = c.snapshot_rate.min(v);
            }),
        );
    }
    for v in [*SNAPSHOT_RATES.start(), *SNAPSHOT_RATES.end()] {
        add(
            format!("snapshot rate {v} at the top tick rate"),
            Box::new(move |c| {
                c.tick_rate = *TICK_RATES.end();
                c.snapshot_rate = v;
            }),
        );
    }
    for v in [*MAX_PLAYERS.start(), *MAX_PLAYERS.end()] {
        add(
            format!("max players {v}, all but one bots"),
            Box::new(move |c| {
                c.max_players = v;
                c.bots = v - 1;
            }),
        );
    }
    for v in [*BOT_SKILLS.start(), *BOT_SKILLS.end()] {
        add(format!("bot skill {v}"), Box::new(move |c| c.bot_skill = v));
    }
    for v in [*FRAG_LIMITS.start(), *FRAG_LIMITS.end()] {
        add(
            format!("frag limit {v}"),
            Box::new(move |c| c.game.frag_limit = v),
        );
    }
    for v in [*TIME_LIMITS.start(), *TIME_LIMITS.end()] {
        add(
            format!("time limit {v} s at the top tick rate"),
            Box::new(move |c| {
                c.game.time_limit_secs = v;
                c.tick_rate = *TICK_RATES.end();
            }),
        );
    }
    for v in [*MAX_REWINDS_MS.start(), *MAX_REWINDS_MS.end()] {
        add(
            format!("max rewind {v} ms at the top tick rate"),
            Box::new(move |c| {
                c.game.max_rewind_ms = v;
                c.tick_rate = *TICK_RATES.end();
            }),
        );
    }
    for v in [*RESULTS_SECS.start(), *RESULTS_SECS.end()] {
        add(
            format!("results time {v} s"),
            Box::new(move |c| c.game.results_secs = v),
        );
    }
    for v in [*CLIENT_TIMEOUTS_SECS.start(), *CLIENT_TIMEOUTS_SECS.end()] {
        add(
            format!("client timeout {v} s"),
            Box::new(move |c| c.client_timeout = Duration::from_secs(v)),
        );
    }
    for n in [0, MAX_SERVER_NAME_CHARS] {
        add(
            format!("server name of {n} characters"),
            Box::new(move |c| c.name = "é".repeat(n)),
        );
    }
    cases
}

/// Two seconds of play: the earliest a match can end is the smallest time limit.
const SECONDS: u32 = 2;

#[test]
fn every_extreme_accepted_value_ticks_without_panic_or_wrap() {
    let map = Map::builtin("arena").unwrap();
    let me: SocketAddr = "10.0.0.1:5000".parse().unwrap();
    let mut buf = Vec::new();
    for (name, tweak) in extremes() {
        let mut config = ServerConfig::new(map.clone());
        config.bots = 3;
        tweak(&mut config);
        assert_eq!(config.validate(), Ok(()), "{name}: accepted");
        let tick_rate = u32::from(config.tick_rate);
        let mut server = Server::new(config);
        let mut now = Instant::now();
        let welcome = server.join_in_process(now, me, "tester");
        assert!(welcome.is_some(), "{name}: a player can join");
        for _ in 0..SECONDS * tick_rate {
            now += Duration::from_secs(1) / tick_rate;
            server.tick(now);
            for (_, msg) in server.take_outbox() {
                let encoded = codec::encode_server(&msg, &mut buf);
                assert!(encoded.is_ok(), "{name}: {encoded:?}");
            }
            let tick = server.world().tick;
            for event in server.take_events() {
                let ended = matches!(event, ServerEvent::Results { .. });
                assert!(!ended, "{name}: the match ended after {tick} ticks");
            }
        }
        assert_eq!(server.world().tick, SECONDS * tick_rate, "{name}");
    }
}

#[test]
fn one_past_each_end_is_refused() {
    let map = Map::builtin("arena").unwrap();
    type Breaker = fn(&mut ServerConfig);
    let cases: [(&str, Breaker); 6] = [
        ("frag limit", |c| c.game.frag_limit = *FRAG_LIMITS.end() + 1),
        ("time limit", |c| {
            c.game.time_limit_secs = *TIME_LIMITS.end() + 1
        }),
        ("time limit", |c| {
            c.game.time_limit_secs = *TIME_LIMITS.start() - 1
        }),
        ("tick rate", |c| c.tick_rate = *TICK_RATES.start() - 1),
        ("max players", |c| c.max_players = *MAX_PLAYERS.end() + 1),
        ("server name", |c| {
            c.name = "x".repeat(MAX_SERVER_NAME_CHARS + 1)
        }),
    ];
    for (what, tweak) in cases {
        let mut config = ServerConfig::new(map.clone());
        tweak(&mut config);
        let err = config.validate().unwrap_err().to_string();
        assert!(err.contains(what), "{what}: {err}");
    }
}

/// A config built without `validate` still cannot wrap the frag limit.
#[test]
fn an_unchecked_frag_limit_past_i16_does_not_end_the_match_at_once() {
    let mut config = ServerConfig::new(Map::builtin("duel").unwrap());
    config.bots = 2;
    config.game.frag_limit = u16::MAX;
    let mut server = Server::new(config);
    let mut now = Instant::now();
    for _ in 0..60 {
        now += Duration::from_millis(16);
        server.tick(now);
    }
    assert!(!server.game().in_results(), "the match ended at once");
}
