//! The terminal client: a thin shell around a `Driver`. Each turn of the loop reads
//! the keys, pumps the link, steps the driver and draws the picture if it changed, then
//! sleeps until a datagram, a key, the next command or the next look is due (see
//! `frames`); commands run at a fixed rate, frames whenever the picture changes (at most
//! `--fps-cap` a second).

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use ratatui::buffer::Buffer;
use ratatui::crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
use ratatui::crossterm::terminal::{BeginSynchronizedUpdate, EndSynchronizedUpdate};
use ratatui::crossterm::{execute, queue};
use ratatui::layout::Rect;

use super::ClientConfig;
use super::app::{App, Effect};
use super::driver::Driver;
use super::explain;
use super::frames::{FpsCounter, FramePacer};
use super::headless;
use super::input::{Action, Keys, chat_key};
use super::link::Link;
use super::rates::RateMeter;
use super::rejoin::{REJOINING, Silence, rejoin};
use super::session::{ClientSession, SessionEnd};
use super::tap::{LinkTotals, LoopKind, Tap, TapEvent};
use super::terminal::{self, Releases, Tui};
use crate::net::protocol::{ClientMsg, Welcome};
use crate::ui;

/// How the game ended, for the message printed after the terminal is restored.
pub enum Outcome {
    Quit,
    Stopped,
}

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
    let (mut tui, enhanced, _guard) = terminal::enter().context("cannot set up the terminal")?;
    let welcome = match connect(&mut tui, &mut link, &config, stop) {
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
    if let Some(tap) = &mut tap {
        tap.start(now, LoopKind::Interactive, &welcome, &config);
        // The size it starts with, at the start (the driver notes the changes).
        let size = tui.size()?;
        tap.event(now, TapEvent::Size(size.width, size.height));
    }
    let mut session = ClientSession::new(welcome, now, config.switches)
        .context("the server sent a map this client cannot use")?;
    session.set_input_rate(config.input_rate);
    let app = App::new(config.switches, config.outgoing.clone());
    let mut driver = Driver::new(session, app, now);
    if let Some(tap) = tap {
        driver.set_tap(tap);
    }
    let result = match play(
        &mut tui,
        &mut link,
        &mut driver,
        &config,
        enhanced,
        stop,
        start,
    ) {
        // Writing to or reading a terminal that hung up fails (EIO): the hangup, whose
        // SIGHUP is on its way, ended the game.
        Err(_) if terminal::hung_up() => Ok(Outcome::Stopped),
        other => other,
    };
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
        headless::write_report(path, &headless::report(driver.session(), totals, ended))?;
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
    tui: &mut Tui,
    link: &mut Link,
    config: &ClientConfig,
    stop: &AtomicBool,
) -> anyhow::Result<Result<Welcome, Outcome>> {
    let text = format!("connecting to {}… (Esc to cancel)", link.server());
    let mut outcome = Outcome::Stopped;
    let welcome = link.connect(&config.name, config.timeout, || {
        waiting(tui, &text, stop, &mut outcome)
    })?;
    Ok(welcome.ok_or(outcome))
}

/// Shows `text` while the link waits for the server; true when the wait is cancelled
/// (Esc, q or Ctrl-C: `outcome` becomes Quit; a signal leaves it as it is).
fn waiting(
    tui: &mut Tui,
    text: &str,
    stop: &AtomicBool,
    outcome: &mut Outcome,
) -> anyhow::Result<bool> {
    if stop.load(Ordering::Relaxed) {
        return Ok(true);
    }
    tui.draw(|f| ui::draw_message(f, text))?;
    while let Some(ev) = terminal::next_event(tui, Releases::Drop)? {
        if let Event::Key(key) = ev
            && (key.code == KeyCode::Esc
                || key.code == KeyCode::Char('q')
                || (key.code == KeyCode::Char('c')
                    && key.modifiers.contains(KeyModifiers::CONTROL)))
        {
            *outcome = Outcome::Quit;
            return Ok(true);
        }
    }
    Ok(false)
}

/// The loop's own state besides the driver: the screen, frame pacing and rates.
struct Shell {
    keys: Keys,
    screen: (u16, u16),
    fps: FpsCounter,
    rates: RateMeter,
    pacer: FramePacer,
    /// What is on the screen, to draw only a picture that differs.
    shown: Buffer,
    /// Whether the link's wait also wakes for keys; if not, keys are looked at often.
    keys_wake: bool,
    /// What became of the last F8 (save the recording kept in memory).
    message: Option<String>,
    /// When the session started (its welcome).
    start: Instant,
    /// What the last switch change did, and when: on the bottom line for a while.
    explained: Option<(Instant, String)>,
    theme: ui::Theme,
    /// Says when the server has been silent for a while.
    silence: Silence,
    silent: Option<String>,
}

