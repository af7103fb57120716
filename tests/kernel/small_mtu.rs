//! A path whose MTU is IPv4's least, 576 bytes: `tbf` with a burst of 590 bytes (576 and
//! the 14-byte Ethernet header) never sends a larger frame, as a router with a small
//! MTU and a lost "fragmentation needed" would not. The client joins, plays, and plays
//! on across a map change.

use std::time::{Duration, Instant};

use crate::netns::{self, SERVER_IP, Side, Tbf};
use crate::start_server;
use crate::support::process::{BIN, NO_CONFIG, num, temp_report};

const BLACK_HOLE: Tbf = Tbf {
    rate_kbit: 10_000,
    burst: 590,
    limit: 30_000,
};
const SECONDS: f64 = 22.0;

// The join failed: its 841-byte map chunks never arrived, and the client said nobody
// answered.
#[test]
#[ignore = "slow tier: .ci/run runs it with --ignored (root: network namespaces)"]
fn a_576_byte_path_joins_and_plays_across_a_map_change() {
    let Some(pair) = netns::pair_or_skip("mtu", Some(BLACK_HOLE)) else {
        return;
    };
    let server = start_server(
        &pair,
        &[
            "--bots",
            "5",
            "--maps",
            "warehouse,catacombs",
            "--time-limit",
            "10",
        ],
    );
    let report = temp_report("kernel-mtu");
    let status = pair
        .command(Side::Client, BIN)
        .env("NETARENA_CONFIG", NO_CONFIG)
        .args(["join", &format!("{SERVER_IP}:{}", server.port)])
        .args(["--headless", "--bot", "fighter", "--name", "small"])
        .args(["--seconds", &SECONDS.to_string(), "--report"])
        .arg(&report)
        .status()
        .expect("client starts");
    let text = std::fs::read_to_string(&report).expect("report written");
    let _ = std::fs::remove_file(&report);
    let r: serde_json::Value = serde_json::from_str(&text).expect("a JSON report");
    // The server says when the match ended and which map is next.
    let mut changed = false;
    let until = Instant::now() + Duration::from_secs(1);
    while let Ok(line) = server
        .lines
        .recv_timeout(until.saturating_duration_since(Instant::now()))
    {
        changed |= line.contains("next map: catacombs");
    }
    let rate = num(&r, "snapshots_received") / num(&r, "seconds");
    eprintln!(
        "576-byte path: {}, {rate:.1} snapshots/s, {} lost; server egress: {}",
        r["ended"],
        num(&r, "snapshots_lost"),
        pair.qdisc_stats(Side::Server),
    );
    assert!(status.success(), "the client failed: {}", r["ended"]);
    assert_eq!(r["joined"], true, "{r}");
    assert_eq!(r["ended"], "time up", "{r}");
    assert!(changed, "the match never changed map");
    // Nothing the server sent was larger than the path: the black hole took none.
    assert_eq!(
        pair.tbf_dropped(Side::Server),
        0,
        "datagrams over 548 bytes"
    );
    // Every snapshot of the 22 s but those of the results screen arrived: none too big.
    assert!(
        num(&r, "snapshots_lost") <= 5.0 && rate >= 10.0,
        "{rate:.1} snapshots a second, {} lost",
        num(&r, "snapshots_lost")
    );
}
