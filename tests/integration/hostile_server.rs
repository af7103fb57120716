//! A hostile server cannot hurt a client. A relay stands where the server should be: it
//! completes the real handshake (it forwards to a real server behind it), and then, beside
//! the real traffic, sends the client 100,000 datagrams of its own: random bytes, mutated
//! copies of real server datagrams, and well-formed but absurd messages (player ids out of
//! range, huge counts, event floods, huge maps, ticks going backwards and far ahead).
//! The client must neither panic nor hang, its memory must stay bounded, and it either
//! plays on or ends with a clear one-line message.

use crate::support;

use std::net::{SocketAddr, UdpSocket};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg32;

use netarena::net::codec;
use netarena::net::protocol::{
    GameEvent, MapChunk, MapInfo, PlayerSnap, RosterEntry, RosterPage, ServerMsg,
};
use support::process::{BIN, num, start_server, temp_report};
use support::retry::{in_time, retry};

const HOSTILE: usize = 100_000;

/// Resident memory of a process in KiB, if it still runs.
fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
}

/// A well-formed message with absurd contents, derived from a real one when there is one.
fn absurd(rng: &mut Pcg32, real: Option<&ServerMsg>) -> ServerMsg {
    let big = |rng: &mut Pcg32| -> u32 {
        match rng.random_range(0..4) {
            0 => 0,
            1 => u32::MAX - rng.random_range(0..3),
            _ => rng.random(),
        }
    };
    if let Some(ServerMsg::Snapshot(real)) = real {
        let mut s = real.clone();
        match rng.random_range(0..8) {
            0 => s.header.tick = big(rng),
            1 => s.header.tick = s.header.tick.wrapping_sub(rng.random_range(1..10_000)),
            2 => {
                for p in &mut s.added {
                    p.id = rng.random();
                }
                let template = s.added.first().copied();
                if let Some(p) = template {
                    s.added.extend(
                        (0..rng.random_range(0..300)).map(|i| PlayerSnap { id: i as _, ..p }),
                    );
                }
            }
            3 => {
                s.masks = (0..rng.random_range(0..2000))
                    .map(|_| rng.random::<u8>())
                    .collect();
                s.values = (0..rng.random_range(0..2000))
                    .map(|_| rng.random::<i32>())
                    .collect();
            }
            4 => {
                let count = rng.random_range(0..3000);
                s.events = (0..count)
                    .map(|i| {
                        let seq = if rng.random() { big(rng) } else { i };
                        let event = GameEvent::Chat {
                            from: rng.random(),
                            text: "\u{1b}[2J".repeat(rng.random_range(0..50)),
                        };
                        (seq, event)
                    })
                    .collect();
            }
            5 => {
                let map = MapInfo {
                    id: rng.random(),
                    len: big(rng),
                    chunks: rng.random(),
                };
                let chunk = GameEvent::MapChunk(MapChunk {
                    map,
                    index: rng.random(),
                    data: "#\n".repeat(rng.random_range(0..600)).into_bytes(),
                });
                let event = GameEvent::MatchStart {
                    map_name: "x".repeat(rng.random_range(0..5000)),
                    map: Some(map),
                    started_tick: big(rng),
                    frag_limit: rng.random(),
                    time_limit_secs: big(rng),
                };
                s.events = vec![(big(rng), chunk), (big(rng), event)];
            }
            6 => {
                s.baseline_age = rng.random();
                s.header.ack_seq = big(rng);
                s.header.echo_time_ms = big(rng);
                s.header.queued = rng.random();
            }
            _ => {
                s.removed = (0..rng.random_range(0..1000))
                    .map(|_| rng.random::<u8>())
                    .collect()
            }
        }
        return ServerMsg::Snapshot(s);
    }
    ServerMsg::Roster(RosterPage {
        serial: rng.random(),
        part: rng.random(),
        parts: rng.random(),
        entries: (0..rng.random_range(0..2000))
            .map(|i| RosterEntry {
                id: i as _,
                name: "\u{7}n".repeat(rng.random_range(0..40)),
                bot: rng.random(),
                ping_ms: rng.random(),
            })
            .collect(),
    })
}

/// One hostile datagram.
fn hostile(rng: &mut Pcg32, real: &[Vec<u8>], buf: &mut Vec<u8>) -> Vec<u8> {
    let sample = (!real.is_empty()).then(|| &real[rng.random_range(0..real.len())]);
    match (rng.random_range(0..3), sample) {
        (0, _) | (_, None) => {
            let len = rng.random_range(0..1500);
            (0..len).map(|_| rng.random::<u8>()).collect()
        }
        (1, Some(d)) => {
            let mut d = d.clone();
            for _ in 0..rng.random_range(1..6) {
                let at = rng.random_range(0..d.len());
                d[at] ^= 1 << rng.random_range(0..8);
            }
            if rng.random_range(0..4) == 0 {
                d.truncate(rng.random_range(0..d.len()));
            }
            d
        }
        (_, Some(d)) => {
            let decoded = codec::decode_server(d).ok();
            let msg = absurd(rng, decoded.as_ref());
            buf.clear();
            match codec::encode_server(&msg, buf) {
                Ok(()) => buf.clone(),
                // Too large for one datagram: its front, which must be refused.
                Err(_) => d[..d.len() / 2].to_vec(),
            }
        }
    }
}

/// The relay between one client and the real server, and the attack it carries.
struct Relay {
    real_server: SocketAddr,
    relay: UdpSocket,
    upstream: UdpSocket,
    rng: Pcg32,
    real: Vec<Vec<u8>>,
    sent: usize,
}

