//! The lab in a real terminal (tmux, 160x45): a server view and two client views, each
//! labelled; client 1 on WASD, client 2 on the arrows; `d` moves client 1's `@` in its
//! own view at once and in the server view only after client 1's latency; `P` freezes
//! everything, `.` steps one tick, `P` resumes; `q` gives the terminal back. Under the
//! lanes, the meters panel shows every client's lagometer and bytes by kind, live.
//!
//! The lab runs in a private tmux server (see `support/tmux.rs`), under a script that
//! shows its exit status and the terminal's modes after it quits.

use std::thread::sleep;
use std::time::{Duration, Instant};

use crate::support::tmux as term;

use term::{DEADLINE, Tmux, game_script, quit_and_check_terminal};

/// Rows of the lab's default map, duel.
const MAP_ROWS: usize = 12;

/// One view on screen: its letter (the player it follows) and its arena's position.
#[derive(Clone, Copy, Debug)]
struct Pane {
    /// Terminal column and row of the arena's top-left cell.
    col: usize,
    row: usize,
}

/// The panes titled `server`, `client 1` and `client 2`, and client 1's and client 2's
/// letters.
fn panes(screen: &str) -> Option<([Pane; 3], [char; 2])> {
    let lines: Vec<Vec<char>> = screen.lines().map(|l| l.chars().collect()).collect();
    let find = |title: &str| {
        lines.iter().enumerate().find_map(|(row, l)| {
            let text: String = l.iter().collect();
            let at = text.find(&format!("┌ {title}"))?;
            Some(Pane {
                col: text[..at].chars().count() + 1,
                row: row + 1,
            })
        })
    };
    let letter = |n: u8| {
        let text = screen.split(&format!("client {n} = ")).nth(1)?;
        text.chars().next()
    };
    Some((
        [find("server")?, find("client 1")?, find("client 2")?],
        [letter(1)?, letter(2)?],
    ))
}

/// Where `glyph` is in `pane`'s arena (column, row), if exactly once.
fn locate(screen: &str, pane: Pane, glyph: char) -> Option<(usize, usize)> {
    let lines: Vec<Vec<char>> = screen.lines().map(|l| l.chars().collect()).collect();
    let mut found = Vec::new();
    for r in 0..MAP_ROWS {
        let line = lines.get(pane.row + r)?;
        for c in 0..48 {
            if line.get(pane.col + c) == Some(&glyph) {
                found.push((c, r));
            }
        }
    }
    (found.len() == 1).then(|| found[0])
}

/// The free direction beside `at` in `pane`: (key for client 1, arrow, sign).
fn free_side(screen: &str, pane: Pane, at: (usize, usize)) -> (&'static str, &'static str, i32) {
    let line: Vec<char> = screen
        .lines()
        .nth(pane.row + at.1)
        .unwrap()
        .chars()
        .collect();
    let right = line.get(pane.col + at.0 + 2).copied();
    if right.is_some_and(|c| c != '▒') {
        ("d", "Right", 1)
    } else {
        ("a", "Left", -1)
    }
}

fn clock_tick(screen: &str) -> Option<u32> {
    let rest = screen.lines().next()?.split("server tick ").nth(1)?;
    rest.split_whitespace().next()?.parse().ok()
}

/// Holds `key` (as a fast auto-repeat) until `moved` says the glyph moved in each of
/// the panes asked, returning when each one first did.
fn hold_until_moved(
    tmux: &Tmux,
    key: &str,
    watch: &[(Pane, char, (usize, usize))],
) -> Vec<Option<Instant>> {
    let mut when = vec![None; watch.len()];
    let deadline = Instant::now() + DEADLINE;
    while Instant::now() < deadline && when.iter().any(Option::is_none) {
        tmux.key(key);
        let screen = tmux.screen();
        let now = Instant::now();
        for (i, &(pane, glyph, start)) in watch.iter().enumerate() {
            if when[i].is_none() && locate(&screen, pane, glyph).is_some_and(|p| p.0 != start.0) {
                when[i] = Some(now);
            }
        }
        sleep(Duration::from_millis(20));
    }
    when
}

