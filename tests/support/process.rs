//! Running the real binary: a dedicated server process and headless clients.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

pub const BIN: &str = env!("CARGO_BIN_EXE_netarena");
/// A config file that does not exist: the developer's own must not change the tests.
pub const NO_CONFIG: &str = "/nonexistent/netarena-test/config.toml";

/// The key log the clients started here append their session keys to (see
/// `tests/support/relay.rs`): one file for the whole test binary.
pub const KEY_LOG: &str = "NETARENA_KEYLOG";

pub fn key_log() -> PathBuf {
    std::env::temp_dir().join(format!("netarena-keylog-{}", std::process::id()))
}

/// Where the processes started here keep their state and config (the server's key,
/// the known servers): one directory for every test run, so that every server started
/// here has the same key (a client that pinned it at a port, here or in a tmux test
/// with the developer's own config, finds it again) and the developer's own state is
/// never touched.
pub fn isolated(cmd: &mut Command) -> &mut Command {
    let home = std::env::temp_dir().join("netarena-test-home");
    cmd.env("NETARENA_CONFIG", NO_CONFIG)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_STATE_HOME", home.join("state"))
        .env(KEY_LOG, key_log())
}

/// A server process, killed when dropped.
pub struct ServerProcess {
    pub child: Child,
    pub port: u16,
    /// The server's output lines after the first.
    pub lines: std::sync::mpsc::Receiver<String>,
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn start_server(extra: &[&str]) -> ServerProcess {
    start_server_on(0, extra)
}

/// A server process on `port` (0: any free one).
pub fn start_server_on(port: u16, extra: &[&str]) -> ServerProcess {
    start_server_with(port, extra, None)
}

/// A server process on `port` keeping its state (its key) in `state` rather than in
/// the test binary's shared state directory: another server, to its clients.
pub fn start_server_with(
    port: u16,
    extra: &[&str],
    state: Option<&std::path::Path>,
) -> ServerProcess {
    let mut cmd = Command::new(BIN);
    isolated(&mut cmd);
    if let Some(dir) = state {
        cmd.env("XDG_STATE_HOME", dir);
    }
    let mut child = cmd
        .args(["server", "--port", &port.to_string()])
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("server starts");
    let mut lines = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    lines.read_line(&mut first).unwrap();
    // Keep reading, so the server never writes into a full or closed pipe.
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in lines.lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let port = first
        .split("listening on ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|addr| addr.rsplit(':').next())
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("no address in {first:?}"));
    ServerProcess {
        child,
        port,
        lines: rx,
    }
}

pub fn temp_report(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("netarena-{}-{name}.json", std::process::id()))
}

/// `netarena join 127.0.0.1:PORT --headless --seconds SECONDS`, to add to and run.
pub fn headless_join(port: u16, seconds: &str) -> Command {
    let mut cmd = Command::new(BIN);
    isolated(&mut cmd);
    cmd.args([
        "join",
        &format!("127.0.0.1:{port}"),
        "--headless",
        "--seconds",
        seconds,
    ]);
    cmd
}

pub fn headless(port: u16, name: &str, seconds: &str, extra: &[&str]) -> (Child, PathBuf) {
    let report = temp_report(name);
    let child = headless_join(port, seconds)
        .args(["--bot", "wander", "--name", name, "--report"])
        .arg(&report)
        .args(extra)
        .spawn()
        .expect("client starts");
    (child, report)
}

pub fn finish(mut child: Child, report: PathBuf) -> serde_json::Value {
    let status = child.wait().unwrap();
    assert!(status.success(), "headless client failed: {status}");
    let text = std::fs::read_to_string(&report).expect("report written");
    let _ = std::fs::remove_file(&report);
    serde_json::from_str(&text).expect("report is valid JSON")
}

pub fn num(r: &serde_json::Value, key: &str) -> f64 {
    r[key]
        .as_f64()
        .unwrap_or_else(|| panic!("report lacks {key}: {r}"))
}

impl ServerProcess {
    /// Waits up to `timeout` for an output line containing `needle`.
    pub fn wait_for_line(&self, needle: &str, timeout: std::time::Duration) -> Option<String> {
        let deadline = std::time::Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) if line.contains(needle) => return Some(line),
                Ok(_) => {}
                Err(_) => return None,
            }
        }
    }

    /// Resident memory of the server process, in KiB (Linux).
    pub fn rss_kib(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .expect("server process status");
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|v| v.parse().ok())
            .expect("VmRSS")
    }

    pub fn is_running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }
}
