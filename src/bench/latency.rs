//! Key-to-screen latency of the real program: `netarena host` (no bots) runs in a
//! pseudo-terminal made by `script(1)`; the bench writes a movement key and times the
//! first output bytes that draw the local `@` in another cell. The time includes the
//! pseudo-terminal's relay both ways, as a terminal emulator's would.

use std::io::{Read, Write};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use anyhow::{Context, anyhow};
use serde::Serialize;

use super::percentile_us;

pub struct LatencyOptions {
    /// The netarena binary to run.
    pub binary: std::path::PathBuf,
    pub samples: u32,
}

#[derive(Debug, Serialize)]
pub struct LatencyResult {
    pub samples: u32,
    pub key_to_screen_ms_p50_rtt0: f64,
    pub key_to_screen_ms_p99_rtt0: f64,
    pub misses_rtt0: u32,
    pub key_to_screen_ms_p50_rtt200: f64,
    pub key_to_screen_ms_p99_rtt200: f64,
    pub misses_rtt200: u32,
}

pub fn run(opts: &LatencyOptions) -> anyhow::Result<LatencyResult> {
    let (fast, fast_misses) = measure(opts, 0)?;
    let (slow, slow_misses) = measure(opts, 100)?;
    let ms = |mut v: Vec<Duration>, q| percentile_us(&mut v, q) / 1000.0;
    Ok(LatencyResult {
        samples: opts.samples,
        key_to_screen_ms_p50_rtt0: ms(fast.clone(), 0.5),
        key_to_screen_ms_p99_rtt0: ms(fast, 0.99),
        misses_rtt0: fast_misses,
        key_to_screen_ms_p50_rtt200: ms(slow.clone(), 0.5),
        key_to_screen_ms_p99_rtt200: ms(slow, 0.99),
        misses_rtt200: slow_misses,
    })
}

/// Where the terminal's cursor is, and where `@`s were drawn: enough of a terminal to
/// follow ratatui's output (absolute moves, then text).
#[derive(Default)]
struct Screen {
    col: u32,
    row: u32,
    state: Escape,
    params: Vec<u8>,
    ats: Vec<(u32, u32)>,
    /// What a terminal answers to the program's queries, to be written back.
    replies: Vec<u8>,
}

#[derive(Default, PartialEq)]
enum Escape {
    #[default]
    Text,
    Esc,
    Csi,
    Osc,
}

impl Screen {
    /// Follows `bytes` of output and answers any query in them through `input`.
    fn take(&mut self, bytes: &[u8], input: &mut impl Write) {
        self.feed(bytes);
        if !self.replies.is_empty() {
            let _ = input.write_all(&self.replies);
            let _ = input.flush();
            self.replies.clear();
        }
    }

    fn feed(&mut self, bytes: &[u8]) {
        for &b in bytes {
            match self.state {
                Escape::Text => match b {
                    0x1b => self.state = Escape::Esc,
                    b'\r' => self.col = 0,
                    b'\n' => self.row += 1,
                    b'@' => {
                        self.ats.push((self.col, self.row));
                        self.col += 1;
                    }
                    0x20..=0x7e | 0xc0..=0xff => self.col += 1,
                    _ => {}
                },
                Escape::Esc => {
                    self.params.clear();
                    self.state = match b {
                        b'[' => Escape::Csi,
                        b']' => Escape::Osc,
                        _ => Escape::Text,
                    };
                }
                Escape::Csi if (0x40..=0x7e).contains(&b) => {
                    match (b, self.params.as_slice()) {
                        (b'n', b"6") => self.replies.extend_from_slice(
                            format!("\x1b[{};{}R", self.row + 1, self.col + 1).as_bytes(),
                        ),
                        (b'c', b"" | b"0") => self.replies.extend_from_slice(b"\x1b[?62;22c"),
                        _ => {}
                    }
                    if b == b'H' || b == b'f' {
                        let text = String::from_utf8_lossy(&self.params).into_owned();
                        let mut it = text.split(';').map(|n| n.parse::<u32>().unwrap_or(1));
                        self.row = it.next().unwrap_or(1).saturating_sub(1);
                        self.col = it.next().unwrap_or(1).saturating_sub(1);
                    }
                    self.state = Escape::Text;
                }
                Escape::Csi => self.params.push(b),
                Escape::Osc if b == 0x07 || b == 0x1b => self.state = Escape::Text,
                Escape::Osc => {}
            }
        }
    }
}

