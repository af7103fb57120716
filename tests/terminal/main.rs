//! The tests that drive the real binary in a real terminal (tmux, through
//! `tests/support/tmux.rs`), in a binary of their own so that they do not share the two
//! cores with the CPU-heavy in-process tests while they time what the screen shows.
//! `cargo test --test terminal NAME` runs the tests whose path contains NAME.

#[path = "../support/mod.rs"]
mod support;

mod discovery;
mod feel;
mod lab_terminal;
mod learn_terminal;
mod replay_exact;
mod replay_terminal;
mod terminal;
