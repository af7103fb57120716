//! Driving the real binary in a real terminal: one private tmux server per test.
//!
//! Each [`Tmux`] starts its own server (`tmux -L <socket>`), so tests run in parallel
//! without seeing each other, and kills it when dropped, passed or panicked, together
//! with any game still running in it. The pane runs [`game_script`]: the game, then
//! `EXIT=<status>` and `stty -a`, so that after the game exits the pane shows its exit status
//! and the terminal's modes ([`quit_and_check_terminal`] reads both).
//!
//! tmux is required: without it [`Tmux::start`] (and [`require_tmux`]) fail the test with
//! [`TMUX_MISSING`] before anything else is started. Nothing here panics while dropping,
//! so a failing test never aborts the whole run.

#![allow(dead_code)]

use std::io::ErrorKind;
use std::path::PathBuf;
use std::process::{Command, Output};
use std::thread::sleep;
use std::time::{Duration, Instant};

/// What a terminal test says when tmux cannot be found.
pub const TMUX_MISSING: &str = "tmux not found: install tmux to run the terminal tests";
/// How long any one thing may take to appear on screen (CI is slow and noisy).
pub const DEADLINE: Duration = Duration::from_secs(10);
/// The session every test creates on its own server.
pub const SESSION: &str = "game";
/// Points the game at a config file that does not exist (see `src/cli/config_file.rs`).
pub const NO_CONFIG: &str = "NETARENA_CONFIG=/nonexistent/netarena-test/config.toml";
/// The environment variable, set in the session, that marks a test's games as its own.
const TAG: &str = "NETARENA_TEST_TMUX";

/// One private tmux server with one session running one script.
pub struct Tmux {
    socket: String,
    socket_path: Option<PathBuf>,
}

impl Tmux {
    /// Starts a detached `width` x `height` session running `sh -c script`. Fails the
    /// test with [`TMUX_MISSING`] if tmux is not installed.
    pub fn start(test: &str, width: u16, height: u16, script: &str) -> Tmux {
        require_tmux();
        let mut tmux = Tmux {
            socket: format!("netarena-test-{}-{test}", std::process::id()),
            socket_path: None,
        };
        // A leftover server with this name (from a crashed run that reused our pid) would
        // make new-session attach to stale state: start from nothing.
        let _ = tmux.try_run(&["kill-server"]);
        let (w, h) = (width.to_string(), height.to_string());
        let tag = format!("{TAG}={}", tmux.socket);
        tmux.ok(&[
            "new-session",
            "-d",
            "-s",
            SESSION,
            "-x",
            &w,
            "-y",
            &h,
            "-e",
            &tag,
            // The player's own config file (name, keys, flags) must not change the game.
            "-e",
            NO_CONFIG,
            // Several arguments: tmux runs them directly, whatever the user's shell is.
            "sh",
            "-c",
            script,
        ]);
        let path = tmux.ok(&["display-message", "-p", "#{socket_path}"]);
        tmux.socket_path = Some(PathBuf::from(path.trim()));
        tmux
    }

    fn try_run(&self, args: &[&str]) -> std::io::Result<Output> {
        Command::new("tmux")
            // Our own server, and no user configuration (key bindings, sizes, shells).
            .args(["-L", &self.socket, "-f", "/dev/null"])
            .args(args)
            .env_remove("TMUX")
            .output()
    }

    pub fn run(&self, args: &[&str]) -> Output {
        self.try_run(args)
            .unwrap_or_else(|e| panic!("cannot run tmux {args:?}: {e}"))
    }

