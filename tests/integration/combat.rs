//! Combat: projectiles flown by clients as the server flies them, lag-compensated rail
//! shots, whole bot matches, and chat that cannot reach into anyone's terminal.

use crate::support;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use netarena::net::codec;
use netarena::net::protocol::{ClientMsg, GameEvent, RailShot, RailVerdict, ServerMsg};
use netarena::server::game::MatchConfig;
use netarena::server::{Server, ServerConfig, ServerEvent};
use netarena::sim::combat::Weapon;
use netarena::sim::map::{CELL, Map};
use netarena::sim::world::{Buttons, Command, PlayerState};
use support::{Solo, lag};

fn open_map() -> Map {
    let mut rows = vec!["#".repeat(32)];
    for y in 1..15 {
        let mut row = String::from("#");
        for x in 1..31 {
            row.push(if x == 2 && y == 7 { 'S' } else { '.' });
        }
        row.push('#');
        rows.push(row);
    }
    rows.push("#".repeat(32));
    Map::parse("open", &rows.join("\n")).unwrap()
}

#[test]
fn clients_fly_projectiles_exactly_as_the_server_does() {
    // The same at any tick rate: a bolt's sub-steps per tick vary (9.6 at 20 Hz, 1.5 at
    // 128 Hz), and the client flies them as the server does.
    for rate in [60, 20, 128] {
        fly_projectiles_as_the_server_does(rate);
    }
}

fn fly_projectiles_as_the_server_does(rate: u16) {
    let mut config = ServerConfig::new(open_map());
    config.tick_rate = rate;
    let mut s = Solo::with_config(config, lag(40, 5, 0.0), lag(40, 5, 0.0));
    s.run(Duration::from_millis(500), |_| Buttons::empty());
    // Commands a sixth of a second: each aim gets one, at every rate.
    let per_aim = u32::from(rate).div_ceil(6);
    // Record where the server has each projectile after every tick.
    let mut server_paths: std::collections::BTreeMap<u16, Vec<(u32, i32, i32)>> =
        Default::default();
    let mut fired = 0;
    // The client forgets a flight once drawn to its end: keep the last look at each.
    let mut client_flights: std::collections::BTreeMap<
        u16,
        netarena::client::netcode::combat::Flight,
    > = Default::default();
    // Fire for 8 / 6 s (every aim), then let the last bolt reach a wall.
    for _ in 0..300 {
        s.run_commands(Duration::from_millis(10), |_, _| {
            fired += 1;
            Command {
                buttons: if fired < 8 * per_aim {
                    Buttons::FIRE
                } else {
                    Buttons::empty()
                },
                weapon: 0,
                aim: (fired / per_aim % 8) as u8,
            }
        });
        let tick = s.server().world().tick;
        for p in s.server().game().projectiles() {
            // Snapshot time: the world after tick T is the snapshot labelled T + 1.
            server_paths.entry(p.id).or_default().push((tick, p.x, p.y));
        }
        for f in s.client().combat().flights() {
            client_flights.insert(f.shot.id, f.clone());
        }
    }
    assert!(
        server_paths.len() >= 3,
        "{rate} Hz: several shots: {}",
        server_paths.len()
    );
    let mut compared = 0;
    for (id, path) in &server_paths {
        let flight = client_flights
            .get(id)
            .expect("the client heard of the shot");
        for &(tick, x, y) in path {
            let k = (tick - flight.shot.born) as usize;
            assert_eq!(
                flight.path.get(k),
                Some(&(x, y)),
                "{rate} Hz: shot {id} at tick {tick}"
            );
            compared += 1;
        }
        // The server removed it the tick after its last recorded position, which is
        // where the client's own flight ends (a wall): a miss needs no removal event.
        let (last_tick, _, _) = *path.last().unwrap();
        assert_eq!(flight.ended, None, "shot {id}: a miss is not announced");
        assert_eq!(
            flight.path.len() as u32,
            last_tick + 1 - flight.shot.born,
            "{rate} Hz: shot {id} hit the wall where the client expected"
        );
    }
    assert!(compared > 50, "{rate} Hz: {compared} positions compared");
}

