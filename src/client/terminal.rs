//! Taking over the terminal and always giving it back.
//!
//! Raw mode, the alternate screen, keyboard enhancement flags and the hidden cursor are
//! undone on every way out: the guard's drop (normal exit and errors), a panic hook (a
//! panic in any thread), and the event loops' signal flag (Ctrl-C, SIGTERM, SIGHUP),
//! which ends the loop so the guard drops.

use std::io::{self, BufWriter, Stdout, Write};
use std::mem::ManuallyDrop;
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
    Ok((ManuallyDrop::new(terminal), enhanced, guard))
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
    use rustix::event::{PollFd, PollFlags, Timespec, poll};
    let stdin = std::io::stdin();
    let mut fds = [PollFd::new(&stdin, PollFlags::IN)];
    let zero = Timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    poll(&mut fds, Some(&zero)).is_ok()
        && fds[0]
            .revents()
            .intersects(PollFlags::HUP | PollFlags::ERR | PollFlags::NVAL)
}