/// How long a switch's explanation stays on the bottom line.
const EXPLAIN_SECS: Duration = Duration::from_secs(4);
/// How often keys are looked at when the terminal cannot wake the loop.
const KEY_CHECK: Duration = Duration::from_millis(10);

fn play(
    tui: &mut Tui,
    link: &mut Link,
    driver: &mut Driver,
    config: &ClientConfig,
    enhanced: bool,
    stop: &AtomicBool,
    start: Instant,
) -> anyhow::Result<Outcome> {
    let size = tui.size()?;
    let mut shell = Shell {
        keys: Keys::with_bindings(enhanced, config.keys.clone()),
        screen: (size.width, size.height),
        fps: FpsCounter::default(),
        rates: RateMeter::default(),
        pacer: FramePacer::new(config.fps_cap, Instant::now()),
        shown: Buffer::empty(Rect::ZERO),
        keys_wake: link.watch_terminal(),
        message: None,
        start,
        explained: None,
        theme: config.theme,
        silence: Silence::default(),
        silent: None,
    };
    let panic_at = config.debug_panic_after.map(|d| Instant::now() + d);
    loop {
        if stop.load(Ordering::Relaxed) {
            return Ok(Outcome::Stopped);
        }
        let now = Instant::now();
        if panic_at.is_some_and(|t| now >= t) {
            panic!("debug panic requested with --debug-panic");
        }
        pump(link, driver, now, config)?;
        if link.server_forgot_us() {
            let text = format!("{REJOINING} {}… (Esc to cancel)", link.server());
            let mut outcome = Outcome::Stopped;
            let seconds = now.duration_since(start).as_secs_f64();
            let cancel = || waiting(tui, &text, stop, &mut outcome);
            if !rejoin(link, driver, config, seconds, cancel)? {
                return Ok(outcome);
            }
            // Whatever was on the screen belongs to the old session.
            shell.shown = Buffer::empty(Rect::ZERO);
            continue;
        }
        shell.silent = shell
            .silence
            .note(now, driver.session().last_heard(), link.server());
        // A closed terminal ends the game here, as its SIGHUP would (which may not have
        // come yet), and before crossterm could spin on the tty's end of file.
        if terminal::hung_up() {
            return Ok(Outcome::Stopped);
        }
        if read_keys(tui, link, driver, &mut shell, now)? {
            return Ok(Outcome::Quit);
        }
        let held = shell.keys.buttons(now);
        let mut dropped = Vec::new();
        driver.play(now, held, |msg| {
            if link.send(now, &msg) {
                dropped.push(msg);
            }
        });
        for msg in &dropped {
            driver.link_dropped(now, msg);
        }
        look(tui, link, driver, &mut shell, now)?;
        // Sleep until a datagram, a key, the next command or the next look is due.
        let mut wake = shell.pacer.next_wake(now, driver.next_command());
        if !shell.keys_wake {
            wake = wake.min(now + KEY_CHECK);
        }
        if let Some(t) = panic_at {
            wake = wake.min(t);
        }
        link.wait(wake)?;
    }
}

/// Takes in what the server sent; errors when it said goodbye or fell silent.
fn pump(
    link: &mut Link,
    driver: &mut Driver,
    now: Instant,
    config: &ClientConfig,
) -> anyhow::Result<()> {
    let mut ended = None;
    link.pump(now, |msg, len| {
        if let Some(end) = driver.receive(now, msg, len) {
            ended = Some(end);
        }
    });
    match ended {
        Some(SessionEnd::ServerSaidBye(reason)) => {
            bail!("the server closed the connection: {reason}")
        }
        Some(end) => bail!("{end}"),
        None => {}
    }
    if now.duration_since(driver.session().last_heard()) > config.timeout {
        bail!(
            "the server at {} stopped answering ({} s of silence)",
            link.server(),
            config.timeout.as_secs()
        );
    }
    Ok(())
}

