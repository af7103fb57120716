//! The match keeps one body per player, and the world's positions are its index: after
//! joins, moves, shots, deaths, respawns, decrees and a new map, every body in play is
//! where the world says, and no one else is in the world.

use super::{Match, MatchConfig};
use netarena_net::protocol::GameEvent;
use netarena_sim::map::Map;
use netarena_sim::world::{Buttons, Command, PlayerState, World};

fn assert_world_indexes_bodies(game: &Match, world: &World) {
    for (id, p) in &game.players {
        let in_world = world.get(*id);
        if p.alive {
            assert_eq!(
                in_world,
                Some(p.body.state),
                "player {id}'s body and the world"
            );
        } else {
            assert_eq!(in_world, None, "player {id} is dead but in the world");
        }
    }
    for (id, _) in world.players() {
        assert!(
            game.players.contains_key(id),
            "player {id} is in the world only"
        );
    }
}

#[test]
fn the_world_is_an_index_of_the_bodies_in_play() {
    let map = Map::builtin("duel").expect("duel is built in");
    let mut config = MatchConfig::new(map);
    config.time_limit_secs = 10;
    config.results_secs = 1;
    let mut game = Match::new(config, 60, 3);
    let mut world = World::default();
    let mut events: Vec<GameEvent> = Vec::new();
    game.start(0);
    for id in 0..3 {
        let at = world.spawn_point(game.map(), id);
        game.join(id, at, 0, &mut world);
    }
    assert_world_indexes_bodies(&game, &world);
    let walk = |tick: u32| Command {
        buttons: if tick % 90 < 45 {
            Buttons::RIGHT
        } else {
            Buttons::LEFT
        },
        weapon: 1,
        aim: (tick / 30 % 8) as u8,
    };
    let mut seq = [0u32; 3];
    let mut deaths = 0;
    for tick in 0..2_000 {
        for id in 0..3u8 {
            seq[id as usize] += 1;
            let mut cmd = walk(tick + u32::from(id) * 17);
            cmd.buttons.set(Buttons::FIRE, tick % 7 == 0);
            game.command(
                id,
                seq[id as usize],
                cmd,
                tick,
                tick,
                &mut world,
                &mut events,
            );
        }
        if tick == 500 {
            game.kill(2, tick, &mut events);
        }
        if tick == 700 {
            game.place(1, PlayerState::at_cell(3, 3), &mut world);
        }
        game.step(tick, &mut world, &mut events);
        world.tick = tick + 1;
        assert_world_indexes_bodies(&game, &world);
        deaths = game
            .players
            .values()
            .map(|p| u32::from(p.deaths))
            .sum::<u32>()
            .max(deaths);
    }
    // The run went through the cases the index must survive.
    assert!(deaths > 0, "nobody died");
    assert!(
        events
            .iter()
            .any(|e| matches!(e, GameEvent::MatchEnd { .. })),
        "no match ended"
    );
    game.leave(0, &mut world);
    assert_world_indexes_bodies(&game, &world);
    assert_eq!(world.get(0), None);
}

