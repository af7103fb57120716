//! The terminal client's frame loop: sample keys every frame, run command ticks at a
//! fixed rate, draw as fast as frames can be drawn (or at `--fps-cap`).

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use ratatui::crossterm::event::{self, Event, KeyCode, KeyModifiers};
use ratatui::crossterm::terminal::{BeginSynchronizedUpdate, EndSynchronizedUpdate};
use ratatui::crossterm::{execute, queue};

use super::ClientConfig;
use super::input::{Action, Keys};
use super::link::Link;
use super::rates::RateMeter;
use super::session::{ClientSession, SessionEnd};
use super::terminal::{self, Tui};
use crate::net::protocol::{ClientMsg, MAX_CHAT_CHARS};
use crate::sim::combat::aim_of;
use crate::sim::world::{Buttons, Command};
use crate::ui;

/// How the game ended, for the message printed after the terminal is restored.
pub enum Outcome {
    Quit,
    Stopped,
}

pub fn run(config: ClientConfig, stop: &AtomicBool) -> anyhow::Result<Outcome> {
    let mut link = Link::open(&config)?;
    let welcome = link.connect(&config.name, config.timeout)?;
    let mut session = ClientSession::new(welcome, Instant::now(), config.switches)
        .context("the server sent a map this client cannot use")?;
    session.set_input_rate(config.input_rate);
    let (mut tui, enhanced, _guard) = terminal::enter().context("cannot set up the terminal")?;
    let result = play(&mut tui, &mut link, session, &config, enhanced, stop);
    // Tell the server we are gone; a few copies, since any one may be lost.
    let now = Instant::now();
    for _ in 0..3 {
        link.send(now, &ClientSession::leave());
    }
    let deadline = now + Duration::from_millis(300);
    while Instant::now() < deadline && link.wait(deadline).is_ok() {
        link.pump(Instant::now(), |_, _| {});
    }
    result
}

