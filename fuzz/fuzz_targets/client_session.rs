//! A hostile server cannot hurt a client: the client's whole receive path, decoding and
//! `ClientSession::on_message`, on a live session, with command ticks and frames in
//! between, must never panic (nor allocate without bound: libFuzzer's memory limits).
//!
//! Real traffic is recorded once from an in-process server with bots that a real
//! session plays against. Each input then starts a fresh session from the recorded
//! welcome (optionally with absurd tick rate, snapshot interval or player id), gives it
//! the first recorded snapshot so prediction is live, and reads the rest of the input as
//! a script of operations, each after an advance of the clock:
//!
//! - a raw datagram (length-prefixed), decoded as the client would;
//! - a recorded datagram replayed (out of order, duplicated, late);
//! - a recorded snapshot with one field made absurd (tick far ahead or back, baseline
//!   age, acks, player ids shifted, events injected: huge maps, unknown ids, floods),
//!   put through the real encoder and decoder so only what the wire can carry arrives;
//! - a command tick, a frame (with the public read-outs a frame uses), a switch change,
//!   or a long pause.

#![no_main]

use std::net::SocketAddr;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use libfuzzer_sys::fuzz_target;
use netarena::client::netcode::session::ClientSession;
use netarena::client::{GhostMode, Switches};
use netarena::net::codec;
use netarena::net::protocol::{
    GameEvent, MapChunk, MapInfo, PlayerStatus, RailShot, RailVerdict, RosterEntry, RosterPage,
    ServerMsg, SnapshotDelta, Welcome,
};
use netarena::server::{Server, ServerConfig};
use netarena::sim::combat::{Projectile, Weapon};
use netarena::sim::map::Map;
use netarena::sim::world::{Buttons, Command};

/// What a real server sent one client: its welcome and every later datagram, encoded.
struct Traffic {
    welcome: Welcome,
    datagrams: Vec<Vec<u8>>,
}

/// Plays a session against an in-process server with bots for a few seconds, the
/// client moving and firing, and keeps everything the server sent it.
fn record() -> Traffic {
    let mut config = ServerConfig::new(Map::builtin("duel").expect("built in"));
    config.bots = 3;
    let mut server = Server::new(config);
    let start = Instant::now();
    let me: SocketAddr = "10.0.0.1:5000".parse().unwrap();
    let welcome = server.join_in_process(start, me, "fuzz").expect("joins");
    let mut session =
        ClientSession::new(welcome.clone(), start, Switches::default()).expect("map parses");
    let tick = Duration::from_secs(1) / u32::from(welcome.tick_rate.max(1));
    let mut datagrams = Vec::new();
    let mut buf = Vec::new();
    for i in 0..360u32 {
        let now = start + tick * i;
        let buttons =
            [Buttons::RIGHT, Buttons::DOWN, Buttons::LEFT, Buttons::UP][(i / 40 % 4) as usize];
        let fire = if i % 7 == 0 {
            Buttons::FIRE
        } else {
            Buttons::empty()
        };
        let cmd = Command {
            buttons: buttons.union(fire),
            weapon: (i / 90 % 2) as u8,
            aim: (i / 11 % 8) as u8,
        };
        if let Some(msg) = session.command_tick(now, cmd)
            && server.encode_in_process(me, &msg, &mut buf).is_ok()
        {
            server.receive(now, me, &buf);
        }
        server.tick(now);
        let out: Vec<_> = server.take_outbox().collect();
        for (to, msg) in out {
            if to != me || codec::encode_server(&msg, &mut buf).is_err() {
                continue;
            }
            datagrams.push(buf.clone());
            let _ = session.on_message(now, msg, buf.len());
        }
        session.frame(now);
    }
    assert!(!datagrams.is_empty(), "the server sent nothing");
    if let Some(dir) = std::env::var_os("CLIENT_SESSION_SEEDS") {
        write_seeds(std::path::Path::new(&dir), &datagrams);
    }
    Traffic { welcome, datagrams }
}

