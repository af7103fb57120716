//! The meters against the lab's ground truth: the bytes by kind against what the links
//! carried, the lagometers against the links' own log of what they delivered, late
//! and dropped, and delta compression as the bytes show it.

use std::time::{Duration, Instant};

use super::*;
use crate::lab::tests::config;
use crate::lab::wire::Crossing;
use crate::lab::{Lab, LabConfig};
use crate::net::conditioner::Conditions;

fn run(config: &LabConfig, secs: f64) -> Lab {
    let t0 = Instant::now();
    let mut lab = Lab::new(config, t0).unwrap();
    lab.run_until(t0 + Duration::from_secs_f64(secs));
    lab
}

/// Each way's bytes by kind add up to exactly the bytes its link carried, every
/// datagram counted once, and each kind has what it should: a snapshot's headers are at
/// least its seven fixed bytes (kind, flags, tick, ack, own body), an input packet's
/// commands are in it.
#[test]
fn the_kinds_add_up_to_what_the_links_carried() {
    let mut c = config(2, 1, 7);
    c.walkers = 1;
    let lab = run(&c, 10.0);
    for (n, client) in lab.clients.iter().enumerate() {
        let (down, up) = client.bytes.totals();
        let (down_link, up_link) = (client.down.traffic(), client.up.traffic());
        eprintln!("client {n}: {down:?} {up:?}");
        assert_eq!(down.total(), down_link.bytes, "client {n} down");
        assert_eq!(up.total(), up_link.bytes, "client {n} up");
        let snapshots = client
            .down
            .log()
            .iter()
            .filter(|x| matches!(x.glyph, 'S' | 'E'))
            .count() as u64;
        assert!(snapshots > 150, "{snapshots}");
        assert!(down.headers >= 7 * snapshots, "client {n}: {down:?}");
        assert!(down.players > 0 && down.events > 0, "client {n}: {down:?}");
        assert!(up.commands > 0 && up.headers > 0, "client {n}: {up:?}");
        // The panel's rates: what the link carried in the last second.
        let now = lab.now();
        let last_second = |log: &std::collections::VecDeque<Crossing>| {
            log.iter()
                .filter(|x| now.duration_since(x.sent) < Duration::from_secs(1))
                .map(|x| x.bytes as f64)
                .sum::<f64>()
        };
        let rate = |kinds: &[f64]| kinds.iter().sum::<f64>();
        let b = &client.bytes;
        let down_rate = rate(&b.down.per_second(now, lab.start, DownBytes::kinds));
        let up_rate = rate(&b.up.per_second(now, lab.start, UpBytes::kinds));
        assert_eq!(down_rate, last_second(client.down.log()), "client {n}");
        assert_eq!(up_rate, last_second(client.up.log()), "client {n}");
    }
}

/// The link's truth about client `n`'s snapshots, as a lagometer counts them: each
/// delivered one on time (in order) or late (after a newer one); each one the link
/// dropped between the first delivered and the newest, lost.
fn link_truth(log: &[Crossing]) -> (u32, u32, u32) {
    let snaps: Vec<&Crossing> = log
        .iter()
        .filter(|x| matches!(x.glyph, 'S' | 'E'))
        .collect();
    let mut arrivals: Vec<(Instant, usize)> = snaps
        .iter()
        .enumerate()
        .filter_map(|(i, x)| Some((x.delivered?, i)))
        .collect();
    arrivals.sort();
    let (mut on_time, mut late) = (0, 0);
    let mut newest: Option<usize> = None;
    let first = arrivals.first().map(|a| a.1);
    for &(_, i) in &arrivals {
        if newest.is_some_and(|n| i < n) {
            late += 1;
        } else {
            on_time += 1;
            newest = Some(i);
        }
    }
    let lost = match (first, newest) {
        (Some(first), Some(newest)) => snaps[first..newest].iter().filter(|x| x.dropped).count(),
        _ => 0,
    } as u32;
    (on_time, late, lost)
}

/// Each lagometer's on-time, late and lost snapshots over its whole record (the run is
/// shorter than the six seconds it keeps) are the link's: delivered in order, delivered
/// after a newer one, dropped. The links lose and reorder enough for all three, and the
/// server holds some back. (A snapshot the server held back is counted lost when the
/// next one, which says so, is lost too: with a rougher link than this one the counts
/// part, see the guide.)
#[test]
fn the_lagometers_agree_with_the_links_log() {
    let t0 = Instant::now();
    let mut lab = Lab::new(&config(2, 1, 11), t0).unwrap();
    let rough = Conditions {
        latency_ms: 120,
        jitter_ms: 20,
        loss_pct: 8.0,
        reorder_pct: 25.0,
        ..Conditions::default()
    };
    lab.set_link(1, Conditions::profile("lan").unwrap(), rough);
    lab.run_until(t0 + Duration::from_millis(5500));
    let mut seen = LagCounts::default();
    for n in 0..2 {
        let k = lag_counts(&slices(&lab, n));
        let (on_time, late, lost) = link_truth(&lab.crossings(n, crate::lab::Way::Down));
        eprintln!("client {n}: {k:?}, link: on time {on_time} late {late} lost {lost}");
        assert_eq!(
            (k.on_time, k.late, k.lost),
            (on_time, late, lost),
            "client {n}"
        );
        seen.late += k.late;
        seen.lost += k.lost;
        seen.on_time += k.on_time;
        seen.suppressed += k.suppressed;
    }
    assert!(
        seen.on_time > 150 && seen.late > 2 && seen.lost > 2,
        "{seen:?}"
    );
}

/// Players standing still cost their snapshots about a byte of masks; the same two
/// players wandering about cost four times that: delta compression, in the meters.
#[test]
fn players_standing_still_cost_next_to_nothing() {
    let players_per_snapshot = |keyboard: usize| {
        let mut c = config(2, 0, 3);
        c.profiles = vec!["lan".into(); 2];
        // Keyboard clients with no key held stand still; bots wander.
        c.keyboard = keyboard;
        let lab = run(&c, 10.0);
        let (down, _) = lab.clients[0].bytes.totals();
        let snapshots = lab.clients[0].down.traffic().sent;
        let per = down.players as f64 / snapshots as f64;
        eprintln!("keyboard {keyboard}: {down:?} over {snapshots} datagrams, {per:.2} B each");
        per
    };
    let still = players_per_snapshot(2);
    let moving = players_per_snapshot(0);
    // Measured: 1.09 and 4.35 bytes (the masks' head byte; the values of the players
    // that turned, a player keeping its velocity costs nothing either).
    assert!(still < 1.5, "{still}");
    assert!(moving > 3.5 * still, "still {still}, moving {moving}");
}

/// The meters panel of a seeded lab, as text.
#[test]
fn the_meters_panel_of_a_seeded_lab() {
    let mut c = config(2, 0, 5);
    c.walkers = 1;
    let lab = run(&c, 4.0);
    let panel = panel(&lab, crate::ui::Theme::default());
    assert_eq!(panel.width, WIDTH);
    let text = |lines: &[Line<'static>]| {
        let text: Vec<String> = lines
            .iter()
            .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
            .collect();
        for l in &text {
            assert!(l.chars().count() <= COLUMNS, "too wide: {l}");
        }
        text.join("\n")
    };
    // In full, and as the line a client it shows when that does not fit.
    let text = format!(
        "{}\n{}\n\nshort:\n{}",
        panel.title,
        text(&panel.lines),
        text(&panel.short)
    );
    assert_eq!(panel.short.len(), 2 + 2);
    insta::assert_snapshot!(text);
}
