//! The trace export: valid trace event JSON, its tracks named, every kind of event
//! there, and its counts the recording's.

use std::path::PathBuf;

use super::*;
use crate::lab::headless::{self, LabReport, Recording};
use crate::lab::recording::Journal;
use crate::record::recorder::Recorder;
use serde_json::Value;

fn temp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!(
        "netarena-trace-{}-{name}.narec",
        std::process::id()
    ))
}

/// A seeded headless lab of `bad` and `lan` and a walker, 5 s, recorded whole to
/// `lab` and each client to `client-n`.
fn recorded(name: &str) -> (PathBuf, Vec<PathBuf>, LabReport) {
    let mut server =
        crate::server::ServerConfig::new(crate::sim::map::Map::builtin("duel").unwrap());
    server.seed = 5;
    server.bots = 2;
    let config = crate::lab::LabConfig {
        server,
        profiles: vec!["bad".into(), "lan".into()],
        walkers: 1,
        keyboard: 0,
        tuning: Default::default(),
        correction: Default::default(),
    };
    let lab = temp(&format!("{name}-lab"));
    let clients: Vec<PathBuf> = (1..=2).map(|n| temp(&format!("{name}-{n}"))).collect();
    let recordings = clients
        .iter()
        .map(|p| Recording {
            tap: Box::new(Recorder::create(p).unwrap()),
            name: p.display().to_string(),
        })
        .collect();
    let journal = Journal::create(&lab).unwrap();
    let report = headless::run_recorded(&config, 10.0, None, recordings, Some(journal)).unwrap();
    (lab, clients, report)
}

fn trace(path: &Path) -> Value {
    let mut out = Vec::new();
    export_trace(path, &mut out).unwrap();
    serde_json::from_slice(&out).expect("the export is JSON")
}

/// Checks the format: every event has ph, ts, pid, tid and name; returns them.
fn events(trace: &Value) -> &Vec<Value> {
    let list = trace["traceEvents"].as_array().expect("traceEvents");
    for e in list {
        for field in ["ph", "ts", "pid", "tid", "name"] {
            assert!(e.get(field).is_some(), "{field} missing in {e}");
        }
        let ph = e["ph"].as_str().unwrap();
        assert!(["X", "i", "C", "M"].contains(&ph), "{e}");
        if ph == "X" {
            assert!(e["dur"].as_f64().unwrap() >= 0.0, "{e}");
        }
    }
    list
}

fn count(list: &[Value], pid: u64, ph: &str, name: &str) -> usize {
    list.iter()
        .filter(|e| e["pid"] == pid && e["ph"] == ph)
        .filter(|e| {
            let n = e["name"].as_str().unwrap();
            n == name || (name.ends_with(' ') && n.starts_with(name))
        })
        .count()
}

fn track_name(list: &[Value], pid: u64) -> String {
    list.iter()
        .find(|e| e["pid"] == pid && e["ph"] == "M" && e["name"] == "thread_name")
        .map(|e| e["args"]["name"].as_str().unwrap().to_owned())
        .unwrap_or_default()
}

/// Issue 24: a whole lab's trace has a named track per client and the server, every
/// kind of event, and as many command spans, corrections, losses and dropped
/// datagrams as the lab's report counts.
#[test]
fn a_lab_trace_round_trips_the_counts() {
    let (lab, clients, report) = recorded("lab");
    let t = trace(&lab);
    for p in std::iter::once(&lab).chain(&clients) {
        let _ = std::fs::remove_file(p);
    }
    let list = events(&t);
    assert_eq!(track_name(list, 0), "server");
    assert_eq!(track_name(list, 1), "client 1 (bad)");
    assert_eq!(track_name(list, 2), "client 2 (lan)");
    for (n, c) in report.clients.iter().enumerate() {
        let pid = n as u64 + 1;
        let s = &c.report.stats;
        assert_eq!(
            count(list, pid, "X", "command "),
            s.commands_sent as usize,
            "client {pid}"
        );
        assert_eq!(count(list, pid, "i", "correction"), s.corrections as usize);
        assert_eq!(
            count(list, pid, "i", "snapshot lost"),
            s.snapshots_lost as usize
        );
        assert_eq!(
            count(list, pid, "i", "datagram dropped") as u64,
            c.link_up.dropped + c.link_down.dropped
        );
        assert!(count(list, pid, "X", "snapshot ") as u64 >= s.snapshots_received);
        for counter in ["rtt_ms", "interp_delay_ms", "pending_commands", "bytes"] {
            assert!(count(list, pid, "C", counter) > 10, "{counter}");
        }
    }
    let decisions = ["rail shot", "bolt hit", "kill"].map(|d| count(list, 0, "i", d));
    assert!(decisions.iter().sum::<usize>() > 0, "{decisions:?}");
    // Each kill once, though every client heard it, each until it acknowledged it.
    let deaths: u16 = report.server.standings.iter().map(|s| s.deaths).sum();
    assert_eq!(decisions[2], usize::from(deaths), "{decisions:?}");
    let bad = &report.clients[0].report.stats;
    let corrections: u64 = report
        .clients
        .iter()
        .map(|c| c.report.stats.corrections)
        .sum();
    assert!(
        corrections > 0 && bad.snapshots_lost > 0,
        "{corrections} corrections, {} lost",
        bad.snapshots_lost
    );
    assert!(
        count(list, 1, "i", "datagram dropped") > 0,
        "bad loses datagrams"
    );
}

/// A single client's recording: the same tracks and kinds for its one client.
#[test]
fn a_client_trace_round_trips_the_counts() {
    let (lab, clients, report) = recorded("client");
    let t = trace(&clients[0]);
    for p in std::iter::once(&lab).chain(&clients) {
        let _ = std::fs::remove_file(p);
    }
    let list = events(&t);
    assert_eq!(track_name(list, 1), "client");
    assert!(track_name(list, 0).starts_with("server"));
    let s = &report.clients[0].report.stats;
    assert_eq!(count(list, 1, "X", "command "), s.commands_sent as usize);
    assert_eq!(count(list, 1, "i", "correction"), s.corrections as usize);
    assert_eq!(
        count(list, 1, "i", "snapshot lost"),
        s.snapshots_lost as usize
    );
    assert!(count(list, 1, "C", "rtt_ms") > 10);
}
