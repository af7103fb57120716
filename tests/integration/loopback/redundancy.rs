//! Redundancy counted in copies (issue 32): through a relay that loses nothing, one copy
//! of each command is every command once, so the server applies all of them and the
//! client is never corrected.

use super::support::process::{finish, headless, num, start_server};
use super::support::relay::{FaultRelay, Seen};

/// Redundancy 1 meant "1 command a packet": with 2 new commands a packet, half were
/// never sent, and a clean link gave 274 corrections in 15 s, filed as lost commands.
#[test]
#[ignore = "slow tier: .ci/run runs it with --ignored"]
fn one_copy_on_a_clean_link_sends_every_command() {
    let server = start_server(&["--bots", "0"]);
    let relay = FaultRelay::start(([127, 0, 0, 1], server.port).into());
    let (child, report) = headless(relay.addr().port(), "once", "15", &["--redundancy", "1"]);
    let r = finish(child, report);
    assert_eq!(relay.dropped(), 0, "the relay dropped nothing");
    let (inputs, _) = relay.count(|s| matches!(s, Seen::Input { .. }));
    assert!(inputs > 300, "{inputs} input packets in 15 s");
    let corrections = num(&r, "corrections");
    eprintln!("{inputs} input packets, {corrections} corrections");
    assert!(
        corrections <= 2.0,
        "{corrections} corrections on a clean link with redundancy 1: {}",
        r["corrections_by_cause"]
    );
}
