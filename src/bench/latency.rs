//! Key-to-screen latency of the real program: `netarena host` (no bots) runs in a
//! pseudo-terminal the bench opens itself (`pty`); the bench writes a movement key (left and right
//! in turn, left first: a new player faces right, so every key turns the arrow) and
//! times the first output bytes that show its effect: the facing arrow turned the key's
//! way beside the local `@`, or the `@` drawn in another cell. The time to the `@` in
//! another cell alone is reported too: it adds however long the player takes to cross
//! into the next cell from where it stood. Both include the kernel's pseudo-terminal
//! both ways, as a terminal emulator's would, and no relay process. Unix only (the
//! pseudo-terminal is `platform::pty`).

use std::io::Write;
use std::time::{Duration, Instant};

use anyhow::bail;
use serde::Serialize;

use super::percentile_us;
use crate::platform::pty::{Game, Output};

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
    pub(crate) key_to_cell_ms_p50_rtt0: f64,
    pub misses_rtt0: u32,
    pub key_to_screen_ms_p50_rtt200: f64,
    pub key_to_screen_ms_p99_rtt200: f64,
    pub(crate) key_to_cell_ms_p50_rtt200: f64,
    pub misses_rtt200: u32,
}

pub fn run(opts: &LatencyOptions) -> anyhow::Result<LatencyResult> {
    let fast = measure(opts, 0)?;
    let slow = measure(opts, 100)?;
    let ms = |v: &[Duration], q| percentile_us(&mut v.to_vec(), q) / 1000.0;
    Ok(LatencyResult {
        samples: opts.samples,
        key_to_screen_ms_p50_rtt0: ms(&fast.shown, 0.5),
        key_to_screen_ms_p99_rtt0: ms(&fast.shown, 0.99),
        key_to_cell_ms_p50_rtt0: ms(&fast.moved, 0.5),
        misses_rtt0: fast.misses,
        key_to_screen_ms_p50_rtt200: ms(&slow.shown, 0.5),
        key_to_screen_ms_p99_rtt200: ms(&slow.shown, 0.99),
        key_to_cell_ms_p50_rtt200: ms(&slow.moved, 0.5),
        misses_rtt200: slow.misses,
    })
}

/// One run's samples: to the first sign of the key, to the `@` in another cell, and
/// how many keys showed nothing within a second.
#[derive(Default)]
struct Samples {
    shown: Vec<Duration>,
    moved: Vec<Duration>,
    misses: u32,
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
    /// Where right (true) and left (false) facing arrows were drawn.
    arrows: Vec<(u32, u32, bool)>,
    /// The bytes of a UTF-8 character being read.
    utf8: Vec<u8>,
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
                    0x20..=0x7e => self.col += 1,
                    0xc0..=0xff => {
                        self.utf8 = vec![b];
                        self.col += 1;
                    }
                    0x80..=0xbf => {
                        self.utf8.push(b);
                        // '→' is E2 86 92, '←' is E2 86 90.
                        match self.utf8.as_slice() {
                            [0xe2, 0x86, 0x92] => self.arrows.push((self.col - 1, self.row, true)),
                            [0xe2, 0x86, 0x90] => self.arrows.push((self.col - 1, self.row, false)),
                            _ => {}
                        }
                    }
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

/// Key-to-screen times at one simulated one-way lag, and how many keys showed nothing.
fn measure(opts: &LatencyOptions, lag_ms: u32) -> anyhow::Result<Samples> {
    let args = format!(
        "host --port {} --no-discovery --name bench --lag {lag_ms}",
        free_port()?
    );
    let args: Vec<String> = args.split(' ').map(str::to_owned).collect();
    // Dropping the game (on errors too) makes it quit, or kills it, and reaps it.
    let mut game = Game::spawn(&opts.binary, &args, 100, 30)?;
    // Between keys the picture must come to rest, late server answers included.
    let rest = Duration::from_millis(300 + 4 * u64::from(lag_ms));
    keys(opts, &mut game, rest)
}

fn keys(opts: &LatencyOptions, game: &mut Game, rest: Duration) -> anyhow::Result<Samples> {
    let mut screen = Screen::default();
    // The game is up once an `@` is drawn; then let the picture settle.
    let up = Instant::now() + Duration::from_secs(10);
    while screen.ats.is_empty() {
        match game.read(up) {
            Output::Bytes(bytes, _) => screen.take(&bytes, game.input()),
            Output::Quiet => bail!("the game never drew an '@'"),
            Output::Gone => bail!("the game exited before drawing an '@' ({})", ended(game)),
        }
    }
    settle(&mut screen, game, Duration::from_millis(500));
    let mut samples = Samples::default();
    for i in 0..opts.samples {
        let at = *screen.ats.last().expect("seen");
        screen.ats.clear();
        screen.arrows.clear();
        // Left first: a right key would turn nothing on a player who faces right.
        let right = i % 2 == 1;
        // Timed from before the write: on a busy machine the bench can lose the CPU as
        // the write wakes the game, and the answer can be back before it runs again.
        let sent = Instant::now();
        game.input().write_all(if right { b"d" } else { b"a" })?;
        let (shown, moved) = reaction(&mut screen, game, at, right, sent);
        match shown {
            Some(t) => samples.shown.push(t.duration_since(sent)),
            None => samples.misses += 1,
        }
        if let Some(t) = moved {
            samples.moved.push(t.duration_since(sent));
        }
        settle(&mut screen, game, rest);
        if game.gone() {
            bail!("the game exited during the keys ({})", ended(game));
        }
        if screen.ats.is_empty() {
            screen.ats.push(at);
        }
    }
    Ok(samples)
}

/// How the game ended, for an error message.
fn ended(game: &mut Game) -> String {
    std::thread::sleep(Duration::from_millis(100));
    match game.status() {
        Some(status) => status.to_string(),
        None => "its terminal closed".to_owned(),
    }
}

/// When the key first showed (the facing arrow turned its way beside the `@`, or the
/// `@` moved) and when the `@` was first drawn away from `at`, within a second. The
/// times are when the bench's read returned the bytes.
fn reaction(
    screen: &mut Screen,
    game: &mut Game,
    at: (u32, u32),
    right: bool,
    sent: Instant,
) -> (Option<Instant>, Option<Instant>) {
    let deadline = sent + Duration::from_secs(1);
    let (mut shown, mut moved) = (None, None);
    while moved.is_none() {
        let Output::Bytes(bytes, now) = game.read(deadline) else {
            break;
        };
        screen.take(&bytes, game.input());
        // Near it: not some other `@` or arrow on screen.
        let near = |x: u32, y: u32| x.abs_diff(at.0) <= 3 && y.abs_diff(at.1) <= 1;
        if screen.ats.iter().any(|p| *p != at && near(p.0, p.1)) {
            moved = Some(now);
        }
        let turned = screen
            .arrows
            .iter()
            .any(|&(x, y, r)| r == right && near(x, y));
        if shown.is_none() && (turned || moved.is_some()) {
            shown = Some(now);
        }
    }
    (shown, moved)
}

/// Reads output for `d`, following the screen.
fn settle(screen: &mut Screen, game: &mut Game, d: Duration) {
    let end = Instant::now() + d;
    while let Output::Bytes(bytes, _) = game.read(end) {
        screen.take(&bytes, game.input());
    }
}
