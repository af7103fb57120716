//! Server and CLI rules from issues 14 and 15, through the real binary where it is
//! about the command line.

use crate::support;

use std::net::SocketAddr;
use std::process::Stdio;
use std::time::{Duration, Instant};

use netarena::client::play::brain::Reflex;
use netarena::net::protocol::{ClientMsg, InputPacket, RosterEntry, ServerMsg};
use netarena::server::{Server, ServerConfig, ServerEvent};
use netarena::sim::combat::{PROTECT_MAX_MS, PROTECT_READING_MAX_MS};
use netarena::sim::map::Map;
use netarena::sim::world::{Buttons, Command};

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
    server
        .encode_in_process(host, &ClientMsg::Leave, &mut buf)
        .unwrap();
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

fn input(seq: u32, cmd: Command) -> ClientMsg {
    ClientMsg::Input(InputPacket::pack(0, seq, 0, [(seq, cmd)]))
}

fn protected(server: &Server, id: u8) -> bool {
    let s = server.game().statuses();
    s.iter().find(|s| s.id == id).expect("playing").protected
}

#[test]
fn spawn_protection_lasts_until_the_first_move_or_shot_with_a_cap() {
    let mut server = Server::new(ServerConfig::new(Map::builtin("duel").unwrap()));
    let mut now = Instant::now();
    let a: SocketAddr = "10.0.0.1:1000".parse().unwrap();
    let b: SocketAddr = "10.0.0.2:1000".parse().unwrap();
    let ida = server.join_in_process(now, a, "a").unwrap().player_id;
    let idb = server.join_in_process(now, b, "b").unwrap().player_id;
    let tick = Duration::from_secs(1) / 60;
    let step = |server: &mut Server, now: &mut Instant, n: u32| {
        for _ in 0..n {
            *now += tick;
            server.tick(*now);
        }
    };
    step(&mut server, &mut now, 30);
    assert!(protected(&server, ida) && protected(&server, idb));

    // Aiming (no button) keeps it; the first step ends it.
    let mut buf = Vec::new();
    let aim_only = Command {
        aim: 3,
        ..Command::default()
    };
    for (seq, (who, cmd)) in [(b, aim_only), (a, Command::moving(Buttons::RIGHT))]
        .into_iter()
        .enumerate()
    {
        server
            .encode_in_process(who, &input(seq as u32 + 1, cmd), &mut buf)
            .unwrap();
        server.receive(now, who, &buf);
    }
    step(&mut server, &mut now, 5);
    assert!(!protected(&server, ida), "moving ends protection");
    assert!(protected(&server, idb), "aiming does not");

    // Standing still, it ends at the cap: 3 s after spawning.
    let cap = PROTECT_MAX_MS * 60 / 1000;
    step(&mut server, &mut now, cap - 35 - 2);
    assert!(protected(&server, idb));
    step(&mut server, &mut now, 4);
    assert!(!protected(&server, idb), "the cap ends protection");
}

/// The measure of a fair first minute: a weak bot (skill 1: 700 ms reactions, 37% of
/// shots off by an eighth), standing in for a newcomer, against three bots of the
/// default skill on the default map, over 60 s, for several seeds.
#[test]
fn a_newcomer_scores_in_the_first_minute_against_default_bots() {
    let mut firsts = Vec::new();
    let mut deaths_all = Vec::new();
    let mut frags_all = Vec::new();
    for seed in 1..=6 {
        let mut config = ServerConfig::new(Map::builtin("arena").unwrap());
        config.bots = 3;
        config.seed = seed;
        if let Ok(v) = std::env::var("NEWCOMER_TEST_SKILL") {
            config.bot_skill = v.parse().unwrap();
        }
        let skill = config.bot_skill;
        let mut server = Server::new(config);
        server.add_bot("newcomer", 1, seed * 77).unwrap();
        let mut now = Instant::now();
        let (mut first, mut deaths, mut frags, mut died) = (None, 0, 0, None);
        for t in 0..60 * 60 {
            now += Duration::from_secs(1) / 60;
            server.tick(now);
            server.take_outbox().for_each(drop);
            for e in server.take_events() {
                if let ServerEvent::Frag { killer, victim, .. } = e {
                    if victim == "newcomer" {
                        deaths += 1;
                        died.get_or_insert(f64::from(t) / 60.0);
                    } else if killer == "newcomer" {
                        frags += 1;
                        first.get_or_insert(f64::from(t) / 60.0);
                    }
                }
            }
        }
        println!(
            "seed {seed}: default skill {skill}: newcomer's first frag at {first:?} s, first death at {died:?} s, {frags} frags, {deaths} deaths in 60 s"
        );
        firsts.push(first);
        deaths_all.push(deaths);
        frags_all.push(frags);
    }
    let scored = firsts.iter().filter(|f| f.is_some()).count();
    assert!(
        scored >= 5,
        "the newcomer scored in only {scored} of 6 minutes: {firsts:?}"
    );
    // 8 a minute at the default skill (a fair share of a four-player free-for-all);
    // skill 5 bots kill it 9 to 12 times (NEWCOMER_TEST_SKILL=5 to compare).
    let deaths: u32 = deaths_all.iter().sum();
    assert!(deaths <= 51, "{deaths_all:?} deaths per minute");
}

