//! The server browser's loop: search, list, choose or type, and hand back an address.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::Context;
use mio::{Events, Poll, Token};
use ratatui::crossterm::event::{Event, KeyEvent};

use super::discovery::{Discovery, Found, Scope};
use super::terminal::{self, Releases};
use crate::ui::join_screen::{JoinView, ServerLine, draw_join};
use crate::ui::keys::{self, Browser as Do};

/// How often the browser asks again while open, so the list stays live.
const REFRESH: Duration = Duration::from_secs(2);
/// How long "searching…" shows after the player asks for a search.
const SEARCH_WINDOW: Duration = Duration::from_millis(800);
/// The longest the loop sleeps before looking at the keyboard again.
const KEY_CHECK: Duration = Duration::from_millis(20);

/// The browser's own state: the highlighted line, the address being typed, the last
/// error, and when servers were last asked.
#[derive(Default)]
struct Browser {
    selected: usize,
    typed: String,
    error: Option<String>,
    last_probe: Option<Instant>,
    /// When the player (or the start) last asked for a fresh search.
    search_started: Option<Instant>,
}

/// Shows the browser until the player picks a server (Some) or quits (None), with
/// `error` (why the last join failed) on its last line. `resolve` turns typed text
/// into an address, with a one-line error.
pub fn choose(
    scope: Scope,
    ports: &[u16],
    stop: &AtomicBool,
    resolve: impl Fn(&str) -> anyhow::Result<SocketAddr>,
    error: Option<String>,
) -> anyhow::Result<Option<SocketAddr>> {
    let mut discovery = Discovery::new(scope, ports)?;
    let asked = super::discovery::describe(scope, ports);
    // Answers wake the loop as they arrive, so each is timed when it lands.
    let mut poll = Poll::new().context("cannot create poll")?;
    discovery.register(poll.registry(), Token(0))?;
    let mut events = Events::with_capacity(8);
    let (mut tui, _, _guard) = terminal::enter().context("cannot set up the terminal")?;
    let mut b = Browser {
        error,
        ..Browser::default()
    };
    loop {
        if stop.load(Ordering::Relaxed) {
            return Ok(None);
        }
        // Read answers first thing after waking: each is timed as it is read.
        discovery.receive();
        let now = Instant::now();
        let servers: Vec<ServerLine> = discovery.found().iter().map(server_line).collect();
        b.selected = b.selected.min(servers.len().saturating_sub(1));
        let searching = b
            .search_started
            .is_none_or(|t| now.duration_since(t) < SEARCH_WINDOW);
        let view = JoinView {
            servers: &servers,
            selected: b.selected,
            typed: &b.typed,
            searching,
            error: b.error.as_deref(),
            asked: &asked,
        };
        tui.draw(|f| draw_join(f, &view))?;

        while let Some(ev) = terminal::next_event(&mut tui, Releases::Drop)? {
            let Event::Key(key) = ev else {
                continue;
            };
            if let Some(choice) = b.on_key(&key, &mut discovery, &resolve) {
                return Ok(choice);
            }
        }
        // Ask right before sleeping, so an answer wakes the loop and is read at once.
        let now = Instant::now();
        if b.last_probe
            .is_none_or(|t| now.duration_since(t) >= REFRESH)
        {
            discovery.probe(now);
            b.last_probe = Some(now);
            b.search_started.get_or_insert(now);
        }
        let wake = b
            .last_probe
            .map_or(now, |t| t + REFRESH)
            .min(now + KEY_CHECK);
        if let Err(e) = poll.poll(&mut events, Some(wake.saturating_duration_since(now)))
            && e.kind() != std::io::ErrorKind::Interrupted
        {
            return Err(e).context("poll failed");
        }
    }
}

impl Browser {
    /// One key, as the binding table's browser rows (`ui::keys::BROWSER`) say.
    /// Some(choice) when the browser is done: an address, or None to quit.
    fn on_key(
        &mut self,
        key: &KeyEvent,
        discovery: &mut Discovery,
        resolve: impl Fn(&str) -> anyhow::Result<SocketAddr>,
    ) -> Option<Option<SocketAddr>> {
        let typed = &mut self.typed;
        match keys::browser_key(key, !typed.is_empty())? {
            Do::Quit => return Some(None),
            Do::Refresh => {
                discovery.clear();
                self.last_probe = None;
                self.search_started = None;
                self.error = None;
            }
            Do::Up => self.selected = self.selected.saturating_sub(1),
            Do::Down => self.selected += 1,
            Do::Erase => {
                typed.pop();
            }
            Do::Type(c) => {
                if typed.len() < 64 {
                    typed.push(c);
                    self.error = None;
                }
            }
            Do::Join if !typed.is_empty() => match resolve(typed) {
                Ok(addr) => return Some(Some(addr)),
                Err(e) => self.error = Some(format!("{e:#}")),
            },
            Do::Join => match discovery.found().get(self.selected) {
                Some(s) if s.compatible => return Some(Some(s.address)),
                Some(s) => {
                    self.error = Some(format!(
                        "{} speaks protocol v{}; this client speaks v{}: it cannot be joined",
                        s.name,
                        s.version,
                        crate::net::protocol::PROTOCOL_VERSION
                    ))
                }
                None => {
                    self.error =
                        Some("no server selected: wait for the list, or type an address".into())
                }
            },
        }
        None
    }
}

fn server_line(f: &Found) -> ServerLine {
    ServerLine {
        name: f.name.clone(),
        map: f.map.clone(),
        players: f.players,
        max_players: f.max_players,
        version: f.version,
        compatible: f.compatible,
        ping_ms: f.ping_ms,
    }
}
