//! `netarena replay FILE` in a real terminal (tmux): it shows the arena and the
//! timeline; pause holds the picture; a step forward moves the replay by one frame; `q`
//! restores the terminal, and leaves nothing of the replay above the prompt even after
//! a resize. tmux is required.

use crate::support;

use std::thread::sleep;
use std::time::Duration;

use support::process::{finish, headless, start_server, temp_report};
use support::tmux::{Tmux, expect_exit_and_sane_terminal, game_script};

/// The replay time on the status line ("12:34.567"), in milliseconds.
fn replay_ms(screen: &str) -> u64 {
    let status = screen
        .lines()
        .find(|l| l.contains(" / ") && (l.contains("paused") || l.contains("playing")))
        .unwrap_or_else(|| panic!("no status line:\n{screen}"));
    let clock = status
        .split_whitespace()
        .find(|w| w.len() == 9 && w.as_bytes()[2] == b':')
        .unwrap_or_else(|| panic!("no time in {status:?}"));
    let (m, rest) = clock.split_at(2);
    let (s, ms) = rest[1..].split_at(2);
    m.parse::<u64>().unwrap() * 60_000
        + s.parse::<u64>().unwrap() * 1000
        + ms[1..].parse::<u64>().unwrap()
}

/// The screen above the timeline (arena, HUD, roster).
fn arena(screen: &str) -> String {
    screen
        .lines()
        .take_while(|l| !l.contains(" / "))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
#[ignore = "slow tier: .ci/run runs it with --ignored"]
fn replay_shows_the_arena_and_timeline_pauses_steps_and_restores_the_terminal() {
    let server = start_server(&["--bots", "2"]);
    let file = temp_report("tmux-replay").with_extension("narec");
    let (c, r) = headless(
        server.port,
        "rec",
        "4",
        &["--record", file.to_str().unwrap()],
    );
    finish(c, r);
    drop(server);

    let tmux = Tmux::start(
        "replay",
        100,
        34,
        &game_script(&format!("replay '{}'", file.display())),
    );
    // The local player shows once the first snapshot is replayed (a frame or two in:
    // the first frame may come before it).
    tmux.wait_for("the arena, the local player and the timeline", |s| {
        (s.contains('▒')
            && s.contains('@')
            && s.contains("cmds ")
            && s.contains("snap ")
            && s.contains("fix "))
        .then_some(())
    });

    tmux.key("Space");
    let paused = tmux.wait_for("pause", |s| s.contains("paused").then(|| s.to_owned()));
    sleep(Duration::from_millis(400));
    let still = tmux.screen();
    assert_eq!(arena(&still), arena(&paused), "pause holds the picture");
    assert_eq!(replay_ms(&still), replay_ms(&paused));

    let before = replay_ms(&still);
    tmux.type_text(".");
    let stepped = tmux.wait_for("a step", |s| (replay_ms(s) != before).then(|| s.to_owned()));
    let step = replay_ms(&stepped) - before;
    // One frame of a headless recording is one command tick: 1/60 s.
    assert!((1..=34).contains(&step), "stepped {step} ms");
    assert!(stepped.contains("paused"));

    tmux.key("q");
    // The exit status 0, then the terminal's modes: raw mode undone (the line discipline
    // echoes and reads lines again), the normal screen and the cursor back, no arena left.
    expect_exit_and_sane_terminal(&tmux, 0, "q in the replay", true);
    let after = tmux.screen();
    assert!(
        !after.contains("cmds "),
        "the alternate screen is gone:\n{after}"
    );
    let _ = std::fs::remove_file(&file);
}

/// Issue 21: after the terminal grew, quitting the replay left the arena's top rows in
/// the scrollback, just above the prompt (tmux keeps the top of the alternate screen
/// when it shrinks it back on leaving). Nothing of the replay is left once it quits.
#[test]
fn quitting_after_a_resize_leaves_nothing_above_the_prompt() {
    let golden = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/golden.narec");
    let script = format!(
        "echo BEFORE; {}",
        game_script(&format!("replay '{golden}'"))
    );
    let tmux = Tmux::start("replay-resize", 100, 34, &script);
    tmux.wait_for("the arena and the timeline", |s| {
        (s.contains('▒') && s.contains("cmds ")).then_some(())
    });
    tmux.resize(120, 40);
    // Drawn again at the new size: the status line reaches past column 100.
    tmux.wait_for("a frame at 120x40", |s| {
        (s.lines().count() >= 36 && s.contains("cmds ")).then_some(())
    });
    sleep(Duration::from_millis(200));
    tmux.key("q");
    tmux.wait_for("the exit", |s| s.contains("EXIT=").then_some(()));
    let history = tmux.history();
    assert!(
        history.contains("BEFORE") && history.contains("EXIT=0"),
        "{history}"
    );
    assert!(
        !history.contains('▒') && !history.contains("cmds "),
        "the replay left rows behind:\n{history}"
    );
}
