//! A server on a LAN is exposed to every machine on it: hostile datagrams, cheating and
//! vanishing clients, and churn must leave it running, fair and flat in memory.

use crate::support;

use std::net::{SocketAddr, UdpSocket};
use std::process::Command;
use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg32;

use netarena::net::codec;
use netarena::net::protocol::{ClientMsg, InputPacket, ServerMsg};
use netarena::net::secure::{self, ClientHandshake, ServerKey};
use netarena::server::{Server, ServerConfig};
use netarena::sim::map::Map;
use netarena::sim::world::{Buttons, Command as Cmd};
use support::Keyring;
use support::process::{finish, headless, headless_join, num, start_server};
use support::retry::{in_time, retry};

/// A raw UDP peer speaking the protocol by hand.
struct Peer {
    socket: UdpSocket,
    server: SocketAddr,
    buf: Vec<u8>,
    /// Its end of the handshake and session, by its own address.
    keys: Keyring,
    me: SocketAddr,
}

impl Peer {
    fn new(port: u16) -> Peer {
        let socket = UdpSocket::bind("127.0.0.1:0").unwrap();
        socket
            .set_read_timeout(Some(Duration::from_millis(500)))
            .unwrap();
        Peer {
            me: socket.local_addr().unwrap(),
            socket,
            server: SocketAddr::from(([127, 0, 0, 1], port)),
            buf: vec![0; 65536],
            keys: Keyring::default(),
        }
    }

    fn send(&self, bytes: &[u8]) {
        let _ = self.socket.send_to(bytes, self.server);
    }

    /// The next datagram that opens, or None when none came for the read timeout.
    /// Datagrams of a session this peer left (snapshots sent before its goodbye
    /// arrived) no longer open: they are passed over, not taken for silence.
    fn recv(&mut self) -> Option<ServerMsg> {
        loop {
            let (n, _) = self.socket.recv_from(&mut self.buf).ok()?;
            if let Ok(msg) = self.keys.open(self.me, &self.buf[..n]) {
                return Some(msg);
            }
        }
    }

    /// The full handshake; true once welcomed.
    fn join(&mut self, name: &str) -> bool {
        let mut req = Vec::new();
        let mut cookie = None;
        for _ in 0..6 {
            codec::connect_request(name, cookie, self.keys.hello(self.me), &mut req).unwrap();
            self.send(&req);
            while let Some(msg) = self.recv() {
                match msg {
                    ServerMsg::Challenge(c) => {
                        cookie = Some(c);
                        break;
                    }
                    ServerMsg::Welcome(_) => return true,
                    _ => {}
                }
            }
        }
        false
    }

    /// Sends a session message sealed with this peer's session.
    fn send_sealed(&mut self, msg: &ClientMsg) {
        let mut buf = Vec::new();
        self.keys.seal(self.me, msg, &mut buf);
        self.send(&buf);
    }

    /// Leaves (if joined), and forgets the session: the next join is a new one.
    fn leave(&mut self) {
        if self.keys.joined(self.me) {
            self.send_sealed(&ClientMsg::Leave);
        }
        self.keys.forget(self.me);
    }
}

#[test]
#[ignore = "slow tier: .ci/run runs it with --ignored"]
fn a_flood_of_random_and_mutated_datagrams_is_survived() {
    retry("the flood of 100,000 datagrams", |_| flood_once());
}

/// One run of the flood: `Err` when the clients' rates or the flood's pace say the
/// machine was too loaded to tell (see [`retry`]).
fn flood_once() -> Result<(), String> {
    let mut server = start_server(&["--bots", "2"]);
    let (a, ra) = headless(server.port, "alice", "12", &["--seed", "1"]);
    let (b, rb) = headless(server.port, "bob", "12", &["--seed", "2"]);
    std::thread::sleep(Duration::from_millis(1000));

    // Valid packets of every kind, to mutate.
    let mut samples: Vec<Vec<u8>> = Vec::new();
    let mut buf = Vec::new();
    // Sealed datagrams of a session with another server: the right shape, another key.
    let mut handshake = ClientHandshake::new();
    codec::connect_request("mallory", None, handshake.hello(), &mut buf).unwrap();
    samples.push(buf.clone());
    let (answer, _) = secure::accept(&ServerKey::generate(), &handshake.hello(), 1).unwrap();
    let mut session = handshake.finish(&answer).unwrap().session;
    let input = InputPacket::pack(5, 1, 3, (1..=20).map(|s| (s, Cmd::moving(Buttons::RIGHT))));
    let scratch = &mut Vec::new();
    codec::seal_client(&ClientMsg::Input(input), &mut session, 1, &mut buf, scratch).unwrap();
    samples.push(buf.clone());
    codec::seal_client(&ClientMsg::Leave, &mut session, 1, &mut buf, scratch).unwrap();
    samples.push(buf.clone());

    let peer = Peer::new(server.port);
    let mut rng = Pcg32::seed_from_u64(99);
    let start = Instant::now();
    for i in 0..100_000u32 {
        let datagram: Vec<u8> = if i % 2 == 0 {
            let len = rng.random_range(0..1500);
            (0..len).map(|_| rng.random::<u8>()).collect()
        } else {
            let mut d = samples[rng.random_range(0..samples.len())].clone();
            match rng.random_range(0..4) {
                0 => {
                    let at = rng.random_range(0..d.len());
                    d[at] = rng.random();
                }
                1 => d.truncate(rng.random_range(0..d.len())),
                2 => d.extend((0..rng.random_range(1..64)).map(|_| rng.random::<u8>())),
                _ => {
                    for _ in 0..rng.random_range(1..8) {
                        let at = rng.random_range(0..d.len());
                        d[at] ^= 1 << rng.random_range(0..8);
                    }
                }
            }
            d
        };
        peer.send(&datagram);
        // Pace the flood a little so it lasts a few seconds of play, not a blink.
        if i % 2000 == 0 {
            std::thread::sleep(Duration::from_millis(5));
        }
    }
    let flood_secs = start.elapsed().as_secs_f64();

    let reports = [finish(a, ra), finish(b, rb)];
    assert!(server.is_running(), "the server survived");
    in_time(flood_secs < 11.0, || {
        format!("the flood overlapped the play ({flood_secs} s)")
    })?;
    for r in reports {
        // Both clients played on: snapshots kept coming at 20 Hz through the flood.
        let seconds = num(&r, "seconds");
        let snaps = num(&r, "snapshots_received");
        in_time(snaps > 15.0 * seconds, || {
            format!("only {snaps} snapshots in {seconds} s")
        })?;
        in_time(num(&r, "commands_acked") > 50.0 * seconds, || {
            format!("too few commands acknowledged: {r}")
        })?;
    }
    Ok(())
}