#[test]
#[ignore = "slow tier: .ci/run runs it with --ignored"]
fn lab_views_keys_pause_step_and_quit() {
    let tmux = Tmux::start(
        "lab-views",
        160,
        45,
        &game_script("lab --bots 2 --bot-skill 1"),
    );
    let ([server, one, two], [l1, l2]) = tmux.wait_for("the three labelled views", |s| {
        let (p, l) = panes(s)?;
        // Both players placed, in their own views and the server's.
        locate(s, p[1], '@')?;
        locate(s, p[2], '@')?;
        locate(s, p[0], l[0])?;
        Some((p, l))
    });
    assert!(
        server.row == one.row && one.row == two.row,
        "side by side at 160x45"
    );
    assert!(server.col < one.col && one.col < two.col);

    // Slow time to a quarter, so client 1's 150 ms of latency is 600 ms on screen.
    tmux.key("<");
    tmux.key("<");
    tmux.wait_for("speed 0.25x", |s| s.contains("0.25x").then_some(()));
    let screen = tmux.screen();
    let me = locate(&screen, one, '@').expect("client 1's @");
    let on_server = locate(&screen, server, l1).expect("client 1 in the server view");
    let (key, _, _) = free_side(&screen, one, me);
    let pressed = Instant::now();
    let when = hold_until_moved(&tmux, key, &[(one, '@', me), (server, l1, on_server)]);
    let own = when[0].expect("client 1's @ moved in its own view");
    let srv = when[1].expect("client 1 moved in the server view");
    eprintln!(
        "own view after {:?}, server view {:?} later",
        own.duration_since(pressed),
        srv.duration_since(own)
    );
    assert!(
        own.duration_since(pressed) < Duration::from_millis(1500),
        "its own view moves at once (a half cell at quarter speed): {:?}",
        own.duration_since(pressed)
    );
    assert!(
        srv.duration_since(own) >= Duration::from_millis(300),
        "the server sees it only after the latency: {:?} later",
        srv.duration_since(own)
    );

    // The arrows move client 2, not client 1.
    tmux.key(">");
    tmux.key(">");
    tmux.wait_for("speed 1x", |s| s.contains("▶ 1x").then_some(()));
    let screen = tmux.screen();
    let me2 = locate(&screen, two, '@').expect("client 2's @");
    let (_, arrow, _) = free_side(&screen, two, me2);
    let moved = hold_until_moved(&tmux, arrow, &[(two, '@', me2)]);
    assert!(moved[0].is_some(), "the arrows move client 2");
    let _ = l2;

    // P freezes every view.
    tmux.key("P");
    tmux.wait_for("the pause", |s| s.contains("PAUSED").then_some(()));
    sleep(Duration::from_millis(300));
    let a = tmux.screen();
    sleep(Duration::from_secs(1));
    let b = tmux.screen();
    assert_eq!(a, b, "paused: two captures a second apart are identical");
    // `.` advances exactly one tick.
    let tick = clock_tick(&a).expect("the server tick on the clock line");
    tmux.key(".");
    tmux.wait_for("one tick more", |s| {
        (clock_tick(s) == Some(tick + 1)).then_some(())
    });
    sleep(Duration::from_millis(300));
    assert_eq!(clock_tick(&tmux.screen()), Some(tick + 1), "and no more");
    // P resumes.
    tmux.key("P");
    tmux.wait_for("time to run again", |s| {
        (!s.contains("PAUSED") && clock_tick(s)? > tick + 10).then_some(())
    });

    // q quits and gives the terminal back.
    quit_and_check_terminal(&tmux, "q", true);
}

