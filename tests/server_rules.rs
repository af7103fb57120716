//! Server and CLI rules from issues 14 and 15, through the real binary where it is
//! about the command line.

mod support;

use std::net::SocketAddr;
use std::process::Stdio;
use std::time::{Duration, Instant};

use netarena::net::protocol::{ClientMsg, RosterEntry, ServerMsg};
use netarena::server::{Server, ServerConfig, ServerEvent};
use netarena::sim::map::Map;

use support::process::{BIN, start_server};

#[test]
fn join_without_a_terminal_never_reaches_the_server() {
    let server = start_server(&[]);
    let out = std::process::Command::new(BIN)
        .args(["join", &format!("127.0.0.1:{}", server.port)])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(stderr.contains("needs a terminal"), "{stderr}");
    assert!(stderr.contains("--headless"), "{stderr}");
    // The server saw nobody: no join line within a generous wait.
    let joined = server
        .lines
        .recv_timeout(Duration::from_millis(1500))
        .ok()
        .filter(|l| l.starts_with("join"));
    assert_eq!(joined, None);
}

/// Bots in the roster the server sends next (after one tick).
fn bots_playing(server: &mut Server, now: Instant) -> usize {
    server.tick(now);
    let rosters: Vec<Vec<RosterEntry>> = server
        .take_outbox()
        .filter_map(|(_, m)| match m {
            ServerMsg::Roster(r) => Some(r.entries),
            _ => None,
        })
        .collect();
    rosters
        .last()
        .expect("a roster")
        .iter()
        .filter(|e| e.bot)
        .count()
}

fn event_lines(server: &mut Server) -> Vec<ServerEvent> {
    server.take_events().collect()
}

#[test]
fn a_human_joining_a_server_full_of_bots_replaces_a_bot() {
    let mut config = ServerConfig::new(Map::builtin("arena").unwrap());
    config.max_players = 16;
    config.bots = 16;
    let mut server = Server::new(config);
    let now = Instant::now();
    assert_eq!(server.player_count(), 16);
    event_lines(&mut server);

    // The host (or anyone) gets a seat: the newest bot leaves for them.
    let host: SocketAddr = "127.0.0.1:4000".parse().unwrap();
    let welcome = server.join_in_process(now, host, "host");
    assert!(welcome.is_some(), "a server full of bots let nobody in");
    assert_eq!(server.player_count(), 16);
    assert_eq!(bots_playing(&mut server, now), 15);
    let events = event_lines(&mut server);
    assert!(
        events.iter().any(|e| matches!(e,
            ServerEvent::Left { name, reason, .. } if name == "bot-16" && reason.contains("room"))),
        "{events:?}"
    );

    // The human leaves: the bot comes back.
    let mut buf = Vec::new();
    netarena::net::codec::encode_client(&ClientMsg::Leave, &mut buf).unwrap();
    server.receive(now, host, &buf);
    assert_eq!(server.player_count(), 16);
    let events = event_lines(&mut server);
    assert!(
        events
            .iter()
            .any(|e| matches!(e, ServerEvent::Joined { name, from: None, .. } if name == "bot-16")),
        "{events:?}"
    );
}

#[test]
fn a_server_full_of_humans_still_refuses() {
    let mut config = ServerConfig::new(Map::builtin("duel").unwrap());
    config.max_players = 2;
    config.bots = 1;
    let mut server = Server::new(config);
    let now = Instant::now();
    let addr = |p: u16| SocketAddr::from(([127, 0, 0, 1], p));
    assert!(server.join_in_process(now, addr(1), "a").is_some());
    assert!(server.join_in_process(now, addr(2), "b").is_some());
    assert!(server.join_in_process(now, addr(3), "c").is_none());
    assert_eq!(server.player_count(), 2);
}

#[test]
fn server_with_bots_up_to_the_limit_lets_a_headless_client_in() {
    let server = start_server(&["--bots", "16", "--max-players", "16"]);
    let out = support::process::headless_join(server.port, "1")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        server
            .wait_for_line("made room", Duration::from_secs(3))
            .is_some()
    );
}
