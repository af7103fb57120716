//! Keyframes and the in-memory ring, on a live headless loop in this process: the real
//! `Server` and a client `Driver` joined by link conditioners on simulated time, the
//! loop doing what `client/shell/headless.rs` does. The loop's tap writes the whole session
//! and feeds a [`Ring`] at once, so a clip can be checked against the whole recording
//! and against the live loop's own state, bit for bit.

use std::cell::RefCell;
use std::net::SocketAddr;
use std::rc::Rc;
use std::time::{Duration, Instant};

use super::format::{Record, Start};
use super::reader::{ReadError, Reader};
use super::replay::Replayer;
use super::ring::{KEEP, KEYFRAME_EVERY, Ring};
use super::writer::Writer;
use crate::client::ClientConfig;
use crate::client::driver::Driver;
use crate::client::netcode::session::ClientSession;
use crate::client::play::app::App;
use crate::client::play::brain::Wander;
use crate::client::tap::{LinkTotals, LoopKind, Tap, TapEvent};
use crate::net::codec;
use crate::net::conditioner::{Conditioner, Conditions};
use crate::net::protocol::Welcome;
use crate::server::{Server, ServerConfig};
use crate::sim::map::Map;

/// Writes everything to `full` and hands the same to `ring`.
struct Tee {
    full: Rc<RefCell<Writer<Vec<u8>>>>,
    ring: Rc<RefCell<Ring>>,
    start: Option<Instant>,
}

impl Tap for Tee {
    fn start(&mut self, start: Instant, kind: LoopKind, welcome: &Welcome, config: &ClientConfig) {
        self.start = Some(start);
        let s = Start::of(kind, welcome, config);
        self.full.borrow_mut().start(&s).unwrap();
        self.ring.borrow_mut().start(start, kind, welcome, config);
    }
    fn event(&mut self, at: Instant, event: TapEvent<'_>) {
        let offset = at.saturating_duration_since(self.start.unwrap());
        self.full.borrow_mut().event(offset, &event).unwrap();
        self.ring.borrow_mut().event(at, event);
    }
    fn keyframe_due(&mut self, at: Instant) -> Option<Instant> {
        self.ring.borrow_mut().keyframe_due(at)
    }
    fn keyframe(&mut self, at: Instant, state: Result<&[u8], String>) {
        self.ring.borrow_mut().keyframe(at, state);
    }
    fn finish(&mut self, totals: LinkTotals) {
        self.full.borrow_mut().end(&totals).unwrap();
    }
}

const CLIENT: &str = "10.0.0.2:5000";

fn lag() -> Conditions {
    Conditions {
        latency_ms: 40,
        jitter_ms: 10,
        loss_pct: 5.0,
        ..Conditions::default()
    }
}

/// A headless client loop against a server with `bots` bots, on simulated time.
pub(super) struct Live {
    server: Server,
    pub(super) driver: Driver,
    pub(super) start: Instant,
    now: Instant,
    tick: Duration,
    next_tick: Instant,
    up: Conditioner,
    down: Conditioner,
    brain: Wander,
    kind: LoopKind,
    pub(super) full: Rc<RefCell<Writer<Vec<u8>>>>,
    pub(super) ring: Rc<RefCell<Ring>>,
    #[cfg_attr(
        not(target_os = "linux"),
        allow(dead_code, reason = "read by a Linux test")
    )]
    welcome: Welcome,
}