fn play(
    tui: &mut Tui,
    link: &mut Link,
    mut session: ClientSession,
    config: &ClientConfig,
    enhanced: bool,
    stop: &AtomicBool,
) -> anyhow::Result<Outcome> {
    let tick_period = Duration::from_secs(1) / session_tick_rate(&session);
    let frame_period = config.fps_cap.map(|f| Duration::from_secs(1) / f.max(1));
    let mut keys = Keys::new(enhanced);
    let mut next_command = Instant::now();
    let mut last_command = Instant::now();
    let mut last_buttons = Buttons::empty();
    let mut fps = FpsCounter::default();
    let mut next_frame = Instant::now();
    let mut screen = {
        let size = tui.size()?;
        (size.width, size.height)
    };
    let mut overlays = Overlays::default();
    let mut aim = 0u8;
    let mut weapon = 0u8;
    // The chat line being typed, when the editor is open: keys go to it, not the game.
    let mut chat: Option<String> = None;
    let mut rates = RateMeter::default();
    let panic_at = config.debug_panic_after.map(|d| Instant::now() + d);

    loop {
        if stop.load(Ordering::Relaxed) {
            return Ok(Outcome::Stopped);
        }
        let now = Instant::now();
        if panic_at.is_some_and(|t| now >= t) {
            panic!("debug panic requested with --debug-panic");
        }
        let mut ended = None;
        link.pump(now, |msg, len| {
            if let Some(end) = session.on_message(now, msg, len) {
                ended = Some(end);
            }
        });
        if let Some(SessionEnd::ServerSaidBye(reason)) = ended {
            bail!("the server closed the connection: {reason}");
        }
        if now.duration_since(session.last_heard()) > config.timeout {
            bail!(
                "the server at {} stopped answering ({} s of silence)",
                link.server(),
                config.timeout.as_secs()
            );
        }

        let (need_w, need_h) = ui::required_size(session.map());
        let too_small = screen.0 < need_w || screen.1 < need_h;
        while event::poll(Duration::ZERO)? {
            match event::read()? {
                // Ctrl-C quits from anywhere, the chat editor included.
                Event::Key(key)
                    if key.modifiers.contains(KeyModifiers::CONTROL)
                        && key.code == KeyCode::Char('c') =>
                {
                    return Ok(Outcome::Quit);
                }
                // While the terminal is too small nothing is shown, so only quitting acts.
                Event::Key(key) if too_small => {
                    if matches!(key.code, KeyCode::Char('q') | KeyCode::Esc) {
                        return Ok(Outcome::Quit);
                    }
                }
                Event::Key(key) if chat.is_some() => {
                    if let Some(line) = edit_chat(&mut chat, &key) {
                        link.send(now, &ClientMsg::Chat(line));
                    }
                }
                Event::Key(key) => match keys.handle(&key, now) {
                    Some(Action::Quit) => return Ok(Outcome::Quit),
                    Some(Action::SelectWeapon(w)) => weapon = w,
                    Some(Action::OpenChat) => chat = Some(String::new()),
                    Some(action) => apply(&mut session, link, &mut overlays, action),
                    None => {}
                },
                Event::Resize(w, h) => {
                    tui.autoresize()?;
                    screen = (w, h);
                }
                _ => {}
            }
        }

        // A newly pressed key runs the next command tick now rather than up to a tick
        // later, so the local player starts moving in the very next frame. Only when at
        // least half a tick has passed, so key mashing cannot outpace real time by much
        // (and the server's budget would absorb it anyway).
        let buttons = if chat.is_some() {
            Buttons::empty()
        } else {
            keys.buttons(now)
        };
        let (dx, dy) = buttons.direction();
        if let Some(a) = aim_of(dx, dy) {
            aim = a;
        }
        if buttons != last_buttons && now.duration_since(last_command) >= tick_period / 2 {
            next_command = next_command.min(now);
        }
        last_buttons = buttons;
        let mut ticks = 0;
        while now >= next_command {
            let cmd = Command {
                buttons,
                weapon,
                aim,
            };
            if let Some(msg) = session.command_tick(now, cmd) {
                link.send(now, &msg);
            }
            last_command = now;
            next_command += tick_period.mul_f64(session.command_period_scale());
            ticks += 1;
            if ticks > 5 {
                // We were suspended or starved: resume the cadence from now.
                next_command = now + tick_period;
            }
        }

        // With a cap, a frame is drawn only when one is due; the loop still wakes for
        // packets and command ticks in between.
        if let Some(period) = frame_period {
            if now < next_frame {
                link.wait(next_frame.min(next_command))?;
                continue;
            }
            next_frame = (next_frame + period).max(now);
        }
        session.frame(now);
        rates.sample(now, link.traffic(), session.stats());
        let conditions = link.conditions().0.summary();
        let mut view = session.view(now, fps.value(), conditions);
        view.help = overlays.help;
        view.chat_input = chat.clone();
        if overlays.stats {
            view.stats = Some(session.stats_view(now, rates.rates()));
        }
        if !terminal::may_draw() {
            // Another thread panicked; its hook is restoring the terminal and exiting.
            std::thread::park();
        }
        queue!(tui.backend_mut(), BeginSynchronizedUpdate)?;
        tui.draw(|f| ui::draw(f, &view))?;
        execute!(tui.backend_mut(), EndSynchronizedUpdate)?;
        fps.frame(now);
    }
}

fn session_tick_rate(session: &ClientSession) -> u32 {
    // The session knows the rate as f64 for interpolation; commands need whole ticks.
    session.tick_rate().round().max(1.0) as u32
}

/// Which overlays are open.
#[derive(Default)]
struct Overlays {
    stats: bool,
    help: bool,
}

/// Steps the lag keys move through.
const LAG_STEP_MS: u32 = 25;
const MAX_LAG_MS: u32 = 1000;
const JITTER_STEPS_MS: [u32; 5] = [0, 5, 10, 20, 40];
const LOSS_STEPS_PCT: [f64; 6] = [0.0, 1.0, 2.0, 5.0, 10.0, 20.0];

