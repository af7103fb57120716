//! Recordings replay exactly, checked against what the live session itself reported:
//! every client of a headless lab run, the two keyboard clients of the lab in a real
//! terminal, and a game played in a real terminal (`host`) over a lossy, laggy link.
//! `replay FILE --headless --report R` must give the live report field for field (how
//! the session ended aside, which a recording does not hold) and warn of nothing.
//!
//! The terminal tests need tmux (see `support/tmux.rs`).

use crate::support;
use crate::support::tmux as term;

use std::net::UdpSocket;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::thread::sleep;
use std::time::Duration;

use netarena::record::format::Record;
use netarena::record::replay::open;
use serde_json::Value;
use support::process::{BIN, num, temp_report};
use term::{Tmux, game_script, quit_and_check_terminal};

/// A fast auto-repeat: the interval between presses when "holding" a key.
const REPEAT: Duration = Duration::from_millis(30);

/// A recording's path for this test process.
fn recording(name: &str) -> PathBuf {
    temp_report(name).with_extension("narec")
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).expect("a JSON report")
}

/// `replay FILE --headless --report`: the re-run's report. It must succeed and say
/// nothing (no divergence warning, no cut-short file).
fn replayed(file: &Path) -> Value {
    let report = temp_report(&format!(
        "replayed-{}",
        file.file_stem().unwrap().to_string_lossy()
    ));
    let out = Command::new(BIN)
        .arg("replay")
        .arg(file)
        .args(["--headless", "--report"])
        .arg(&report)
        .output()
        .expect("replay runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "replay failed: {stderr}");
    assert_eq!(stderr, "", "an exact re-run warns of nothing");
    let json = read_json(&report);
    let _ = std::fs::remove_file(&report);
    json
}

/// Checks that the replay of `file` reports what the live session reported, every
/// field of the client's report but `ended` and `path_mtu` (the path's size the join
/// learnt), which the recording does not hold; the live one ended as `ended`.
/// `live` may hold more (the lab adds its per-client fields): only the replay's
/// fields are compared, and all of them must be there.
fn assert_replays_to(file: &Path, live: &Value, ended: &str) {
    assert_eq!(live["ended"], ended, "{live}");
    let replay = replayed(file);
    let fields = replay.as_object().expect("a report is an object");
    assert!(fields.len() >= 20, "{replay}");
    for (key, value) in fields {
        if key != "ended" && key != "path_mtu" {
            assert_eq!(
                &live[key],
                value,
                "{}: {key} live and replayed\nlive: {live}\nreplayed: {replay}",
                file.display()
            );
        }
    }
}

/// What a played recording holds besides datagrams: keys records, how many of them held
/// a key, the terminal size it gives first, and the dial turns (settings records).
struct Played {
    keys: usize,
    held: usize,
    size: Option<(u16, u16)>,
    dials: usize,
}

fn played(file: &Path) -> Played {
    let (_, reader) = open(file).unwrap();
    let mut p = Played {
        keys: 0,
        held: 0,
        size: None,
        dials: 0,
    };
    for record in reader {
        match record.unwrap() {
            Record::Keys { buttons, .. } => {
                p.keys += 1;
                p.held += usize::from(buttons.bits() != 0);
            }
            Record::Size(w, h) if p.size.is_none() => p.size = Some((w, h)),
            Record::Settings { .. } => p.dials += 1,
            _ => {}
        }
    }
    p
}

#[test]
fn every_client_of_a_headless_lab_run_replays_to_its_lab_figures() {
    let file = recording("lab-headless");
    let report = temp_report("lab-headless");
    let out = Command::new(BIN)
        .args(["lab", "--headless", "--seconds", "10", "--seed", "4"])
        .args(["--clients", "3", "--bots", "2", "--record"])
        .arg(&file)
        .arg("--report")
        .arg(&report)
        .output()
        .expect("lab runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lab = read_json(&report);
    let _ = std::fs::remove_file(&report);
    let clients = lab["clients"].as_array().unwrap();
    assert_eq!(clients.len(), 3);
    let stem = file.file_stem().unwrap().to_string_lossy().into_owned();
    for (n, client) in clients.iter().enumerate() {
        let name = file.with_file_name(format!("{stem}-{}.narec", n + 1));
        assert_eq!(client["recording"], name.display().to_string(), "{client}");
        // A client that played: commands, snapshots, the bots and the other clients.
        assert!(num(client, "commands_sent") > 500.0, "{client}");
        assert!(num(client, "snapshots_received") > 150.0, "{client}");
        assert_eq!(client["remote_players"].as_array().unwrap().len(), 4);
        assert_replays_to(&name, client, "time up");
        let _ = std::fs::remove_file(&name);
    }
    // The bad link loses datagrams (input packets, with this seed, and no snapshot)
    // and mispredicts: the replay has to get those right.
    let lost = num(&clients[0], "snapshots_lost") + num(&clients[0]["link_up"], "dropped");
    assert!(lost > 0.0, "{}", clients[0]);
    assert!(num(&clients[0], "corrections") > 0.0, "{}", clients[0]);
    // The whole lab, in `file` itself, replays to the lab's report, every field.
    assert_eq!(replayed(&file), lab, "the whole lab replayed");
    let _ = std::fs::remove_file(&file);
}

/// A UDP port nobody is using right now.
fn free_port() -> u16 {
    let socket = UdpSocket::bind("127.0.0.1:0").expect("cannot bind a UDP socket");
    socket.local_addr().expect("no local address").port()
}

/// Presses each of `keys` (tmux names) `times` times, a [`REPEAT`] apart.
fn press(tmux: &Tmux, keys: &[&str], times: usize) {
    for key in keys {
        for _ in 0..times {
            tmux.key(key);
            sleep(REPEAT);
        }
    }
}

#[test]
#[ignore = "slow tier: .ci/run runs it with --ignored"]
fn a_game_played_in_a_terminal_replays_to_its_live_report() {
    let port = free_port();
    let file = recording("played");
    let report = temp_report("played");
    let tmux = Tmux::start(
        "replay-exact-host",
        100,
        30,
        &game_script(&format!(
            "host --port {port} --bots 2 --bot-skill 1 --map duel --name tester \
             --lag 40 --jitter 10 --loss 5 --seed 3 --record '{}' --report '{}'",
            file.display(),
            report.display()
        )),
    );
    tmux.wait_for_text("RTT");
    // Walk about and fire both weapons, switch prediction off and on, for a few seconds.
    press(&tmux, &["d", "s", "Space"], 12);
    press(&tmux, &["2"], 1);
    press(&tmux, &["a", "Space", "w"], 12);
    press(&tmux, &["p"], 1);
    // Two of the player's dials turned mid-game: the interpolation delay, the input rate.
    press(&tmux, &["[", "k", "["], 1);
    press(&tmux, &["d", "s"], 10);
    press(&tmux, &["p", "1"], 1);
    press(&tmux, &["Space", "a"], 10);
    quit_and_check_terminal(&tmux, "q", true);
    drop(tmux);

    let live = read_json(&report);
    let _ = std::fs::remove_file(&report);
    assert!(num(&live, "commands_sent") > 150.0, "{live}");
    assert!(num(&live, "snapshots_received") > 40.0, "{live}");
    let p = played(&file);
    assert!(
        p.held > 20,
        "{} of {} keys records hold a key",
        p.held,
        p.keys
    );
    assert_eq!(p.size, Some((100, 30)), "the terminal's size is recorded");
    assert_eq!(p.dials, 2, "each dial turned is recorded");
    assert_replays_to(&file, &live, "quit");
    let _ = std::fs::remove_file(&file);
}

#[test]
#[ignore = "slow tier: .ci/run runs it with --ignored"]
fn both_keyboard_clients_of_the_terminal_lab_replay_to_its_report() {
    let whole = recording("lab-terminal");
    let client = |n: usize| {
        let stem = whole.file_stem().unwrap().to_string_lossy().into_owned();
        whole.with_file_name(format!("{stem}-{n}.narec"))
    };
    let (file, second) = (client(1), client(2));
    let report = temp_report("lab-terminal");
    let tmux = Tmux::start(
        "replay-exact-lab",
        160,
        45,
        &game_script(&format!(
            "lab --walkers 1 --seed 3 --record '{}' --report '{}'",
            whole.display(),
            report.display()
        )),
    );
    tmux.wait_for_text("client 2");
    // Client 1 on WASD and space, client 2 on the arrows and Enter; a switch for each.
    press(&tmux, &["d", "Right", "s", "Down", "Space", "Enter"], 8);
    press(&tmux, &["g", "Tab", "p"], 1);
    // Dials: client 2's input rate and interpolation delay, then the server's snapshot
    // rate, which reaches both clients.
    press(&tmux, &["k", "[", "k", "[", "K", "K", "["], 1);
    press(&tmux, &["a", "Left", "w", "Up"], 8);
    press(&tmux, &["p"], 1);
    press(&tmux, &["Space", "Enter"], 6);
    quit_and_check_terminal(&tmux, "q", true);
    let history = tmux.history();
    drop(tmux);
    for (n, f) in [(1, &file), (2, &second)] {
        let line = format!("client {n} recorded to {}", f.display());
        assert!(history.contains(&line), "{line:?} not said:\n{history}");
    }
    let line = format!("the whole lab recorded to {}", whole.display());
    assert!(history.contains(&line), "{line:?} not said:\n{history}");

    let lab = read_json(&report);
    let _ = std::fs::remove_file(&report);
    for (n, f) in [(0, &file), (1, &second)] {
        let client = &lab["clients"][n];
        assert!(num(client, "commands_sent") > 60.0, "{client}");
        let p = played(f);
        assert!(p.held > 20, "client {}: {} of {}", n + 1, p.held, p.keys);
        assert_eq!(p.size, Some((160, 45)), "the lab's terminal");
        // Client 2: its two dials and the snapshot rate; client 1 the snapshot rate.
        assert_eq!(p.dials, [1, 3][n], "client {}'s dials", n + 1);
        assert_replays_to(f, client, "quit");
        let _ = std::fs::remove_file(f);
    }
    // The whole lab, keys, switches and frames at the terminal's own times, replays to
    // the lab's report exactly.
    assert_eq!(replayed(&whole), lab, "the whole lab replayed");
    let _ = std::fs::remove_file(&whole);
}
