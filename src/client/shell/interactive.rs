//! The terminal client: joining, then the game as a `Screen` of the one terminal
//! shell (`shell.rs`) around a `Driver`. The game supplies its keys (held keys, chat,
//! F8, switches explained), its tick (the receive pump, a rejoin, the commands due) and
//! its view; the shell reads the keys, draws the picture if it changed and sleeps on the
//! link until a datagram, a key, the next command or the next frame is due (see
//! `frames`); commands run at a fixed rate, frames whenever the picture changes (at most
//! `--fps-cap` a second).
#![doc(hidden)] // Public for the binary, tests or fuzz targets: see the crate docs.

use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use anyhow::Context;
use ratatui::Frame;
use ratatui::crossterm::event::KeyEvent;

pub use super::Outcome;
use super::headless;
use super::link::Link;
use super::pump::{Pumped, pump};
use super::rejoin::{REJOINING, Silence, rejoin};
use super::terminal::Releases;
use crate::client::ClientConfig;
use crate::client::driver::Driver;
use crate::client::explain;
use crate::client::netcode::rates::RateMeter;
use crate::client::netcode::session::ClientSession;
use crate::client::play::app::{App, Effect};
use crate::client::play::input::{Action, Keys, chat_key};
use crate::client::shell::{Flow, Modal, Screen, Shell};
use crate::client::tap::{LinkTotals, LoopKind, Tap, TapEvent};
use crate::net::protocol::{ClientMsg, Welcome};
use crate::ui;

pub fn run(config: ClientConfig, stop: &AtomicBool) -> anyhow::Result<Outcome> {
    run_with(config, stop, None, None)
}

/// [`run`], every input to the loop handed to `tap` (a recorder, to a file or kept in
/// memory and saved with F8); with `report`, the headless client's JSON report of the
/// session is written there at the end, however it ended.
pub fn run_with(
    config: ClientConfig,
    stop: &AtomicBool,
    mut tap: Option<Box<dyn Tap>>,
    report: Option<&Path>,
) -> anyhow::Result<Outcome> {
    let tried = Instant::now();
    let mut link = Link::open(&config)?;
    let mut shell = Shell::enter(stop, config.fps_cap)?;
    let welcome = match connect(&mut shell.modal(), &mut link, &config) {
        Ok(Ok(welcome)) => welcome,
        Ok(Err(outcome)) => {
            let how = match outcome {
                Outcome::Quit => "quit before joining",
                Outcome::Stopped => "stopped by a signal before joining",
            };
            if let Some(path) = report {
                headless::write_unjoined(&link, tried, path, how.to_owned())?;
            }
            return Ok(outcome);
        }
        Err(e) => return Err(headless::unjoined(&link, tried, report, e)),
    };
    let now = Instant::now();
    let start = now;
    let size = shell.size()?;
    if let Some(tap) = &mut tap {
        tap.start(now, LoopKind::Interactive, &welcome, &config);
        // The size it starts with, at the start (the driver notes the changes).
        tap.event(now, TapEvent::Size(size.0, size.1));
    }
    let mut session = ClientSession::new(welcome, now, config.switches)
        .context("the server sent a map this client cannot use")?;
    session.apply(&config);
    session.real_network();
    let app = App::new(config.outgoing.clone());
    let mut driver = Driver::new(session, app, now);
    if let Some(tap) = tap {
        driver.set_tap(tap);
    }
    let keys_wake = link.watch_terminal();
    let mut game = Game {
        keys: Keys::with_bindings(shell.enhanced(), config.keys.clone()),
        link: &mut link,
        driver: &mut driver,
        config: &config,
        screen: size,
        rates: RateMeter::default(),
        keys_wake,
        message: None,
        start,
        explained: None,
        silence: Silence::default(),
        silent: None,
        panic_at: config.debug_panic_after.map(|d| Instant::now() + d),
    };
    let result = shell.run(&mut game);
    let rtt = driver.session().stats().rtt_ms;
    let totals = leave(&mut link, rtt, start);
    if let Some(tap) = driver.tap_mut() {
        tap.finish(totals);
    }
    if let Some(path) = report {
        let ended = match &result {
            Ok(Outcome::Quit) => "quit".to_owned(),
            Ok(Outcome::Stopped) => "stopped by a signal".to_owned(),
            Err(e) => format!("{e:#}"),
        };
        let mut report = headless::report(driver.session(), totals, ended);
        report.path_mtu = link.path_mtu();
        headless::write_report(path, &report)?;
    }
    // A recording that stopped is an error, though the game went on.
    match driver.tap_failure() {
        Some(why) if result.is_ok() => Err(anyhow::anyhow!(why)),
        _ => result,
    }
}