/// The step after `current` in `steps` (wrapping), or the first.
fn next_step<T: PartialOrd + Copy>(steps: &[T], current: T) -> T {
    steps
        .iter()
        .copied()
        .find(|s| *s > current)
        .unwrap_or(steps[0])
}

fn apply(session: &mut ClientSession, link: &mut Link, overlays: &mut Overlays, action: Action) {
    let mut conditions = link.conditions().0.clone();
    let s = &mut session.switches;
    match action {
        Action::Quit => {}
        Action::TogglePrediction => {
            let on = !s.prediction;
            session.set_prediction(on);
        }
        Action::ToggleReconciliation => {
            // Reconciliation corrects a prediction; without prediction there is none.
            s.reconciliation = !s.reconciliation && s.prediction;
        }
        Action::ToggleInterpolation => s.interpolation = !s.interpolation,
        Action::ToggleExtrapolation => s.extrapolation = !s.extrapolation,
        Action::ToggleSmoothing => s.smoothing = !s.smoothing,
        Action::CycleGhosts => s.ghosts = s.ghosts.next(),
        Action::ToggleStats => overlays.stats = !overlays.stats,
        Action::ToggleHelp => overlays.help = !overlays.help,
        Action::LagUp => {
            conditions.latency_ms = (conditions.latency_ms + LAG_STEP_MS).min(MAX_LAG_MS)
        }
        Action::LagDown => {
            conditions.latency_ms = conditions.latency_ms.saturating_sub(LAG_STEP_MS)
        }
        Action::CycleJitter => {
            conditions.jitter_ms = next_step(&JITTER_STEPS_MS, conditions.jitter_ms)
        }
        Action::CycleLoss => conditions.loss_pct = next_step(&LOSS_STEPS_PCT, conditions.loss_pct),
        Action::CycleProfile => conditions = conditions.next_profile().1,
        Action::ToggleScoreboard => session.show_scoreboard = !session.show_scoreboard,
        Action::ToggleLagCompensation => {
            session.show_lag_compensation = !session.show_lag_compensation;
        }
        // Handled by the loop, which owns the weapon choice and the chat editor.
        Action::SelectWeapon(_) | Action::OpenChat => {}
    }
    if &conditions != link.conditions().0 {
        // The same simulated path both ways, as the command line sets it.
        link.set_conditions(conditions.clone(), conditions);
    }
}

/// One key into the chat editor. Returns the line to send on Enter.
fn edit_chat(
    chat: &mut Option<String>,
    key: &ratatui::crossterm::event::KeyEvent,
) -> Option<String> {
    use ratatui::crossterm::event::{KeyCode, KeyEventKind};
    if key.kind == KeyEventKind::Release {
        return None;
    }
    let text = chat.as_mut()?;
    match key.code {
        KeyCode::Esc => *chat = None,
        KeyCode::Enter => {
            let line = chat.take().unwrap_or_default();
            return (!line.trim().is_empty()).then_some(line);
        }
        KeyCode::Backspace => {
            text.pop();
        }
        KeyCode::Char(c) if !c.is_control() && text.chars().count() < MAX_CHAT_CHARS => {
            text.push(c)
        }
        _ => {}
    }
    None
}

/// Frames per second over the last half second.
#[derive(Default)]
struct FpsCounter {
    window_start: Option<Instant>,
    frames: u32,
    value: f64,
}

impl FpsCounter {
    fn frame(&mut self, now: Instant) {
        let start = *self.window_start.get_or_insert(now);
        self.frames += 1;
        let elapsed = now.duration_since(start).as_secs_f64();
        if elapsed >= 0.5 {
            self.value = f64::from(self.frames) / elapsed;
            self.frames = 0;
            self.window_start = Some(now);
        }
    }

    fn value(&self) -> f64 {
        self.value
    }
}