/// Speed hacking: a client sending commands three times faster than real time moves no
/// further than an honest one over 10 s.
#[test]
fn a_speed_hacking_client_gains_nothing() {
    let map = Map::parse(
        "corridor",
        &[
            "##########################################",
            "#S......................................S#",
            "#.......................................S#",
            "#.......................................S#",
            "##########################################",
        ]
        .join("\n"),
    )
    .unwrap();
    let mut config = ServerConfig::new(map);
    config.max_players = 2;
    let tick = Duration::from_secs(1) / u32::from(config.tick_rate);
    let mut server = Server::new(config);
    let mut now = Instant::now();
    let honest: SocketAddr = "10.0.0.1:1000".parse().unwrap();
    let cheat: SocketAddr = "10.0.0.2:1000".parse().unwrap();
    let ids = [honest, cheat].map(|a| server.join_in_process(now, a, "p").unwrap().player_id);
    // Start both mid-corridor, on different rows, so neither meets a wall or the other.
    for (row, id) in [1, 3].into_iter().zip(ids) {
        server.teleport(id, netarena::sim::world::PlayerState::at_cell(20, row));
    }
    // Both walk back and forth: 60 commands right, 60 left, so no wall stops them.
    let pattern = |seq: u32| {
        Cmd::moving(if (seq / 60).is_multiple_of(2) {
            Buttons::RIGHT
        } else {
            Buttons::LEFT
        })
    };
    let mut seqs = [0u32; 2];
    let mut travelled = [0i64; 2];
    let mut buf = Vec::new();
    for _ in 0..600 {
        now += tick;
        for (k, (addr, per_tick)) in [(honest, 1), (cheat, 3)].into_iter().enumerate() {
            let first = seqs[k] + 1;
            seqs[k] += per_tick;
            let input =
                InputPacket::pack(1, seqs[k], 0, (first..=seqs[k]).map(|s| (s, pattern(s))));
            server
                .encode_in_process(addr, &ClientMsg::Input(input), &mut buf)
                .unwrap();
            server.receive(now, addr, &buf);
        }
        let before = ids.map(|id| server.world().get(id).unwrap());
        server.tick(now);
        let _ = server.take_outbox().count();
        for k in 0..2 {
            let after = server.world().get(ids[k]).unwrap();
            travelled[k] +=
                i64::from((after.x - before[k].x).abs() + (after.y - before[k].y).abs());
        }
    }
    let [h, c] = travelled;
    assert!(h > 0);
    let diff = (c - h).abs() as f64 / h as f64;
    assert!(
        diff <= 0.01,
        "honest {h}, cheater {c}: {:.2}% apart",
        diff * 100.0
    );
}

#[test]
#[ignore = "slow tier: .ci/run runs it with --ignored"]
fn a_killed_client_is_timed_out_and_its_slot_freed() {
    let server = start_server(&["--max-players", "1"]);
    let (mut c, _) = headless(server.port, "victim", "60", &[]);
    server
        .wait_for_line("join", Duration::from_secs(5))
        .expect("joined");
    c.kill().unwrap();
    let _ = c.wait();
    let line = server
        .wait_for_line("leave", Duration::from_secs(10))
        .expect("timed out within 10 s");
    assert!(line.contains("timed out"), "{line}");
    // The one slot is free again.
    let mut peer = Peer::new(server.port);
    assert!(peer.join("next"), "the freed slot takes a new player");
}

#[test]
#[ignore = "slow tier: .ci/run runs it with --ignored"]
fn clients_say_clearly_when_the_server_goes_away() {
    let mut server = start_server(&[]);
    let report = support::process::temp_report("orphan");
    let log = std::env::temp_dir().join(format!("netarena-{}-orphan.log", std::process::id()));
    let client = headless_join(server.port, "30")
        .arg("--report")
        .arg(&report)
        .arg("--log")
        .arg(&log)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_secs(2));
    // Killed outright: no goodbye reaches the client, it has to notice the silence.
    server.child.kill().unwrap();
    let start = Instant::now();
    let out = client.wait_with_output().unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("stopped answering"), "{stderr}");
    assert!(start.elapsed() < Duration::from_secs(10));
    // It said so after 2 s of silence, before giving up at 5.
    let logged = std::fs::read_to_string(&log).unwrap_or_default();
    let _ = std::fs::remove_file(&log);
    assert!(logged.contains("has not answered for 2 s"), "{logged}");
}

#[test]
fn a_stopped_server_says_goodbye() {
    let server = start_server(&[]);
    let client = headless_join(server.port, "30")
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    server
        .wait_for_line("join", Duration::from_secs(5))
        .expect("joined");
    let _ = Command::new("kill")
        .args(["-TERM", &server.child.id().to_string()])
        .status();
    let out = client.wait_with_output().unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("server closed the connection: server shutting down"),
        "{stderr}"
    );
}

/// 63 clients (and a watcher: a full server of 64) joining and leaving over and over for
/// a minute: the server's memory stays flat and its ticks stay on time (the watching
/// client hears of 20 snapshots/s, each sent or held back by the congestion bucket).
#[test]
#[ignore = "slow tier: .ci/run runs it with --ignored"]
fn churn_leaves_memory_flat_and_ticks_on_time() {
    retry("a minute of churn", |_| churn_once());
}

