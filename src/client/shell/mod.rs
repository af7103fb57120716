//! The thin shells around the one loop body (`driver::Driver`): they own what the
//! loop may not, the socket (`link`), the terminal (`terminal`, `frames`) and the
//! wall clock. `interactive` plays in a terminal, `headless` runs a bot to a JSON
//! report; `rejoin` carries a shell over a silent or restarted server; `discovery`
//! and `join_screen` find a server to join.
//!
//! The one terminal shell: the game, the lab, the replay and the server browser each run
//! in it, and supply only a `Screen`: their state, their keys and their view.
//!
//! The shell owns what every terminal front end needs, once: raw mode and the alternate
//! screen (through `terminal`, restored on every way out), reading events (Ctrl-Z
//! suspends in `terminal::next_event`), Ctrl-C, the signal flag (SIGINT, SIGTERM,
//! SIGHUP) and a hung-up terminal, resizes, frame pacing (`FramePacer`, `--fps-cap`),
//! the FPS counter, and drawing: a frame is rendered off screen and sent only if it
//! differs from what is shown, inside a synchronized update.
//!
//! Each turn: the stop flag and the hangup; every pending event (Ctrl-C quits, a resize
//! goes to `Screen::on_resize`, keys to `Screen::on_key`); `Screen::on_tick`; a
//! frame drawn if the cap allows (`Screen::draw`); then a sleep until the
//! screen's next due time, the next frame while it is in motion, or a key
//! (`Screen::wait`).

pub mod discovery;
mod frames;
pub mod headless;
pub mod interactive;
pub mod join_screen;
mod link;
mod path_probe;
mod pump;
mod rejoin;
pub mod terminal;

use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::Context;
use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::crossterm::event::{self, Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use ratatui::crossterm::terminal::{BeginSynchronizedUpdate, EndSynchronizedUpdate};
use ratatui::crossterm::{execute, queue};
use ratatui::layout::Rect;

use crate::ui;
use frames::{FpsCounter, FramePacer, MAX_SLEEP};
use terminal::{Releases, TerminalGuard, Tui};

/// How a front end ended, for the message printed after the terminal is restored and
/// the exit status.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The user quit (a key, Ctrl-C).
    Quit,
    /// A signal, or the terminal hung up.
    Stopped,
}

/// What a screen says after a key or a tick.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Flow {
    Go,
    Quit,
}

/// How often keys are looked at when the screen's [`Screen::wait`] is not woken by them.
const KEY_CHECK: Duration = Duration::from_millis(10);

/// One front end as the shell runs it.
pub(crate) trait Screen {
    /// Whether key releases reach [`Screen::on_key`].
    fn releases(&self) -> Releases {
        Releases::Drop
    }
    /// One key (Ctrl-C never comes here: it quits).
    fn on_key(&mut self, key: &KeyEvent, now: Instant) -> anyhow::Result<Flow>;
    /// The terminal is `w` by `h` now, or came back from a suspend (same size): what was
    /// on the screen is gone, and so are the releases of keys held then.
    fn on_resize(&mut self, _w: u16, _h: u16, _now: Instant) {}
    /// After the keys: time passes, input arrives. `modal` shows a line while a long
    /// wait (a rejoin) runs inside the tick.
    fn on_tick(&mut self, _now: Instant, _modal: &mut Modal<'_>) -> anyhow::Result<Flow> {
        Ok(Flow::Go)
    }
    /// Draws the picture at `now`; `fps` is how many frames a second reached the screen.
    fn draw(&mut self, frame: &mut Frame, now: Instant, fps: f64);
    /// Whether the picture may change with time alone (then it is looked at often).
    fn in_motion(&self, _now: Instant) -> bool {
        false
    }
    /// When the screen must be ticked next at the latest.
    fn next_due(&self, now: Instant) -> Instant {
        now + MAX_SLEEP
    }
    /// Whether [`Screen::wait`] wakes for keys (if not, keys are looked at every 10 ms).
    fn keys_wake(&self) -> bool {
        true
    }
    /// Sleeps until `until`, or sooner when a key (or the screen's own input) arrives.
    fn wait(&mut self, until: Instant) -> anyhow::Result<()> {
        event::poll(until.saturating_duration_since(Instant::now()))?;
        Ok(())
    }
}