/// The server's bolts at 20, 60 and 128 Hz (issue 23, article 5's sub-steps): one shot
/// east, with a player walking south across its line just as the bolt passes, another
/// crossing a cell and a half ahead of it, and a third standing behind. At every rate
/// the bolt passes the early walker and hits the one on time; without it, the one
/// behind.
#[test]
fn a_bolt_hits_the_same_walker_at_every_tick_rate() {
    use netarena_sim::map::CELL;
    let mut rows = vec!["#".repeat(40)];
    for y in 1..16 {
        let spawn = if y == 1 { "S" } else { "." };
        rows.push(format!("#{spawn}{}#", ".".repeat(37)));
    }
    rows.push("#".repeat(40));
    let map = Map::parse("room", &rows.join("\n")).unwrap();
    let from = PlayerState::at_cell(2, 8);
    // Ticks of walking (at 9 cells/s) before the bolt (24 cells/s) flying east from
    // `from` meets column `cx`'s player: as sub-cell units walked.
    let walked = |cx: i32| (cx * CELL + CELL / 2 - CELL * 45 / 100 - from.x) * 9 / 24;
    let on_time = PlayerState::at_cell(14, 8);
    let on_time = PlayerState {
        y: on_time.y - walked(14),
        ..on_time
    };
    let early = PlayerState::at_cell(10, 8);
    let early = PlayerState {
        y: early.y - walked(10) - 3 * CELL / 2,
        ..early
    };
    let behind = PlayerState::at_cell(20, 8);
    let run = |rate: u16, walkers: &[(u8, PlayerState)]| {
        let mut game = Match::new(MatchConfig::new(map.clone()), rate, 3);
        let mut world = World::default();
        let mut events: Vec<GameEvent> = Vec::new();
        game.start(0);
        game.join(0, from, 0, &mut world);
        game.join(3, behind, 0, &mut world);
        for &(id, at) in walkers {
            game.join(id, at, 0, &mut world);
        }
        for tick in 0..u32::from(rate) * 2 {
            let fire = Command {
                buttons: if tick == 0 {
                    Buttons::FIRE
                } else {
                    Buttons::empty()
                },
                weapon: 0,
                aim: 0,
            };
            game.command(0, tick + 1, fire, tick, tick, &mut world, &mut events);
            for &(id, _) in walkers {
                let south = Command {
                    buttons: Buttons::DOWN,
                    weapon: 0,
                    aim: 2,
                };
                game.command(id, tick + 1, south, tick, tick, &mut world, &mut events);
            }
            game.step(tick, &mut world, &mut events);
            world.tick = tick + 1;
        }
        events
            .iter()
            .find_map(|e| match e {
                GameEvent::ShotEnd { hit, .. } => Some(*hit),
                _ => None,
            })
            .flatten()
    };
    for rate in [20u16, 60, 128] {
        assert_eq!(
            run(rate, &[(2, early), (1, on_time)]),
            Some(1),
            "{rate} Hz: the walker on time"
        );
        assert_eq!(
            run(rate, &[(2, early)]),
            Some(3),
            "{rate} Hz: past the early walker to the one behind"
        );
    }
}

/// A room 30 cells long, open from wall to wall.
fn long_room() -> Map {
    let wall = "#".repeat(32);
    let row = |s: char| format!("#{s}{}{s}#", ".".repeat(28));
    let rows = [wall.clone(), row('S'), row('.'), row('S'), wall];
    Map::parse("long room", &rows.join("\n")).expect("a valid room")
}

/// A blaster bolt fired east from cell (2, 2) on tick 0 at 60 Hz, a player standing at
/// `target`, the tick rate changed to `rate` on each `(tick, rate)` of `changes`: whom
/// it hit, and how long after the shot in seconds (the end of the tick it hit on).
fn bolt_across(target: PlayerState, changes: &[(u32, u16)]) -> (Option<u8>, f64) {
    let mut game = Match::new(MatchConfig::new(long_room()), 60, 3);
    let (mut world, mut events) = (World::default(), Vec::new());
    game.start(0);
    game.join(0, PlayerState::at_cell(2, 2), 0, &mut world);
    game.join(1, target, 0, &mut world);
    let fire = Command {
        buttons: Buttons::FIRE,
        weapon: 0,
        aim: 0,
    };
    let (mut rate, mut secs) = (60.0, 0.0);
    for tick in 0..200 {
        if let Some(&(_, r)) = changes.iter().find(|(t, _)| *t == tick) {
            game.set_tick_rate(r, 1, tick);
            rate = f64::from(r);
        }
        if tick == 0 {
            game.command(0, 1, fire, 0, 0, &mut world, &mut events);
        }
        game.step(tick, &mut world, &mut events);
        world.tick = tick + 1;
        secs += 1.0 / rate;
        if let Some(hit) = events.iter().find_map(|e| match e {
            GameEvent::ShotEnd { hit, .. } => Some(*hit),
            _ => None,
        }) {
            return (hit, secs);
        }
        if tick > 0 && game.projectiles.is_empty() {
            return (None, secs);
        }
    }
    panic!("the bolt flew for 200 ticks");
}