/// A rail shot as the shooter's client got it, the lab's verdict lines, and the target's
/// state on the server by tick: as each tick began (what a command in it is tested
/// against in the present) and after it (what the server remembers for rewinding).
struct RailRun {
    shot: RailShot,
    verdicts: Vec<String>,
    began: HashMap<u32, (i32, i32)>,
    after: HashMap<u32, (i32, i32)>,
}

/// Shooter at the west, a target walking down the east: the shooter fires east when
/// its interpolated view shows the target on its row. The server sees the target
/// about 200 ms (RTT/2 plus the interpolation delay, ~1.5 cells at 9 cells/s) further on.
fn rail_at_a_moving_target(compensate: bool, max_rewind_ms: u32) -> Option<u8> {
    rail_run(compensate, max_rewind_ms).shot.hit
}

fn rail_run(compensate: bool, max_rewind_ms: u32) -> RailRun {
    let mut config = ServerConfig::new(open_map());
    config.game = MatchConfig {
        lag_compensation: compensate,
        max_rewind_ms,
        ..MatchConfig::new(open_map())
    };
    let mut s = Solo::with_config(config, lag(100, 0, 0.0), lag(100, 0, 0.0));
    let target: SocketAddr = "10.9.9.9:9".parse().unwrap();
    let now = s.now();
    let t = s
        .server_mut()
        .join_in_process(now, target, "target")
        .unwrap()
        .player_id;
    let shooter = s.client().player_id();
    let row_y = 7 * CELL + CELL / 2;
    s.server_mut().teleport(shooter, PlayerState::at_cell(2, 7));
    // Let spawn protection wear off and the switch to the rail finish, with the target
    // parked above the line of fire.
    let mut y = 2 * CELL;
    let rail = Command {
        buttons: Buttons::empty(),
        weapon: Weapon::Rail as u8,
        aim: 0,
    };
    for _ in 0..150 {
        s.server_mut().teleport(
            t,
            PlayerState {
                x: 22 * CELL,
                y,
                vx: 0,
                vy: 0,
            },
        );
        s.run_commands(Duration::from_millis(16), |_, _| rail);
    }
    let mut fired = false;
    let (mut began, mut after) = (HashMap::new(), HashMap::new());
    let target_at = |s: &Solo| {
        let (_, p) = *s
            .server()
            .world()
            .players()
            .iter()
            .find(|(id, _)| *id == t)?;
        Some((p.x, p.y))
    };
    for _ in 0..200 {
        y += 38;
        s.server_mut().teleport(
            t,
            PlayerState {
                x: 22 * CELL,
                y,
                vx: 0,
                vy: 38,
            },
        );
        // A millisecond at a time, noting the target as each tick begins and ends.
        for _ in 0..17 {
            let tick = s.server().world().tick;
            if let Some(p) = target_at(&s) {
                began.insert(tick, p);
            }
            s.run_commands(Duration::from_millis(1), |c, now| {
                let seen = c.remote_position(t, now).map(|(_, y)| y);
                let fire = !fired && seen.is_some_and(|sy| (sy - f64::from(row_y)).abs() < 20.0);
                fired |= fire;
                Command {
                    buttons: if fire {
                        Buttons::FIRE
                    } else {
                        Buttons::empty()
                    },
                    weapon: Weapon::Rail as u8,
                    aim: 0,
                }
            });
            let now_tick = s.server().world().tick;
            if now_tick > tick
                && let Some(p) = target_at(&s)
            {
                after.insert(now_tick - 1, p);
            }
        }
        if fired && !s.client().combat().rails.is_empty() {
            break;
        }
    }
    s.run(Duration::from_millis(400), |_| Buttons::empty());
    let (_, shot) = s
        .client()
        .combat()
        .rails
        .back()
        .copied()
        .expect("the rail went off");
    assert!(fired);
    eprintln!("compensate {compensate}, max rewind {max_rewind_ms} ms: {shot:?}");
    match (shot.hit, shot.tested_at, shot.present_at) {
        // A miss tested nobody.
        (None, None, None) => {}
        // A rewound hit: the overlay's two boxes are well apart, that is the latency
        // undone.
        (Some(_), Some(tested), Some(present)) if shot.rewound_ticks > 0 => {
            assert!((present.1 - tested.1).abs() > CELL, "{shot:?}");
        }
        // A hit in the present: where it was tested is where the target is.
        (Some(_), Some(tested), Some(present)) => assert_eq!(tested, present, "{shot:?}"),
        _ => panic!("a hit has both boxes, a miss neither: {shot:?}"),
    }
    if !compensate {
        assert_eq!(shot.rewound_ticks, 0, "no rewinding without compensation");
    }
    RailRun {
        shot,
        verdicts: s.lab.rail_verdicts(),
        began,
        after,
    }
}