/// `lab --compare snapshot-rate=10` at 160x45: lab A's views on the left and lab B's on
/// the right, each labelled with its snapshot rate, the panel of figures that differ;
/// one clock: `P` pauses both and `.` steps both; `Tab` chooses client 2 in both; `q`
/// gives the terminal back.
#[test]
fn an_ab_lab_shows_both_labels_side_by_side_on_one_clock() {
    let tmux = Tmux::start(
        "lab-compare",
        160,
        45,
        &game_script("lab --compare snapshot-rate=10"),
    );
    let (a, b) = tmux.wait_for("both labels on one row", |s| {
        s.lines().find_map(|l| {
            let a = l.find("A: snapshot-rate=20 · server")?;
            let b = l.find("B: snapshot-rate=10 · server")?;
            Some((a, b))
        })
    });
    assert!(a < b, "A left of B");
    let screen = tmux.wait_for_text("figures that differ");
    assert!(
        screen.contains("A: snapshot-rate=20 · client 1"),
        "{screen}"
    );
    assert!(
        screen.contains("B: snapshot-rate=10 · client 1"),
        "{screen}"
    );
    assert!(
        screen.contains("A c1 bad") && screen.contains("B c1 bad"),
        "{screen}"
    );

    tmux.key("P");
    let paused = tmux.wait_for("paused", |s| {
        s.contains("PAUSED").then(|| clock_tick(s)).flatten()
    });
    tmux.key(".");
    tmux.wait_for("one tick on", |s| {
        (clock_tick(s) == Some(paused + 1)).then_some(())
    });
    tmux.key("Tab");
    let screen = tmux.wait_for_text("B: snapshot-rate=10 · client 2");
    assert!(
        screen.contains("A: snapshot-rate=20 · client 2"),
        "{screen}"
    );
    quit_and_check_terminal(&tmux, "q", true);
}

/// Issue 24: at 160x45 the lab's meters panel sits under the lanes, every client's
/// lagometer with its counts and its link's bytes by kind, live: the counts and the
/// bytes fill in as the lab runs.
#[test]
fn lab_meters_show_every_clients_lagometer_and_bytes() {
    let tmux = Tmux::start(
        "lab-meters",
        160,
        45,
        &game_script("lab --walkers 1 --seed 3"),
    );
    // The number after a glyph on a client's counts line: `c1 bad ▀48 ...`.
    let count = |screen: &str, client: &str, glyph: char| -> Option<u32> {
        let line = screen.lines().find(|l| l.contains(client))?;
        let after = line.split(glyph).nth(1)?;
        after.split_whitespace().next()?.parse().ok()
    };
    // Bytes per second down for a client: `c1 ↓ 439 = ...`.
    let down = |screen: &str, client: &str| -> Option<u32> {
        let line = screen
            .lines()
            .find(|l| l.contains(&format!("{client} ↓")))?;
        let after = line.split('↓').nth(1)?;
        after.split_whitespace().next()?.parse().ok()
    };
    let screen = tmux.wait_for("both clients' meters, filled in", |s| {
        let filled = s.contains("lagometers · last 2.4 s")
            && count(s, "c1 bad", '▀')? > 20
            && count(s, "c2 lan", '▀')? > 20
            && down(s, "c1")? > 0
            && down(s, "c2")? > 0;
        filled.then(|| s.to_owned())
    });
    // Under the lanes, left of nothing else of the lab's: the panel's box.
    let lines: Vec<&str> = screen.lines().collect();
    let lanes = lines
        .iter()
        .position(|l| l.starts_with("client 2 lan"))
        .expect("client 2's lane");
    let panel = lines
        .iter()
        .position(|l| l.contains("┌ lagometers"))
        .expect("the meters panel");
    assert!(panel > lanes, "under the lanes:\n{screen}");
    assert!(screen.contains("B/s ↓ = players + proj + events + roster + hdr"));
    quit_and_check_terminal(&tmux, "q", true);
}