/// Seconds alive, life by life, of a newcomer who joins a match against three bots of
/// the default skill and stands still reading the screen (a human's first seconds).
fn idle_newcomer_lives(seed: u64, secs: u32) -> Vec<f64> {
    let mut config = ServerConfig::new(Map::builtin("arena").unwrap());
    config.bots = 3;
    config.seed = seed;
    config.client_timeout = Duration::from_secs(3600);
    let mut server = Server::new(config);
    let mut now = Instant::now();
    let addr: SocketAddr = "10.0.0.9:1000".parse().unwrap();
    server.join_in_process(now, addr, "newcomer").unwrap();
    let (mut lives, mut born) = (Vec::new(), 0.0);
    for t in 1..=secs * 60 {
        now += Duration::from_secs(1) / 60;
        server.tick(now);
        server.take_outbox().for_each(drop);
        let at = f64::from(t) / 60.0;
        for e in server.take_events() {
            if matches!(e, ServerEvent::Frag { ref victim, .. } if victim == "newcomer") {
                lives.push(at - born);
                // Back after the respawn delay.
                born = at + 2.0;
            }
        }
    }
    lives
}

/// A newcomer who stands still at the start of each life (reading the screen, finding
/// the keys) was fragged about 4 s into the match: the bots had lined up on it while
/// it was protected and fired the moment the protection's cap ran out.
#[test]
fn a_newcomer_standing_still_is_not_fragged_the_moment_protection_ends() {
    let mut firsts = Vec::new();
    let mut all = Vec::new();
    for seed in 1..=6 {
        let lives = idle_newcomer_lives(seed, 60);
        println!("seed {seed}: an idle newcomer's lives: {lives:.1?}");
        firsts.push(lives.first().copied().unwrap_or(60.0));
        all.extend(lives);
    }
    let mean = all.iter().sum::<f64>() / all.len().max(1) as f64;
    println!(
        "first deaths {firsts:.1?}; {} deaths in 6 minutes, mean life {mean:.1} s",
        all.len()
    );
    // Camping the protected newcomer: first deaths at 4.0 to 5.2 s, lives of 5.8 s on
    // average. Left alone while protected: 9.0 to 10.6 s, and 9.9 s.
    assert!(
        firsts.iter().all(|t| *t > 7.0),
        "fragged soon after the protection's cap: {firsts:.1?}"
    );
    assert!(mean > 8.0, "an idle newcomer lives {mean:.1} s on average");
}

/// Every frag of a seeded match of `secs` simulated seconds, over a 10 ms link, in which
/// the client is [`Reflex::newcomer`], the stand-in for a newcomer (it reads `?` help
/// for 8 s first), against `host --bots 3` at the default skill on the default map:
/// (second, killer, victim).
fn stand_in_match(seed: u64, secs: u32) -> Vec<(f64, String, String)> {
    let mut config = ServerConfig::new(Map::builtin("arena").unwrap());
    config.bots = 3;
    config.seed = seed;
    let tick_rate = config.tick_rate;
    let mut solo =
        support::Solo::with_config(config, support::lag(10, 2, 0.0), support::lag(10, 2, 0.0));
    let mut brain = Reflex::newcomer(seed, tick_rate);
    let mut frags = Vec::new();
    for second in 0..secs {
        solo.run_commands(Duration::from_secs(1), |s, now| brain.next(s, now));
        for e in solo.server_mut().take_events() {
            if let ServerEvent::Frag { killer, victim, .. } = e {
                frags.push((f64::from(second + 1), killer, victim));
            }
        }
    }
    frags
}

/// The stand-in's frags and deaths in `frags`.
fn stand_in_score(frags: &[(f64, String, String)]) -> (usize, usize) {
    let mine = frags.iter().filter(|(_, k, _)| k == support::NAME).count();
    let died = frags.iter().filter(|(_, _, v)| v == support::NAME).count();
    (mine, died)
}

