//! Taking over the terminal and always giving it back.
//!
//! Raw mode, the alternate screen, keyboard enhancement flags and the hidden cursor are
//! undone on every way out: the guard's drop (normal exit and errors), a panic hook (a
//! panic in any thread), and the event loops' signal flag (Ctrl-C, SIGTERM, SIGHUP),
//! which ends the loop so the guard drops.

use std::io::{self, BufWriter, Stdout, Write};
use std::sync::Once;
use std::sync::atomic::{AtomicBool, Ordering};

use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use ratatui::crossterm::cursor::{Hide, Show};
use ratatui::crossterm::event::{
    KeyboardEnhancementFlags, PopKeyboardEnhancementFlags, PushKeyboardEnhancementFlags,
};
use ratatui::crossterm::execute;
use ratatui::crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
    supports_keyboard_enhancement,
};

pub type Tui = Terminal<CrosstermBackend<BufWriter<Stdout>>>;

/// Set while we own the terminal, so restoring twice (hook, then guard) is harmless.
static ACTIVE: AtomicBool = AtomicBool::new(false);
static ENHANCED: AtomicBool = AtomicBool::new(false);
static HOOK: Once = Once::new();

/// Restores the terminal when dropped.
pub struct TerminalGuard {
    _private: (),
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        restore();
    }
}

/// Puts the terminal in game mode. Returns the terminal, whether key releases will be
/// reported, and the guard that undoes it all.
pub fn enter() -> io::Result<(Tui, bool, TerminalGuard)> {
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            restore();
            previous(info);
        }));
    });
    enable_raw_mode()?;
    ACTIVE.store(true, Ordering::SeqCst);
    let guard = TerminalGuard { _private: () };
    let mut out = io::stdout();
    execute!(out, EnterAlternateScreen, Hide)?;
    let enhanced = supports_keyboard_enhancement().unwrap_or(false);
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
    let backend = CrosstermBackend::new(BufWriter::with_capacity(64 * 1024, io::stdout()));
    let mut terminal = Terminal::new(backend)?;
    terminal.clear()?;
    Ok((terminal, enhanced, guard))
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
