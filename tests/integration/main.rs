//! The whole-program tests that need no terminal, in one binary (each binary links the
//! crate again): one module per subject. `cargo test --test integration NAME` runs the
//! tests whose path contains NAME, e.g. `hardening::` for one module.
//!
//! Real-time tests that take more than about two seconds are in the slow tier: ignored
//! by `cargo test`, run by `.ci/run` with `cargo test -- --ignored` (CONTRIBUTING.md).

#[path = "../support/mod.rs"]
mod support;

mod bench;
mod causes;
mod cli_reference;
mod combat;
mod config;
mod crowd;
mod datagram_budget;
mod flood;
mod hardening;
mod hostile_server;
mod key_cadence;
mod lab;
mod loopback;
mod prediction;
mod protocol_props;
mod record;
mod replay;
mod rulebook;
mod server_rules;