/// Tells the server we are gone (repeated until it answers, for at most 300 ms); the
/// link's totals of the session that began at `start`.
fn leave(link: &mut Link, rtt_ms: f64, start: Instant) -> LinkTotals {
    let now = Instant::now();
    let _ = headless::leave(link, rtt_ms, Duration::from_millis(300));
    link.totals(now.duration_since(start).as_secs_f64())
}

/// Joins, showing what it is doing; Esc, q and Ctrl-C cancel, and so does a signal.
/// Err carries how a cancelled join ends the program.
fn connect(
    modal: &mut Modal<'_>,
    link: &mut Link,
    config: &ClientConfig,
) -> anyhow::Result<Result<Welcome, Outcome>> {
    let text = format!("connecting to {}… (Esc to cancel)", link.server());
    let mut outcome = Outcome::Stopped;
    let welcome = link.connect(&config.name, config.timeout, || {
        modal.waiting(&text, &mut outcome)
    })?;
    Ok(welcome.ok_or(outcome))
}

/// The game as the shell runs it: the driver and the link, and the screen's own state
/// besides them.
struct Game<'a> {
    link: &'a mut Link,
    driver: &'a mut Driver,
    config: &'a ClientConfig,
    keys: Keys,
    screen: (u16, u16),
    rates: RateMeter,
    /// Whether the link's wait also wakes for keys; if not, keys are looked at often.
    keys_wake: bool,
    /// What became of the last F8 (save the recording kept in memory).
    message: Option<String>,
    /// When the session started (its welcome).
    start: Instant,
    /// What the last switch change did, and when: on the bottom line for a while.
    explained: Option<(Instant, String)>,
    /// Says when the server has been silent for a while.
    silence: Silence,
    silent: Option<String>,
    /// `--debug-panic`: when to panic.
    panic_at: Option<Instant>,
}

/// How long a switch's explanation stays on the bottom line.
const EXPLAIN_SECS: Duration = Duration::from_secs(4);