/// Seed inputs from the recorded traffic, for a first corpus: runs of real datagrams
/// as raw ones (which the fuzzer then mutates byte by byte), each followed by a command
/// tick and a frame 16 ms later.
fn write_seeds(dir: &std::path::Path, datagrams: &[Vec<u8>]) {
    std::fs::create_dir_all(dir).expect("seed directory");
    for (n, run) in datagrams[1..].chunks(12).enumerate() {
        let mut seed = vec![0u8];
        for d in run {
            let len = u16::try_from(d.len()).expect("a datagram fits in 64 KiB");
            seed.push(8 << 3);
            seed.extend_from_slice(&len.to_le_bytes());
            seed.extend_from_slice(d);
            seed.extend_from_slice(&[4, 0x18, 0x21, 5]);
        }
        std::fs::write(dir.join(format!("traffic-{n:03}")), seed).expect("seed written");
    }
}

fn traffic() -> &'static Traffic {
    static TRAFFIC: OnceLock<Traffic> = OnceLock::new();
    TRAFFIC.get_or_init(record)
}

/// The fuzz input, read front to back; past its end every read gives zeros.
struct Script<'a> {
    data: &'a [u8],
}

impl Script<'_> {
    fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    fn u8(&mut self) -> u8 {
        let Some((&b, rest)) = self.data.split_first() else {
            return 0;
        };
        self.data = rest;
        b
    }

    fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.u8(), self.u8()])
    }

    fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.u8(), self.u8(), self.u8(), self.u8()])
    }

    fn bytes(&mut self, len: usize) -> &[u8] {
        let (taken, rest) = self.data.split_at(len.min(self.data.len()));
        self.data = rest;
        taken
    }

    fn text(&mut self) -> String {
        let len = usize::from(self.u8());
        String::from_utf8_lossy(self.bytes(len)).into_owned()
    }

    /// A value near the edges more often than a uniform one would be.
    fn wild_u32(&mut self) -> u32 {
        match self.u8() % 4 {
            0 => 0,
            1 => u32::MAX - u32::from(self.u8() % 4),
            2 => u32::from(self.u8()),
            _ => self.u32(),
        }
    }
}

/// A map text: the recorded one, a grid of any size, or raw bytes.
fn map_text(s: &mut Script) -> String {
    match s.u8() % 4 {
        0 => traffic().welcome.map_text.clone(),
        1 => {
            let (w, h) = (usize::from(s.u16()), usize::from(s.u16()));
            // Past the loader's limits (100 x 50), not by megabytes: a server datagram
            // holds 16 KiB.
            let row = format!("{}\n", "#".repeat(w % 512));
            row.repeat(h % 256)
        }
        2 => {
            let tile = s.text();
            tile.repeat(usize::from(s.u16()) % 20_000 / tile.len().max(1))
        }
        _ => s.text(),
    }
}

fn status(s: &mut Script) -> PlayerStatus {
    PlayerStatus {
        id: s.u8(),
        health: s.u16() as i16,
        alive: s.u8() & 1 == 1,
        frags: s.u16() as i16,
        deaths: s.u16(),
        weapon: weapon(s),
        protected: s.u8() & 1 == 1,
    }
}

/// A map description, true to `map_text` now and then so its chunks can complete.
fn map_info(s: &mut Script) -> MapInfo {
    if s.u8() & 1 == 0 {
        return netarena::net::map_chunks::info(&map_text(s), 256);
    }
    MapInfo {
        id: s.wild_u32(),
        len: s.wild_u32(),
        chunks: s.u16(),
    }
}

/// A chunk of some map, often of one `map_info` describes.
fn map_chunk(s: &mut Script) -> MapChunk {
    let map = map_info(s);
    let len = usize::from(s.u16()) % 1100;
    MapChunk {
        map,
        index: s.u16() % 70,
        data: s.bytes(len).to_vec(),
    }
}

fn weapon(s: &mut Script) -> Weapon {
    if s.u8() & 1 == 0 {
        Weapon::Blaster
    } else {
        Weapon::Rail
    }
}

fn point(s: &mut Script) -> (i32, i32) {
    (s.wild_u32() as i32, s.wild_u32() as i32)
}

fn maybe<T>(s: &mut Script, f: impl FnOnce(&mut Script) -> T) -> Option<T> {
    (s.u8() & 1 == 1).then(|| f(s))
}

