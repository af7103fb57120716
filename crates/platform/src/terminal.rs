//! The terminal's OS-specific parts: waking a mio poll when keys come, noticing a
//! hung-up terminal, and Ctrl-Z's stop-and-continue. All three are Unix only; elsewhere
//! each says it cannot, and the callers do without.

use mio::{Registry, Token};

/// Registers stdin with `registry`, so a poll wakes when keys come. False when it
/// cannot (stdin is not a terminal, or not Unix: a Windows console is no socket mio can
/// wait on): the caller must then look at the keys itself.
#[cfg(unix)]
pub fn watch_stdin(registry: &Registry, token: Token) -> bool {
    use std::io::IsTerminal;
    use std::os::fd::AsRawFd;
    let stdin = std::io::stdin();
    let fd = stdin.as_raw_fd();
    stdin.is_terminal()
        && registry
            .register(
                &mut mio::unix::SourceFd(&fd),
                token,
                mio::Interest::READABLE,
            )
            .is_ok()
}

#[cfg(not(unix))]
pub(crate) fn watch_stdin(_registry: &Registry, _token: Token) -> bool {
    false
}

/// Whether the terminal on stdin has hung up (a closed window, a dropped ssh session).
/// False where that cannot be seen (not Unix).
#[cfg(unix)]
pub fn hung_up() -> bool {
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

#[cfg(not(unix))]
pub(crate) fn hung_up() -> bool {
    false
}

/// Whether this platform can stop the process from the keyboard (Ctrl-Z), Unix's job
/// control.
pub const CAN_SUSPEND: bool = cfg!(unix);

/// Stops the whole process (every thread) with SIGTSTP's default action; returns once
/// it is continued (`fg`), or at once where SIGTSTP is ignored (no job control). Does
/// nothing where there is no job control (see [`CAN_SUSPEND`]).
pub fn stop_until_continued() {
    #[cfg(unix)]
    {
        // SIGTSTP has its default action here (nothing installs a handler for it).
        let _ = signal_hook::low_level::raise(signal_hook::consts::SIGTSTP);
    }
}

/// Drops what was typed at the terminal and not yet read (while the process was
/// stopped). Unix only; elsewhere nothing is dropped.
pub fn drop_typed_ahead() {
    #[cfg(unix)]
    {
        let _ = rustix::termios::tcflush(std::io::stdin(), rustix::termios::QueueSelector::IFlush);
    }
}
