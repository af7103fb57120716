//! The signals that ask every loop to stop, as the platform has them.

use std::ffi::c_int;

/// Ctrl-C, a polite kill, and on Unix the terminal hanging up (Windows has no `SIGHUP`).
#[cfg(unix)]
pub const STOP: [c_int; 3] = [
    signal_hook::consts::SIGINT,
    signal_hook::consts::SIGTERM,
    signal_hook::consts::SIGHUP,
];

/// Ctrl-C and a polite kill (Windows has no `SIGHUP`).
#[cfg(not(unix))]
pub const STOP: [c_int; 2] = [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM];