/// How one client's session under attack ended.
struct Ended {
    status: std::process::ExitStatus,
    stderr: String,
    peak_rss: u64,
    report: Option<serde_json::Value>,
}

impl Relay {
    /// Runs one headless client through the relay until it exits, attacking it with
    /// hostile datagrams (spread over 15 s of its 20) until `HOSTILE` are sent in all.
    fn session(&mut self, n: usize) -> Ended {
        let port = self.relay.local_addr().unwrap().port();
        let report = temp_report(&format!("hostile-{n}"));
        let mut child = Command::new(BIN)
            .args(["join", &format!("127.0.0.1:{port}"), "--headless"])
            .args(["--bot", "wander", "--seconds", "20", "--report"])
            .arg(&report)
            .stderr(Stdio::piped())
            .spawn()
            .expect("client starts");
        let pid = child.id();
        let mut client: Option<SocketAddr> = None;
        let mut buf = vec![0u8; 65536];
        let mut scratch = Vec::new();
        let mut peak_rss = 0u64;
        let (start, first) = (Instant::now(), self.sent);
        let deadline = start + Duration::from_secs(40);
        let status = loop {
            // Relay the real traffic both ways.
            while let Ok((len, from)) = self.relay.recv_from(&mut buf) {
                client = Some(from);
                let _ = self.upstream.send_to(&buf[..len], self.real_server);
            }
            while let Ok((len, _)) = self.upstream.recv_from(&mut buf) {
                if let Some(c) = client {
                    let _ = self.relay.send_to(&buf[..len], c);
                }
                if self.real.len() < 200 {
                    self.real.push(buf[..len].to_vec());
                } else {
                    let i = self.rng.random_range(0..self.real.len());
                    self.real[i] = buf[..len].to_vec();
                }
            }
            // Once the client is in (it has real snapshots), attack.
            let elapsed = start.elapsed().as_secs_f64();
            if let Some(c) = client.filter(|_| self.real.len() > 20) {
                let share = ((elapsed - 2.0) / 15.0).clamp(0.0, 1.0);
                let due = first + (share * (HOSTILE - first) as f64) as usize;
                while self.sent < due {
                    let d = hostile(&mut self.rng, &self.real, &mut scratch);
                    let _ = self.relay.send_to(&d, c);
                    self.sent += 1;
                }
            }
            if let Some(kib) = rss_kib(pid) {
                peak_rss = peak_rss.max(kib);
            }
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            assert!(
                Instant::now() < deadline,
                "the client hung: still running after 40 s of a 20 s session"
            );
            std::thread::sleep(Duration::from_millis(1));
        };
        let mut stderr = String::new();
        use std::io::Read;
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut stderr)
            .unwrap();
        let report = std::fs::read_to_string(&report)
            .ok()
            .map(|text| serde_json::from_str(&text).expect("a report is valid JSON"));
        Ended {
            status,
            stderr,
            peak_rss,
            report,
        }
    }
}

#[test]
#[ignore = "slow tier: .ci/run runs it with --ignored"]
fn a_hostile_server_cannot_hurt_a_client() {
    retry("100,000 hostile datagrams", |_| hostile_once());
}

/// One attack: `Err` when a client that played on got too few snapshots, which a loaded
/// machine can cause (see [`retry`]); a panic, memory growth or an unclear error fail at
/// once.
fn hostile_once() -> Result<(), String> {
    let server = start_server(&["--bots", "3"]);
    let mut relay = Relay {
        real_server: SocketAddr::from(([127, 0, 0, 1], server.port)),
        relay: UdpSocket::bind("127.0.0.1:0").unwrap(),
        upstream: UdpSocket::bind("127.0.0.1:0").unwrap(),
        rng: Pcg32::seed_from_u64(7),
        real: Vec::new(),
        sent: 0,
    };
    relay.relay.set_nonblocking(true).unwrap();
    relay.upstream.set_nonblocking(true).unwrap();
    // A client may end its session with a clear message (a map it cannot use, say);
    // the attack then goes on against a new one until every datagram was sent.
    for n in 0..4 {
        let e = relay.session(n);
        eprintln!(
            "hostile session {n}: {} datagrams sent in all; client peak RSS {} KiB; {}; {}",
            relay.sent, e.peak_rss, e.status, e.stderr
        );
        assert!(
            !e.stderr.contains("panicked"),
            "the client panicked: {}",
            e.stderr
        );
        assert!(
            e.peak_rss < 100 * 1024,
            "the client's memory grew to {} KiB",
            e.peak_rss
        );
        if e.status.success() {
            let r = e.report.expect("report written");
            let seconds = num(&r, "seconds");
            assert!(seconds > 19.0, "the session ended early: {r}");
            in_time(num(&r, "snapshots_received") > 10.0 * seconds, || {
                format!("the client stopped playing: {r}")
            })?;
        } else {
            // Beside the key log's warning (the tests set `NETARENA_KEYLOG`).
            let lines: Vec<&str> = e
                .stderr
                .lines()
                .filter(|l| !l.trim().is_empty() && !l.contains("NETARENA_KEYLOG"))
                .collect();
            assert_eq!(
                lines.len(),
                1,
                "a failing client says why in one line, not: {}",
                e.stderr
            );
        }
        if relay.sent >= HOSTILE {
            return Ok(());
        }
    }
    panic!(
        "only {} hostile datagrams were sent in four sessions",
        relay.sent
    );
}