#[test]
fn lag_compensation_hits_where_the_shooter_saw_the_target() {
    assert!(
        rail_at_a_moving_target(true, 250).is_some(),
        "with compensation: a hit"
    );
    assert_eq!(rail_at_a_moving_target(false, 250), None, "without: a miss");
    assert_eq!(
        rail_at_a_moving_target(true, 50),
        None,
        "beyond the rewind bound: a miss"
    );
}

/// Every rail shot has a verdict, misses too, with the server's own figures: the rewind
/// the shooter's view asked for against the bound, the target where it was tested (the
/// server's remembered tick when rewound, the shot's tick when not) and where it was.
#[test]
fn a_rail_shot_past_the_rewind_bound_is_a_miss_past_the_bound_and_says_so() {
    // 60 Hz, snapshots every 3 ticks: the bound is the rewind in ticks plus the two
    // snapshot periods every client draws others behind.
    let bound = |ms: u32| (ms * 60 / 1000 + 2 * 3) as u16;
    let run = rail_run(true, 250);
    let shot = run.shot;
    let victim = shot.hit.expect("a compensated hit");
    assert_eq!(shot.verdict, RailVerdict::Hit, "{shot:?}");
    assert_eq!(shot.bound_ticks, bound(250), "{shot:?}");
    assert!(shot.wanted_ticks > 6, "the shooter's latency: {shot:?}");
    assert_eq!(shot.wanted_ticks, shot.rewound_ticks, "{shot:?}");
    let rewound = shot.tick - u32::from(shot.rewound_ticks);
    assert_eq!(shot.tested_at, run.after.get(&rewound).copied(), "{shot:?}");
    assert_eq!(
        shot.present_at,
        run.began.get(&shot.tick).copied(),
        "{shot:?}"
    );
    assert_eq!(shot.nearest, None, "a hit names its victim: {shot:?}");
    let line = run.verdicts.last().expect("the lab's verdict");
    let ms = |ticks: u16| (f64::from(ticks) * 1000.0 / 60.0).round();
    let rewind = format!(
        "rewind {} ms (bound {})",
        ms(shot.wanted_ticks),
        ms(shot.bound_ticks)
    );
    assert!(line.contains(&rewind) && line.ends_with("· HIT"), "{line}");
    assert!(line.starts_with("rail stepper→target: "), "{line}");
    let _ = victim;

    let run = rail_run(true, 50);
    let shot = run.shot;
    assert_eq!(shot.hit, None, "{shot:?}");
    assert_eq!(shot.verdict, RailVerdict::PastBound, "{shot:?}");
    assert_eq!(shot.bound_ticks, bound(50), "{shot:?}");
    assert!(shot.wanted_ticks > shot.bound_ticks, "{shot:?}");
    assert_eq!(shot.rewound_ticks, 0, "{shot:?}");
    // Tested in the present: where the target was as the shot's tick began.
    let (_, tested, present) = shot.nearest.expect("the target nearest the beam");
    let now = run.began.get(&shot.tick).copied();
    assert_eq!((Some(tested), Some(present)), (now, now), "{shot:?}");
    let line = run.verdicts.last().expect("the lab's verdict");
    assert!(line.ends_with("· miss: past the bound"), "{line}");
    assert!(line.contains("nearest target at"), "{line}");

    // Compensation off: a plain miss, nothing past any bound.
    let run = rail_run(false, 250);
    assert_eq!(run.shot.verdict, RailVerdict::Miss, "{:?}", run.shot);
    assert_eq!(run.shot.bound_ticks, 0);
    let line = run.verdicts.last().expect("the lab's verdict");
    assert!(
        line.contains("compensation off") && line.ends_with("· miss"),
        "{line}"
    );
}

