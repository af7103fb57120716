//! The player's index on small recordings made up here: fates, the interpolated pair,
//! the `cmds` row, the recorded frame rate, interpolation off.

use super::*;
use crate::net::conditioner::Conditions;
use crate::net::delta;
use crate::net::protocol::{InputCounts, PlayerSnap, Snapshot, SnapshotHeader};
use crate::sim::map::Map;
use crate::sim::world::{Command, PlayerState};

pub(in crate::record) fn start() -> Start {
    Start {
        kind: LoopKind::Headless,
        seed: 1,
        tuning: Default::default(),
        switches: Switches::default(),
        correction: crate::client::CorrectionStyle::default(),
        conditions: Conditions::default(),
        welcome: crate::client::netcode::session::duel_welcome(0),
    }
}

fn snapshot(at_ms: u64, tick: u32, ack_seq: u32, queued: u8, inputs: Option<(u32, u32)>) -> Record {
    let (x, y) = Map::builtin("duel").unwrap().spawns()[0];
    let snap = Snapshot {
        header: SnapshotHeader {
            tick,
            ack_seq,
            inputs: inputs.map(|(received, high)| InputCounts { received, high }),
            queued,
            ..Default::default()
        },
        players: vec![PlayerSnap {
            id: 0,
            state: PlayerState::at_cell(x, y),
        }],
    };
    Record::Received {
        at: Duration::from_millis(at_ms),
        wire_bytes: 100,
        msg: Box::new(ServerMsg::Snapshot(delta::encode(&snap, None))),
    }
}

/// `ticks` command ticks of a headless session, the k-th made `late(k)` after 0.3 ms
/// before its time (the end of a 1/60 s slice), and a snapshot every 50 ms acknowledging what was made.
pub(in crate::record) fn ticks(count: u64, late: impl Fn(u64) -> Duration) -> Vec<Record> {
    let tick = Duration::from_secs(1) / 60;
    let mut records = vec![snapshot(1, 3, 0, 0, None)];
    for k in 0..count {
        records.push(Record::Ticks {
            at: tick * (k as u32 + 1) - Duration::from_micros(300) + late(k),
            commands: vec![Command::default()],
        });
    }
    for j in 1..count / 3 {
        let ack = (3 * j).saturating_sub(3) as u32;
        records.push(snapshot(10 + 50 * j, 3 + 3 * j as u32, ack, 1, None));
    }
    records.sort_by_key(|r| r.at());
    records
}

/// A command tick made late now and then (as an interactive loop's are, at its
/// frames) lands in the next 1/60 s of recording time with that one's own: the
/// `cmds` row still shows one command a column, none missing, none doubled.
#[test]
fn late_command_ticks_still_fill_every_cmds_column_once() {
    let late = |k: u64| Duration::from_micros(if k % 7 == 3 { 600 } else { 0 });
    let mut player = Player::new(start(), ticks(120, late), None).unwrap();
    // The time slots do have a gap and a double.
    let per_slot: Vec<u8> = player.slots[2..100].iter().map(|s| s.commands).collect();
    assert!(
        per_slot.contains(&0) && per_slot.contains(&2),
        "{per_slot:?}"
    );
    for t in [40, 50, 77, 110] {
        player.seek(player.tick() * t);
        let (slots, cursor) = player.timeline(40);
        let cmds: String = slots
            .iter()
            .map(|s| char::from(b'0' + s.commands))
            .collect();
        // Up to the cursor, every column holds one command.
        let seen = &cmds[..=cursor];
        assert_eq!(seen, "1".repeat(cursor + 1), "at tick {t}: {cmds}");
    }
    // The cursor's column is the newest command at the replay time (the 110th, made
    // 0.3 ms before tick 110), the next column the one after it.
    assert_eq!(player.replayer().session().stats().commands_sent, 110);
    let (slots, cursor) = player.timeline(40);
    assert_eq!((slots[cursor].commands, slots[cursor + 1].commands), (1, 1));
    player.seek(player.duration());
    let (slots, cursor) = player.timeline(40);
    assert_eq!((slots[cursor].commands, slots[cursor + 1].commands), (1, 0));
}

/// The HUD's FPS in replay: frames recorded over the last second at the cursor (a
/// headless recording draws one a command tick: 60).
#[test]
fn the_recorded_frame_rate_is_the_frames_of_the_last_second() {
    let mut player = Player::new(start(), ticks(120, |_| Duration::ZERO), None).unwrap();
    player.seek(Duration::from_millis(1500));
    assert!((59.0..=61.0).contains(&player.recorded_fps()));
    // Half a second in: the half second there is, per second.
    player.seek(Duration::from_millis(500));
    assert!(
        (player.recorded_fps() - 60.0).abs() <= 2.0,
        "{}",
        player.recorded_fps()
    );
}

/// With interpolation off (what-if `i`), frames are drawn at the newest snapshot:
/// counted held, not interpolated, and marked `at_snapshot` on the strip.
#[test]
fn with_interpolation_off_frames_are_at_the_snapshot_not_interpolated() {
    let mut player = Player::new(start(), ticks(120, |_| Duration::ZERO), None).unwrap();
    let on = player.switches();
    player.seek(player.duration());
    assert!(player.replayer().session().stats().frames_interpolated > 60);
    let off = Switches {
        interpolation: false,
        extrapolation: false,
        ..on
    };
    player.set_what_if(Some(off)).unwrap();
    let stats = player.replayer().session().stats();
    assert_eq!(stats.frames_interpolated, 0);
    assert!(stats.frames_held > 60);
    assert!(matches!(player.drawn_from(), Some(DrawnFrom::Newest(_))));
    let (slots, cursor) = player.timeline(40);
    assert!(slots[..=cursor].iter().all(|s| s.at_snapshot && !s.held));
}

