//! Tests through the real network stack, in their own binary, slow tier: two network
//! namespaces joined by a veth pair with the kernel's `tbf` on each egress
//! ([`netns`]), raw sockets, and relays outside the code under test. They need root;
//! `.ci/run` runs them serially:
//!
//! ```sh
//! cargo test --test kernel -- --ignored --test-threads=1
//! ```
//!
//! Outside CI a test that cannot build its namespaces skips, saying why; under
//! `CI=true` it fails.

#[path = "../support/mod.rs"]
mod support;

mod join_flood;
mod netns;
mod small_mtu;
mod thin;

use std::io::{BufRead, BufReader};
use std::process::Stdio;

use netns::{Pair, Side};
use support::process::{BIN, NO_CONFIG, ServerProcess};

/// `netarena server --port 0 EXTRA` in the pair's server namespace.
fn start_server(pair: &Pair, extra: &[&str]) -> ServerProcess {
    let mut child = pair
        .command(Side::Server, BIN)
        .env("NETARENA_CONFIG", NO_CONFIG)
        .args(["server", "--port", "0"])
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("server starts");
    let mut lines = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    lines.read_line(&mut first).unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in lines.lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let port = first
        .split("listening on ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|addr| addr.rsplit(':').next())
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("no address in {first:?}"));
    ServerProcess {
        child,
        port,
        lines: rx,
    }
}