/// One minute of churn: `Err` when the join or snapshot rate says the machine was too
/// loaded to tell (see [`retry`]); memory that grows fails at once.
fn churn_once() -> Result<(), String> {
    let server = start_server(&["--max-players", "64"]);
    let (w, rw) = headless(server.port, "watcher", "62", &[]);
    let mut peers: Vec<Peer> = (0..63).map(|_| Peer::new(server.port)).collect();
    let start = Instant::now();
    let mut rss_warm = None;
    let mut joins = 0;
    while start.elapsed() < Duration::from_secs(60) {
        for p in &mut peers {
            if p.join("churn") {
                joins += 1;
            }
        }
        for p in &mut peers {
            p.leave();
        }
        if rss_warm.is_none() && start.elapsed() > Duration::from_secs(10) {
            rss_warm = Some(server.rss_kib());
        }
    }
    let rss_end = server.rss_kib();
    let warm = rss_warm.expect("measured after warm-up");
    eprintln!(
        "churn: {joins} joins in 60 s; server RSS {warm} KiB after 10 s, {rss_end} KiB at the end"
    );
    assert!(
        rss_end <= warm + 2048,
        "memory grew from {warm} KiB to {rss_end} KiB"
    );
    let r = finish(w, rw);
    in_time(joins > 64 * 10, || {
        format!("only {joins} joins in a minute")
    })?;
    let seconds = num(&r, "seconds");
    // A tick on time makes the watcher's snapshot, sent or held back by the congestion
    // bucket (`server/delivery.rs`, which the client is told of): on a loaded machine
    // late acknowledgements read as a queue and the bucket holds some back, which says
    // nothing about the ticks.
    let made = num(&r, "snapshots_received") + num(&r, "snapshots_withheld");
    in_time(made > 18.0 * seconds, || {
        format!("the watcher's snapshots came late: {made} in {seconds} s: {r}")
    })?;
    Ok(())
}

/// A connect request from an address that has not proved it receives there gets only a
/// challenge, smaller than the request, and costs the server no slot; a forged or
/// replayed cookie gets nothing at all.
#[test]
fn unproven_addresses_get_a_small_challenge_and_no_slot() {
    let mut server = Server::new(ServerConfig::new(Map::builtin("duel").unwrap()));
    let now = Instant::now();
    let spoofed: SocketAddr = "10.1.2.3:4444".parse().unwrap();
    let mut request = Vec::new();
    codec::connect_request("spoof", None, [1; 32], &mut request).unwrap();
    server.receive(now, spoofed, &request);
    let out: Vec<_> = server.take_outbox().collect();
    assert_eq!(out.len(), 1);
    let ServerMsg::Challenge(cookie) = out[0].1 else {
        panic!("expected a challenge, got {:?}", out[0].1);
    };
    let mut reply = Vec::new();
    codec::encode_server(&out[0].1, &mut reply).unwrap();
    assert!(
        reply.len() <= request.len(),
        "{} > {}",
        reply.len(),
        request.len()
    );
    assert_eq!(server.player_count(), 0, "no slot for an unproven address");

    // The cookie is bound to its address, and good once.
    codec::connect_request("spoof", Some(cookie), [1; 32], &mut request).unwrap();
    server.receive(now, "10.1.2.4:4444".parse().unwrap(), &request);
    assert_eq!(server.take_outbox().count(), 0);
    assert_eq!(server.player_count(), 0);
    server.receive(now, spoofed, &request);
    assert_eq!(server.player_count(), 1, "the real owner joins");
    server.receive(now, spoofed, &[0x7F; 3]);
    server.receive(now, "10.9.9.9:1".parse().unwrap(), &request);
    assert_eq!(server.player_count(), 1);
    assert!(server.refusals().malformed >= 1 && server.refusals().bad_cookie >= 1);

    // A request too small to be worth answering is not answered at all.
    let _ = server.take_outbox().count();
    let mut small = Vec::new();
    codec::encode_client(
        &ClientMsg::Connect {
            magic: netarena::net::protocol::MAGIC,
            version: netarena::net::protocol::PROTOCOL_VERSION,
            name: String::new(),
            cookie: None,
            hello: [2; 32],
            padding: Vec::new(),
        },
        &mut small,
    )
    .unwrap();
    server.receive(now, "10.5.5.5:5".parse().unwrap(), &small);
    assert_eq!(
        server.take_outbox().count(),
        0,
        "no reply to an unpadded request"
    );
}

/// Commands with values no client can honestly send are clamped, not trusted.
#[test]
fn impossible_command_values_are_clamped() {
    // Decoded from a raw byte as the codec decodes it (bincode), so the stray bits are
    // really there: `from_bits_truncate` would already have dropped them.
    let (stray, _): (Buttons, usize) =
        bincode::serde::decode_from_slice(&[0xFF], bincode::config::standard())
            .expect("buttons from a raw byte");
    assert_eq!(stray.bits(), 0xFF, "the stray bits reach sanitized()");
    let wild = Cmd {
        buttons: stray,
        weapon: 200,
        aim: 77,
    }
    .sanitized();
    assert_eq!(wild.buttons, Buttons::ALL);
    assert_eq!((wild.weapon, wild.aim), (1, 77 % 8));
    // Honest values pass unchanged.
    let honest = Cmd {
        buttons: Buttons::FIRE.union(Buttons::LEFT),
        weapon: 1,
        aim: 7,
    };
    assert_eq!(honest.sanitized(), honest);
}

/// Chat lines that reach `to` in what the server sends it now.
fn chats_to(server: &mut Server, to: SocketAddr) -> Vec<String> {
    let mut chats = Vec::new();
    for (addr, msg) in server.take_outbox() {
        if let (true, ServerMsg::Snapshot(d)) = (addr == to, msg) {
            for (_, e) in d.events {
                if let netarena::net::protocol::GameEvent::Chat { text, .. } = e {
                    chats.push(text);
                }
            }
        }
    }
    chats
}