/// The ladder's box: the line of its title, and the rows inside it (a panel's borders
/// are `│`; the ladder's rows start with their time).
fn ladder_rows(screen: &str) -> Option<(usize, Vec<&str>)> {
    let lines: Vec<&str> = screen.lines().collect();
    let title = lines
        .iter()
        .position(|l| l.contains("┌ ladder: client 1"))?;
    let rows = lines[title + 1..]
        .iter()
        .take_while(|l| !l.contains('└'))
        .copied()
        .collect();
    Some((title, rows))
}

/// Whether a ladder row holds an input packet's label (`#412-415`) or a snapshot's
/// (`t812 a415`).
fn labels(rows: &[&str]) -> (usize, usize) {
    let word = |w: &str, p: char| {
        w.strip_prefix(p).is_some_and(|r| {
            r.split('-')
                .all(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
        })
    };
    let words = || {
        rows.iter()
            .flat_map(|r| r.split(|c: char| c.is_whitespace() || c == '│'))
    };
    (
        words().filter(|w| word(w, '#')).count(),
        words().filter(|w| word(w, 'a')).count(),
    )
}

/// Issue 24: at 160x45 `lab --walkers 1` draws the ladder under the lanes, its arrows
/// labelled with the commands and acks they carry; `f` follows a command and a panel
/// lists its life, made to reconciled, with times. At 100x30 there are no rows under
/// the lanes: `L` draws the ladder over the views, again the meters, again nothing.
#[test]
#[ignore = "slow tier: .ci/run runs it with --ignored"]
fn the_ladder_under_the_lanes_follows_a_command_and_toggles_at_100x30() {
    let tmux = Tmux::start("lab-ladder", 160, 45, &game_script("lab --walkers 1"));
    let screen = tmux.wait_for("the ladder with labelled arrows", |s| {
        let (_, rows) = ladder_rows(s)?;
        let (up, down) = labels(&rows);
        (rows.len() >= 20 && up >= 5 && down >= 5).then(|| s.to_owned())
    });
    let (title, _) = ladder_rows(&screen).unwrap();
    let lines: Vec<&str> = screen.lines().collect();
    let lanes = lines
        .iter()
        .rposition(|l| l.contains("◀ snap"))
        .expect("the lanes");
    assert!(title > lanes, "the ladder is under the lanes:\n{screen}");

    tmux.key("f");
    let listing = tmux.wait_up_to(
        Duration::from_secs(15),
        "a followed command's life",
        Tmux::screen,
        |s| {
            (s.contains("┌ follow client 1 command #")
                && s.contains("reconciled ")
                && s.contains("replayed"))
            .then(|| s.to_owned())
        },
    );
    eprintln!("{listing}");
    for step in ["made ", "sent ", "arrived ", "applied ", "acked "] {
        assert!(
            listing
                .lines()
                .any(|l| l.contains(&format!("│{step}")) && l.contains("s ")),
            "{step}:\n{listing}"
        );
    }

    tmux.resize(100, 30);
    tmux.wait_for("no ladder at 100x30", |s| {
        (s.contains("client 2 lan") && !s.contains("ladder: client")).then_some(())
    });
    tmux.key("L");
    let over = tmux.wait_for("the ladder over the views", |s| {
        let (title, rows) = ladder_rows(s)?;
        let (up, _) = labels(&rows);
        (title <= 2 && up >= 3).then(|| s.to_owned())
    });
    assert!(over.lines().all(|l| l.chars().count() <= 100));
    assert!(over.contains("client 1 bad"), "the lanes stay:\n{over}");
    tmux.key("L");
    let meters = tmux.wait_for("the meters over the views", |s| {
        (s.contains("┌ lagometers") && !s.contains("ladder: client")).then(|| s.to_owned())
    });
    assert!(meters.lines().all(|l| l.chars().count() <= 100));
    assert!(meters.contains("client 1 bad"), "the lanes stay:\n{meters}");
    tmux.key("L");
    tmux.wait_for("the views back", |s| {
        (!s.contains("ladder: client") && !s.contains("lagometers") && s.contains("┌ client 1"))
            .then_some(())
    });
    quit_and_check_terminal(&tmux, "q", false);
}
