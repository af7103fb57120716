//! Every dial and switch as a `--compare` key, read back as written; bad keys and
//! values refused in one line.

use super::*;

fn parse(text: &str) -> Setting {
    Setting::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// Every dial of the table and every switch of the key table is a key, and each of
/// their values is read back as it is written.
#[test]
fn every_dial_and_switch_is_a_key_and_its_values_read_back() {
    for (d, dial) in DIALS.iter().enumerate() {
        let key = dial.flag.trim_start_matches("--");
        if key == TICK_RATE_KEY {
            // Lab B starts at the rate (any of the flag's), not turned to it.
            for v in [10, 30, 128] {
                let s = parse(&format!("{key}={v}"));
                assert_eq!((s.knob, s.value), (Knob::TickRate, v));
            }
            continue;
        }
        for &v in dial.steps {
            let text = format!("{key}={}", show_value(Knob::Dial(d), v));
            let s = parse(&text);
            assert_eq!((s.knob, s.value), (Knob::Dial(d), v), "{text}");
            assert_eq!(s.label(), text);
        }
        let top = show_value(Knob::Dial(d), dial.steps[dial.steps.len() - 1]);
        let by_name = parse(&format!("{}={top}", dial.name.replace(' ', "-")));
        assert_eq!(by_name.knob, Knob::Dial(d), "{}", dial.name);
    }
    let switches = [
        "prediction",
        "reconciliation",
        "interpolation",
        "extrapolation",
        "smoothing",
    ];
    for name in switches {
        assert_eq!(parse(&format!("{name}=off")).value, 0, "{name}");
        assert_eq!(parse(&format!("{name}=on")).value, 1, "{name}");
    }
    assert_eq!(parse("ghosts=trail").value, 2);
    assert_eq!(parse("tick-rate=30").knob, Knob::TickRate);
    // Shortened, while it names one setting.
    assert_eq!(parse("lag-comp=off").key, "lag-compensation");
    assert_eq!(parse("snapshot=10").key, "snapshot-rate");
    assert_eq!(parse("interp-delay=3").value, 30);
    assert_eq!(parse("input-buffer=credit").value, 0);
    assert_eq!(parse("input-buffer=adaptive").value, dials::AUTO);
}

/// An unknown key, a missing `=`, an ambiguous short key or a bad value: one line that
/// names every key.
#[test]
fn a_wrong_key_or_value_is_one_line_naming_the_keys() {
    for (bad, says) in [
        ("frame-rate=30", "unknown --compare key \"frame-rate\""),
        ("interp=2", "unknown --compare key \"interp\""),
        ("snapshot-rate", "--compare takes KEY=VALUE"),
        (
            "snapshot-rate=abc",
            "snapshot-rate takes a whole number from 1 to 60",
        ),
        ("snapshot-rate=61", "from 1 to 60"),
        ("prediction=maybe", "prediction takes off or on"),
        ("correction=wobble", "snap or smooth or blend"),
        ("tick-rate=500", "from 10 to 128"),
        (
            "interp-delay=0.1",
            "a ratio of snapshot periods from 0.5 to 4, or auto",
        ),
    ] {
        let e = Setting::parse(bad).expect_err(bad);
        assert!(e.contains(says), "{bad}: {e}");
        assert!(!e.contains('\n'), "{bad}: {e}");
        for key in [
            "snapshot-rate",
            "input-rate",
            "interp-delay",
            "redundancy",
            "lag-compensation",
            "rewind-ms",
            "extrapolation-limit-ms",
            "input-buffer",
            "correction",
            "prediction",
            "interpolation",
            "ghosts",
            "tick-rate",
        ] {
            assert!(e.contains(key), "{bad}: {e} lacks {key}");
        }
    }
}