/// A free UDP port on loopback, for the hosted server.
fn free_port() -> anyhow::Result<u16> {
    Ok(std::net::UdpSocket::bind("127.0.0.1:0")?
        .local_addr()?
        .port())
}

fn spawn(opts: &LatencyOptions, lag_ms: u32) -> anyhow::Result<(Child, Receiver<Vec<u8>>)> {
    let bin = opts.binary.display().to_string();
    let cmd = format!(
        "stty cols 100 rows 30; exec '{bin}' host --port {} --no-discovery --name bench --lag {lag_ms}",
        free_port()?
    );
    let mut child = Command::new("script")
        .args(["-qfc", &cmd, "/dev/null"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .context("cannot run script(1), which makes the pseudo-terminal")?;
    let mut out = child.stdout.take().expect("piped");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut buf = [0u8; 65_536];
        while let Ok(n) = out.read(&mut buf) {
            if n == 0 || tx.send(buf[..n].to_vec()).is_err() {
                break;
            }
        }
    });
    Ok((child, rx))
}

/// Key-to-`@` times at one simulated one-way lag, and how many keys moved nothing.
fn measure(opts: &LatencyOptions, lag_ms: u32) -> anyhow::Result<(Vec<Duration>, u32)> {
    let (mut child, rx) = spawn(opts, lag_ms)?;
    // Between keys the picture must come to rest, late server answers included.
    let rest = Duration::from_millis(300 + 4 * u64::from(lag_ms));
    let result = keys(opts, &mut child, &rx, rest);
    if let Some(stdin) = child.stdin.as_mut() {
        let _ = stdin.write_all(b"q");
        let _ = stdin.flush();
    }
    let deadline = Instant::now() + Duration::from_secs(3);
    while child.try_wait()?.is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.wait();
    result
}

fn keys(
    opts: &LatencyOptions,
    child: &mut Child,
    rx: &Receiver<Vec<u8>>,
    rest: Duration,
) -> anyhow::Result<(Vec<Duration>, u32)> {
    let mut screen = Screen::default();
    let stdin = child.stdin.as_mut().context("no stdin")?;
    // The game is up once an `@` is drawn; then let the picture settle.
    let up = Instant::now() + Duration::from_secs(10);
    while screen.ats.is_empty() {
        let left = up.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(bytes) => screen.take(&bytes, stdin),
            Err(_) => return Err(anyhow!("the game never drew an '@'")),
        }
    }
    settle(&mut screen, rx, stdin, Duration::from_millis(500));
    let (mut times, mut misses) = (Vec::new(), 0);
    for i in 0..opts.samples {
        let at = *screen.ats.last().expect("seen");
        screen.ats.clear();
        let key = if i % 2 == 0 { b"d" } else { b"a" };
        stdin.write_all(key)?;
        stdin.flush()?;
        let sent = Instant::now();
        match moved(&mut screen, rx, stdin, at, sent + Duration::from_secs(1)) {
            Some(t) => times.push(t.duration_since(sent)),
            None => misses += 1,
        }
        settle(&mut screen, rx, stdin, rest);
        if screen.ats.is_empty() {
            screen.ats.push(at);
        }
    }
    Ok((times, misses))
}

/// When the `@` was first drawn away from `at` (near it: not some other `@` on screen).
fn moved(
    screen: &mut Screen,
    rx: &Receiver<Vec<u8>>,
    input: &mut impl Write,
    at: (u32, u32),
    deadline: Instant,
) -> Option<Instant> {
    loop {
        let bytes = rx
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
            .ok()?;
        let now = Instant::now();
        screen.take(&bytes, input);
        let near = |p: &(u32, u32)| *p != at && p.0.abs_diff(at.0) <= 3 && p.1.abs_diff(at.1) <= 1;
        if screen.ats.iter().any(near) {
            return Some(now);
        }
    }
}

/// Reads output for `d`, following the screen.
fn settle(screen: &mut Screen, rx: &Receiver<Vec<u8>>, input: &mut impl Write, d: Duration) {
    let end = Instant::now() + d;
    loop {
        match rx.recv_timeout(end.saturating_duration_since(Instant::now())) {
            Ok(bytes) => screen.take(&bytes, input),
            Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => return,
        }
    }
}
