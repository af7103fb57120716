//! Whole program over real loopback UDP: a dedicated server process and headless client
//! processes, as a user would run them.

use std::process::Command;
use std::time::Duration;

use crate::support;

mod outage;
mod redundancy;
mod rtt;

use support::process::{BIN, finish, headless, headless_join, num, start_server, start_server_on};

#[test]
fn two_headless_clients_see_each_other_move() {
    let server = start_server(&[]);
    let (a, ra) = headless(server.port, "alice", "4", &["--seed", "1"]);
    let (b, rb) = headless(server.port, "bob", "4", &["--seed", "2"]);
    let reports = [finish(a, ra), finish(b, rb)];

    for (r, other) in reports.iter().zip(["bob", "alice"]) {
        // Counters are whole numbers; a correction count of zero means no correction.
        for key in [
            "corrections",
            "bytes_in",
            "bytes_out",
            "packets_in",
            "packets_out",
        ] {
            assert!(r[key].is_u64(), "{key} is a count: {r}");
        }
        if num(r, "corrections") == 0.0 {
            assert_eq!(num(r, "max_correction_cells"), 0.0, "{r}");
        }
        let seconds = num(r, "seconds");
        assert!((3.9..6.0).contains(&seconds), "{seconds}");
        // 60 commands and 20 snapshots a second, give or take start-up.
        let sent = num(r, "commands_sent");
        assert!(
            sent > 50.0 * seconds && sent < 70.0 * seconds,
            "commands {sent}"
        );
        assert!(num(r, "commands_acked") > sent - 30.0);
        let snaps = num(r, "snapshots_received");
        assert!(
            snaps > 15.0 * seconds && snaps < 25.0 * seconds,
            "snapshots {snaps}"
        );
        let rtt = num(r, "rtt_ms_mean");
        assert!(rtt > 0.0 && rtt < 100.0, "loopback rtt {rtt}");
        assert!(num(r, "bytes_in") > num(r, "packets_in") * 10.0);
        // Every snapshot came in a packet of its own.
        assert!(num(r, "packets_in") >= snaps, "{r}");
        // An input packet carries at least a header and one command run.
        assert!(num(r, "bytes_out") > num(r, "packets_out") * 10.0, "{r}");
        // An input packet every other command tick, more when keys change.
        let packets = num(r, "packets_out");
        assert!(
            packets >= sent * 0.45 && packets <= sent,
            "{packets} packets"
        );

        let seen = r["remote_players"].as_array().expect("remote_players");
        let other_seen = seen
            .iter()
            .find(|p| p["name"] == other)
            .unwrap_or_else(|| panic!("never saw {other}: {r}"));
        let moved = other_seen["distance_cells"].as_f64().unwrap();
        assert!(moved > 3.0, "{other} moved only {moved} cells");
    }
}

#[test]
#[ignore = "slow tier: .ci/run runs it with --ignored"]
fn an_unreachable_server_is_reported_within_seconds() {
    // A port nobody listens on: bind one, note it, close it.
    let port = std::net::UdpSocket::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let start = std::time::Instant::now();
    let out = headless_join(port, "1").output().unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("no answer from"), "{stderr}");
    // Beside the key log's warning (the tests set `NETARENA_KEYLOG`).
    let key_log = stderr
        .lines()
        .filter(|l| l.contains("NETARENA_KEYLOG"))
        .count();
    assert_eq!(key_log, 1, "{stderr}");
    assert_eq!(stderr.trim().lines().count(), 2, "one clear line: {stderr}");
    assert!(start.elapsed() < Duration::from_secs(15));
}

#[test]
#[ignore = "slow tier: .ci/run runs it with --ignored"]
fn a_full_server_says_so() {
    // Full of humans: a bot would give up its seat (tests/server_rules.rs).
    let server = start_server(&["--max-players", "1"]);
    let (first, report) = headless(server.port, "first", "3", &[]);
    assert!(
        server
            .wait_for_line("join", Duration::from_secs(3))
            .is_some()
    );
    let out = headless_join(server.port, "1").output().unwrap();
    finish(first, report);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("server is full"), "{stderr}");
}

#[test]
fn a_bad_map_names_its_line_and_column() {
    let path = std::env::temp_dir().join(format!("netarena-bad-{}.txt", std::process::id()));
    std::fs::write(&path, "#####\n#S..#\n#.?.#\n#...#\n#####\n").unwrap();
    let out = Command::new(BIN)
        .args(["server", "--port", "0", "--map"])
        .arg(&path)
        .output()
        .unwrap();
    let _ = std::fs::remove_file(&path);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains(":3:3:"), "{stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
}