impl Live {
    /// Headless: a bot's commands, a frame per command. Interactive: the bot's buttons
    /// held as keys and a frame drawn every 16 ms, as the terminal loop does.
    pub(super) fn new(bots: u16, kind: LoopKind) -> Live {
        let mut config = ServerConfig::new(Map::builtin("arena").unwrap());
        config.bots = bots;
        // The seed and the queue these tests' figures (and the golden recording) were
        // taken with.
        config.seed = 1;
        config.input_buffer = crate::server::InputBuffer::Credit;
        let tick = Duration::from_secs(1) / u32::from(config.tick_rate);
        let mut server = Server::new(config);
        let start = Instant::now();
        let addr: SocketAddr = CLIENT.parse().unwrap();
        let welcome = server.join_in_process(start, addr, "ring").unwrap();
        let mut client = ClientConfig::new(addr, "ring");
        client.outgoing = lag();
        let full = Rc::new(RefCell::new(Writer::new(Vec::new()).unwrap()));
        let ring = Rc::new(RefCell::new(Ring::new(std::env::temp_dir())));
        let mut tee = Tee {
            full: full.clone(),
            ring: ring.clone(),
            start: None,
        };
        tee.start(start, kind, &welcome, &client);
        let session = ClientSession::new(welcome.clone(), start, client.switches).unwrap();
        let app = App::new(client.outgoing.clone());
        let mut driver = Driver::new(session, app, start);
        driver.set_tap(Box::new(tee));
        Live {
            server,
            driver,
            start,
            now: start,
            tick,
            next_tick: start + tick,
            up: Conditioner::new(lag(), 1),
            down: Conditioner::new(lag(), 2),
            brain: Wander::new(7),
            kind,
            full,
            ring,
            welcome,
        }
    }

    /// The simulated time now.
    pub(super) fn now(&self) -> Instant {
        self.now
    }

    /// The welcome the session began with.
    #[cfg_attr(
        not(target_os = "linux"),
        allow(dead_code, reason = "read by a Linux test")
    )]
    pub(super) fn welcome(&self) -> Welcome {
        self.welcome.clone()
    }

    /// Runs `duration` more of simulated time, a millisecond at a time.
    pub(super) fn run(&mut self, duration: Duration) {
        let end = self.now + duration;
        let addr: SocketAddr = CLIENT.parse().unwrap();
        let mut buf = Vec::new();
        while self.now < end {
            self.now += Duration::from_millis(1);
            let now = self.now;
            let server = &mut self.server;
            self.up
                .drain_due(now, |from, bytes| server.receive(now, from, bytes));
            while now >= self.next_tick {
                self.server.tick(self.next_tick);
                self.next_tick += self.tick;
            }
            for (to, msg) in self.server.take_outbox().collect::<Vec<_>>() {
                self.server
                    .encode_for(to, &msg, &mut buf, &mut Vec::new())
                    .unwrap();
                self.down.push(now, to, &buf);
            }
            let (driver, server) = (&mut self.driver, &mut self.server);
            self.down.drain_due(now, |_, bytes| {
                let msg = server.open_in_process(addr, bytes).unwrap();
                driver.receive(now, msg, bytes.len());
            });
            let (brain, up) = (&mut self.brain, &mut self.up);
            if self.kind == LoopKind::Interactive {
                if (now - self.start).as_millis().is_multiple_of(16) {
                    let me = self.driver.session().predicted();
                    let keys = me.map(|me| brain.next(&me).buttons).unwrap_or_default();
                    self.driver.play(now, keys, |msg| {
                        server.encode_in_process(addr, &msg, &mut buf).unwrap();
                        up.push(now, addr, &buf);
                    });
                    self.driver.frame(now);
                }
                continue;
            }
            self.driver.run_ticks(
                now,
                |s, _| s.predicted().map(|me| brain.next(&me)).unwrap_or_default(),
                |session, msg| {
                    if let Some(msg) = msg {
                        server.encode_in_process(addr, &msg, &mut buf).unwrap();
                        up.push(now, addr, &buf);
                    }
                    session.frame(now);
                },
            );
        }
    }

    /// The link's counts so far (made up: the links here are in memory).
    pub(super) fn totals(&self) -> LinkTotals {
        LinkTotals {
            seconds: (self.now - self.start).as_secs_f64(),
            bytes_in: 1000,
            bytes_out: 200,
            packets_in: 30,
            packets_out: 40,
            malformed_in: 0,
        }
    }

    /// Ends the session (an end record) and gives the whole recording.
    pub(super) fn finish(&mut self) -> Vec<u8> {
        let totals = self.totals();
        self.driver.tap_mut().unwrap().finish(totals);
        self.full.borrow().get_ref().clone()
    }

    /// The live loop's state, as a keyframe against the session's start.
    pub(super) fn state(&self) -> Vec<u8> {
        self.driver.keyframe(self.start).unwrap()
    }
}

