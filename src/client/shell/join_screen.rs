//! The server browser: search, list, choose or type, and hand back an address. It runs
//! in the one terminal shell (`shell.rs`), which quits it on Ctrl-C.
#![doc(hidden)] // Public for the binary, tests or fuzz targets: see the crate docs.

use std::net::SocketAddr;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use anyhow::Context;
use mio::{Events, Poll, Token};
use ratatui::Frame;
use ratatui::crossterm::event::KeyEvent;

use super::discovery::{Discovery, Found, Scope};
use crate::client::shell::{Flow, Modal, Screen, Shell};
use crate::ui::join_screen::{JoinView, ServerLine, draw_join};
use crate::ui::keys::{self, Browser as Do};

/// How often the browser asks again while open, so the list stays live.
const REFRESH: Duration = Duration::from_secs(2);
/// How long "searching…" shows after the player asks for a search.
const SEARCH_WINDOW: Duration = Duration::from_millis(800);

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

/// The browser as the shell runs it: its state, the search, and the choice made.
struct Browsing<R> {
    b: Browser,
    discovery: Discovery,
    /// Answers wake the loop as they arrive, so each is timed when it lands.
    poll: Poll,
    events: Events,
    asked: String,
    resolve: R,
    chosen: Option<SocketAddr>,
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
    let poll = Poll::new().context("cannot create poll")?;
    discovery.register(poll.registry(), Token(0))?;
    let mut browsing = Browsing {
        b: Browser {
            error,
            ..Browser::default()
        },
        discovery,
        poll,
        events: Events::with_capacity(8),
        asked: super::discovery::describe(scope, ports),
        resolve,
        chosen: None,
    };
    Shell::enter(stop, None)?.run(&mut browsing)?;
    Ok(browsing.chosen)
}

impl<R: Fn(&str) -> anyhow::Result<SocketAddr>> Screen for Browsing<R> {
    fn on_key(&mut self, key: &KeyEvent, _now: Instant) -> anyhow::Result<Flow> {
        Ok(
            match self.b.on_key(key, &mut self.discovery, &self.resolve) {
                Some(choice) => {
                    self.chosen = choice;
                    Flow::Quit
                }
                None => Flow::Go,
            },
        )
    }

    /// Reads the answers, then asks again when it is time: right before the sleep, so
    /// an answer wakes the loop and is read (and timed) at once.
    fn on_tick(&mut self, now: Instant, _modal: &mut Modal<'_>) -> anyhow::Result<Flow> {
        self.discovery.receive();
        let found = self.discovery.found().len();
        self.b.selected = self.b.selected.min(found.saturating_sub(1));
        if self
            .b
            .last_probe
            .is_none_or(|t| now.duration_since(t) >= REFRESH)
        {
            self.discovery.probe(now);
            self.b.last_probe = Some(now);
            self.b.search_started.get_or_insert(now);
        }
        Ok(Flow::Go)
    }

    fn draw(&mut self, frame: &mut Frame, now: Instant, _fps: f64) {
        let servers: Vec<ServerLine> = self.discovery.found().iter().map(server_line).collect();
        let b = &self.b;
        let searching = b
            .search_started
            .is_none_or(|t| now.duration_since(t) < SEARCH_WINDOW);
        let view = JoinView {
            servers: &servers,
            selected: b.selected,
            typed: &b.typed,
            searching,
            error: b.error.as_deref(),
            asked: &self.asked,
        };
        draw_join(frame, &view);
    }

    fn next_due(&self, now: Instant) -> Instant {
        self.b.last_probe.map_or(now, |t| t + REFRESH)
    }

    fn keys_wake(&self) -> bool {
        false
    }

    fn wait(&mut self, until: Instant) -> anyhow::Result<()> {
        let timeout = until.saturating_duration_since(Instant::now());
        match self.poll.poll(&mut self.events, Some(timeout)) {
            Err(e) if e.kind() != std::io::ErrorKind::Interrupted => Err(e).context("poll failed"),
            _ => Ok(()),
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
        match keys::browser_key(key)? {
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
        address: f.address.to_string(),
        map: f.map.clone(),
        players: f.players,
        max_players: f.max_players,
        version: f.version,
        compatible: f.compatible,
        ping_ms: f.ping_ms,
        key: f.key.clone(),
    }
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;

    use ratatui::crossterm::event::{KeyCode, KeyModifiers};

    use super::*;

    /// Types `text` into a fresh browser, one key event a character, then Enter: what
    /// the browser asked to resolve, and its choice.
    fn type_and_join(text: &str) -> (Vec<String>, Option<Option<SocketAddr>>) {
        let mut b = Browser::default();
        let mut d = Discovery::new(Scope::Loopback, &[7777]).unwrap();
        let asked = RefCell::new(Vec::new());
        let addr = SocketAddr::from(([192, 168, 1, 20], 7779));
        let resolve = |t: &str| {
            asked.borrow_mut().push(t.to_owned());
            Ok(addr)
        };
        for c in text.chars() {
            let key = KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE);
            assert_eq!(b.on_key(&key, &mut d, resolve), None, "{c:?} ended it");
        }
        assert_eq!(b.typed, text);
        let enter = KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE);
        let chosen = b.on_key(&enter, &mut d, resolve);
        (asked.into_inner(), chosen)
    }

    /// Issue 30: a host name beginning with `r` lost its `r` to "refresh", and one
    /// beginning with `q` quit the browser.
    #[test]
    fn any_host_name_can_be_typed_and_joined() {
        let addr = SocketAddr::from(([192, 168, 1, 20], 7779));
        for name in [
            "raspberrypi.local",
            "quakebox:7779",
            "R2:7777",
            "[::1]:7777",
        ] {
            let (asked, chosen) = type_and_join(name);
            assert_eq!(asked, [name]);
            assert_eq!(chosen, Some(Some(addr)), "{name}");
        }
    }

    /// Backspace erases, F5 searches again without touching the address, Esc leaves.
    #[test]
    fn the_browsers_own_keys_leave_the_address_alone() {
        let mut b = Browser::default();
        let mut d = Discovery::new(Scope::Loopback, &[7777]).unwrap();
        let resolve = |_: &str| -> anyhow::Result<SocketAddr> { unreachable!() };
        let key = |code| KeyEvent::new(code, KeyModifiers::NONE);
        for code in [KeyCode::Char('r'), KeyCode::Char('q'), KeyCode::Char('x')] {
            assert_eq!(b.on_key(&key(code), &mut d, resolve), None);
        }
        assert_eq!(b.on_key(&key(KeyCode::Backspace), &mut d, resolve), None);
        b.last_probe = Some(Instant::now());
        assert_eq!(b.on_key(&key(KeyCode::F(5)), &mut d, resolve), None);
        assert_eq!((b.typed.as_str(), b.last_probe), ("rq", None));
        assert_eq!(b.on_key(&key(KeyCode::Esc), &mut d, resolve), Some(None));
    }
}