/// The first minute of a newcomer with quick hands: the [`Reflex`] stand-in reads `?`
/// help for 8 s, then plays, against `host --bots 3` at the default skill. Its frags
/// and deaths are what the guide quotes (`-- --nocapture` prints them).
#[test]
fn a_reflex_newcomer_gets_a_fighting_chance_in_its_first_minute() {
    let (mut frags, mut deaths) = (0, 0);
    for seed in 1..=6 {
        let log = stand_in_match(seed, 60);
        let (f, d) = stand_in_score(&log);
        let first_death = log.iter().find(|(_, _, v)| v == support::NAME).map(|x| x.0);
        println!(
            "seed {seed}: the stand-in's first minute: {f} frags, {d} deaths, first death at {first_death:?} s"
        );
        assert!(
            first_death.is_none_or(|t| t > 8.0),
            "seed {seed}: fragged while reading the help"
        );
        frags += f;
        deaths += d;
    }
    println!("6 first minutes: {frags} frags, {deaths} deaths");
    // Measured: 44 frags and 20 deaths (before the reading rule and the bots' changes:
    // 41 and 24). A floor with margin, not a fine measure: quick hands had a chance
    // already; what changed for them is the first seconds (the reading test above).
    assert!(frags >= 30, "{frags} frags in 6 first minutes");
    assert!(deaths <= 28, "{deaths} deaths in 6 first minutes");
}

/// When a newcomer who joined against three bots of the default skill, stood still and
/// kept `?` help open (every command says so) was first fragged, and whether it was
/// still protected `check_secs` in; None if it lived through `secs`.
fn reading_newcomer(seed: u64, secs: u32, check_secs: f64) -> (Option<f64>, bool) {
    let mut config = ServerConfig::new(Map::builtin("arena").unwrap());
    config.bots = 3;
    config.seed = seed;
    config.client_timeout = Duration::from_secs(3600);
    let mut server = Server::new(config);
    let mut now = Instant::now();
    let addr: SocketAddr = "10.0.0.9:1000".parse().unwrap();
    let id = server
        .join_in_process(now, addr, "newcomer")
        .unwrap()
        .player_id;
    let reading = Command::moving(Buttons::READING);
    let (mut buf, mut protected_then) = (Vec::new(), false);
    for t in 1..=secs * 60 {
        // It reads, and takes in what the server tells it (a client that acknowledges
        // no event for 10 s is too far behind).
        let mut packet = input(t, reading);
        if let ClientMsg::Input(p) = &mut packet {
            p.event_ack = u32::MAX;
        }
        server.encode_in_process(addr, &packet, &mut buf).unwrap();
        server.receive(now, addr, &buf);
        now += Duration::from_secs(1) / 60;
        server.tick(now);
        server.take_outbox().for_each(drop);
        let at = f64::from(t) / 60.0;
        if (at - check_secs).abs() < 0.5 / 60.0 {
            protected_then = protected(&server, id);
        }
        for e in server.take_events() {
            if matches!(e, ServerEvent::Frag { ref victim, .. } if victim == "newcomer") {
                return (Some(at), protected_then);
            }
        }
    }
    (None, protected_then)
}

/// The bots fragged a newcomer still reading `?` help: protection ended 3 s after the
/// spawn whatever the player was doing. Now it lasts while the help (or scoreboard) is
/// open, up to 10 s, and no longer.
#[test]
fn a_newcomer_reading_help_at_spawn_is_not_fragged_in_its_first_seconds() {
    let reading_cap = f64::from(PROTECT_READING_MAX_MS) / 1000.0;
    let mut deaths = Vec::new();
    for seed in 1..=6 {
        let (died, protected_late) = reading_newcomer(seed, 30, reading_cap - 0.5);
        println!("seed {seed}: a newcomer reading help was first fragged at {died:?} s");
        assert!(
            protected_late,
            "seed {seed}: not protected after 9.5 s of reading"
        );
        deaths.push(died);
    }
    // Before: fragged 9.05 s in (seed 1), unprotected from 3 s on.
    assert!(
        deaths.iter().all(|d| d.is_none_or(|t| t > reading_cap)),
        "fragged while reading: {deaths:?}"
    );
    // Bounded: whoever keeps reading is fair game after the cap.
    let (_, protected_after) = reading_newcomer(1, 11, reading_cap + 0.5);
    assert!(!protected_after, "protection outlasted its cap");
}