/// A clip of `records`: the start, a keyframe the replay takes halfway, and the
/// records after it.
pub(super) fn clip_from_half(start: &Start, records: &[Record]) -> Vec<u8> {
    let mut all = Replayer::new(start, Instant::now()).unwrap();
    let half = records.len() / 2;
    let mut clip = Writer::new(Vec::new()).unwrap();
    clip.start(start).unwrap();
    for (i, record) in records.iter().enumerate() {
        all.apply(record.clone());
        if i == half {
            clip.keyframe(all.at(), &all.keyframe().unwrap()).unwrap();
        } else if i > half {
            clip.record(record).unwrap();
        }
    }
    clip.into_inner()
}

pub(super) fn read(bytes: &[u8]) -> (Start, Vec<Record>) {
    let mut reader = Reader::new(bytes).unwrap();
    let Some(Record::Start(start)) = reader.next_record().unwrap() else {
        panic!("no start record")
    };
    let records = reader.collect::<Result<Vec<_>, ReadError>>().unwrap();
    (*start, records)
}

/// Replays a whole recording; the replayer at its end.
pub(super) fn replay(bytes: &[u8]) -> Replayer {
    replay_until(bytes, Duration::MAX)
}

/// Replays the records of a recording up to time `t`.
pub(super) fn replay_until(bytes: &[u8], t: Duration) -> Replayer {
    let (start, records) = read(bytes);
    let mut r = Replayer::begin(&start, records.first(), Instant::now(), None).unwrap();
    for record in records {
        if record.at().is_some_and(|at| at > t) {
            break;
        }
        r.apply(record);
    }
    r
}

/// Two states as keyframes are the same, byte for byte (says where they part if not).
#[track_caller]
fn same(a: &[u8], b: &[u8]) {
    if a != b {
        let at = a.iter().zip(b).position(|(x, y)| x != y);
        panic!(
            "states differ: {} and {} bytes, first at byte {at:?}",
            a.len(),
            b.len()
        );
    }
}

fn report(r: &Replayer) -> serde_json::Value {
    serde_json::to_value(r.report()).unwrap()
}

#[test]
fn a_replay_from_a_keyframe_taken_midway_ends_exactly_where_the_whole_replay_ends() {
    let mut live = Live::new(3, LoopKind::Headless);
    live.run(Duration::from_secs(12));
    let whole = live.finish();
    let (start, records) = read(&whole);
    // The whole file, and a keyframe taken by the replay halfway through it.
    let clip = clip_from_half(&start, &records);
    let (_, clipped) = read(&clip);
    assert!(matches!(clipped[0], Record::Keyframe { at, .. } if at > Duration::from_secs(4)));
    let from_keyframe = replay(&clip);
    let all = replay(&whole);
    assert_eq!(all.diverged(), 0);
    assert_eq!(from_keyframe.diverged(), 0);
    assert!(
        all.session().stats().snapshots_lost > 0,
        "a session over loss"
    );
    // The same report, and the very same state, bit for bit: the replays' and the
    // live loop's.
    assert_eq!(report(&from_keyframe), report(&all));
    same(&from_keyframe.keyframe().unwrap(), &all.keyframe().unwrap());
    same(&all.keyframe().unwrap(), &live.state());
}

#[test]
fn the_ring_keeps_the_last_minute_and_its_clip_replays_exactly() {
    let mut live = Live::new(2, LoopKind::Interactive);
    live.run(Duration::from_secs(150));
    let clip = live.ring.borrow().clip(&live.totals());
    let whole = live.finish();
    let (_, records) = read(&clip);
    let Some(Record::Keyframe { at: from, .. }) = records.first() else {
        panic!("a clip of a long session starts at a keyframe")
    };
    let to = records.iter().rev().find_map(Record::at).unwrap();
    let kept = to - *from;
    assert!(
        kept >= KEEP && kept < KEEP + KEYFRAME_EVERY,
        "{kept:?} kept"
    );
    assert!(to > Duration::from_millis(149_900), "up to the end: {to:?}");
    // The kept time and one keyframe (the later ones are left out of a save).
    let share = kept.as_secs_f64() / 150.0 + 0.1;
    assert!(
        (clip.len() as f64) < whole.len() as f64 * share,
        "{} of {} bytes",
        clip.len(),
        whole.len()
    );
    let keyframes = records
        .iter()
        .filter(|r| matches!(r, Record::Keyframe { .. }));
    assert_eq!(keyframes.count(), 1);
    // The clip re-runs from its keyframe to the live loop's state, bit for bit.
    let replayed = replay(&clip);
    assert_eq!(replayed.diverged(), 0);
    same(&replayed.keyframe().unwrap(), &live.state());
    // And just after its keyframe it is where the whole recording is then.
    let soon = *from + Duration::from_millis(500);
    same(
        &replay_until(&clip, soon).keyframe().unwrap(),
        &replay_until(&whole, soon).keyframe().unwrap(),
    );
}