/// Forged Leave, Input and Chat from the victim's own address and port, bare (the one
/// byte `0x02` used to remove any player) or sealed under a guessed key, change
/// nothing; a replayed genuine input does not keep a silent victim's session alive.
/// Injected at the server's receive path with the victim's address, as a spoofer's
/// datagrams arrive (tests/loopback.rs sends them from a raw socket).
#[test]
fn forged_and_replayed_session_messages_change_nothing() {
    let mut server = Server::new(ServerConfig::new(Map::builtin("arena").unwrap()));
    let mut now = Instant::now();
    let victim: SocketAddr = "10.0.0.7:4000".parse().unwrap();
    let watcher: SocketAddr = "10.0.0.8:4000".parse().unwrap();
    let id = server
        .join_in_process(now, victim, "victim")
        .unwrap()
        .player_id;
    server.join_in_process(now, watcher, "watcher").unwrap();
    let tick = Duration::from_secs(1) / u32::from(server.config().tick_rate);
    let run = |server: &mut Server, now: &mut Instant, ticks: u32| {
        for _ in 0..ticks {
            *now += tick;
            server.tick(*now);
        }
    };
    // One genuine input (standing still), which the attacker captures.
    let mut genuine = Vec::new();
    let still = InputPacket::pack(1, 1, 0, [(1, Cmd::default())]);
    server
        .encode_in_process(victim, &ClientMsg::Input(still), &mut genuine)
        .unwrap();
    server.receive(now, victim, &genuine);
    run(&mut server, &mut now, 10);
    let _ = chats_to(&mut server, watcher);
    let before = server.world().get(id).unwrap();

    // The victim's session id (its player id) under keys of the attacker's own.
    let mut hs = ClientHandshake::new();
    let (answer, _) = secure::accept(&ServerKey::generate(), &hs.hello(), id).unwrap();
    let mut guessed = hs.finish(&answer).unwrap().session;
    let left = InputPacket::pack(1, 2, 0, (2..=60).map(|s| (s, Cmd::moving(Buttons::LEFT))));
    let forgeries = [
        ClientMsg::Leave,
        ClientMsg::Chat("forged".into()),
        ClientMsg::Input(left),
    ];
    let mut buf = Vec::new();
    server.receive(now, victim, &[0x02]);
    for msg in &forgeries {
        codec::encode_client(msg, &mut buf).unwrap();
        server.receive(now, victim, &buf);
        codec::seal_client(msg, &mut guessed, id, &mut buf, &mut Vec::new()).unwrap();
        server.receive(now, victim, &buf);
    }
    run(&mut server, &mut now, 30);
    assert_eq!(server.player_count(), 2, "the forged leave removed nobody");
    assert_eq!(
        server.world().get(id).unwrap(),
        before,
        "the forged input moved nobody"
    );
    assert_eq!(chats_to(&mut server, watcher), Vec::<String>::new());
    assert_eq!(server.refusals().unproven, 7, "{:?}", server.refusals());

    // The victim falls silent; a replay of its genuine input every half second for
    // twice the timeout does not keep its session.
    let mut replays = 0;
    for _ in 0..24 {
        server.receive(now, victim, &genuine);
        replays += 1;
        run(&mut server, &mut now, 30);
        let _ = server.take_outbox().count();
    }
    assert!(replays as f64 * 0.5 > 2.0 * server.config().client_timeout.as_secs_f64());
    assert!(
        server.world().get(id).is_none(),
        "the silent victim timed out"
    );
    // Refused as replays while the session lived, then as of a session gone.
    let r = server.refusals();
    assert!(r.replayed > 0, "{r:?}");
    assert_eq!(r.replayed + r.unknown_session, replays, "{r:?}");
}

/// Sends `payload` to `to` as if from `from`, through a raw socket (root only): an IPv4
/// header and a UDP header written by hand, the UDP checksum left out (0: none). Linux
/// only (nix is a dependency there alone).
#[cfg(target_os = "linux")]
fn spoof(from: SocketAddr, to: SocketAddr, payload: &[u8]) -> nix::Result<()> {
    use nix::sys::socket::{
        AddressFamily, MsgFlags, SockFlag, SockProtocol, SockType, SockaddrIn, sendto, socket,
    };
    use std::os::fd::AsRawFd;
    let (SocketAddr::V4(from), SocketAddr::V4(to)) = (from, to) else {
        panic!("IPv4 only");
    };
    let fd = socket(
        AddressFamily::Inet,
        SockType::Raw,
        SockFlag::empty(),
        SockProtocol::Raw,
    )?;
    let total = (20 + 8 + payload.len()) as u16;
    let mut packet = vec![0x45, 0];
    packet.extend_from_slice(&total.to_be_bytes());
    packet.extend_from_slice(&[0, 0, 0x40, 0, 64, 17, 0, 0]); // id, DF, TTL, UDP, checksum
    packet.extend_from_slice(&from.ip().octets());
    packet.extend_from_slice(&to.ip().octets());
    packet.extend_from_slice(&from.port().to_be_bytes());
    packet.extend_from_slice(&to.port().to_be_bytes());
    packet.extend_from_slice(&(8 + payload.len() as u16).to_be_bytes());
    packet.extend_from_slice(&[0, 0]);
    packet.extend_from_slice(payload);
    sendto(
        fd.as_raw_fd(),
        &packet,
        &SockaddrIn::from(to),
        MsgFlags::empty(),
    )
    .map(drop)
}