/// Half a second of a headless session: a command every tick, an input packet every
/// other one (packet n carries up to seq 2n - 1), a snapshot every 50 ms. The
/// snapshots' acks and queues show packets 1, 2, 4, 5... arriving; packet 3, the
/// first to carry seqs 4 and 5, never shows, and the server's count (4 of 5) says
/// one is missing: 4 and 5 got there in packet 4's copy.
#[test]
fn a_known_session_gives_recovered_commands_and_the_interpolated_pair() {
    let mut records = vec![snapshot(1, 3, 0, 0, None)];
    let tick_ns = 1_000_000_000 / 60;
    for k in 0..=28u64 {
        records.push(Record::Ticks {
            at: Duration::from_nanos(2_000_000 + k * tick_ns),
            commands: vec![Command::default()],
        });
    }
    // Per snapshot: ack_seq, queued, and the server's count (received, high).
    let counts = |received, high| Some((received, high));
    let acks = [
        (1, 0, None),
        (2, 1, None),
        (4, 3, None),
        (8, 1, counts(4, 5)),
        (10, 1, None),
        (12, 1, None),
        (14, 1, None),
        (16, 1, None),
        (18, 1, counts(9, 10)),
    ];
    for (j, (ack, queued, inputs)) in acks.into_iter().enumerate() {
        let j = j as u64 + 1;
        records.push(snapshot(10 + 50 * j, 3 + 3 * j as u32, ack, queued, inputs));
    }
    records.sort_by_key(|r| r.at());
    let mut player = Player::new(start(), records, None).unwrap();
    // Seqs 4 and 5 (the 4th and 5th commands) were recovered; nothing else was
    // recovered or lost.
    let fated: Vec<(usize, Fate)> = (player.commands.fates.iter().enumerate())
        .filter(|(_, f)| !matches!(f, Fate::Delivered | Fate::Pending))
        .map(|(i, f)| (i + 1, *f))
        .collect();
    assert_eq!(fated, [(4, Fate::Recovered), (5, Fate::Recovered)]);

    player.seek(player.duration());
    let Some(DrawnFrom::Between { from, to, f }) = player.drawn_from() else {
        panic!("interpolating at the end: {:?}", player.drawn_from());
    };
    assert_eq!(to - from, 3, "two snapshots in a row");
    assert!((0.0..1.0).contains(&f));
    // Snapshot of tick 3j + 3 arrived at 10 + 50j ms: the slot it is marked in.
    let slot = |tick: u32| ((10 + 50 * u64::from(tick / 3 - 1)) * 60 / 1000) as usize;
    let (slots, cursor) = player.timeline(60);
    let first = player.slot_of(player.at()) - cursor;
    let marked = |pick: fn(&TimelineSlot) -> bool| -> Vec<usize> {
        (0..slots.len())
            .filter(|&i| pick(&slots[i]))
            .map(|i| i + first)
            .collect()
    };
    assert_eq!(marked(|s| s.interp_from), [slot(from)]);
    assert_eq!(marked(|s| s.interp_to), [slot(to)]);
}

/// Issue 23: the what-if "reconciliation off" put the prediction's own drift down to
/// lost commands ("3 commands never reached the server") and marked commands the
/// server had as `x`. A what-if changes the client, not what reached the server: the
/// commands' fates are the recording's, and the drift is named as such.
#[test]
fn a_what_if_without_reconciliation_loses_no_commands_and_names_the_drift() {
    use crate::lab::{Lab, LabConfig};
    use crate::record::recorder::Recorder;
    use crate::server::ServerConfig;
    use std::time::Instant;
    let mut server = ServerConfig::new(Map::builtin("arena").unwrap());
    server.bots = 6;
    server.seed = 3;
    // Walkers and bots bump into the recorded client: a first correction at 32 s.
    let config = LabConfig {
        server,
        profiles: vec!["bad".into()],
        walkers: 3,
        keyboard: 0,
        tuning: Default::default(),
        correction: Default::default(),
    };
    let t0 = Instant::now();
    let mut lab = Lab::new(&config, t0).unwrap();
    let name = format!("netarena-{}-what-if-drift.narec", std::process::id());
    let file = std::env::temp_dir().join(name);
    lab.record(0, Box::new(Recorder::create(&file).unwrap()), None)
        .unwrap();
    lab.run_until(t0 + Duration::from_secs(40));
    lab.finish_recordings().unwrap();
    let mut player = Player::load(&file).unwrap();
    let _ = std::fs::remove_file(&file);
    let end = player.duration();
    player.advance_to(end);
    let recorded = player.commands.fates.clone();
    let as_recorded = player
        .replayer()
        .session()
        .stats()
        .corrections_by_cause
        .clone();
    let what_if = Switches {
        reconciliation: false,
        ..player.switches()
    };
    player.set_what_if(Some(what_if)).unwrap();
    player.advance_to(end);
    let causes = &player.replayer().session().stats().corrections_by_cause;
    assert!(causes.get("drift").is_some_and(|&n| n > 10), "{causes:?}");
    // The what-if cannot lose a command the recording did not (the bug put its drift
    // down to lost commands); a lost one may be named drift when the drift is larger.
    let lost_commands =
        |c: &std::collections::BTreeMap<String, u64>| c.get("commands_lost").copied().unwrap_or(0);
    assert!(
        lost_commands(causes) <= lost_commands(&as_recorded),
        "{causes:?} against {as_recorded:?}"
    );
    let lost = |f: &[Fate]| f.iter().filter(|&&f| f == Fate::Lost).count();
    assert_eq!(lost(&player.commands.fates), lost(&recorded));
    assert_eq!(player.commands.fates, recorded);
}
