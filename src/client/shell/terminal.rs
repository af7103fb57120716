//! Taking over the terminal and always giving it back.
//!
//! Raw mode, the alternate screen, keyboard enhancement flags and the hidden cursor are
//! undone on every way out: the guard's drop (normal exit and errors), a panic hook (a
//! panic in any thread), and the signal flag (Ctrl-C, SIGTERM, SIGHUP), which ends the
//! shell's loop (`shell.rs`) so the guard drops.
//!
//! Every screen (game, lab, browser, replay) reads the keyboard through `next_event`:
//! the one place where Ctrl-Z suspends (in raw mode it is a key, not a signal) and where
//! key releases are dropped for the shells that do not use them (crossterm on Windows
//! reports a release for every key, whatever the terminal was asked for).
#![doc(hidden)] // Public for the binary, tests or fuzz targets: see the crate docs.

use std::io::{self, BufWriter, Stdout, Write};
use std::mem::ManuallyDrop;
use std::sync::Once;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crate::platform::terminal as platform;
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use ratatui::crossterm::cursor::{Hide, Show};
use ratatui::crossterm::event::{
    self, Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers, KeyboardEnhancementFlags,
    PopKeyboardEnhancementFlags, PushKeyboardEnhancementFlags,
};
use ratatui::crossterm::execute;
use ratatui::crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
    supports_keyboard_enhancement,
};

/// The terminal, never dropped: ratatui's drop prints to stderr when it cannot show
/// the cursor, and stderr is gone once the terminal has hung up, which would turn a
/// clean exit into a panic. [`TerminalGuard`] does the restoring instead.
pub(crate) type Tui = ManuallyDrop<Terminal<CrosstermBackend<BufWriter<Stdout>>>>;

/// Set while we own the terminal, so restoring twice (hook, then guard) is harmless.
static ACTIVE: AtomicBool = AtomicBool::new(false);
static ENHANCED: AtomicBool = AtomicBool::new(false);
static HOOK: Once = Once::new();
/// Set by the panic hook: the terminal is being given back, draw nothing more.
static CLOSING: AtomicBool = AtomicBool::new(false);

/// False once a panic anywhere has begun giving the terminal back.
pub(crate) fn may_draw() -> bool {
    !CLOSING.load(Ordering::SeqCst)
}

/// Restores the terminal when dropped.
pub(crate) struct TerminalGuard {
    _private: (),
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        restore();
    }
}

/// Puts the terminal in game mode. Returns the terminal, whether key releases will be
/// reported, and the guard that undoes it all.
pub(crate) fn enter() -> io::Result<(Tui, bool, TerminalGuard)> {
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            // Stop the frame loop drawing (it may be on another thread), let a frame in
            // flight finish, then restore, so the report prints on a clean screen.
            CLOSING.store(true, Ordering::SeqCst);
            if ACTIVE.load(Ordering::SeqCst) {
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
            restore();
            previous(info);
            // A panic on any thread ends the game: half a game (a dead server thread
            // under a live client, or the reverse) drawing on a restored terminal is
            // worse than none.
            std::process::exit(101);
        }));
    });
    // The guard first: if taking over fails halfway, what was done is undone.
    let guard = TerminalGuard { _private: () };
    let enhanced = take_over(None)?;
    let backend = CrosstermBackend::new(BufWriter::with_capacity(64 * 1024, io::stdout()));
    let mut terminal = Terminal::new(backend)?;
    terminal.clear()?;
    Ok((ManuallyDrop::new(terminal), enhanced, guard))
}

/// Raw mode, the alternate screen, the hidden cursor, and the keyboard enhancement
/// flags if the terminal speaks them (`enhance`: None asks it; a resume passes what the
/// first start found). Returns whether they were pushed.
fn take_over(enhance: Option<bool>) -> io::Result<bool> {
    enable_raw_mode()?;
    ACTIVE.store(true, Ordering::SeqCst);
    let mut out = io::stdout();
    execute!(out, EnterAlternateScreen, Hide)?;
    let enhanced = match enhance {
        Some(e) => e,
        None => supports_keyboard_enhancement().unwrap_or(false),
    };
    if enhanced {
        execute!(
            out,
            PushKeyboardEnhancementFlags(
                KeyboardEnhancementFlags::DISAMBIGUATE_ESCAPE_CODES
                    | KeyboardEnhancementFlags::REPORT_EVENT_TYPES
            )
        )?;
        ENHANCED.store(true, Ordering::SeqCst);
    }
    Ok(enhanced)
}

/// Whether a shell wants key-release events.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Releases {
    /// Held keys end on their release (the game's and the lab's players).
    Keep,
    /// Only presses and repeats mean anything (menus, the replay).
    Drop,
}

/// Ctrl-Z, pressed.
fn is_suspend(ev: &Event) -> bool {
    matches!(ev, Event::Key(KeyEvent { code: KeyCode::Char('z' | 'Z'), modifiers, kind, .. })
        if modifiers.contains(KeyModifiers::CONTROL) && *kind != KeyEventKind::Release)
}