/// A well-formed game event with any contents.
fn event(s: &mut Script) -> GameEvent {
    match s.u8() % 10 {
        9 => GameEvent::TickRate {
            tick_rate: s.u16(),
            snapshot_interval: s.u16(),
            from_tick: s.wild_u32(),
            from_seq: s.wild_u32(),
        },
        8 => GameEvent::MapChunk(map_chunk(s)),
        0 => GameEvent::Status(status(s)),
        1 => GameEvent::Shot(Projectile {
            id: s.u16(),
            owner: s.u8(),
            born: s.wild_u32(),
            x: s.wild_u32() as i32,
            y: s.wild_u32() as i32,
            vx: s.wild_u32() as i32,
            vy: s.wild_u32() as i32,
        }),
        2 => GameEvent::ShotEnd {
            id: s.u16(),
            tick: s.wild_u32(),
            hit: maybe(s, |s| s.u8()),
        },
        3 => GameEvent::Rail(RailShot {
            id: s.u16(),
            shooter: s.u8(),
            tick: s.wild_u32(),
            from: point(s),
            to: point(s),
            hit: maybe(s, |s| s.u8()),
            rewound_ticks: s.u16(),
            tested_at: maybe(s, point),
            present_at: maybe(s, point),
            wanted_ticks: s.u16(),
            bound_ticks: s.u16(),
            nearest: maybe(s, |s| (s.u8(), point(s), point(s))),
            verdict: match s.u8() % 3 {
                0 => RailVerdict::Hit,
                1 => RailVerdict::Miss,
                _ => RailVerdict::PastBound,
            },
        }),
        4 => GameEvent::Kill {
            killer: s.u8(),
            victim: s.u8(),
            weapon: weapon(s),
        },
        5 => GameEvent::Chat {
            from: s.u8(),
            text: s.text(),
        },
        6 => GameEvent::MatchStart {
            map_name: s.text(),
            map: maybe(s, map_info),
            started_tick: s.wild_u32(),
            frag_limit: s.u16(),
            time_limit_secs: s.wild_u32(),
        },
        _ => {
            let count = usize::from(s.u8());
            GameEvent::MatchEnd {
                winner: maybe(s, |s| s.u8()),
                standings: (0..count).map(|_| status(s)).collect(),
                next_map: s.text(),
            }
        }
    }
}

/// A real snapshot with one thing made absurd.
fn tweak(s: &mut Script, d: &mut SnapshotDelta, next_event: u32) {
    match s.u8() % 10 {
        0 => d.header.tick = d.header.tick.wrapping_add(s.u16().into()),
        1 => d.header.tick = d.header.tick.wrapping_sub(s.u16().into()),
        2 => d.header.tick = s.wild_u32(),
        3 => d.baseline_age = s.u8(),
        4 => {
            d.header.ack_seq = s.wild_u32();
            d.header.echo_time_ms = s.wild_u32();
            d.header.echo_hold_ms = s.u16();
            d.header.queued = s.u8();
        }
        5 => {
            let shift = s.u8();
            for p in &mut d.added {
                p.id = p.id.wrapping_add(shift);
            }
            for id in &mut d.removed {
                *id = id.wrapping_add(shift);
            }
        }
        6 => {
            // Events at the seq the client waits for, so they are taken in.
            let count = u32::from(s.u8() % 16) + 1;
            d.events = (0..count).map(|i| (next_event + i, event(s))).collect();
        }
        7 => {
            let seq = s.wild_u32();
            d.events.push((seq, event(s)));
        }
        8 => {
            d.header.me.flags = s.u8();
            d.header.me.ready_in = s.u16();
        }
        _ => {
            let count = usize::from(s.u8());
            d.masks = s.bytes(count).to_vec();
            d.values = (0..count).map(|_| s.wild_u32() as i32).collect();
        }
    }
}

/// The session's own view of where its event stream stands, from its acks.
fn next_event_guess(session: &mut ClientSession, now: Instant) -> u32 {
    // The event ack rides in input packets; a command tick is harmless here.
    match session.command_tick(now, Command::moving(Buttons::empty())) {
        Some(netarena::net::protocol::ClientMsg::Input(p)) => p.event_ack + 1,
        _ => 1,
    }
}

fn switches(bits: u8) -> Switches {
    Switches {
        prediction: bits & 1 != 0,
        reconciliation: bits & 2 != 0,
        interpolation: bits & 4 != 0,
        extrapolation: bits & 8 != 0,
        smoothing: bits & 16 != 0,
        ghosts: match bits >> 5 & 3 {
            0 => GhostMode::Off,
            1 => GhostMode::Server,
            _ => GhostMode::Trail,
        },
    }
}