    /// Runs a tmux command that must succeed; returns its stdout.
    pub fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert!(
            out.status.success(),
            "tmux {args:?} failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// The visible screen, one line per terminal row (trailing blanks trimmed).
    pub fn screen(&self) -> String {
        self.ok(&["capture-pane", "-p", "-t", SESSION])
    }

    /// The visible screen plus scrollback, with lines the terminal wrapped joined back.
    pub fn history(&self) -> String {
        self.ok(&["capture-pane", "-p", "-J", "-S", "-200", "-t", SESSION])
    }

    /// A tmux format evaluated for the pane, e.g. `#{cursor_flag}`.
    pub fn format(&self, format: &str) -> String {
        self.ok(&["display-message", "-p", "-t", SESSION, format])
            .trim()
            .to_owned()
    }

    /// Types `text` literally (no key-name lookup).
    pub fn type_text(&self, text: &str) {
        self.ok(&["send-keys", "-t", SESSION, "-l", text]);
    }

    /// Presses a key by its tmux name ("Enter", "Escape", "Down", "q").
    pub fn key(&self, name: &str) {
        self.ok(&["send-keys", "-t", SESSION, name]);
    }

    pub fn resize(&self, width: u16, height: u16) {
        let (w, h) = (width.to_string(), height.to_string());
        // resize-window also switches the window to `window-size manual`, so the size
        // sticks although no client is attached.
        self.ok(&["resize-window", "-t", SESSION, "-x", &w, "-y", &h]);
    }

    /// Polls `capture` until `done` accepts it; panics with the last capture on timeout.
    pub fn wait_for_in<T>(
        &self,
        what: &str,
        capture: impl Fn(&Tmux) -> String,
        done: impl FnMut(&str) -> Option<T>,
    ) -> T {
        self.wait_up_to(DEADLINE, what, capture, done)
    }

    /// Polls `capture` for up to `limit` until `done` accepts it; panics with the last
    /// capture on timeout.
    pub fn wait_up_to<T>(
        &self,
        limit: Duration,
        what: &str,
        capture: impl Fn(&Tmux) -> String,
        mut done: impl FnMut(&str) -> Option<T>,
    ) -> T {
        let deadline = Instant::now() + limit;
        loop {
            let text = capture(self);
            if let Some(found) = done(&text) {
                return found;
            }
            if Instant::now() > deadline {
                panic!(
                    "timed out after {limit:?} waiting for {what}; the pane shows:\n{}",
                    framed(&text)
                );
            }
            sleep(Duration::from_millis(50));
        }
    }

    /// Polls the visible screen until `done` accepts it.
    pub fn wait_for<T>(&self, what: &str, done: impl FnMut(&str) -> Option<T>) -> T {
        self.wait_for_in(what, Tmux::screen, done)
    }

    /// Polls the visible screen until it contains `needle`; returns that screen.
    pub fn wait_for_text(&self, needle: &str) -> String {
        self.wait_for(&format!("{needle:?} on screen"), |s| {
            s.contains(needle).then(|| s.to_owned())
        })
    }

    /// The games (netarena processes) started in this test's terminal and still running.
    pub fn games(&self) -> Vec<u32> {
        let tag = format!("{TAG}={}", self.socket);
        netarena_processes()
            .filter(|&pid| {
                std::fs::read(format!("/proc/{pid}/environ"))
                    .is_ok_and(|env| env.split(|&b| b == 0).any(|v| v == tag.as_bytes()))
            })
            .collect()
    }
}

impl Drop for Tmux {
    /// Never panics: a panic here, while a failed test unwinds, would abort every test.
    fn drop(&mut self) {
        // Ends the session; the game gets SIGHUP and the sleep dies with the pane.
        let _ = self.try_run(&["kill-server"]);
        // A game still running when its terminal goes away can spin at 100% CPU until its
        // watchdog ends it 3 s later, or forever if that breaks: never leave one behind.
        let deadline = Instant::now() + Duration::from_secs(2);
        loop {
            let games = self.games();
            if games.is_empty() {
                break;
            }
            if Instant::now() > deadline {
                for pid in games {
                    let _ = Command::new("kill")
                        .args(["-KILL", &pid.to_string()])
                        .status();
                }
                break;
            }
            sleep(Duration::from_millis(50));
        }
        // tmux leaves the socket file behind.
        if let Some(path) = &self.socket_path {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// Fails the test with [`TMUX_MISSING`] if tmux is not installed, or with what went
/// wrong if it cannot be run. Call before starting anything a test must clean up.
pub fn require_tmux() {
    match Command::new("tmux").arg("-V").output() {
        Ok(out) if out.status.success() => {}
        Ok(out) => panic!(
            "`tmux -V` failed ({}): {}. The terminal tests drive the game in tmux; \
             install a working tmux.",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ),
        Err(e) if e.kind() == ErrorKind::NotFound => panic!("{TMUX_MISSING}"),
        Err(e) => panic!("cannot run tmux ({e}): install tmux to run the terminal tests"),
    }
}

/// A capture with a border, so blank lines at either end show in failure messages.
pub fn framed(text: &str) -> String {
    let mut out = String::from("+----\n");
    for line in text.lines() {
        out.push('|');
        out.push_str(line);
        out.push('\n');
    }
    out.push_str("+----");
    out
}

fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// The pane's script: `netarena args`, then its exit status and the terminal modes, then
/// a pause that keeps the pane (and what it shows) alive until the test is done with it.
/// The status goes on a line of its own, cleared to its end, so that it reads right even
/// over a game screen left behind.
pub fn game_script(args: &str) -> String {
    format!(
        "{} {args}; printf '\\nEXIT=%s\\033[K\\n' \"$?\"; stty -a; sleep 60",
        shell_quote(env!("CARGO_BIN_EXE_netarena"))
    )
}

/// The exit status the pane's script printed after the game, once it has finished
/// printing the terminal modes too; and the pane's history.
pub fn wait_for_exit(tmux: &Tmux) -> (u8, String) {
    tmux.wait_for_in(
        "the game to exit and `stty -a` to report",
        Tmux::history,
        |text| {
            let tokens: Vec<&str> = text.split_whitespace().collect();
            let status = tokens
                .iter()
                .find_map(|t| t.strip_prefix("EXIT=")?.parse::<u8>().ok())?;
            // The line with the local modes comes after the status; wait for all of it.
            let has = |flag: &str| {
                tokens.contains(&flag) || tokens.contains(&format!("-{flag}").as_str())
            };
            (has("icanon") && has("echo") && has("isig")).then(|| (status, text.to_owned()))
        },
    )
}

/// Checks that the game gave the terminal back: cooked mode with echo (as `stty -a`
/// printed it after the game), the normal screen, and a visible cursor. With
/// `arena_gone`, also that no wall is left on the visible screen.
///
/// That last check is skipped after a resize: tmux 3.3 itself copies part of the
/// alternate screen into the normal one when the window was resized in between. The game
/// is not to blame: its output only draws between entering and leaving the alternate
/// screen, and replaying those exact bytes from another program leaves the same residue.
pub fn assert_terminal_restored(tmux: &Tmux, history: &str, arena_gone: bool) {
    let tokens: Vec<&str> = history.split_whitespace().collect();
    for flag in ["icanon", "echo", "isig"] {
        assert!(
            tokens.contains(&flag) && !tokens.contains(&format!("-{flag}").as_str()),
            "after the game, `stty -a` should show `{flag}` (raw mode off), not `-{flag}`:\n{}",
            framed(history)
        );
    }
    assert_eq!(
        tmux.format("#{alternate_on}"),
        "0",
        "the game should leave the alternate screen"
    );
    assert_eq!(
        tmux.format("#{cursor_flag}"),
        "1",
        "the game should show the cursor again"
    );
    let screen = tmux.screen();
    assert!(
        !arena_gone || !screen.contains('▒'),
        "the arena should be gone from the screen after exit:\n{}",
        framed(&screen)
    );
}

/// Waits for the game to exit with `status` (`why` says what ended it) and checks that
/// it gave the terminal back (see [`assert_terminal_restored`]). Returns the history.
pub fn expect_exit_and_sane_terminal(
    tmux: &Tmux,
    status: u8,
    why: &str,
    arena_gone: bool,
) -> String {
    let (got, history) = wait_for_exit(tmux);
    assert_eq!(
        got,
        status,
        "{why}: the exit status should be {status}:\n{}",
        framed(&history)
    );
    assert_terminal_restored(tmux, &history, arena_gone);
    history
}

/// Presses `key` (a tmux key name: "q", "Escape") twice (a game asks once before it
/// quits; the lab and the browser quit at the first), which must quit the game with
/// status 0 and give the terminal back. Waiting for the exit also means the guard's
/// hangup never meets a running game.
pub fn quit_and_check_terminal(tmux: &Tmux, key: &str, arena_gone: bool) {
    tmux.key(key);
    std::thread::sleep(std::time::Duration::from_millis(300));
    if tmux.screen().contains("q again to quit") {
        tmux.key(key);
    }
    expect_exit_and_sane_terminal(tmux, 0, &format!("quitting with {key}"), arena_gone);
}

/// Every running netarena process (not zombies, whose command line is empty).
fn netarena_processes() -> impl Iterator<Item = u32> {
    std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let pid = entry.file_name().to_string_lossy().parse::<u32>().ok()?;
            let cmdline = std::fs::read(entry.path().join("cmdline")).ok()?;
            let first = cmdline.split(|&b| b == 0).next()?;
            String::from_utf8_lossy(first)
                .ends_with("netarena")
                .then_some(pid)
        })
}

/// The pid of the game started with `--port port` (not the shell around it).
pub fn game_pid(port: u16) -> Option<u32> {
    let port = port.to_string();
    netarena_processes().find(|pid| {
        let Ok(cmdline) = std::fs::read(format!("/proc/{pid}/cmdline")) else {
            return false;
        };
        let args: Vec<&[u8]> = cmdline.split(|&b| b == 0).collect();
        args.windows(2)
            .any(|w| w[0] == b"--port" && w[1] == port.as_bytes())
    })
}