/// The whole program, the forger outside it: a raw socket sends Leave (the one byte
/// `0x02`), Chat and Input with the victim's own address and port. Before, the first
/// removed the victim at once ("leave #0 victim (left)") and it exited 5 s later.
/// Needs root for the raw socket; without it this fails under `CI=true`, and
/// elsewhere says so and checks nothing (the in-process test above covers the same
/// ground).
#[cfg(target_os = "linux")]
#[test]
#[ignore = "slow tier: .ci/run runs it with --ignored"]
fn a_spoofed_leave_chat_and_input_from_the_victims_address_are_ignored() {
    let probe = SocketAddr::from(([127, 0, 0, 1], 9));
    if let Err(e) = spoof(probe, probe, b"") {
        support::cannot_run(&format!("no raw socket ({e}): nothing spoofed"));
        return;
    }
    let server = start_server(&[]);
    let (victim, report) = headless(server.port, "victim", "5", &[]);
    let joined = server
        .wait_for_line("join", Duration::from_secs(5))
        .expect("joined");
    let from: SocketAddr = joined
        .rsplit(' ')
        .next()
        .and_then(|a| a.parse().ok())
        .unwrap_or_else(|| panic!("no address in {joined:?}"));
    let to = SocketAddr::from(([127, 0, 0, 1], server.port));
    std::thread::sleep(Duration::from_millis(500));
    let mut forged = vec![vec![0x02]];
    let mut buf = Vec::new();
    codec::encode_client(&ClientMsg::Chat("forged".into()), &mut buf).unwrap();
    forged.push(buf.clone());
    let left = InputPacket::pack(1, 1, 0, (1..=60).map(|s| (s, Cmd::moving(Buttons::LEFT))));
    codec::encode_client(&ClientMsg::Input(left), &mut buf).unwrap();
    forged.push(buf.clone());
    for datagram in forged.iter().cycle().take(30) {
        spoof(from, to, datagram).expect("a raw socket, as root");
    }
    let left = server.wait_for_line("leave", Duration::from_secs(1));
    let r = finish(victim, report);
    assert!(
        left.is_none(),
        "the forged leave removed the victim: {left:?}"
    );
    assert_eq!(r["ended"], "time up", "{r}");
    // Snapshots kept coming after the forgeries: 20 a second.
    assert!(num(&r, "snapshots_received") > 60.0, "{r}");
}

/// Everything the server sends to an address that has not joined is no larger than the
/// datagram it answers: connect requests, discovery, another version's connect, and
/// sealed datagrams of sessions it does not know (answered "not connected"), at the
/// smallest size each can have.
#[test]
fn nothing_sent_to_an_unknown_address_is_larger_than_what_it_sent() {
    let server = start_server(&[]);
    let mut peer = Peer::new(server.port);
    peer.socket
        .set_read_timeout(Some(Duration::from_millis(150)))
        .unwrap();
    let mut requests: Vec<(&str, Vec<u8>)> = Vec::new();
    let mut buf = Vec::new();
    codec::connect_request("x", None, [3; 32], &mut buf).unwrap();
    requests.push(("connect", buf.clone()));
    codec::discover_request(7, &mut buf).unwrap();
    requests.push(("discover", buf.clone()));
    let mut other_version = buf.clone();
    codec::connect_request("x", None, [3; 32], &mut other_version).unwrap();
    other_version[6] = 9; // the version: variant, magic (0xFC and 4 bytes), version
    requests.push(("another version", other_version));
    let mut handshake = ClientHandshake::new();
    let (answer, _) = secure::accept(&ServerKey::generate(), &handshake.hello(), 9).unwrap();
    let mut stranger = handshake.finish(&answer).unwrap().session;
    for msg in [ClientMsg::Leave, ClientMsg::Chat(String::new())] {
        codec::seal_client(&msg, &mut stranger, 9, &mut buf, &mut Vec::new()).unwrap();
        requests.push(("sealed, unknown session", buf.clone()));
    }
    for garbage in [vec![0x02], vec![0x01, 0], vec![0xFF; 40]] {
        requests.push(("bare or garbage", garbage));
    }
    let mut answered = 0;
    for (what, request) in &requests {
        peer.send(request);
        let mut got = 0;
        while let Ok((n, _)) = peer.socket.recv_from(&mut peer.buf) {
            got += n;
            answered += 1;
        }
        assert!(
            got <= request.len(),
            "{what}: {got} bytes answered {} sent",
            request.len()
        );
    }
    assert!(
        answered >= 5,
        "connect, discover, version, two sealed: {answered}"
    );
}

/// Issue 31: server messages carried no proof, so one forged `Bye` to each ephemeral
/// port, from the server's address, ended every client on a host (28,232 datagrams in
/// 4.7 s). A raw socket outside the program now sends `Bye`s from the server's address
/// to every ephemeral port, bare and sealed under keys of its own, and a replayed copy
/// of nothing it saw: the client plays to its end. Root only; under `CI=true` a missing
/// raw socket fails the test instead of skipping it (`support::cannot_run`).
#[test]
#[ignore = "slow tier: .ci/run runs it with --ignored"]
fn forged_byes_from_the_servers_address_to_every_port_change_nothing() {
    let probe = SocketAddr::from(([127, 0, 0, 1], 9));
    if let Err(e) = spoof(probe, probe, b"") {
        support::cannot_run(&format!("no raw socket ({e}): nothing spoofed"));
        return;
    }
    let server = start_server(&[]);
    let (victim, report) = headless(server.port, "victim", "5", &[]);
    let joined = server
        .wait_for_line("join", Duration::from_secs(5))
        .expect("joined");
    let client: SocketAddr = joined
        .rsplit(' ')
        .next()
        .and_then(|a| a.parse().ok())
        .unwrap_or_else(|| panic!("no address in {joined:?}"));
    let from = SocketAddr::from(([127, 0, 0, 1], server.port));
    std::thread::sleep(Duration::from_millis(500));
    let mut bare = Vec::new();
    codec::encode_server(&ServerMsg::Bye("forged".into()), &mut bare).unwrap();
    let mut hs = ClientHandshake::new();
    let (answer, mut other) = secure::accept(&ServerKey::generate(), &hs.hello(), 0).unwrap();
    hs.finish(&answer).unwrap();
    let mut sealed = Vec::new();
    let bye = ServerMsg::Bye("forged".into());
    codec::seal_server(&bye, Some(&mut other), &mut sealed, &mut Vec::new()).unwrap();
    for port in 32_768..=60_999u16 {
        let to = SocketAddr::from(([127, 0, 0, 1], port));
        spoof(from, to, &bare).expect("a raw socket, as root");
    }
    for _ in 0..20 {
        spoof(from, client, &bare).unwrap();
        spoof(from, client, &sealed).unwrap();
    }
    let r = finish(victim, report);
    assert_eq!(r["ended"], "time up", "{r}");
    assert!(
        num(&r, "malformed_in") >= 40.0,
        "the forgeries arrived: {r}"
    );
}