/// A map saved by Windows' Notepad (a byte order mark, CRLF line ends) is served as
/// written: the mark is no glyph and the `\r`s are no column (issue 30).
#[test]
fn a_map_file_with_a_bom_and_crlf_line_ends_is_served() {
    use std::io::BufRead;
    let name = format!("netarena-notepad-{}", std::process::id());
    let path = std::env::temp_dir().join(format!("{name}.txt"));
    let map =
        "\u{feff}; saved by Notepad\r\n#######\r\n#S....#\r\n#..#..#\r\n#....S#\r\n#######\r\n";
    std::fs::write(&path, map).unwrap();
    let mut server = Command::new(BIN)
        .env("NETARENA_CONFIG", support::process::NO_CONFIG)
        .args(["server", "--port", "0", "--map"])
        .arg(&path)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    std::io::BufReader::new(server.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    let _ = server.kill();
    let out = server.wait_with_output().unwrap();
    let _ = std::fs::remove_file(&path);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        first.contains(&format!("map {name} (7x5)")),
        "{first:?} {stderr}"
    );
}

#[test]
#[ignore = "slow tier: .ci/run runs it with --ignored"]
fn input_redundancy_covers_lag_jitter_and_loss() {
    let server = start_server(&[]);
    let (c, r) = headless(
        server.port,
        "solo",
        "30",
        &[
            "--lag", "100", "--jitter", "20", "--loss", "5", "--seed", "9",
        ],
    );
    let r = finish(c, r);
    // 5% of input packets are lost on the way up, but every one carries all the
    // commands not yet acknowledged, so the server applies every command and the
    // prediction never disagrees with it.
    assert_eq!(num(&r, "corrections"), 0.0, "{r}");
    let rtt = num(&r, "rtt_ms_mean");
    assert!(
        (160.0..=240.0).contains(&rtt),
        "RTT {rtt} ms, expected 200 +-20%"
    );
    for key in ["loss_up_pct", "loss_down_pct"] {
        let loss = num(&r, key);
        assert!(
            (2.5..=8.5).contains(&loss),
            "{key} {loss}%, expected about 5%"
        );
    }
    let acked = num(&r, "commands_acked");
    assert!(acked > num(&r, "commands_sent") - 40.0, "{r}");
}

#[test]
#[ignore = "slow tier: .ci/run runs it with --ignored"]
fn a_clean_link_measures_no_loss() {
    let server = start_server(&[]);
    let (c, r) = headless(server.port, "clean", "3", &[]);
    let r = finish(c, r);
    assert_eq!(num(&r, "loss_up_pct"), 0.0);
    assert_eq!(num(&r, "loss_down_pct"), 0.0);
    assert_eq!(num(&r, "corrections"), 0.0);
}

/// `join HOST:PORT --headless` for `seconds`, with a report; the report once it ends.
fn join_at(host_port: &str, name: &str, seconds: &str, extra: &[&str]) -> serde_json::Value {
    let report = support::process::temp_report(name);
    let child = Command::new(BIN)
        .args(["join", host_port, "--headless", "--bot", "wander"])
        .args(["--seconds", seconds, "--name", name, "--report"])
        .arg(&report)
        .args(extra)
        .spawn()
        .unwrap();
    finish(child, report)
}

/// The server listens on IPv6 and IPv4, and answers from the address each client wrote
/// to: `[::1]` and a second loopback address (127.0.0.2) both join. Before, the server
/// listened on 0.0.0.0 only, and answered 127.0.0.2's client from 127.0.0.1, which it
/// dropped: both ended in "no answer". Needs Linux's `IP_PKTINFO` (the portable socket
/// lets the system pick the source) and 127.0.0.2 (macOS has 127.0.0.1 alone).
#[test]
#[cfg_attr(
    any(not(target_os = "linux"), feature = "portable-net"),
    ignore = "needs IP_PKTINFO and 127.0.0.2: Linux without portable-net"
)]
fn ipv6_and_a_second_address_of_the_host_can_be_joined() {
    let server = start_server(&[]);
    let port = server.port;
    let v6 = std::thread::spawn(move || join_at(&format!("[::1]:{port}"), "six", "2", &[]));
    let second = join_at(&format!("127.0.0.2:{port}"), "second", "2", &[]);
    let v6 = v6.join().unwrap();
    for r in [&v6, &second] {
        assert_eq!(r["ended"], "time up", "{r}");
        assert!(num(r, "snapshots_received") > 10.0, "{r}");
    }
    let joins: Vec<String> = (0..2)
        .filter_map(|_| server.wait_for_line("join", Duration::from_secs(1)))
        .collect();
    assert!(
        joins.iter().any(|l| l.contains("six from [::1]:")),
        "{joins:?}"
    );
    // The kernel writes to 127.0.0.2 from 127.0.0.1, shown as IPv4 (not ::ffff:).
    assert!(
        joins.iter().any(|l| l.contains("second from 127.0.0.1:")),
        "{joins:?}"
    );
}

