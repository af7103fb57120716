//! One rulebook for both sides: everything the local player does (moving, switching
//! weapons, firing, freezing at the end of a match) is predicted exactly, because the
//! client runs the same `sim::step` as the server.

use crate::support;

use std::collections::HashMap;
use std::time::Duration;

use netarena::client::netcode::session::ClientSession;
use netarena::client::play::brain::Fighter;
use netarena::server::ServerConfig;
use netarena::sim::map::Map;
use netarena::sim::world::{Command, PlayerState};
use support::{Solo, lag};

/// A position in sub-cell units.
type Cell = (i32, i32);

fn fighter(seed: u64) -> impl FnMut(&ClientSession, std::time::Instant) -> Command {
    let mut brain = Fighter::new(seed);
    move |c, _| {
        c.predicted()
            .map_or_else(Command::default, |me| brain.next(&me))
    }
}

/// A solo client that moves, fires and switches weapons (firing as soon as each switch
/// allows) through a whole match, its end, the results screen and the next map, at
/// 100 ms one way with jitter and 5% loss: no misprediction of any kind.
#[test]
fn a_solo_fighter_is_predicted_exactly_through_a_whole_match_and_the_next() {
    let map = Map::builtin("arena").unwrap();
    let mut config = ServerConfig::new(map);
    config.game.maps.push(Map::builtin("duel").unwrap());
    config.game.time_limit_secs = 10;
    config.game.results_secs = 3;
    let mut s = Solo::with_config(config, lag(100, 20, 5.0), lag(100, 20, 5.0));
    let mut brain = fighter(4);
    let me = s.client().player_id();
    let (mut shots, mut ends) = (0, 0);
    for _ in 0..22 {
        s.run_commands(Duration::from_secs(1), &mut brain);
        for e in s.server_mut().take_events() {
            ends += usize::from(format!("{e:?}").starts_with("Results"));
        }
        shots = s
            .client()
            .combat()
            .own_shots()
            .iter()
            .filter(|o| o.confirmed)
            .count()
            .max(shots);
    }
    let stats = s.client().stats();
    assert_eq!(ends, 1, "the match ended once");
    assert_eq!(
        s.client().map().name(),
        "duel",
        "and the next began, on the next map"
    );
    assert!(
        shots > 3,
        "the fighter fired: {shots} confirmed shots at once"
    );
    assert!(stats.commands_sent > 1200, "{}", stats.commands_sent);
    assert_eq!(
        (stats.corrections, stats.fire_mispredictions),
        (0, 0),
        "corrections and fire mispredictions for a solo player: {stats:?}"
    );
    assert!(
        stats.server_decisions >= 2,
        "the freeze at the end and the new match are the server's decisions: {stats:?}"
    );
    assert!(s.server().game().statuses().iter().any(|st| st.id == me));
}

/// Decisions only the server makes (a teleport; a death and the respawn after it) are
/// counted as exactly that, never as mispredictions, and the prediction converges.
#[test]
fn forced_server_decisions_are_counted_apart_and_converge() {
    let map = Map::builtin("arena").unwrap();
    let far = map.spawns()[map.spawns().len() - 1];
    let mut s = Solo::new(map, 0, lag(60, 10, 0.0), lag(60, 10, 0.0));
    let mut brain = fighter(9);
    s.run_commands(Duration::from_secs(3), &mut brain);
    assert_eq!(s.client().stats().server_decisions, 0);
    let me = s.client().player_id();

    s.server_mut()
        .teleport(me, PlayerState::at_cell(far.0, far.1));
    s.run_commands(Duration::from_secs(2), &mut brain);
    assert_eq!(s.client().stats().server_decisions, 1, "the teleport");

    s.server_mut().kill(me);
    s.run_commands(Duration::from_secs(5), &mut brain);
    let stats = s.client().stats();
    assert_eq!(
        stats.server_decisions, 2,
        "the respawn after the death: {stats:?}"
    );
    assert_eq!(
        (stats.corrections, stats.fire_mispredictions),
        (0, 0),
        "{stats:?}"
    );
    // Converged: the newest snapshots agree with what was predicted for their seqs.
    let recent = &s.acks()[s.acks().len() - 20..];
    for &(_, ack, server) in recent {
        assert_eq!(s.predicted_at(ack), Some(server), "seq {ack}");
    }
}