/// Issue 31, item 7: the session key crossed the wire in the connect request, so anyone
/// who saw it could chat as the player. An on-path listener copies the victim's hello
/// from its first request and joins with it from its own address, cookie and all, before
/// the victim does (that squat once held the victim out: every later request with the
/// hello was refused as a bad cookie); the victim still joins. The listener then
/// replays the victim's whole captured join from its own address and from the
/// victim's: no answer it gets opens without the victim's ephemeral key, and the chat
/// lines it seals under any session it can make reach nobody.
#[test]
fn a_captured_connect_request_lets_no_listener_chat_as_the_player() {
    let mut server = Server::new(ServerConfig::new(Map::builtin("duel").unwrap()));
    let now = Instant::now();
    let victim: SocketAddr = "10.0.0.7:4000".parse().unwrap();
    let listener: SocketAddr = "10.0.0.66:4000".parse().unwrap();
    let watcher: SocketAddr = "10.0.0.8:4000".parse().unwrap();
    let watcher_id = server
        .join_in_process(now, watcher, "watcher")
        .unwrap()
        .player_id;
    let mut keys = Keyring::default();
    let hello = keys.hello(victim);
    // Everything the server sends the listener, as the listener sees it.
    let mut to_listener = Vec::new();
    let mut exchange = |server: &mut Server, from: SocketAddr, bytes: &[u8]| {
        server.receive(now, from, bytes);
        let mut out = Vec::new();
        server.send_outbox(&mut Vec::new(), |to, b| out.push((to, b.to_vec())));
        to_listener.extend(out.iter().filter(|(to, _)| *to == listener).cloned());
        out.into_iter()
            .filter(|(to, _)| *to == from)
            .collect::<Vec<_>>()
    };
    let (mut request, mut cookie, mut answer, mut id) = (Vec::new(), None, None, None);
    for round in 0..2 {
        codec::connect_request("victim", cookie, hello, &mut request).unwrap();
        for (to, bytes) in exchange(&mut server, victim, &request) {
            match keys.open(to, &bytes).unwrap() {
                ServerMsg::Challenge(c) => cookie = Some(c),
                ServerMsg::Accept(a) => answer = Some(a),
                ServerMsg::Welcome(w) => id = Some(w.player_id),
                _ => {}
            }
        }
        if round == 0 {
            // The squat: the copied hello, with a cookie for the listener's address.
            let mut squat = Vec::new();
            let mut own = None;
            for _ in 0..2 {
                codec::connect_request("victim", own, hello, &mut squat).unwrap();
                for (_, bytes) in exchange(&mut server, listener, &squat) {
                    if let Ok(ServerMsg::Challenge(c)) = codec::decode_server(&bytes) {
                        own = Some(c);
                    }
                }
            }
            assert_eq!(server.player_count(), 2, "the squat made a session");
        }
    }
    let (answer, id) = (
        answer.expect("answered"),
        id.expect("welcomed despite the squat"),
    );
    assert_eq!(server.player_count(), 3);

    // The listener replays the captured requests from its own address and from the
    // victim's.
    let mut asked = Vec::new();
    codec::connect_request("victim", None, hello, &mut asked).unwrap();
    for (from, bytes) in [(listener, &asked), (listener, &request), (victim, &request)] {
        exchange(&mut server, from, bytes);
    }
    assert_eq!(server.player_count(), 3, "no further session");
    // No answer it saw opens without the victim's ephemeral key.
    let mut answers = vec![answer];
    for (_, bytes) in &to_listener {
        if let Ok(ServerMsg::Accept(a)) = codec::decode_server(bytes) {
            answers.push(a);
        }
    }
    assert!(answers.len() >= 2, "the squat was answered");
    for a in &answers {
        assert!(ClientHandshake::new().finish(a).is_err());
    }
    // What it can seal, it seals under keys of its own, as the victim's session and as
    // its own squatted one.
    let squatted = server
        .world()
        .players()
        .iter()
        .map(|(p, _)| *p)
        .find(|&p| p != id && p != watcher_id)
        .expect("the squatted session's id");
    let mut hs = ClientHandshake::new();
    let (made_up, _) = secure::accept(&ServerKey::generate(), &hs.hello(), id).unwrap();
    let mut own = hs.finish(&made_up).unwrap().session;
    let mut chat = Vec::new();
    for (from, as_id) in [(listener, id), (victim, id), (listener, squatted)] {
        let msg = ClientMsg::Chat("as the victim".into());
        codec::seal_client(&msg, &mut own, as_id, &mut chat, &mut Vec::new()).unwrap();
        server.receive(now, from, &chat);
    }
    let tick = Duration::from_secs(1) / u32::from(server.config().tick_rate);
    let mut later = now;
    for _ in 0..10 {
        later += tick;
        server.tick(later);
    }
    assert_eq!(chats_to(&mut server, watcher), Vec::<String>::new());
    assert_eq!(server.refusals().unproven, 3, "{:?}", server.refusals());
    // The victim's own chat still arrives.
    let mut real = Vec::new();
    keys.seal(victim, &ClientMsg::Chat("hello".into()), &mut real);
    server.receive(later, victim, &real);
    server.tick(later + tick);
    server.tick(later + tick * 2);
    server.tick(later + tick * 3);
    assert_eq!(chats_to(&mut server, watcher), vec!["hello".to_owned()]);
}

