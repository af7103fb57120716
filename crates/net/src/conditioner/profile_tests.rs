//! The named profiles, their one-line summaries, and the burst model's parameters.

use super::*;

#[test]
fn profiles() {
    for name in Conditions::PROFILES {
        let p = Conditions::profile(name).unwrap_or_else(|| panic!("{name}"));
        assert_eq!(p.is_clean(), *name == "off", "{name}");
        assert_eq!(p.to_string(), p.summary());
    }
    assert_eq!(Conditions::profile("none"), Some(Conditions::default()));
    assert_eq!(Conditions::profile("WiFi"), Conditions::profile("wifi"));
    assert_eq!(Conditions::profile("dialup"), None);

    // Cycling visits every profile once and wraps.
    let mut c = Conditions::default();
    let mut visited = Vec::new();
    for _ in 0..Conditions::PROFILES.len() {
        let (name, next) = c.next_profile();
        visited.push(name);
        c = next;
    }
    assert_eq!(visited, ["lan", "wifi", "mobile", "bad", "off"]);
    let custom = Conditions {
        latency_ms: 7,
        ..Conditions::default()
    };
    assert_eq!(custom.next_profile().0, "off");
    // A profile with independent jitter is still that profile, and cycling keeps the mode.
    let bad = Conditions::profile("bad")
        .unwrap()
        .with_jitter_mode(JitterMode::Independent);
    assert_eq!(bad.profile_name(), Some("bad"));
    let (name, next) = bad.next_profile();
    assert_eq!((name, next.jitter_mode), ("off", JitterMode::Independent));
    for mode in JitterMode::NAMES {
        assert_eq!(JitterMode::parse(mode).map(JitterMode::name), Some(mode));
    }
    assert_eq!(JitterMode::parse("netem"), None);
}

#[test]
fn summaries() {
    let s = |n| Conditions::profile(n).unwrap().summary();
    assert_eq!(s("off"), "clean");
    assert_eq!(s("lan"), "1ms");
    assert_eq!(s("wifi"), "10±8ms 1.0% loss(b2)");
    assert_eq!(s("mobile"), "50±25ms 2.0% loss(b3)");
    assert_eq!(s("bad"), "150±40ms 5.0% loss(b3) 1% dup 1% reorder");
    let independent = Conditions::profile("mobile")
        .unwrap()
        .with_jitter_mode(JitterMode::Independent);
    assert_eq!(independent.summary(), "50±25ms indep 2.0% loss(b3)");
    let odd = Conditions {
        loss_pct: 0.25,
        burst_len: 1.5,
        dup_pct: 0.5,
        bandwidth_kbps: 256,
        ..Conditions::default()
    };
    assert_eq!(odd.to_string(), "0.25% loss(b1.5) 0.5% dup 256kbps");
    let nonsense = Conditions {
        loss_pct: f64::NAN,
        dup_pct: -3.0,
        ..Conditions::default()
    };
    assert!(nonsense.is_clean());
}

#[test]
fn gilbert_elliott_parameters() {
    let (p, r) = gilbert_elliott(0.05, 3.0);
    assert!((p / (p + r) - 0.05).abs() < 1e-12);
    assert!((1.0 / r - 3.0).abs() < 1e-12);
    let (p, r) = gilbert_elliott(0.9, 2.0);
    assert_eq!(p, 1.0);
    assert!((p / (p + r) - 0.9).abs() < 1e-12);
}