/// Issue 31, item 8: `[::ffff:127.0.0.1]:PORT` (an IPv4 address written as IPv6)
/// did not join a server listening on IPv4: the answers came from `127.0.0.1`, which
/// the client took for a stranger ("no answer ... but 20 datagrams came from
/// 127.0.0.1"). The client now joins the IPv4 address itself.
#[test]
fn an_ipv4_mapped_ipv6_address_joins_the_ipv4_server() {
    let server = start_server(&[]);
    let r = join_at(
        &format!("[::ffff:127.0.0.1]:{}", server.port),
        "mapped",
        "1",
        &[],
    );
    assert_eq!(r["ended"], "time up", "{r}");
    assert!(num(&r, "snapshots_received") > 5.0, "{r}");
    let joined = server
        .wait_for_line("join", Duration::from_secs(1))
        .expect("a join line");
    assert!(joined.contains("mapped from 127.0.0.1:"), "{joined}");
}

/// A UDP relay that plays a NAT: the client writes to `listen`; the relay forwards from
/// a socket of its own to the server, and back. `rebind` makes it forward from a new
/// socket (a new source port) and forget the old one, as a NAT that lost its mapping.
struct Nat {
    listen: std::net::SocketAddr,
    rebind: std::sync::Arc<std::sync::atomic::AtomicBool>,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    thread: Option<std::thread::JoinHandle<Vec<u16>>>,
}

impl Nat {
    fn start(server: std::net::SocketAddr) -> Nat {
        use std::net::UdpSocket;
        use std::sync::atomic::{AtomicBool, Ordering};
        let outside = UdpSocket::bind("127.0.0.1:0").unwrap();
        outside.set_nonblocking(true).unwrap();
        let listen = outside.local_addr().unwrap();
        let rebind = std::sync::Arc::new(AtomicBool::new(false));
        let stop = std::sync::Arc::new(AtomicBool::new(false));
        let (r, s) = (rebind.clone(), stop.clone());
        let thread = std::thread::spawn(move || {
            let open = || {
                let inside = UdpSocket::bind("127.0.0.1:0").unwrap();
                inside.set_nonblocking(true).unwrap();
                inside
            };
            let mut inside = open();
            let mut ports = vec![inside.local_addr().unwrap().port()];
            let mut client = None;
            let mut buf = [0u8; 2048];
            while !s.load(Ordering::Relaxed) {
                if r.swap(false, Ordering::Relaxed) {
                    inside = open();
                    ports.push(inside.local_addr().unwrap().port());
                }
                let mut idle = true;
                while let Ok((n, from)) = outside.recv_from(&mut buf) {
                    client = Some(from);
                    let _ = inside.send_to(&buf[..n], server);
                    idle = false;
                }
                while let Ok((n, _)) = inside.recv_from(&mut buf) {
                    if let Some(c) = client {
                        let _ = outside.send_to(&buf[..n], c);
                    }
                    idle = false;
                }
                if idle {
                    std::thread::sleep(Duration::from_millis(1));
                }
            }
            ports
        });
        Nat {
            listen,
            rebind,
            stop,
            thread: Some(thread),
        }
    }

    /// The source ports it used, in order.
    fn finish(mut self) -> Vec<u16> {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        self.thread.take().unwrap().join().unwrap()
    }
}

/// A NAT gives the client a new source port mid-session: the session goes on, moved to
/// the new address by its first fresh sealed datagram. Before, the server refused the
/// new port as an unknown sender and the client ended 5 s later ("stopped answering").
#[test]
#[ignore = "slow tier: .ci/run runs it with --ignored"]
fn a_client_moved_to_a_new_port_by_a_nat_plays_on() {
    let server = start_server(&[]);
    let nat = Nat::start(std::net::SocketAddr::from(([127, 0, 0, 1], server.port)));
    let at = nat.listen.to_string();
    let client = std::thread::spawn(move || join_at(&at, "roamer", "8", &[]));
    server
        .wait_for_line("join", Duration::from_secs(5))
        .expect("joined through the NAT");
    std::thread::sleep(Duration::from_secs(2));
    nat.rebind.store(true, std::sync::atomic::Ordering::Relaxed);
    let moved = server.wait_for_line("move", Duration::from_secs(5));
    let report = client.join().unwrap();
    let ports = nat.finish();
    assert_eq!(ports.len(), 2, "{ports:?}");
    let moved = moved.expect("the server moved the session");
    assert!(
        moved.contains(&format!(":{}", ports[0])) && moved.contains(&format!(":{}", ports[1])),
        "{moved} {ports:?}"
    );
    assert_eq!(report["ended"], "time up", "{report}");
    // Snapshots went on after the move: 20 a second, most of the 8 s.
    assert!(num(&report, "snapshots_received") > 100.0, "{report}");
    let left = server.wait_for_line("leave", Duration::from_secs(2));
    assert!(
        left.as_deref().is_some_and(|l| l.contains("(left)")),
        "{left:?}"
    );
}