/// A relay between a client and the server at `server` that, on the client's first
/// connect request, copies its hello and joins with it first from a socket of its own
/// (a challenge, then the hello with its own cookie) before it passes the request on;
/// then relays both ways. The flag says the server accepted the squat.
fn squatting_relay(
    server: SocketAddr,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    squatted: std::sync::Arc<std::sync::atomic::AtomicBool>,
) -> (SocketAddr, std::thread::JoinHandle<()>) {
    use std::sync::atomic::Ordering;
    let front = UdpSocket::bind("127.0.0.1:0").unwrap();
    let back = UdpSocket::bind("127.0.0.1:0").unwrap();
    let squat = UdpSocket::bind("127.0.0.1:0").unwrap();
    for s in [&front, &back] {
        s.set_read_timeout(Some(Duration::from_millis(5))).unwrap();
    }
    squat
        .set_read_timeout(Some(Duration::from_millis(500)))
        .unwrap();
    let addr = front.local_addr().unwrap();
    let thread = std::thread::spawn(move || {
        let mut client = None;
        let mut buf = vec![0u8; 2048];
        let mut tried = false;
        while !stop.load(Ordering::Relaxed) {
            if let Ok((n, from)) = front.recv_from(&mut buf) {
                client = Some(from);
                if let Ok(ClientMsg::Connect { hello, .. }) = codec::decode_client(&buf[..n])
                    && !tried
                {
                    tried = true;
                    let mut req = Vec::new();
                    let mut cookie = None;
                    for _ in 0..2 {
                        codec::connect_request("squatter", cookie, hello, &mut req).unwrap();
                        squat.send_to(&req, server).unwrap();
                        let mut got = vec![0u8; 2048];
                        let Ok((m, _)) = squat.recv_from(&mut got) else {
                            break;
                        };
                        match codec::decode_server(&got[..m]) {
                            Ok(ServerMsg::Challenge(c)) => cookie = Some(c),
                            Ok(ServerMsg::Accept(_)) => squatted.store(true, Ordering::Relaxed),
                            _ => {}
                        }
                    }
                }
                back.send_to(&buf[..n], server).unwrap();
            }
            if let (Ok((n, _)), Some(to)) = (back.recv_from(&mut buf), client) {
                front.send_to(&buf[..n], to).unwrap();
            }
        }
    });
    (addr, thread)
}

/// An on-path listener copied a joining client's hello from its first request and
/// joined with it first, from its own address with its own cookie: the server then
/// took every request of the victim's (the same hello) for a bad cookie, and the victim
/// never joined. Through a real server and client, the victim now joins and plays.
#[test]
fn a_listener_joining_first_with_a_copied_hello_does_not_hold_the_victim_out() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    let server = start_server(&[]);
    let stop = Arc::new(AtomicBool::new(false));
    let squatted = Arc::new(AtomicBool::new(false));
    let (relay, thread) = squatting_relay(
        SocketAddr::from(([127, 0, 0, 1], server.port)),
        stop.clone(),
        squatted.clone(),
    );
    let (client, report) = headless(relay.port(), "victim", "1", &[]);
    let r = finish(client, report);
    stop.store(true, Ordering::Relaxed);
    thread.join().unwrap();
    assert!(squatted.load(Ordering::Relaxed), "the squat was accepted");
    assert_eq!(r["ended"], "time up", "{r}");
    assert!(num(&r, "snapshots_received") > 10.0, "{r}");
}

/// The first join pins the server's key; a server at that address with another key (a
/// new state directory, a stranger in its place) is refused with one line saying how
/// to accept it, and a restarted server with its key kept is joined as before.
#[test]
#[ignore = "slow tier: .ci/run runs it with --ignored"]
fn a_changed_server_key_is_refused_in_one_line_saying_how_to_accept_it() {
    let server = start_server(&[]);
    let port = server.port;
    let (client, report) = headless(port, "pinner", "1", &[]);
    assert_eq!(finish(client, report)["ended"], "time up");
    drop(server);
    // The same key (the shared state directory) on the same port: joined.
    let server = support::process::start_server_on(port, &[]);
    let (client, report) = headless(port, "again", "1", &[]);
    assert_eq!(finish(client, report)["ended"], "time up");
    drop(server);
    let elsewhere = std::env::temp_dir().join(format!("netarena-other-{}", std::process::id()));
    let _server = support::process::start_server_with(port, &[], Some(&elsewhere));
    let out = headless_join(port, "1")
        .args(["--bot", "wander"])
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(&elsewhere);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success(),
        "joined a server with another key: {err}"
    );
    let lines: Vec<&str> = err.lines().filter(|l| l.contains("presents key")).collect();
    assert_eq!(lines.len(), 1, "{err}");
    assert!(
        lines[0].contains("known_servers") && lines[0].contains("delete that line"),
        "{err}"
    );
}

/// What [`forging_relay`] saw: when the client's first connect request came, and its
/// first sealed datagram (it had joined).
#[derive(Default)]
struct JoinTimes {
    first_request: Option<Instant>,
    first_sealed: Option<Instant>,
}

