//! A/B runs: every dial and switch as a key, lab B differing in that one setting and
//! nothing else, and the two side by side.

use std::time::{Duration, Instant};

use ratatui::Terminal;
use ratatui::backend::TestBackend;

use super::*;
use crate::client::GhostMode;
use crate::lab::tests::config;
use crate::lab::view::Controls;

fn parse(text: &str) -> Setting {
    Setting::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// Issue 25: `lab --headless --compare snapshot-rate=10 --seconds 10` gives two reports
/// whose snapshot counts differ by a factor of about two, and what goes in the same:
/// the seed, the map, the ticks, each client's link. (The bots' commands cannot all be
/// the same: a bot stands still until its first snapshot, which comes later at 10 Hz,
/// and then steers by where its prediction has it; the report says how many were.)
#[test]
fn half_the_snapshot_rate_halves_the_snapshots_and_nothing_else_goes_in_differently() {
    let c = config(2, 0, 7);
    let r = run(&c, &parse("snapshot-rate=10"), 10.0, None).unwrap();
    assert_eq!((r.setting.a.as_str(), r.setting.b.as_str()), ("20", "10"));
    assert_eq!((r.a.seed, r.b.seed, r.inputs.seed), (7, 7, 7));
    assert_eq!(r.a.server.ticks, 600);
    assert_eq!(r.a.server.ticks, r.b.server.ticks);
    assert_eq!(r.inputs.commands.len(), 2);
    for (a, b) in r.a.clients.iter().zip(&r.b.clients) {
        assert_eq!(a.profile, b.profile);
        let made = &r.inputs.commands[a.client - 1];
        assert!(made.a > 500 && made.b > 500, "{made:?}");
        let ratio =
            a.report.stats.snapshots_received as f64 / b.report.stats.snapshots_received as f64;
        assert!((1.8..=2.2).contains(&ratio), "client {}: {ratio}", a.client);
        let field = format!("clients[{}].snapshots_received", a.client - 1);
        let d = r
            .differences
            .iter()
            .find(|d| d.field == field)
            .unwrap_or_else(|| panic!("{field} in {:?}", r.differences));
        let listed = d.ratio.unwrap();
        assert!((listed - 1.0 / ratio).abs() < 1e-9, "{listed}");
    }
    let fields: Vec<&str> = r.differences.iter().map(|d| d.field.as_str()).collect();
    for same in ["seed", "seconds", "map", "server.ticks", "server.players"] {
        assert!(!fields.contains(&same), "{same} differs: {fields:?}");
    }
}

/// A setting that changes nothing the bots see or do (nobody fires a rail, so lag
/// compensation has nothing to do): every command the same, and no figure differs.
/// Set to what lab A has, no setting differs either.
#[test]
fn a_setting_that_changes_nothing_gives_the_same_commands_and_no_difference() {
    let c = config(2, 0, 7);
    for same in ["lag-compensation=off", "snapshot-rate=20"] {
        let r = run(&c, &parse(same), 5.0, None).unwrap();
        for made in &r.inputs.commands {
            assert!(made.a > 250, "{same}: {made:?}");
            assert_eq!((made.alike, made.b), (made.a, made.a), "{same}: {made:?}");
        }
        assert_eq!(r.differences, [], "{same}");
    }
}

/// A switch is set on every client of lab B, by the rule its key follows (prediction
/// off takes reconciliation with it), and lab A keeps it.
#[test]
fn a_switch_is_set_on_every_client_of_lab_b_only() {
    let c = config(2, 0, 3);
    let (a, b) = pair(&c, &parse("prediction=off"), Instant::now()).unwrap();
    for n in 0..2 {
        let (sa, sb) = (a.session(n).switches(), b.session(n).switches());
        assert!(sa.prediction && sa.reconciliation, "A, client {n}");
        assert!(!sb.prediction && !sb.reconciliation, "B, client {n}");
    }
    let (a, b) = pair(&c, &parse("ghosts=trail"), Instant::now()).unwrap();
    assert_eq!(a.session(1).switches().ghosts, GhostMode::Off);
    assert_eq!(b.session(1).switches().ghosts, GhostMode::Trail);
}

/// A client's dial reaches every client of lab B; the tick rate starts lab B's server
/// at that rate; and a step of the paused clock steps both labs.
#[test]
fn dials_and_the_tick_rate_reach_lab_b_and_one_step_steps_both() {
    let c = config(2, 0, 3);
    let t0 = Instant::now();
    let (a, b) = pair(&c, &parse("redundancy=4"), t0).unwrap();
    for n in 0..2 {
        assert_eq!(a.session(n).tuning().redundancy, 64);
        assert_eq!(b.session(n).tuning().redundancy, 4);
    }
    let (mut a, mut b) = pair(&c, &parse("tick-rate=30"), t0).unwrap();
    assert_eq!(b.server().config().tick_rate, 30);
    run_until(&mut a, &mut b, t0 + Duration::from_millis(500));
    let ticks = |l: &Lab| l.server().world().tick;
    assert_eq!((ticks(&a), ticks(&b)), (30, 15));
    // Each step ticks one server or both, once: A twice for each of B's ticks.
    let mut steps = Vec::new();
    for _ in 0..6 {
        let before = (ticks(&a), ticks(&b));
        step_tick(&mut a, &mut b);
        assert_eq!(a.now(), b.now(), "one clock");
        steps.push((ticks(&a) - before.0, ticks(&b) - before.1));
    }
    assert!(
        steps.iter().all(|&(x, y)| x <= 1 && y <= 1 && x + y >= 1),
        "{steps:?}"
    );
    assert_eq!((ticks(&a), ticks(&b)), (34, 17), "{steps:?}");
}

/// The terminal's picture: A's views on the left, B's on the right, each labelled with
/// the setting's value, one lane each, and the panel of differing figures.
#[test]
fn the_view_puts_a_left_and_b_right_labelled() {
    let c = config(2, 0, 3);
    let t0 = Instant::now();
    let (mut a, mut b) = pair(&c, &parse("snapshot-rate=10"), t0).unwrap();
    run_until(&mut a, &mut b, t0 + Duration::from_secs(2));
    let controls = Controls {
        selected: 1,
        speed: 1.0,
        paused: false,
        fps: 60.0,
        message: "",
        help: false,
        theme: crate::ui::Theme::Auto,
        follow: None,
        over: crate::lab::view::Over::Nothing,
    };
    let v = view(&a, &b, &parse("snapshot-rate=10"), &controls);
    let titles: Vec<&str> = v.panes.iter().map(|p| p.title.as_str()).collect();
    assert_eq!(titles.len(), 4, "{titles:?}");
    assert!(
        titles[0].starts_with("A: snapshot-rate=20 · server"),
        "{titles:?}"
    );
    assert!(
        titles[1].starts_with("B: snapshot-rate=10 · server"),
        "{titles:?}"
    );
    assert!(
        titles[2].starts_with("A: snapshot-rate=20 · client 2"),
        "{titles:?}"
    );
    assert!(
        titles[3].starts_with("B: snapshot-rate=10 · client 2"),
        "{titles:?}"
    );
    let lanes: Vec<&str> = v.lanes.iter().map(|l| l.label.as_str()).collect();
    assert_eq!(lanes, ["A c2 lan", "B c2 lan"]);
    let panel: Vec<String> = v.panels[0].lines.iter().map(|l| l.to_string()).collect();
    assert!(
        panel.iter().any(|l| l.starts_with("snapshots_received")),
        "{panel:?}"
    );

    let mut term = Terminal::new(TestBackend::new(160, 45)).unwrap();
    term.draw(|f| crate::ui::lab::draw(f, &v)).unwrap();
    let buf = term.backend().buffer();
    let text: Vec<String> = (0..45)
        .map(|y| (0..160).map(|x| buf[(x, y)].symbol()).collect())
        .collect();
    // The second row holds the top of both server views: A's left of B's.
    let row = &text[1];
    let (ia, ib) = (
        row.find("A: snapshot-rate=20"),
        row.find("B: snapshot-rate=10"),
    );
    assert!(ia.is_some() && ib.is_some(), "{}", text.join("\n"));
    assert!(ia < ib, "{row}");
}

/// On a screen wide enough for four views in a row, A's views still make the left
/// column and B's the right (each lab's client under its server), not A, B, A, B.
#[test]
fn a_wide_screen_keeps_a_left_and_b_right() {
    let c = config(2, 0, 3);
    let t0 = Instant::now();
    let (mut a, mut b) = pair(&c, &parse("interpolation=off"), t0).unwrap();
    run_until(&mut a, &mut b, t0 + Duration::from_secs(1));
    let controls = Controls {
        selected: 0,
        speed: 1.0,
        paused: true,
        fps: 0.0,
        message: "",
        help: false,
        theme: crate::ui::Theme::Auto,
        follow: None,
        over: crate::lab::view::Over::Nothing,
    };
    let v = view(&a, &b, &parse("interpolation=off"), &controls);
    let mut term = Terminal::new(TestBackend::new(220, 45)).unwrap();
    term.draw(|f| crate::ui::lab::draw(f, &v)).unwrap();
    let buf = term.backend().buffer();
    let rows: Vec<String> = (0..45)
        .map(|y| (0..220).map(|x| buf[(x, y)].symbol()).collect())
        .collect();
    let at = |title: &str| {
        rows.iter()
            .enumerate()
            .find_map(|(y, r)| r.find(title).map(|x| (r[..x].chars().count(), y)))
            .unwrap_or_else(|| panic!("{title}:\n{}", rows.join("\n")))
    };
    let (a_srv, a_cl) = (
        at("A: interpolation=on · server"),
        at("A: interpolation=on · client 1"),
    );
    let (b_srv, b_cl) = (
        at("B: interpolation=off · server"),
        at("B: interpolation=off · client 1"),
    );
    assert_eq!(a_srv.0, a_cl.0, "A's client under A's server");
    assert_eq!(b_srv.0, b_cl.0, "B's client under B's server");
    assert!(a_srv.0 < b_srv.0 && a_srv.1 < a_cl.1);
}
