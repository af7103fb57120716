//! `netarena replay FILE` in a real terminal (tmux): it shows the arena and the
//! timeline; pause holds the picture; a step forward moves the replay by one frame; `q`
//! restores the terminal, and leaves nothing of the replay above the prompt even after
//! a resize. tmux is required.

mod support;

use std::process::{Command, Output};
use std::thread::sleep;
use std::time::{Duration, Instant};

use support::process::{BIN, finish, headless, start_server, temp_report};

const DEADLINE: Duration = Duration::from_secs(15);

/// A private tmux server (its own socket), killed on drop.
struct Tmux {
    socket: String,
}

impl Tmux {
    fn run(&self, args: &[&str]) -> Output {
        Command::new("tmux")
            .args(["-L", &self.socket, "-f", "/dev/null"])
            .args(args)
            .env_remove("TMUX")
            .output()
            .expect("tmux runs (install tmux for these tests)")
    }

    fn screen(&self) -> String {
        let out = self.run(&["capture-pane", "-p", "-t", "replay"]);
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn keys(&self, keys: &str) {
        assert!(
            self.run(&["send-keys", "-t", "replay", "-l", keys])
                .status
                .success()
        );
    }

    fn wait_for(&self, what: &str, ok: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + DEADLINE;
        loop {
            let screen = self.screen();
            if ok(&screen) {
                return screen;
            }
            assert!(Instant::now() < deadline, "waited for {what}:\n{screen}");
            sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.run(&["kill-server"]);
    }
}

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

    let tmux = Tmux {
        socket: format!("netarena-replay-{}", std::process::id()),
    };
    let script = format!(
        "'{BIN}' replay '{}'; echo EXIT=$?; stty -a; sleep 60",
        file.display()
    );
    let started = tmux.run(&[
        "new-session",
        "-d",
        "-s",
        "replay",
        "-x",
        "100",
        "-y",
        "34",
        "sh",
        "-c",
        &script,
    ]);
    assert!(started.status.success(), "{started:?}");
    // The local player shows once the first snapshot is replayed (a frame or two in:
    // the first frame may come before it).
    tmux.wait_for("the arena, the local player and the timeline", |s| {
        s.contains('▒')
            && s.contains('@')
            && s.contains("cmds ")
            && s.contains("snap ")
            && s.contains("fix ")
    });

    tmux.keys(" ");
    let paused = tmux.wait_for("pause", |s| s.contains("paused"));
    sleep(Duration::from_millis(400));
    let still = tmux.screen();
    assert_eq!(arena(&still), arena(&paused), "pause holds the picture");
    assert_eq!(replay_ms(&still), replay_ms(&paused));

    let before = replay_ms(&still);
    tmux.keys(".");
    let stepped = tmux.wait_for("a step", |s| replay_ms(s) != before);
    let step = replay_ms(&stepped) - before;
    // One frame of a headless recording is one command tick: 1/60 s.
    assert!((1..=34).contains(&step), "stepped {step} ms");
    assert!(stepped.contains("paused"));

    tmux.keys("q");
    // The exit status, then the terminal's modes (`stty -a` prints `icanon` or
    // `-icanon`, and its last line names the control characters).
    let after = tmux.wait_for("exit and the terminal modes", |s| {
        s.contains("EXIT=") && s.contains("icanon") && s.contains("min = ")
    });
    assert!(after.contains("EXIT=0"), "{after}");
    // Raw mode undone: the line discipline echoes and reads lines again.
    assert!(
        after.contains(" icanon") && after.contains(" echo"),
        "{after}"
    );
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
    let tmux = Tmux {
        socket: format!("netarena-replay-resize-{}", std::process::id()),
    };
    let script = format!("echo BEFORE; '{BIN}' replay '{golden}'; echo EXIT=$?; sleep 60");
    let started = tmux.run(&[
        "new-session",
        "-d",
        "-s",
        "replay",
        "-x",
        "100",
        "-y",
        "34",
        "sh",
        "-c",
        &script,
    ]);
    assert!(started.status.success(), "{started:?}");
    tmux.wait_for("the arena and the timeline", |s| {
        s.contains('▒') && s.contains("cmds ")
    });
    let resized = tmux.run(&["resize-window", "-t", "replay", "-x", "120", "-y", "40"]);
    assert!(resized.status.success(), "{resized:?}");
    // Drawn again at the new size: the status line reaches past column 100.
    tmux.wait_for("a frame at 120x40", |s| {
        s.lines().count() >= 36 && s.contains("cmds ")
    });
    sleep(Duration::from_millis(200));
    tmux.keys("q");
    tmux.wait_for("the exit", |s| s.contains("EXIT="));
    let out = tmux.run(&["capture-pane", "-p", "-J", "-S", "-200", "-t", "replay"]);
    let history = String::from_utf8_lossy(&out.stdout);
    assert!(
        history.contains("BEFORE") && history.contains("EXIT=0"),
        "{history}"
    );
    assert!(
        !history.contains('▒') && !history.contains("cmds "),
        "the replay left rows behind:\n{history}"
    );
}