/// A relay standing between a client and the server at `server`, on a socket of its
/// own (outside the client), that forges the join's answers from the address the client
/// writes to: before the client's first request goes on it sends a refusal ("server
/// full") and a challenge with a cookie of its own; after the server's real challenge,
/// another forged one; before the server's answer to the hello, that answer with a
/// byte changed, and another refusal.
fn forging_relay(
    server: SocketAddr,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    times: std::sync::Arc<std::sync::Mutex<JoinTimes>>,
) -> (SocketAddr, std::thread::JoinHandle<()>) {
    use std::sync::atomic::Ordering;
    let front = UdpSocket::bind("127.0.0.1:0").unwrap();
    let back = UdpSocket::bind("127.0.0.1:0").unwrap();
    for s in [&front, &back] {
        s.set_read_timeout(Some(Duration::from_millis(5))).unwrap();
    }
    let addr = front.local_addr().unwrap();
    let thread = std::thread::spawn(move || {
        let mut client = None;
        let mut buf = vec![0u8; 2048];
        let mut out = Vec::new();
        let mut rng = Pcg32::seed_from_u64(31);
        let full =
            ServerMsg::Reject(netarena::net::protocol::RejectReason::Full { max_players: 1 });
        while !stop.load(Ordering::Relaxed) {
            if let Ok((n, from)) = front.recv_from(&mut buf) {
                client = Some(from);
                let now = Instant::now();
                let mut t = times.lock().unwrap();
                if codec::is_sealed(&buf[..n]) {
                    t.first_sealed.get_or_insert(now);
                } else if t.first_request.is_none() {
                    t.first_request = Some(now);
                    let forged = netarena::net::protocol::Cookie {
                        window: rng.random(),
                        nonce: rng.random(),
                        mac: rng.random(),
                    };
                    for msg in [&full, &ServerMsg::Challenge(forged)] {
                        codec::encode_server(msg, &mut out).unwrap();
                        front.send_to(&out, from).unwrap();
                    }
                }
                back.send_to(&buf[..n], server).unwrap();
            }
            let (Ok((n, _)), Some(to)) = (back.recv_from(&mut buf), client) else {
                continue;
            };
            match codec::decode_server(&buf[..n]) {
                Ok(ServerMsg::Accept(answer)) => {
                    let mut corrupted = answer.clone();
                    corrupted[50] ^= 0x10;
                    for msg in [ServerMsg::Accept(corrupted), full.clone()] {
                        codec::encode_server(&msg, &mut out).unwrap();
                        front.send_to(&out, to).unwrap();
                    }
                    front.send_to(&buf[..n], to).unwrap();
                }
                Ok(ServerMsg::Challenge(real)) => {
                    front.send_to(&buf[..n], to).unwrap();
                    let forged = ServerMsg::Challenge(netarena::net::protocol::Cookie {
                        mac: real.mac ^ 1,
                        ..real
                    });
                    codec::encode_server(&forged, &mut out).unwrap();
                    front.send_to(&out, to).unwrap();
                }
                _ => {
                    front.send_to(&buf[..n], to).unwrap();
                }
            }
        }
    });
    (addr, thread)
}

/// Issue 31, item 8: a forged or corrupted challenge left the client waiting for its
/// 5 s timeout, and a forged refusal (it carries no proof) ended the join at once. A
/// relay outside the client forges a refusal and a challenge before the server's
/// answers, a challenge behind the real one, and a corrupted copy of the server's
/// handshake answer and another refusal before the real one: the client drops each,
/// keeps asking, and joins on the real answers.
#[test]
fn forged_and_corrupted_join_answers_do_not_hold_the_join() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{Arc, Mutex};
    let server = start_server(&[]);
    let stop = Arc::new(AtomicBool::new(false));
    let times = Arc::new(Mutex::new(JoinTimes::default()));
    let (relay, thread) = forging_relay(
        SocketAddr::from(([127, 0, 0, 1], server.port)),
        stop.clone(),
        times.clone(),
    );
    let (client, report) = headless(relay.port(), "forged", "1", &[]);
    let r = finish(client, report);
    stop.store(true, Ordering::Relaxed);
    thread.join().unwrap();
    assert_eq!(r["ended"], "time up", "{r}");
    assert!(
        num(&r, "malformed_in") >= 1.0,
        "the corrupted answer came: {r}"
    );
    let t = times.lock().unwrap();
    let joined_in = t.first_sealed.unwrap() - t.first_request.unwrap();
    eprintln!("joined {joined_in:?} after the first request, through the forgeries");
    assert!(
        joined_in < Duration::from_secs(2),
        "joined only after {joined_in:?}"
    );
}

/// Issue 31: an older client is told the protocol version in one line. A version 9
/// connect request (the layout before the handshake: a session id and key in clear
/// where the hello is now), written by hand as that build wrote it, is sent to a real
/// server: the answer is no larger than the request and is, in the layout every
/// version shares (`Reject` variant 1, `Version` variant 1), a refusal naming the
/// server's version; the line a client prints for it names both. (The version 9 build
/// itself, run by hand against this server, printed `refused to let us join: protocol
/// version mismatch: server speaks v10, this client v9`.)
#[test]
fn an_older_client_is_told_the_servers_version_in_one_line() {
    use netarena::net::protocol::{MAGIC, PROTOCOL_VERSION, RejectReason};
    let server = start_server(&[]);
    let mut peer = Peer::new(server.port);
    // Version 9's `ClientMsg::Connect`: variant 0, magic, version, name, no cookie, the
    // session (a fixed 4-byte id, a 16-byte key), padding to 64 bytes.
    type V9Connect = (
        u32,
        u32,
        u16,
        String,
        Option<()>,
        [u8; 4],
        [u8; 16],
        Vec<u8>,
    );
    let mut request = Vec::new();
    let mut msg: V9Connect = (0, MAGIC, 9, "old".into(), None, [1; 4], [2; 16], vec![]);
    codec::encode_state(&msg, &mut request).unwrap();
    msg.7 = vec![0; 64 - request.len()];
    codec::encode_state(&msg, &mut request).unwrap();
    assert_eq!(request.len(), 64);
    peer.send(&request);
    let (n, _) = peer.socket.recv_from(&mut peer.buf).expect("an answer");
    assert!(n <= request.len(), "{n} bytes for {}", request.len());
    let answer = codec::decode_server(&peer.buf[..n]).unwrap();
    assert_eq!(
        answer,
        ServerMsg::Reject(RejectReason::Version {
            server: PROTOCOL_VERSION
        })
    );
    let ServerMsg::Reject(reason) = answer else {
        unreachable!("checked above")
    };
    let line = reason.to_string();
    assert!(
        !line.contains('\n') && line.contains(&format!("server speaks v{PROTOCOL_VERSION}")),
        "{line}"
    );
}
