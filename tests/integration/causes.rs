//! Every correction carries its cause, worked out by re-simulation. Solo scenarios
//! force each cause: a remote player stepping into the predicted path, a teleport by the
//! server. A burst of lost input longer than the redundancy window used to force
//! `commands_lost`; now it forces nothing (the client holds its commands).

use crate::support;

use std::collections::BTreeMap;
use std::time::Duration;

use netarena::sim::map::{CELL, Map};
use netarena::sim::world::{Buttons, PlayerState};
use support::{Solo, lag};

fn causes(s: &Solo) -> BTreeMap<String, u64> {
    s.client().stats().corrections_by_cause.clone()
}

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

/// Right for 20 commands, left for 20, and so on: never far from where it started.
fn back_and_forth() -> impl FnMut(&netarena::client::netcode::session::ClientSession) -> Buttons {
    let mut n = 0u32;
    move |_| {
        n += 1;
        if (n / 20).is_multiple_of(2) {
            Buttons::RIGHT
        } else {
            Buttons::LEFT
        }
    }
}

#[test]
fn a_teleport_is_the_servers_decision() {
    let mut s = Solo::new(
        Map::builtin("arena").unwrap(),
        0,
        lag(30, 0, 0.0),
        lag(30, 0, 0.0),
    );
    s.run(ms(1000), |_| Buttons::empty());
    assert_eq!(s.client().stats().corrections, 0);
    let me = s.client().player_id();
    let here = s.client().predicted().unwrap();
    let (x, y) = Map::builtin("arena").unwrap().spawns()[1];
    assert!(PlayerState::at_cell(x, y) != here);
    s.server_mut().teleport(me, PlayerState::at_cell(x, y));
    s.run(ms(1000), |_| Buttons::empty());
    assert_eq!(
        causes(&s),
        BTreeMap::from([("server_decision".into(), 1)]),
        "{}",
        s.client().stats().last_correction_cause
    );
    assert_eq!(
        s.client().stats().last_correction_cause,
        "server decision (teleport or respawn)"
    );
}

/// 1.5 s of every input packet lost was 90 commands, of which the window carried 64: the
/// server skipped 26 and the client snapped back (`commands_lost`). Now the client makes
/// no command past a round trip and a quarter second unacknowledged, so every command
/// it made still reaches the server: no correction at all.
#[test]
fn input_lost_beyond_the_redundancy_window_loses_no_command() {
    let mut s = Solo::new(
        Map::builtin("arena").unwrap(),
        0,
        lag(30, 0, 0.0),
        lag(30, 0, 0.0),
    );
    s.run(ms(500), |_| Buttons::empty());
    s.set_conditions(lag(30, 0, 100.0), lag(30, 0, 0.0));
    let mut keys = back_and_forth();
    s.run(ms(1500), &mut keys);
    assert!(s.client().pending_commands() <= 64);
    assert!(
        s.client().stats().commands_held > 50,
        "{:?}",
        s.client().stats()
    );
    s.set_conditions(lag(30, 0, 0.0), lag(30, 0, 0.0));
    s.run(ms(1000), keys);
    let by_cause = causes(&s);
    assert!(by_cause.is_empty(), "{by_cause:?}");
    assert!(
        s.client().pending_commands() <= 8,
        "{}",
        s.client().pending_commands()
    );
}

#[test]
fn a_player_stepping_into_the_predicted_path_is_named() {
    let mut s = Solo::new(
        Map::builtin("arena").unwrap(),
        0,
        lag(60, 0, 0.0),
        lag(60, 0, 0.0),
    );
    let now = s.now();
    let blocker = s
        .server_mut()
        .join_in_process(now, "10.0.0.3:5000".parse().unwrap(), "blocker")
        .unwrap()
        .player_id;
    s.run(ms(1000), |_| Buttons::empty());
    assert_eq!(s.client().stats().corrections, 0);
    // Open floor to the right of us: start moving, then the blocker steps in just
    // ahead of where the server has us, which our prediction cannot know for a round trip.
    let me = s.client().predicted().unwrap();
    let map = Map::builtin("arena").unwrap();
    let (cx, cy) = me.cell();
    let open = |dx: i32| !map.is_wall(cx + dx, cy);
    assert!((1..=5).all(open), "open floor to the right of the spawn");
    s.run(ms(100), |_| Buttons::RIGHT);
    let on_server = s.server().world().get(s.client().player_id()).unwrap();
    s.server_mut().teleport(
        blocker,
        PlayerState {
            x: on_server.x + CELL * 3 / 2,
            ..on_server
        },
    );
    s.run(ms(500), |_| Buttons::RIGHT);
    let by_cause = causes(&s);
    assert_eq!(
        by_cause,
        BTreeMap::from([("other_player".into(), 1)]),
        "{}",
        s.client().stats().last_correction_cause
    );
    assert_eq!(
        s.client().stats().last_correction_cause,
        "blocker was elsewhere than predicted"
    );
}
