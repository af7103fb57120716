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
    assert!(f(&v, "interp_delay_ms_mean") > 0.0, "{v}");
    assert_ratio(
        &v,
        "compression_ratio",
        "full_state_bytes_mean",
        "snapshot_bytes_mean",
    );
}
