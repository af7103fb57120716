//! Signals and the watchdog: SIGINT, SIGTERM and (on Unix) SIGHUP ask every loop to
//! stop; a run ended by one exits with 128 + its number, as shells report it.

use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use anyhow::Context;

use netarena::client::shell::interactive::Outcome;

/// What the handlers set: `stop` for the loops, `signal` for the exit status.
pub(crate) struct Signals {
    pub(crate) stop: Arc<AtomicBool>,
    pub(crate) signal: Arc<AtomicUsize>,
}

/// Installs the handlers and starts the watchdog.
pub(crate) fn install() -> anyhow::Result<Signals> {
    let stop = Arc::new(AtomicBool::new(false));
    let signal = Arc::new(AtomicUsize::new(0));
    for sig in netarena::platform::signals::STOP {
        signal_hook::flag::register_usize(sig, Arc::clone(&signal), sig as usize)
            .and_then(|_| signal_hook::flag::register(sig, Arc::clone(&stop)))
            .context("cannot install signal handlers")?;
    }
    watchdog(Arc::clone(&stop), Arc::clone(&signal));
    Ok(Signals { stop, signal })
}

/// Exit status for a run ended by a signal: 128 + its number, as shells report it.
fn signal_status(signal: usize) -> u8 {
    128u8.saturating_add(u8::try_from(signal).unwrap_or(0))
}

/// After a signal, the loops notice `stop` and exit cleanly within a few hundred ms. If
/// one does not (crossterm can spin inside `event::poll` once the terminal has hung up),
/// this gives the terminal back and exits anyway.
fn watchdog(stop: Arc<AtomicBool>, signal: Arc<AtomicUsize>) {
    const GRACE: Duration = Duration::from_secs(3);
    let spawned = std::thread::Builder::new()
        .name("watchdog".into())
        .spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(100));
            }
            std::thread::sleep(GRACE);
            netarena::client::shell::terminal::restore();
            // stderr may be a terminal that hung up: a failed write must not panic.
            let _ = writeln!(
                std::io::stderr(),
                "netarena: did not stop within {} s of a signal; exiting",
                GRACE.as_secs()
            );
            std::process::exit(i32::from(signal_status(signal.load(Ordering::Relaxed))));
        });
    if let Err(e) = spawned {
        tracing::warn!("no watchdog thread: {e}");
    }
}

/// The exit status of an interactive run: success on quit, 128 + N after signal N.
pub(crate) fn finish(
    result: anyhow::Result<Outcome>,
    signal: &AtomicUsize,
) -> anyhow::Result<ExitCode> {
    match result? {
        Outcome::Quit => Ok(ExitCode::SUCCESS),
        Outcome::Stopped => Ok(ExitCode::from(signal_status(
            signal.load(Ordering::Relaxed),
        ))),
    }
}