/// The terminal, taken over until this is dropped.
pub(crate) struct Shell<'s> {
    tui: Tui,
    enhanced: bool,
    stop: &'s AtomicBool,
    /// What is on the screen, to send only a picture that differs.
    shown: Buffer,
    fps: FpsCounter,
    pacer: FramePacer,
    _guard: TerminalGuard,
}

impl<'s> Shell<'s> {
    /// Takes over the terminal; `stop` is the signal flag, `fps_cap` the most frames a
    /// second.
    pub(crate) fn enter(stop: &'s AtomicBool, fps_cap: Option<u32>) -> anyhow::Result<Self> {
        let (tui, enhanced, guard) = terminal::enter().context("cannot set up the terminal")?;
        Ok(Shell {
            tui,
            enhanced,
            stop,
            shown: Buffer::empty(Rect::ZERO),
            fps: FpsCounter::default(),
            pacer: FramePacer::new(fps_cap, Instant::now()),
            _guard: guard,
        })
    }

    /// Whether key releases are reported.
    pub(crate) fn enhanced(&self) -> bool {
        self.enhanced
    }

    /// The terminal's size, columns and rows.
    pub(crate) fn size(&self) -> io::Result<(u16, u16)> {
        let size = self.tui.size()?;
        Ok((size.width, size.height))
    }

    /// A line on the screen while something outside the loop waits (joining).
    pub(crate) fn modal(&mut self) -> Modal<'_> {
        Modal {
            tui: &mut self.tui,
            stop: self.stop,
            shown: &mut self.shown,
        }
    }

    /// Runs `screen` until it quits, Ctrl-C, a signal or a hangup. An error the screen
    /// or the terminal gives once the terminal has hung up is that hangup (whose SIGHUP
    /// is on its way): Stopped.
    pub(crate) fn run(&mut self, screen: &mut impl Screen) -> anyhow::Result<Outcome> {
        match self.turns(screen) {
            Err(_) if terminal::hung_up() => Ok(Outcome::Stopped),
            other => other,
        }
    }

    fn turns(&mut self, screen: &mut impl Screen) -> anyhow::Result<Outcome> {
        loop {
            if self.stop.load(Ordering::Relaxed) {
                return Ok(Outcome::Stopped);
            }
            // A closed terminal ends here, as its SIGHUP would (which may not have come
            // yet), and before crossterm could spin on the tty's end of file.
            if terminal::hung_up() {
                return Ok(Outcome::Stopped);
            }
            let now = Instant::now();
            while let Some(ev) = terminal::next_event(&mut self.tui, screen.releases())? {
                if let Some(outcome) = self.event(screen, ev, now)? {
                    return Ok(outcome);
                }
            }
            let flow = screen.on_tick(now, &mut self.modal())?;
            if let Some(outcome) = ended(flow, self.stop.load(Ordering::Relaxed)) {
                return Ok(outcome);
            }
            self.draw_frame(screen, now)?;
            let wake = wake(&self.pacer, screen, now);
            screen.wait(wake)?;
        }
    }

    /// One terminal event; Some when it ends the run.
    fn event(
        &mut self,
        screen: &mut impl Screen,
        ev: Event,
        now: Instant,
    ) -> anyhow::Result<Option<Outcome>> {
        match route(screen, ev, now)? {
            Routed::Done(outcome) => return Ok(Some(outcome)),
            Routed::Resized => {
                self.tui.autoresize()?;
                self.shown.reset();
            }
            Routed::Go => {}
        }
        Ok(None)
    }

    /// Renders the picture, if the cap allows, and sends it if it changed.
    fn draw_frame(&mut self, screen: &mut impl Screen, now: Instant) -> anyhow::Result<()> {
        self.fps.roll(now);
        if !self.pacer.may_draw(now) {
            return Ok(());
        }
        let fps = self.fps.value();
        let drawn = draw_if_changed(&mut self.tui, &mut self.shown, |f| {
            screen.draw(f, now, fps);
        })?;
        if drawn {
            self.fps.frame(now);
        }
        self.pacer.after_frame(now, drawn, screen.in_motion(now));
        Ok(())
    }
}