/// A bolt in flight when the tick rate changes keeps the sub-steps it has flown and
/// flies on at the new rate's pace: it hits what it hits at a steady 60 Hz, as soon
/// (within a tick of the slower rate), and passes what it passes. Counted from its
/// birth tick at the new rate, a bolt at 60 Hz turned to 30 Hz 0.2 s into its flight
/// jumped 0.2 s ahead (4.8 cells) unchecked, through the target 6 cells off.
#[test]
fn a_bolt_in_flight_across_tick_rate_changes_hits_the_same() {
    let cell = |c: i32| c * netarena_sim::map::CELL + netarena_sim::map::CELL / 2;
    let at = |x: i32, dy: i32| PlayerState {
        x: cell(x),
        y: cell(2) + dy,
        ..PlayerState::default()
    };
    let changes = [(12, 30), (15, 128), (40, 10), (42, 60)];
    for target in [at(8, 0), at(10, 0), at(14, 100), at(20, 0)] {
        let (steady_hit, steady) = bolt_across(target, &[]);
        let (hit, secs) = bolt_across(target, &changes);
        assert_eq!(steady_hit, Some(1), "the steady bolt hits at {}", target.x);
        assert_eq!(hit, steady_hit, "the same hit with the rate changed");
        assert!(
            (secs - steady).abs() <= 1.0 / 30.0 + 1e-9,
            "{secs} s, steady {steady} s"
        );
    }
    // A near miss, 0.5 cells off the bolt's line, stays a miss.
    let off = at(8, netarena_sim::map::CELL / 2);
    assert_eq!(bolt_across(off, &[]).0, None);
    assert_eq!(bolt_across(off, &changes).0, None);
}

/// What the match counts in ticks keeps its time across tick-rate changes: with a 4 s
/// time limit, 2 s of results and a 2 s respawn, a death 1.5 s in at 60 Hz, the rate
/// turned to 30 Hz 2 s in and to 128 Hz 1 s into the results: the respawn comes 3.5 s
/// in, the match ends 4 s in and the next one starts 6 s in. Counted in ticks of the
/// old rate, each came at another time.
#[test]
fn match_timers_keep_their_time_across_tick_rate_changes() {
    let mut config = MatchConfig::new(long_room());
    config.time_limit_secs = 4;
    config.results_secs = 2;
    let mut game = Match::new(config, 60, 3);
    let (mut world, mut events) = (World::default(), Vec::new());
    game.start(0);
    game.join(0, PlayerState::at_cell(2, 1), 0, &mut world);
    game.join(1, PlayerState::at_cell(20, 3), 0, &mut world);
    let (mut rate, mut secs) = (60.0, 0.0);
    let mut seen = Vec::new();
    for tick in 0..1000 {
        if tick == 120 {
            game.set_tick_rate(30, 1, tick);
            rate = 30.0;
        }
        if rate == 30.0 && game.in_results() && secs >= 5.0 - 1e-9 {
            game.set_tick_rate(128, 1, tick);
            rate = 128.0;
        }
        if tick == 90 {
            game.kill(1, tick, &mut events);
        }
        events.clear();
        game.step(tick, &mut world, &mut events);
        world.tick = tick + 1;
        secs += 1.0 / rate;
        for e in &events {
            match e {
                GameEvent::Status(s) if s.id == 1 && s.alive => seen.push(("respawn", secs)),
                GameEvent::MatchEnd { .. } => seen.push(("end", secs)),
                GameEvent::MatchStart { .. } => seen.push(("start", secs)),
                _ => {}
            }
        }
        if seen.iter().any(|(w, _)| *w == "start") {
            break;
        }
    }
    let at = |what: &str| seen.iter().find(|(w, _)| *w == what).map(|(_, s)| *s);
    let near = |a: Option<f64>, b: f64| a.is_some_and(|a| (a - b).abs() <= 1.0 / 30.0 + 1e-9);
    assert!(near(at("respawn"), 3.5), "{seen:?}");
    assert!(near(at("end"), 4.0), "{seen:?}");
    assert!(near(at("start"), 6.0), "{seen:?}");
}