#[test]
fn a_short_session_is_kept_whole_from_the_welcome() {
    let mut live = Live::new(1, LoopKind::Headless);
    live.run(Duration::from_secs(30));
    let clip = live.ring.borrow().clip(&live.totals());
    let (_, records) = read(&clip);
    // A keyframe at 25 s (held, left out of the save), but the start is not a minute
    // old: kept from the welcome.
    assert!(!records.iter().any(|r| matches!(r, Record::Keyframe { .. })));
    assert!(live.ring.borrow().held() > clip.len() as u64 + 1000);
    assert_eq!(live.ring.borrow().kept_from(), Duration::ZERO);
    same(&replay(&clip).keyframe().unwrap(), &live.state());
}

/// A 16-player match: the keyframe's size and the time to take one. Prints; asserts
/// only that it is far under the bound. `cargo test --release --lib keyframe_cost --
/// --nocapture` for the numbers.
#[test]
fn keyframe_cost() {
    let mut live = Live::new(15, LoopKind::Interactive);
    live.run(Duration::from_secs(8));
    assert_eq!(live.driver.session().remotes_seen().len(), 15);
    let runs = 50;
    let t = Instant::now();
    let mut bytes = Vec::new();
    for _ in 0..runs {
        bytes = live.driver.keyframe(live.start).unwrap();
    }
    let take = t.elapsed() / runs;
    let t = Instant::now();
    for _ in 0..runs {
        Driver::from_keyframe(&bytes, live.start).unwrap();
    }
    let load = t.elapsed() / runs;
    println!(
        "keyframe, 16 players: {} bytes, taken in {} µs, read in {} µs",
        bytes.len(),
        take.as_micros(),
        load.as_micros()
    );
    assert!(bytes.len() < codec::MAX_KEYFRAME / 16);
    // What the ring costs a frame: a frame record and the keyframe question.
    let mut ring = live.ring.borrow_mut();
    let frames = 200_000u32;
    let t = Instant::now();
    for n in 0..frames {
        let at = live.now + Duration::from_micros(u64::from(n));
        ring.event(at, TapEvent::Frame);
        std::hint::black_box(ring.keyframe_due(at));
    }
    println!(
        "ring, per frame: {} ns (a frame record and keyframe_due)",
        t.elapsed().as_nanos() / u128::from(frames)
    );
}

#[test]
fn a_clip_seeks_steps_and_reruns_what_if_from_its_keyframe() {
    let mut live = Live::new(2, LoopKind::Interactive);
    live.run(Duration::from_secs(100));
    let clip = live.ring.borrow().clip(&live.totals());
    let (start, records) = read(&clip);
    let Some(Record::Keyframe { at: from, .. }) = records.first().cloned() else {
        panic!("a clip from a keyframe")
    };
    let mut player = super::player::Player::new(start, records, None).unwrap();
    assert_eq!(player.at(), from);
    let middle = from + Duration::from_secs(30);
    player.seek(middle);
    let there = player.replayer().keyframe().unwrap();
    same(&there, &replay_until(&clip, middle).keyframe().unwrap());
    player.step_frame(true);
    assert!(player.at() > middle);
    player.step_frame(false);
    same(&player.replayer().keyframe().unwrap(), &there);
    // What-if: the same clip from the same keyframe with prediction off, then back.
    let off = crate::client::Switches {
        prediction: false,
        ..player.switches()
    };
    player.set_what_if(Some(off)).unwrap();
    assert_eq!(player.at(), middle);
    assert!(!player.switches().prediction);
    player.set_what_if(None).unwrap();
    same(&player.replayer().keyframe().unwrap(), &there);
    // Back before the keyframe there is nothing: the clip's first moment.
    player.seek(Duration::ZERO);
    assert_eq!(player.at(), from);
    // The CSV export starts at the keyframe too, counting from its state.
    let path = std::env::temp_dir().join(format!("netarena-clip-{}.narec", std::process::id()));
    std::fs::write(&path, &clip).unwrap();
    let mut csv = Vec::new();
    let rows = super::export::export_csv(&path, &mut csv);
    let _ = std::fs::remove_file(&path);
    let csv = String::from_utf8(csv).unwrap();
    let first: f64 = csv
        .lines()
        .nth(1)
        .unwrap()
        .split(',')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(
        (first - from.as_secs_f64()).abs() < 0.05,
        "{first} {from:?}"
    );
    assert!(rows.unwrap() > 30 * 55, "a row a tick from the keyframe on");
}