impl Drop for Shell<'_> {
    fn drop(&mut self) {
        // Left blank: after a resize, some terminals (tmux) keep the top rows of what
        // the alternate screen held in the scrollback, above the prompt, when it is
        // left. The guard then gives the terminal back.
        let _ = self.tui.clear();
    }
}

/// What an event did to the screen.
#[derive(Debug, PartialEq, Eq)]
enum Routed {
    Go,
    /// The terminal changed size (or resumed): what it shows is gone.
    Resized,
    Done(Outcome),
}

/// Hands one event to `screen`: Ctrl-C quits before any screen sees it, a resize goes
/// to `on_resize`, a key to `on_key`.
fn route(screen: &mut impl Screen, ev: Event, now: Instant) -> anyhow::Result<Routed> {
    Ok(match ev {
        Event::Key(key) if is_ctrl_c(&key) => Routed::Done(Outcome::Quit),
        Event::Key(key) => match screen.on_key(&key, now)? {
            Flow::Quit => Routed::Done(Outcome::Quit),
            Flow::Go => Routed::Go,
        },
        Event::Resize(w, h) => {
            screen.on_resize(w, h, now);
            Routed::Resized
        }
        _ => Routed::Go,
    })
}

/// How a tick that said `flow` ends the run: a quit is a stop if a signal came
/// meanwhile (a wait inside the tick, a rejoin, ends on the signal flag too).
fn ended(flow: Flow, stopped: bool) -> Option<Outcome> {
    match flow {
        Flow::Go => None,
        Flow::Quit if stopped => Some(Outcome::Stopped),
        Flow::Quit => Some(Outcome::Quit),
    }
}

/// When the loop wakes at the latest: the screen's next due time, the next frame while
/// it is in motion, and every [`KEY_CHECK`] if keys do not wake its wait.
fn wake(pacer: &FramePacer, screen: &impl Screen, now: Instant) -> Instant {
    let wake = pacer.next_wake(now, screen.next_due(now));
    if screen.keys_wake() {
        wake
    } else {
        wake.min(now + KEY_CHECK)
    }
}

/// Ctrl-C, pressed: it quits every screen, a chat being typed included.
fn is_ctrl_c(key: &KeyEvent) -> bool {
    key.code == KeyCode::Char('c')
        && key.modifiers.contains(KeyModifiers::CONTROL)
        && key.kind != KeyEventKind::Release
}

/// Renders with `draw` off screen and, if that differs from `shown`, sends the
/// difference to the terminal. True when it did.
fn draw_if_changed(
    tui: &mut Tui,
    shown: &mut Buffer,
    draw: impl FnOnce(&mut Frame),
) -> anyhow::Result<bool> {
    tui.autoresize()?;
    let mut frame = tui.get_frame();
    draw(&mut frame);
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

/// The shell's screen lent to a wait that runs outside the loop (joining, rejoining).
pub(crate) struct Modal<'a> {
    tui: &'a mut Tui,
    stop: &'a AtomicBool,
    shown: &'a mut Buffer,
}

impl Modal<'_> {
    /// Shows `text` while the wait goes on; true when it is cancelled: Esc, q or Ctrl-C
    /// (`outcome` becomes Quit) or a signal (`outcome` is left as it is).
    pub(crate) fn waiting(&mut self, text: &str, outcome: &mut Outcome) -> anyhow::Result<bool> {
        if self.stop.load(Ordering::Relaxed) {
            return Ok(true);
        }
        // Whatever the loop showed is gone once this is drawn.
        self.shown.reset();
        self.tui.draw(|f| ui::draw_message(f, text))?;
        while let Some(ev) = terminal::next_event(self.tui, Releases::Drop)? {
            if let Event::Key(key) = ev
                && (is_ctrl_c(&key) || matches!(key.code, KeyCode::Esc | KeyCode::Char('q')))
            {
                *outcome = Outcome::Quit;
                return Ok(true);
            }
        }
        Ok(false)
    }
}

#[cfg(test)]
mod tests;