/// Every pending terminal event. True when the player quit.
fn read_keys(
    tui: &mut Tui,
    link: &mut Link,
    driver: &mut Driver,
    shell: &mut Shell,
    now: Instant,
) -> anyhow::Result<bool> {
    let (need_w, need_h) = ui::minimum_size(driver.session().map());
    let too_small = shell.screen.0 < need_w || shell.screen.1 < need_h;
    while let Some(ev) = terminal::next_event(tui, Releases::Keep)? {
        let effect = match ev {
            // Ctrl-C quits from anywhere, the chat editor included.
            Event::Key(key)
                if key.modifiers.contains(KeyModifiers::CONTROL)
                    && key.code == KeyCode::Char('c') =>
            {
                Some(Effect::Quit)
            }
            // While the terminal is too small nothing is shown, so only quitting acts.
            Event::Key(key) if too_small => shell.keys.quits(&key).then_some(Effect::Quit),
            Event::Key(key) => on_key(link, driver, shell, &key, now),
            Event::Resize(w, h) => {
                tui.autoresize()?;
                // Also after a suspend (same size): what was on screen is gone, and so
                // are the releases of keys held then.
                shell.shown.reset();
                shell.keys.release_all();
                shell.screen = (w, h);
                driver.note_size(w, h);
                None
            }
            _ => None,
        };
        match effect {
            Some(Effect::Quit) => return Ok(true),
            Some(Effect::Chat(line)) if driver.may_send_chat(now) => {
                link.send(now, &ClientMsg::Chat(line));
            }
            // The same simulated path both ways, as the command line sets it.
            Some(Effect::Conditions(c)) => link.set_conditions(c.clone(), c),
            Some(Effect::Chat(_) | Effect::Switches(_)) | None => {}
        }
    }
    Ok(false)
}

fn on_key(
    link: &Link,
    driver: &mut Driver,
    shell: &mut Shell,
    key: &KeyEvent,
    now: Instant,
) -> Option<Effect> {
    if driver.app().chatting() {
        return chat_key(key).and_then(|k| driver.type_chat(k));
    }
    if shell.keys.saves(key) {
        let totals = link.totals(now.duration_since(shell.start).as_secs_f64());
        shell.message = Some(save_recording(driver, totals));
        return None;
    }
    let action = shell.keys.handle(key, now)?;
    let effect = driver.handle(action);
    // The weapon is on the combat line already, and changes too often to be explained.
    let weapon = matches!(action, Action::SelectWeapon(_));
    if let (false, Some(text)) = (weapon, explain::explain(driver, action, "your")) {
        shell.explained = Some((now, text));
    }
    effect
}

/// Looks at the picture, if the frame cap allows, and draws it if it changed.
fn look(
    tui: &mut Tui,
    link: &Link,
    driver: &mut Driver,
    shell: &mut Shell,
    now: Instant,
) -> anyhow::Result<()> {
    shell.fps.roll(now);
    if !shell.pacer.may_draw(now) {
        return Ok(());
    }
    driver.frame(now);
    shell
        .rates
        .sample(now, link.traffic(), driver.session().stats());
    let mut view = driver.view(now, shell.fps.value(), shell.rates.rates());
    if view.notice.is_none() {
        // A recording that stopped says so until the end; an F8's message stays.
        view.notice = driver.tap_failure().or_else(|| shell.message.clone());
    }
    view.theme = shell.theme;
    view.explanation = shell
        .explained
        .as_ref()
        .filter(|(at, _)| now.saturating_duration_since(*at) < EXPLAIN_SECS)
        .map(|(_, text)| text.clone());
    if shell.silent.is_some() {
        view.notice.clone_from(&shell.silent);
    }
    let drawn = draw_if_changed(tui, &mut shell.shown, &view)?;
    if drawn {
        shell.fps.frame(now);
    }
    shell.pacer.looked(now, drawn, driver.in_motion(now));
    Ok(())
}

/// Renders `view` off screen and, if it differs from `shown`, sends the difference to
/// the terminal. True when it did.
fn draw_if_changed(tui: &mut Tui, shown: &mut Buffer, view: &ui::View) -> anyhow::Result<bool> {
    tui.autoresize()?;
    let mut frame = tui.get_frame();
    ui::draw(&mut frame, view);
    if tui.current_buffer_mut() == shown {
        tui.current_buffer_mut().reset();
        return Ok(false);
    }
    if !terminal::may_draw() {
        // Another thread panicked; its hook is restoring the terminal and exiting.
        std::thread::park();
    }
    shown.clone_from(tui.current_buffer_mut());
    queue!(tui.backend_mut(), BeginSynchronizedUpdate)?;
    tui.flush()?;
    tui.hide_cursor()?;
    tui.swap_buffers();
    execute!(tui.backend_mut(), EndSynchronizedUpdate)?;
    Ok(true)
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