#[test]
fn a_minute_of_bots_on_every_map_ends_with_a_winner() {
    for name in Map::BUILTIN_NAMES {
        let map = Map::builtin(name).unwrap();
        let mut config = ServerConfig::new(map.clone());
        config.bots = 4;
        config.game.time_limit_secs = 60;
        let tick_rate = config.tick_rate;
        let mut server = Server::new(config);
        let mut now = Instant::now();
        let mut results = None;
        let mut frags = 0;
        let mut names = std::collections::HashMap::new();
        for _ in 0..(61 * u32::from(tick_rate)) {
            now += Duration::from_secs(1) / u32::from(tick_rate);
            server.tick(now);
            for e in server.take_events() {
                match e {
                    ServerEvent::Joined { id, name, .. } => {
                        names.insert(name, id);
                    }
                    ServerEvent::Frag { .. } => frags += 1,
                    ServerEvent::Results { lines, .. } => results = Some(lines),
                    _ => {}
                }
            }
            if results.is_some() {
                break;
            }
        }
        let lines = results.unwrap_or_else(|| panic!("{name}: the match never ended"));
        assert_eq!(lines.len(), 4, "{name}");
        let statuses = server.game().statuses();
        let total_frags: i32 = statuses.iter().map(|s| i32::from(s.frags)).sum();
        let total_deaths: i32 = statuses.iter().map(|s| i32::from(s.deaths)).sum();
        // Nobody can hit themselves, so every death is someone's frag.
        assert_eq!(total_frags, total_deaths, "{name}: {statuses:?}");
        assert_eq!(total_frags, frags, "{name}: every frag was reported");
        assert!(frags > 0, "{name}: the bots fought");

        // The results rank everyone, best first: most frags, then fewest deaths. The
        // first is the winner, the one with the most frags of all.
        let ranked: Vec<(u8, i16, u16)> = lines
            .iter()
            .map(|line| {
                let who = line.name.as_str();
                let id = *names
                    .get(who)
                    .unwrap_or_else(|| panic!("{name}: {who} never joined: {names:?}"));
                (id, line.frags, line.deaths)
            })
            .collect();
        for (id, f, d) in &ranked {
            let s = statuses.iter().find(|s| s.id == *id).unwrap();
            assert_eq!((s.frags, s.deaths), (*f, *d), "{name}: {lines:?}");
        }
        assert!(
            ranked
                .windows(2)
                .all(|w| (-w[0].1, w[0].2) <= (-w[1].1, w[1].2)),
            "{name}: best first: {lines:?}"
        );
        let most = statuses.iter().map(|s| s.frags).max().unwrap();
        let (winner, winner_frags, _) = ranked[0];
        assert_eq!(winner_frags, most, "{name}: the winner has the most frags");
        assert!(most > 0, "{name}: the winner #{winner} fragged someone");
    }
}