/// Our own bolt appears the moment fire is pressed, flown by the shared projectile
/// code; when the server's copy arrives, both are on the same positions for every tick
/// of the flight, and the server's copy is never drawn beside ours.
#[test]
fn own_bolts_fly_where_the_servers_do_and_are_drawn_once() {
    let map = Map::builtin("arena").unwrap();
    let mut s = Solo::new(map, 0, lag(100, 0, 0.0), lag(100, 0, 0.0));
    let mut brain = fighter(2);
    s.run_commands(Duration::from_secs(1), &mut brain);
    let me = s.client().player_id();
    // The server's positions of each of our bolts, by its age in ticks (after the
    // tick it was fired in it is one step out).
    let mut server_paths: HashMap<(u16, u32), Vec<Cell>> = HashMap::new();
    // Ours, by the number of commands made since the one that fired it (keyed, once the
    // server confirmed it, by its id and the server's tick of birth: ids come round).
    let mut own_paths: HashMap<(u16, u32), Vec<(u32, Cell)>> = HashMap::new();
    let mut born: HashMap<u16, u32> = HashMap::new();
    let mut checked_frames = 0;
    for _ in 0..6000 {
        s.run_commands(Duration::from_millis(1), &mut brain);
        let tick = s.server().world().tick;
        for p in s
            .server()
            .game()
            .projectiles()
            .iter()
            .filter(|p| p.owner == me)
        {
            born.insert(p.id, p.born);
            let path = server_paths.entry((p.id, p.born)).or_default();
            let age = (tick - p.born) as usize;
            if path.len() < age {
                path.resize(age, (p.x, p.y));
            }
            path[age - 1] = (p.x, p.y);
        }
        let latest = s.client().latest_seq();
        for o in s.client().combat().own_shots() {
            if let (Some(pos), Some(born)) = (o.position(latest - o.seq), o.born()) {
                let path = own_paths.entry((o.shot.id, born)).or_default();
                path.push((latest - o.seq, pos));
            }
        }
        // Drawn once: every server copy of our bolts the client holds is one it
        // predicted (the drawing skips those in favour of the prediction).
        for f in s
            .client()
            .combat()
            .flights()
            .iter()
            .filter(|f| f.shot.owner == me)
        {
            assert!(
                s.client()
                    .combat()
                    .own_shots()
                    .iter()
                    .any(|o| o.shot.id == f.shot.id),
                "bolt {} came from the server without a prediction: drawn twice or late",
                f.shot.id
            );
            checked_frames += 1;
        }
    }
    assert!(
        checked_frames > 100,
        "server copies were seen: {checked_frames}"
    );
    let mut compared = 0;
    for (id, own) in &own_paths {
        let Some(server) = server_paths.get(id) else {
            continue;
        };
        for &(commands, pos) in own {
            // After the command that fired it plus `commands` more, the bolt has moved
            // `commands + 1` times: the server's position after that many ticks.
            if let Some(&theirs) = server.get(commands as usize) {
                assert_eq!(pos, theirs, "bolt {id:?} after {commands} more commands");
                compared += 1;
            }
        }
    }
    assert!(
        compared > 200 && born.len() > 5,
        "compared {compared} positions of {} bolts",
        born.len()
    );
    assert_eq!(s.client().stats().fire_mispredictions, 0);
}

/// The whole program over loopback UDP: a dedicated server whose match ends after 10 s,
/// and a headless fighter for 25 s through 100 ms of lag each way, jitter and 5% loss.
#[test]
#[ignore = "slow tier: .ci/run runs it with --ignored"]
fn a_headless_fighter_over_udp_has_no_misprediction_through_a_match_end() {
    use support::process::{finish, headless_join, num, start_server, temp_report};
    let server = start_server(&["--time-limit", "10"]);
    let report = temp_report("fighter");
    let child = headless_join(server.port, "25")
        .args([
            "--bot", "fighter", "--lag", "100", "--jitter", "20", "--loss", "5",
        ])
        .arg("--report")
        .arg(&report)
        .spawn()
        .expect("client starts");
    let r = finish(child, report);
    assert!(num(&r, "commands_sent") > 1000.0, "{r}");
    assert_eq!(num(&r, "corrections"), 0.0, "{r}");
    assert_eq!(num(&r, "fire_mispredictions"), 0.0, "{r}");
    assert!(
        num(&r, "server_decisions") >= 2.0,
        "the match end and the next match: {r}"
    );
}