/// What a frame reads from the session besides `frame` itself.
fn read_out(session: &ClientSession, now: Instant) {
    let _ = session.predicted();
    let _ = session.server_state();
    let _ = session.pending_commands();
    let _ = session.command_period_scale();
    let _ = session.stats();
    // The ids a real match uses, and the last one.
    for id in (0..16).chain([u8::MAX]) {
        let _ = session.remote_position(id, now);
    }
    // As the view flies our own bolts.
    let latest = session.latest_seq();
    for o in session.combat().own_shots() {
        let _ = o.born();
        let _ = o.position(latest.saturating_sub(o.seq));
    }
}

/// Takes in one datagram the way the client's loop does once it has opened it: a hostile
/// server holds the session's keys, so whatever it seals opens (`decode_datagram` fuzzes
/// the opening). False when the session ended.
fn receive(session: &mut ClientSession, now: Instant, bytes: &[u8]) -> bool {
    match codec::decode_server(bytes) {
        Ok(msg) => session.on_message(now, msg, bytes.len()).is_none(),
        Err(_) => true,
    }
}

fuzz_target!(|data: &[u8]| {
    let traffic = traffic();
    let mut s = Script { data };
    let start = Instant::now();
    let mut welcome = traffic.welcome.clone();
    if s.u8() & 1 == 1 {
        welcome.tick_rate = s.u16();
        welcome.snapshot_interval = s.u16();
        welcome.player_id = s.u8();
        welcome.server_tick = s.wild_u32();
    }
    let Ok(mut session) = ClientSession::new(welcome, start, Switches::default()) else {
        return;
    };
    let mut now = start;
    if !receive(&mut session, now, &traffic.datagrams[0]) {
        return;
    }
    let mut buf = Vec::new();
    while !s.is_empty() {
        let op = s.u8();
        now += Duration::from_millis(u64::from(op >> 3) * 2);
        let alive = match op & 7 {
            0 | 1 => {
                let len = usize::from(s.u16());
                let bytes = s.bytes(len).to_vec();
                receive(&mut session, now, &bytes)
            }
            2 => {
                let i = usize::from(s.u16()) % traffic.datagrams.len();
                receive(&mut session, now, &traffic.datagrams[i])
            }
            3 => {
                let i = usize::from(s.u16()) % traffic.datagrams.len();
                let Ok(ServerMsg::Snapshot(mut d)) = codec::decode_server(&traffic.datagrams[i])
                else {
                    continue;
                };
                let next = next_event_guess(&mut session, now);
                tweak(&mut s, &mut d, next);
                let msg = ServerMsg::Snapshot(d);
                // Only what the wire can carry reaches a client.
                codec::encode_server(&msg, &mut buf).is_err() || receive(&mut session, now, &buf)
            }
            4 => {
                let (b, w) = (s.u8(), s.u8());
                let cmd = Command {
                    buttons: Buttons::from_bits_truncate(b),
                    weapon: w & 0x0f,
                    aim: w >> 4,
                };
                let _ = session.command_tick(now, cmd);
                true
            }
            5 => {
                session.frame(now);
                read_out(&session, now);
                true
            }
            6 => {
                let roster: Vec<RosterEntry> = (0..s.u8() % 80)
                    .map(|_| RosterEntry {
                        id: s.u8(),
                        name: s.text(),
                        bot: s.u8() & 1 == 1,
                        ping_ms: s.u16(),
                    })
                    .collect();
                let page = RosterPage {
                    serial: s.u16(),
                    part: s.u8() % 4,
                    parts: s.u8() % 4,
                    entries: roster,
                };
                session
                    .on_message(now, ServerMsg::Roster(page), 0)
                    .is_none()
            }
            _ => {
                let b = s.u8();
                if b & 0x80 != 0 {
                    // Up to two minutes: longer only makes the lagometer catch up for
                    // longer (one 50 ms slice at a time), which slows the fuzzer.
                    now += Duration::from_secs(u64::from(b & 0x7f));
                } else {
                    session.set_switches(switches(b));
                }
                true
            }
        };
        if !alive {
            return;
        }
    }
    session.frame(now);
    read_out(&session, now);
});