#[test]
fn names_and_chat_reach_others_without_control_characters() {
    let mut config = ServerConfig::new(open_map());
    config.game.time_limit_secs = 600;
    let mut server = Server::new(config);
    let now = Instant::now();
    let mallory: SocketAddr = "10.0.0.66:1".parse().unwrap();
    let alice: SocketAddr = "10.0.0.1:1".parse().unwrap();
    server
        .join_in_process(now, mallory, "\u{1b}[31mmal\u{7}lory\u{9b}2J")
        .unwrap();
    server.join_in_process(now, alice, "alice").unwrap();
    let mut buf = Vec::new();
    let evil = "hi \u{1b}[2J\u{1b}]0;owned\u{7} \u{9b}31m\r\nbye\u{0}";
    server
        .encode_in_process(mallory, &ClientMsg::Chat(evil.into()), &mut buf)
        .unwrap();
    server.receive(now, mallory, &buf);
    let mut chat = None;
    let mut names = Vec::new();
    for i in 0..30 {
        server.tick(now + Duration::from_millis(17 * i));
        for (to, msg) in server.take_outbox() {
            if to != alice {
                continue;
            }
            // Through the real codec, as alice's client would get it.
            codec::encode_server(&msg, &mut buf).unwrap();
            match codec::decode_server(&buf).unwrap() {
                ServerMsg::Snapshot(d) => {
                    for (_, e) in d.events {
                        if let GameEvent::Chat { text, .. } = e {
                            chat = Some(text);
                        }
                    }
                }
                ServerMsg::Roster(r) => names = r.entries.into_iter().map(|e| e.name).collect(),
                _ => {}
            }
        }
    }
    let chat = chat.expect("alice got the chat line");
    assert!(!chat.chars().any(char::is_control), "{chat:?}");
    assert!(chat.starts_with("hi ") && chat.ends_with("bye"), "{chat:?}");
    assert!(names.iter().any(|n| n.contains("mallory")), "{names:?}");
    for n in &names {
        assert!(!n.chars().any(char::is_control), "{n:?}");
    }
}

#[test]
fn a_finished_match_shows_results_then_the_next_map_reaches_clients() {
    let duel = Map::builtin("duel").unwrap();
    let mut config = ServerConfig::new(duel.clone());
    config.game.maps = vec![duel, Map::builtin("arena").unwrap()];
    config.game.time_limit_secs = 3;
    config.game.results_secs = 2;
    let mut s = Solo::with_config(config, lag(30, 0, 0.0), lag(30, 0, 0.0));
    s.run(Duration::from_millis(3500), |_| Buttons::empty());
    let results = s
        .client()
        .match_log()
        .results
        .as_ref()
        .expect("results are shown");
    assert_eq!(results.next_map, "arena");
    assert!(results.winner.is_some());
    assert_eq!(
        s.client().map().name(),
        "duel",
        "still on the old map during results"
    );
    s.run(Duration::from_millis(2500), |_| Buttons::empty());
    assert_eq!(s.client().map().name(), "arena", "the next map arrived");
    assert!(
        s.client().match_log().results.is_none(),
        "results cleared for the new match"
    );
    assert_eq!(
        s.client().map().text(),
        Map::builtin("arena").unwrap().text()
    );
    // And we play on it: the server put us back in the world.
    s.run(Duration::from_millis(500), |_| Buttons::RIGHT);
    assert!(s.client().server_state().is_some());
}

/// Two friends whose machines have the same login joined as two `ann`s: the scoreboard
/// and the kill feed could not tell them apart. The second is `ann-2`, a long name is
/// cut to make room for its number, and a name that is free stays as it was.
#[test]
fn a_name_already_in_the_game_gets_a_number() {
    let mut server = Server::new(ServerConfig::new(open_map()));
    let now = Instant::now();
    let long = "sixteen-letters!";
    for (i, name) in ["ann", "ann", "bob", "ann", long, long].iter().enumerate() {
        let addr: SocketAddr = format!("10.0.0.{}:1", i + 1).parse().unwrap();
        server.join_in_process(now, addr, name).unwrap();
    }
    let mut names = Vec::new();
    server.tick(now + Duration::from_millis(17));
    for (_, msg) in server.take_outbox() {
        if let ServerMsg::Roster(r) = msg {
            names = r.entries.into_iter().map(|e| e.name).collect();
        }
    }
    names.sort();
    assert_eq!(
        names,
        [
            "ann",
            "ann-2",
            "ann-3",
            "bob",
            "sixteen-letter-2",
            "sixteen-letters!"
        ]
    );
}
