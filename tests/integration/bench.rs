//! The bench subcommands run in quick mode and print one JSON object with the documented
//! keys. No timing is asserted: CI machines are noisy.

use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_netarena");

fn bench(args: &[&str]) -> serde_json::Value {
    let out = Command::new(BIN)
        .arg("bench")
        .args(args)
        .args(["--quick", "--json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.trim().lines().count(), 1, "one JSON object: {text}");
    serde_json::from_str(&text).expect("valid JSON")
}

fn assert_numbers(v: &serde_json::Value, keys: &[&str]) {
    for key in keys {
        let n = v[key]
            .as_f64()
            .unwrap_or_else(|| panic!("missing {key}: {v}"));
        assert!(n.is_finite() && n >= 0.0, "{key} = {n}");
    }
}

fn f(v: &serde_json::Value, key: &str) -> f64 {
    v[key]
        .as_f64()
        .unwrap_or_else(|| panic!("missing {key}: {v}"))
}

/// `v[ratio]` is `v[num] / v[den]`, within 1%.
fn assert_ratio(v: &serde_json::Value, ratio: &str, num: &str, den: &str) {
    let want = f(v, num) / f(v, den);
    assert!(
        (f(v, ratio) - want).abs() <= want * 0.01,
        "{ratio} should be {num} / {den} = {want}: {v}"
    );
}

#[test]
fn bench_render_quick() {
    let v = bench(&[
        "render",
        "--width",
        "80",
        "--height",
        "24",
        "--players",
        "8",
    ]);
    assert_numbers(
        &v,
        &[
            "fps",
            "frame_us_p50",
            "frame_us_p99",
            "floor_us_p50",
            "ratio_to_floor",
            "bytes_per_frame",
        ],
    );
    // Moving players change cells every frame; a frozen frame sends almost nothing.
    assert!(v["bytes_per_frame"].as_f64().unwrap() > v["floor_bytes_per_frame"].as_f64().unwrap());
    assert!(f(&v, "fps") > 0.0 && f(&v, "floor_us_p50") > 0.0, "{v}");
    assert!(f(&v, "frame_us_p99") >= f(&v, "frame_us_p50"), "{v}");
    assert_ratio(&v, "ratio_to_floor", "frame_us_p50", "floor_us_p50");
}

#[test]
fn bench_server_quick() {
    let v = bench(&["server", "--players", "8"]);
    assert_numbers(
        &v,
        &[
            "tick_us_p50",
            "tick_us_p99",
            "snapshot_bytes_mean",
            "players",
        ],
    );
    assert_eq!(v["players"], 8);
    assert_eq!(v["players_at_end"], 8, "every player stayed connected: {v}");
    assert!(f(&v, "tick_us_p99") >= f(&v, "tick_us_p50"), "{v}");
    assert!(f(&v, "snapshot_bytes_mean") > 0.0, "{v}");
}

#[test]
fn bench_net_quick() {
    let v = bench(&["net", "--players", "2", "--lag", "20"]);
    assert_numbers(
        &v,
        &[
            "down_bytes_per_s",
            "up_bytes_per_s",
            "snapshot_bytes_mean",
            "full_state_bytes_mean",
            "compression_ratio",
            "corrections_per_min",
            "interp_delay_ms_mean",
        ],
    );
    assert!(v["down_bytes_per_s"].as_f64().unwrap() > 0.0);
    assert!(f(&v, "up_bytes_per_s") > 0.0, "{v}");
    // The figures say what they add to each datagram: IPv4 and UDP headers.
    assert_eq!(v["overhead_bytes_per_datagram"], 28, "{v}");
    assert!(f(&v, "interp_delay_ms_mean") > 0.0, "{v}");
    assert_ratio(
        &v,
        "compression_ratio",
        "full_state_bytes_mean",
        "snapshot_bytes_mean",
    );
}

#[test]
fn bench_net_quick_with_fighting_bots() {
    let v = bench(&["net", "--players", "1", "--bots", "3"]);
    let shares = [
        "share_players",
        "share_projectiles",
        "share_events",
        "share_roster",
        "share_headers",
        "share_other",
    ];
    assert_numbers(&v, &shares);
    assert_numbers(
        &v,
        &[
            "down_bytes_per_s",
            "corrections_per_min",
            "underruns_per_min",
            "shots_seen",
            "rails_seen",
            "kills_seen",
        ],
    );
    assert_eq!(v["bots"], 3);
    let sum: f64 = shares.iter().map(|k| v[k].as_f64().unwrap()).sum();
    assert!((sum - 1.0).abs() < 1e-6, "shares sum to {sum}: {v}");
    // Every snapshot carries players and a header: both have a share.
    assert!(v["share_players"].as_f64().unwrap() > 0.0, "{v}");
    assert!(v["share_headers"].as_f64().unwrap() > 0.0, "{v}");
    // Snapshots are deltas against what the client acknowledged: a merge once dropped
    // the line that keeps the acknowledged tick, and every snapshot went whole (1.0).
    // (Both sides of the ratio carry the seal's 18 bytes: about 1.9 in a quick run.)
    assert!(
        f(&v, "compression_ratio") > 1.5,
        "snapshots are not delta-compressed: {v}"
    );
}

#[test]
fn bench_server_quick_with_fighting_bots() {
    let v = bench(&["server", "--players", "8", "--bots", "8"]);
    assert_numbers(&v, &["tick_us_p50", "tick_us_p99", "snapshot_bytes_mean"]);
    assert_eq!(v["bots"], 8);
    // Every player and bot is still in: the run measured the work it claims.
    assert_eq!(v["players_at_end"], 16, "{v}");
}

#[test]
#[ignore = "slow tier: .ci/run runs it with --ignored"]
fn bench_latency_quick() {
    let v = bench(&["latency"]);
    assert_numbers(
        &v,
        &[
            "key_to_screen_ms_p50_rtt0",
            "key_to_screen_ms_p99_rtt0",
            "key_to_screen_ms_p50_rtt200",
            "key_to_screen_ms_p99_rtt200",
            "misses_rtt0",
            "misses_rtt200",
        ],
    );
    // Keys reached the game and moved the '@': most of them were measured.
    assert_eq!(v["samples"], 5);
    assert!(v["misses_rtt0"].as_u64().unwrap() < 3, "{v}");
    assert!(v["misses_rtt200"].as_u64().unwrap() < 3, "{v}");
    assert!(
        v["key_to_screen_ms_p50_rtt0"].as_f64().unwrap() > 0.0,
        "{v}"
    );
}

/// `bench lab` runs each case recorded and not, and reports every speed as a positive
/// multiple of real time (its size is not checked: CI machines are noisy).
#[test]
fn bench_lab_quick() {
    let v = bench(&["lab"]);
    let keys = [
        "defaults_x",
        "defaults_recorded_x",
        "crowd_x",
        "crowd_recorded_x",
        "extremes_x",
        "extremes_recorded_x",
    ];
    assert_numbers(&v, &keys);
    for key in keys {
        assert!(f(&v, key) > 0.0, "{key}: {v}");
    }
    assert_eq!(f(&v, "seconds"), 1.0, "--quick runs a virtual second: {v}");
    assert_eq!(v.as_object().map(|o| o.len()), Some(keys.len() + 1), "{v}");
}
