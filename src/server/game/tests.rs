//! The match keeps one body per player, and the world's positions are its index: after
//! joins, moves, shots, deaths, respawns, decrees and a new map, every body in play is
//! where the world says, and no one else is in the world.

use super::{Match, MatchConfig};
use crate::net::protocol::GameEvent;
use crate::sim::map::Map;
use crate::sim::world::{Buttons, Command, PlayerState, World};

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