/// The server is killed and started again on the same port: the client hears "not
/// connected" for its session's next datagram and joins again by itself with the same
/// name, and says so in its log. Before, the new server dropped its datagrams and the
/// client ended after 5 s of silence.
#[test]
#[ignore = "slow tier: .ci/run runs it with --ignored"]
fn a_restarted_server_is_rejoined_by_itself() {
    let mut server = start_server(&[]);
    let port = server.port;
    let log = std::env::temp_dir().join(format!("netarena-{}-rejoin.log", std::process::id()));
    let log_arg = log.to_string_lossy().into_owned();
    let client = std::thread::spawn(move || {
        join_at(
            &format!("127.0.0.1:{port}"),
            "phoenix",
            "6",
            &["--log", &log_arg],
        )
    });
    server
        .wait_for_line("join", Duration::from_secs(5))
        .expect("joined");
    std::thread::sleep(Duration::from_secs(1));
    server.child.kill().unwrap();
    let _ = server.child.wait();
    let restarted = start_server_on(port, &[]);
    let started = std::time::Instant::now();
    // Well before the client's 5 s timeout, which is what ended it before.
    let joined = restarted.wait_for_line("join", Duration::from_secs(4));
    let took = started.elapsed();
    let report = client.join().unwrap();
    let logged = std::fs::read_to_string(&log).unwrap_or_default();
    let _ = std::fs::remove_file(&log);
    let joined = joined.expect("the restarted server shows the client again");
    eprintln!(
        "rejoined {} ms after the restart: {joined}",
        took.as_millis()
    );
    assert!(joined.contains("phoenix"), "{joined}");
    assert!(logged.contains("server restarted, rejoining"), "{logged}");
    assert_eq!(report["ended"], "time up", "{report}");
    assert!(num(&report, "snapshots_received") > 20.0, "{report}");
}
/// `netarena relay` between a client and the server: the client plays through it, and
/// SIGTERM makes it print what it carried, by kind.
#[test]
#[ignore = "slow tier: .ci/run runs it with --ignored"]
fn a_client_plays_through_the_relay_subcommand_which_counts_at_exit() {
    use std::io::{BufRead, BufReader, Read};
    use std::process::Stdio;

    let server = start_server(&[]);
    // Isolated: it reads the key log the client writes, so it can count sealed traffic
    // by kind.
    let mut relay = support::process::isolated(&mut Command::new(BIN))
        .args(["relay", "--listen", "127.0.0.1:0", "--server"])
        .arg(format!("127.0.0.1:{}", server.port))
        .args(["--lag", "20", "--json"])
        .stdout(Stdio::piped())
        .spawn()
        .expect("relay starts");
    let mut out = BufReader::new(relay.stdout.take().unwrap());
    let mut first = String::new();
    out.read_line(&mut first).unwrap();
    let port: u16 = first
        .split(" -> ")
        .next()
        .and_then(|a| a.rsplit(':').next())
        .and_then(|p| p.trim().parse().ok())
        .unwrap_or_else(|| panic!("no address in {first:?}"));
    assert!(first.contains("20ms"), "{first}");

    let (client, report) = headless(port, "through", "3", &[]);
    let r = finish(client, report);
    assert!(num(&r, "snapshots_received") > 30.0, "{r}");
    // The relay's 20 ms each way shows in the RTT.
    assert!(num(&r, "rtt_ms_mean") >= 40.0, "{r}");

    let status = Command::new("kill")
        .args(["-TERM", &relay.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let mut rest = String::new();
    out.read_to_string(&mut rest).unwrap();
    assert!(relay.wait().unwrap().success());
    let totals: serde_json::Value = serde_json::from_str(rest.trim()).expect(&rest);
    assert_eq!(totals["clients"], 1, "{totals}");
    assert!(num(&totals, "up_delivered") > 30.0, "{totals}");
    assert!(num(&totals, "down_delivered") > 30.0, "{totals}");
    assert!(num(&totals, "players") > 0.0, "{totals}");
    // What the client took in came through the relay.
    assert!(
        num(&totals, "down_bytes") >= num(&r, "bytes_in"),
        "{totals}"
    );
}
