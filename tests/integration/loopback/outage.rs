//! Outages through a fault relay (issue 22): a client behind a relay that blacks the
//! link out both ways, measured by what the relay sees pass.

use std::time::{Duration, Instant};

use super::support::process::{finish, headless, num, start_server};
use super::support::relay::{FaultRelay, Seen};

fn mean(xs: &[u32]) -> f64 {
    assert!(!xs.is_empty(), "no samples");
    xs.iter().map(|&x| f64::from(x)).sum::<f64>() / xs.len() as f64
}

/// Plays 3 s, blacks the link out for `outage`, plays 2.5 s more; returns the commands
/// in flight before the outage and 2 s after it ended, and the client's report.
fn through_an_outage(name: &str, outage: Duration) -> (f64, f64, serde_json::Value) {
    let server = start_server(&["--bots", "0"]);
    let relay = FaultRelay::start(([127, 0, 0, 1], server.port).into());
    let seconds = 3.0 + outage.as_secs_f64() + 2.5;
    let (child, report) = headless(relay.addr().port(), name, &seconds.to_string(), &[]);
    let t0 = loop {
        if let Some(t) = relay.first_datagram() {
            break t;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    std::thread::sleep((t0 + Duration::from_secs(3)).saturating_duration_since(Instant::now()));
    relay.blackout(outage);
    let back = Instant::now() + outage;
    let r = finish(child, report);
    assert!(relay.dropped() > 0, "the relay dropped nothing");
    // The recovery, half a second at a time, for the log.
    for half in 0..5 {
        let from = back + Duration::from_millis(500 * half);
        let to = from + Duration::from_millis(500);
        let queued = relay.queued(from, to);
        eprintln!(
            "{name}: {:.1}-{:.1} s after: in flight {:?}, server queue max {:?}",
            half as f64 / 2.0,
            (half + 1) as f64 / 2.0,
            relay.in_flight(from, to).iter().max(),
            queued.iter().max()
        );
    }
    let before = mean(&relay.in_flight(t0 + Duration::from_secs(1), back - outage));
    let after = mean(&relay.in_flight(
        back + Duration::from_secs(2),
        back + Duration::from_millis(2500),
    ));
    (before, after, r)
}

fn check(name: &str, outage: Duration) {
    let (before, after, r) = through_an_outage(name, outage);
    eprintln!(
        "{name}: in flight before {before:.1}, 2 s after {after:.1}; max correction {} cells; {}",
        num(&r, "max_correction_cells"),
        r["corrections_by_cause"]
    );
    // Loopback keeps a few commands in flight; a floor of 4 keeps the check from
    // hanging on one or two commands' noise.
    assert!(
        after <= 2.0 * before.max(4.0),
        "{name}: {after:.1} commands in flight 2 s after the outage, {before:.1} before"
    );
    assert!(
        num(&r, "max_correction_cells") <= 1.0,
        "{name}: a correction of {} cells: {r}",
        num(&r, "max_correction_cells")
    );
}

/// A 1.5 s outage used to leave ~60 commands queued on the server, draining at 3 a
/// second: everything the player did arrived a second late for 20 s.
#[test]
#[ignore = "slow tier: .ci/run runs it with --ignored"]
fn a_short_outage_leaves_no_backlog() {
    check("outage15", Duration::from_millis(1500));
}

/// Past 64 commands in flight the client kept predicting commands no packet could carry:
/// a 3 s outage ended in a snap back of 15 cells.
#[test]
#[ignore = "slow tier: .ci/run runs it with --ignored"]
fn a_long_outage_predicts_nothing_undeliverable() {
    check("outage30", Duration::from_millis(3000));
}

/// The client sent its `Leave` three times at once and the server counted two as
/// strangers' datagrams. Now one goes, and the server answers it; a lost one is
/// repeated until answered.
#[test]
fn a_leave_is_sent_until_acknowledged() {
    let server = start_server(&["--bots", "0"]);
    for (name, lost) in [("leaver", 0), ("leaver2", 1)] {
        let relay = FaultRelay::start(([127, 0, 0, 1], server.port).into());
        relay.drop_leaves(lost);
        let (child, report) = headless(relay.addr().port(), name, "1", &[]);
        let r = finish(child, report);
        assert_eq!(r["ended"], "time up");
        let leaves = relay.count(|s| matches!(s, Seen::Leave));
        let lefts = relay.count(|s| matches!(s, Seen::Left));
        assert_eq!(
            leaves,
            (1, lost as usize),
            "{name}: Leaves (forwarded, lost)"
        );
        assert_eq!(lefts, (1, 0), "{name}: the server's answers");
    }
}

/// A join that failed wrote no `--report`, though the guide says it always does; and a
/// server answering from another address read as no server at all.
#[test]
#[ignore = "slow tier: .ci/run runs it with --ignored"]
fn a_failed_join_writes_its_report_and_names_what_it_saw() {
    use std::net::UdpSocket;
    // Nobody listens on this port.
    let silent = UdpSocket::bind("127.0.0.1:0").unwrap();
    let silent_port = silent.local_addr().unwrap().port();
    drop(silent);
    // This one answers every datagram, from another socket.
    let asked = UdpSocket::bind("127.0.0.1:0").unwrap();
    let asked_port = asked.local_addr().unwrap().port();
    asked
        .set_read_timeout(Some(Duration::from_millis(100)))
        .unwrap();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let answering = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            let other = UdpSocket::bind("127.0.0.1:0").unwrap();
            let mut buf = [0u8; 1500];
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                if let Ok((n, from)) = asked.recv_from(&mut buf) {
                    let _ = other.send_to(&buf[..n.min(8)], from);
                }
            }
        })
    };
    // Full of humans.
    let server = start_server(&["--max-players", "1"]);
    let (first, first_report) = headless(server.port, "first", "7", &[]);
    assert!(
        server
            .wait_for_line("join", Duration::from_secs(3))
            .is_some()
    );
    let joins: Vec<_> = [
        (silent_port, "no answer from"),
        (asked_port, "datagrams came from 127.0.0.1:"),
        (server.port, "server is full"),
    ]
    .into_iter()
    .enumerate()
    .map(|(i, (port, want))| {
        let (child, report) = headless(port, &format!("failed{i}"), "1", &[]);
        (child, report, want)
    })
    .collect();
    for (child, report, want) in joins {
        let out = child.wait_with_output().unwrap();
        assert!(!out.status.success(), "{want}");
        let text = std::fs::read_to_string(&report).expect("a report, though the join failed");
        let _ = std::fs::remove_file(&report);
        let r: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(r["joined"], false, "{r}");
        let ended = r["ended"].as_str().unwrap();
        assert!(ended.contains(want), "{want}: {ended}");
        assert!(num(&r, "packets_out") >= 1.0, "{r}");
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    answering.join().unwrap();
    finish(first, first_report);
}