/// Issue 21: a headless replay of an F8 clip ended "replayed up to where the recording
/// was cut short": a clip had no end record. It ends with the link's counts at the save.
#[test]
fn an_f8_clip_replays_headless_to_its_end() {
    let mut live = Live::new(1, LoopKind::Interactive);
    live.run(Duration::from_secs(3));
    // Saved as F8 does (into the temporary directory).
    let saved = live.ring.borrow_mut().save(live.totals());
    let path = saved.expect("a ring saves").expect("saved");
    let replay = super::replay::replay_headless(std::path::Path::new(&path)).unwrap();
    let _ = std::fs::remove_file(&path);
    assert_eq!(replay.stopped, None);
    assert_eq!(replay.report.ended, "replayed to the end of the recording");
    let json = serde_json::to_value(&replay.report).unwrap();
    assert_eq!(json["bytes_in"], 1000, "{json}");
    assert_eq!(json["seconds"], 3.0, "{json}");
}

/// F8 files are named by the local date and time (issue 21: by a raw Unix time), and
/// a second save in the same second does not overwrite the first.
#[test]
fn f8_files_are_named_by_date_and_time_and_never_overwritten() {
    use super::ring::{local_stamp, save_new, stamp_in};
    use std::time::{Duration, UNIX_EPOCH};
    let utc = |secs: i64, suffix| {
        let t = match u64::try_from(secs) {
            Ok(s) => UNIX_EPOCH + Duration::from_secs(s),
            Err(_) => UNIX_EPOCH - Duration::from_secs(secs.unsigned_abs()),
        };
        stamp_in(t, &jiff::tz::TimeZone::UTC, suffix)
    };
    assert_eq!(utc(0, ""), "1970-01-01-000000");
    assert_eq!(utc(1_795_544_934, ""), "2026-11-24-182854");
    assert_eq!(utc(951_782_400, "Z"), "2000-02-29-000000Z");
    assert_eq!(utc(-1, ""), "1969-12-31-235959");
    assert_eq!(utc(4_102_444_799, ""), "2099-12-31-235959");
    // A time zone east of UTC: the local date is a day on.
    let tokyo = jiff::tz::TimeZone::fixed(jiff::tz::offset(9));
    let t = UNIX_EPOCH + Duration::from_secs(1_795_544_934 + 6 * 3600);
    assert_eq!(stamp_in(t, &tokyo, ""), "2026-11-25-092854");
    let now = local_stamp(std::time::SystemTime::now());
    let digits = now.trim_end_matches('Z').replace('-', "");
    assert_eq!(digits.len(), 14, "{now}");
    assert!(digits.bytes().all(|b| b.is_ascii_digit()), "{now}");
    let dir = std::env::temp_dir().join(format!("netarena-names-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let first = save_new(&dir, "2026-11-24-193012", b"one").unwrap();
    let second = save_new(&dir, "2026-11-24-193012", b"two").unwrap();
    let read = |p: &str| std::fs::read(p).unwrap();
    let (a, b) = (read(&first), read(&second));
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        first.ends_with("netarena-2026-11-24-193012.narec"),
        "{first}"
    );
    assert!(
        second.ends_with("netarena-2026-11-24-193012-2.narec"),
        "{second}"
    );
    assert_eq!((&a[..], &b[..]), (&b"one"[..], &b"two"[..]));
}