/// What a shell sees of one event: None for a release it does not want.
fn sift(ev: Event, releases: Releases) -> Option<Event> {
    match ev {
        Event::Key(KeyEvent {
            kind: KeyEventKind::Release,
            ..
        }) if releases == Releases::Drop => None,
        ev => Some(ev),
    }
}

/// The next pending terminal event, without waiting; None when there is none. Ctrl-Z
/// suspends here (see [`suspend`]) and comes back as a resize to the current size, so
/// the shell redraws everything as it does after a resize, and forgets held keys (their
/// releases were never seen).
pub(crate) fn next_event(tui: &mut Tui, releases: Releases) -> io::Result<Option<Event>> {
    while event::poll(Duration::ZERO)? {
        let ev = event::read()?;
        if is_suspend(&ev) {
            suspend(tui)?;
            let area = tui.size()?;
            return Ok(Some(Event::Resize(area.width, area.height)));
        }
        if let Some(ev) = sift(ev, releases) {
            return Ok(Some(ev));
        }
    }
    Ok(None)
}

/// Ctrl-Z as any terminal program does it: gives the terminal back, stops the whole
/// process (every thread: a `host`'s server stops too) with SIGTSTP's default action,
/// and after `fg` (SIGCONT) takes the terminal again, drops what was typed in between
/// and clears, so the next draw paints the whole screen. Unix only: elsewhere there is
/// no job control, and Ctrl-Z writes one line to the log and the game goes on.
fn suspend(tui: &mut Tui) -> io::Result<()> {
    if !platform::CAN_SUSPEND {
        tracing::info!("Ctrl-Z: suspending is Unix only; the game goes on");
        return Ok(());
    }
    let enhanced = ENHANCED.load(Ordering::SeqCst);
    restore();
    // Returns only once the process is continued; where SIGTSTP is ignored (no job
    // control), at once, and the game goes on.
    platform::stop_until_continued();
    take_over(Some(enhanced))?;
    platform::drop_typed_ahead();
    tui.clear()?;
    Ok(())
}

/// Gives the terminal back. Safe to call from any thread, any number of times.
pub fn restore() {
    if !ACTIVE.swap(false, Ordering::SeqCst) {
        return;
    }
    let mut out = io::stdout();
    if ENHANCED.swap(false, Ordering::SeqCst) {
        let _ = execute!(out, PopKeyboardEnhancementFlags);
    }
    let _ = execute!(out, LeaveAlternateScreen, Show);
    let _ = disable_raw_mode();
    let _ = out.flush();
}

/// Whether the terminal on stdin has hung up (a closed window, a dropped ssh session).
/// Asked before crossterm reads events: its event source loops forever on a hung-up
/// tty's end of file (crossterm-rs/crossterm#793), so a hangup that found the game
/// there used to end it only through the watchdog, with no report and no `Leave`.
pub(crate) fn hung_up() -> bool {
    platform::hung_up()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(code: KeyCode, modifiers: KeyModifiers, kind: KeyEventKind) -> Event {
        Event::Key(KeyEvent::new_with_kind(code, modifiers, kind))
    }

    /// crossterm on Windows reports a release for every key: a shell that took the
    /// releases it has no use for would act twice per key (a typed address doubled).
    /// They are dropped here, in one place, and kept for the shells that hold keys.
    #[test]
    fn releases_reach_only_the_shells_that_use_them() {
        let none = KeyModifiers::NONE;
        let release = key(KeyCode::Char('d'), none, KeyEventKind::Release);
        assert_eq!(sift(release.clone(), Releases::Drop), None);
        assert_eq!(sift(release.clone(), Releases::Keep), Some(release));
        for kind in [KeyEventKind::Press, KeyEventKind::Repeat] {
            let ev = key(KeyCode::Char('d'), none, kind);
            assert_eq!(sift(ev.clone(), Releases::Drop), Some(ev));
        }
        assert_eq!(
            sift(Event::Resize(80, 24), Releases::Drop),
            Some(Event::Resize(80, 24))
        );
    }

    #[test]
    fn ctrl_z_pressed_suspends_and_nothing_else_does() {
        let ctrl = KeyModifiers::CONTROL;
        assert!(is_suspend(&key(
            KeyCode::Char('z'),
            ctrl,
            KeyEventKind::Press
        )));
        assert!(!is_suspend(&key(
            KeyCode::Char('z'),
            ctrl,
            KeyEventKind::Release
        )));
        assert!(!is_suspend(&key(
            KeyCode::Char('z'),
            KeyModifiers::NONE,
            KeyEventKind::Press
        )));
        assert!(!is_suspend(&key(
            KeyCode::Char('c'),
            ctrl,
            KeyEventKind::Press
        )));
    }
}