impl Screen for Game<'_> {
    fn releases(&self) -> Releases {
        Releases::Keep
    }

    fn on_key(&mut self, key: &KeyEvent, now: Instant) -> anyhow::Result<Flow> {
        let (need_w, need_h) = ui::minimum_size(self.driver.session().map());
        let too_small = self.screen.0 < need_w || self.screen.1 < need_h;
        let effect = if too_small {
            // While the terminal is too small nothing is shown, so only quitting acts.
            self.keys.quits(key).then_some(Effect::Quit)
        } else {
            self.effect_of(key, now)
        };
        let (link, driver) = (&mut *self.link, &mut *self.driver);
        match effect {
            Some(Effect::Quit) => return Ok(Flow::Quit),
            Some(Effect::Chat(line)) if driver.may_send_chat(now) => {
                link.send(now, &ClientMsg::Chat(line));
            }
            // The same simulated path both ways, as the command line sets it.
            Some(Effect::Conditions(c)) => link.set_conditions(c.clone(), c),
            // A dial of the player's own, turned now: the tap hears the new settings.
            Some(Effect::Turn { dial, up }) => {
                self.explained = Some((now, driver.turn_dial(now, dial, up)));
            }
            Some(Effect::Chat(_) | Effect::Toggle(_)) | None => {}
        }
        Ok(Flow::Go)
    }

    fn on_resize(&mut self, w: u16, h: u16, _now: Instant) {
        self.keys.release_all();
        self.screen = (w, h);
        self.driver.note_size(w, h);
    }

    fn on_tick(&mut self, now: Instant, modal: &mut Modal<'_>) -> anyhow::Result<Flow> {
        if self.panic_at.is_some_and(|t| now >= t) {
            panic!("debug panic requested with --debug-panic");
        }
        let (link, driver, config) = (&mut *self.link, &mut *self.driver, self.config);
        if pump(link, driver, now, config.timeout)? == Pumped::Forgotten {
            let text = format!("{REJOINING} {}… (Esc to cancel)", link.server());
            let mut outcome = Outcome::Stopped;
            let seconds = now.duration_since(self.start).as_secs_f64();
            let cancel = || modal.waiting(&text, &mut outcome);
            if !rejoin(link, driver, config, seconds, cancel)? {
                return Ok(Flow::Quit);
            }
            return Ok(Flow::Go);
        }
        self.silent = self
            .silence
            .note(now, driver.session().last_heard(), link.server());
        let held = self.keys.buttons(now);
        let mut dropped = Vec::new();
        driver.play(now, held, |msg| {
            if link.send(now, &msg) {
                dropped.push(msg);
            }
        });
        for msg in &dropped {
            driver.link_dropped(now, msg);
        }
        Ok(Flow::Go)
    }

    fn draw(&mut self, frame: &mut Frame, now: Instant, fps: f64) {
        self.driver.frame(now);
        self.rates
            .sample(now, self.link.traffic(), self.driver.session().stats());
        let mut view = self.driver.view(now, fps, self.rates.rates());
        if view.notice.is_none() {
            // A recording that stopped says so until the end; an F8's message stays.
            view.notice = self.driver.tap_failure().or_else(|| self.message.clone());
        }
        view.theme = self.config.theme;
        view.explanation = self
            .explained
            .as_ref()
            .filter(|(at, _)| now.saturating_duration_since(*at) < EXPLAIN_SECS)
            .map(|(_, text)| text.clone());
        if self.silent.is_some() {
            view.notice.clone_from(&self.silent);
        }
        // An empty arena says how to fill it, where chat goes (never over a player),
        // before the chat lines: a chat line keeps its row.
        if view.roster.len() == 1 && view.roster.iter().all(|r| r.local) {
            view.chat.splice(0..0, self.config.alone.iter().cloned());
        }
        ui::draw(frame, &view);
    }

    fn in_motion(&self, now: Instant) -> bool {
        self.driver.in_motion(now)
    }

    fn next_due(&self, _now: Instant) -> Instant {
        let next = self.driver.next_command();
        self.panic_at.map_or(next, |t| next.min(t))
    }

    fn keys_wake(&self) -> bool {
        self.keys_wake
    }

    fn wait(&mut self, until: Instant) -> anyhow::Result<()> {
        self.link.wait(until)
    }
}

impl Game<'_> {
    /// What a key does while the arena is shown.
    fn effect_of(&mut self, key: &KeyEvent, now: Instant) -> Option<Effect> {
        let (link, driver) = (&*self.link, &mut *self.driver);
        if driver.app().chatting() {
            return chat_key(key).and_then(|k| driver.type_chat(k));
        }
        if self.keys.saves(key) {
            let totals = link.totals(now.duration_since(self.start).as_secs_f64());
            self.message = Some(save_recording(driver, totals));
            return None;
        }
        let action = self.keys.handle(key, now)?;
        let effect = driver.handle(action);
        // The weapon is on the combat line already, and changes too often to be explained.
        let weapon = matches!(action, Action::SelectWeapon(_));
        if let (false, Some(text)) = (weapon, explain::explain(driver, action, "your")) {
            self.explained = Some((now, text));
        }
        effect
    }
}

/// F8: saves the session kept in memory, ending with the link's `totals` so far; the
/// message says where, or why not.
fn save_recording(driver: &mut Driver, totals: LinkTotals) -> String {
    match driver.tap_mut().and_then(|t| t.save(totals)) {
        None => "nothing kept in memory to save".into(),
        Some(Ok(path)) => format!("saved; watch it with: netarena replay {path}"),
        Some(Err(e)) => format!("cannot save the recording: {e}"),
    }
}