/// Every frag of the first `secs` seconds of a seeded match (the default limits: it
/// ends at 30 frags) of three bots of the default skill and a skill-1 bot standing in
/// for a newcomer: (second, killer, victim), and the winner's name if it ended.
fn newcomer_bot_match(seed: u64, secs: u32) -> (Vec<(f64, String, String)>, Option<String>) {
    let mut config = ServerConfig::new(Map::builtin("arena").unwrap());
    config.bots = 3;
    config.seed = seed;
    let mut server = Server::new(config);
    server.add_bot("newcomer", 1, seed * 77).unwrap();
    let mut now = Instant::now();
    let mut frags = Vec::new();
    for t in 1..=secs * 60 {
        now += Duration::from_secs(1) / 60;
        server.tick(now);
        server.take_outbox().for_each(drop);
        for e in server.take_events() {
            match e {
                ServerEvent::Frag { killer, victim, .. } => {
                    frags.push((f64::from(t) / 60.0, killer, victim));
                }
                ServerEvent::Results { lines, .. } => {
                    return (frags, lines.first().map(|s| s.name.clone()));
                }
                _ => {}
            }
        }
    }
    (frags, None)
}

/// One bot had 28 of the 30 frags of a match at 2:40: the leaders fed on the weakest
/// player. Now a bot prefers enemies at or above its score, looks past its own last
/// victim, and gets slower and sloppier the further it leads, so in six seeded matches
/// with a skill-1 bot standing in for a newcomer, no bot has half of the newcomer's
/// deaths and the newcomer is not left far behind the winner.
#[test]
fn bots_spread_their_frags_and_the_leader_does_not_run_away() {
    let (mut newcomer_frags, mut winner_frags) = (0, 0);
    for seed in 1..=6 {
        let (frags, winner) = newcomer_bot_match(seed, 300);
        let count =
            |f: &dyn Fn(&(f64, String, String)) -> bool| frags.iter().filter(|x| f(x)).count();
        let deaths = count(&|(_, _, v)| v == "newcomer");
        let worst = (1..=3)
            .map(|b| count(&|(_, k, v)| *k == format!("bot-{b}") && v == "newcomer"))
            .max()
            .unwrap_or(0);
        let winner = winner.unwrap_or_default();
        let mine = count(&|(_, k, _)| k == "newcomer");
        let won = count(&|(_, k, _)| *k == winner);
        println!(
            "seed {seed}: {winner} won with {won}; the newcomer {mine} frags, {deaths} deaths, {worst} by one bot"
        );
        // Before: 15 of 24 (seed 4), 12 of 24 (seed 2).
        assert!(
            2 * worst < deaths,
            "seed {seed}: one bot fragged the newcomer {worst} of its {deaths} times"
        );
        newcomer_frags += mine;
        winner_frags += won;
    }
    // Before: 107 to the winners' 180 (59%).
    assert!(
        10 * newcomer_frags >= 7 * winner_frags,
        "the newcomer's {newcomer_frags} frags to the winners' {winner_frags}"
    );
}

/// A client repeats its `Leave` until answered. The server answered none and counted the
/// repeats as datagrams from unknown senders: a false attack alarm every time a client
/// left. Now each is answered with `Left` (one byte), repeats too.
#[test]
fn a_leave_is_answered_and_its_repeats_are_no_strangers() {
    let mut server = Server::new(ServerConfig::new(Map::builtin("duel").unwrap()));
    let now = Instant::now();
    let addr: SocketAddr = "10.0.0.9:4000".parse().unwrap();
    server.join_in_process(now, addr, "leaver").unwrap();
    server.take_outbox().for_each(drop);
    for _ in 0..3 {
        let mut leave = Vec::new();
        server
            .encode_in_process(addr, &ClientMsg::Leave, &mut leave)
            .unwrap();
        server.receive(now, addr, &leave);
    }
    let left = |server: &mut Server| {
        server
            .take_outbox()
            .filter(|(to, m)| *to == addr && matches!(m, ServerMsg::Left))
            .count()
    };
    assert_eq!(left(&mut server), 3);
    assert_eq!(server.refusals().unknown_sender, 0);
    assert_eq!(server.refusals().unknown_session, 0);
    assert_eq!(server.player_count(), 0);
    // Another session's Leave is an unknown session's, not answered `Left`; so is one
    // long after.
    let other: SocketAddr = "10.0.0.10:4000".parse().unwrap();
    let mut leave = Vec::new();
    let mut hs = netarena::net::secure::ClientHandshake::new();
    let key = netarena::net::secure::ServerKey::generate();
    let (answer, _) = netarena::net::secure::accept(&key, &hs.hello(), 5).unwrap();
    let mut stranger = hs.finish(&answer).unwrap().session;
    let scratch = &mut Vec::new();
    netarena::net::codec::seal_client(&ClientMsg::Leave, &mut stranger, 5, &mut leave, scratch)
        .unwrap();
    server.receive(now, other, &leave);
    let mut late = Vec::new();
    server
        .encode_in_process(addr, &ClientMsg::Leave, &mut late)
        .unwrap();
    server.receive(now + Duration::from_secs(11), addr, &late);
    assert_eq!(server.refusals().unknown_session, 2);
    assert_eq!(left(&mut server), 0);
}
