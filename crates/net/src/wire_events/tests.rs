//! Round trips and sizes of the events' wire form.

use super::*;
use crate::codec;
use crate::protocol::{
    PlayerStatus, RailShot, RailVerdict, ServerMsg, SnapshotDelta, SnapshotHeader,
};

fn snapshot(events: Vec<(u32, GameEvent)>) -> ServerMsg {
    ServerMsg::Snapshot(SnapshotDelta {
        header: SnapshotHeader {
            tick: 70_000,
            ack_seq: 9,
            echo_time_ms: 1,
            echo_hold_ms: 1,
            inputs: None,
            queued: 0,
            buffer_depth: 0,
            me: Default::default(),
            withheld_total: 0,
        },
        baseline_age: 3,
        removed: vec![],
        added: vec![],
        masks: vec![],
        values: vec![],
        events,
        near: false,
    })
}

/// Encodes `msg`, decodes it, widens it as a client would whose next event is
/// `next_event` and whose newest tick and command are a little off the snapshot's,
/// and checks that it came back exactly. The bytes.
fn round_trip(msg: &ServerMsg, next_event: u32) -> Vec<u8> {
    let mut buf = Vec::new();
    codec::encode_server(msg, &mut buf).unwrap();
    let ServerMsg::Snapshot(mut got) = codec::decode_server(&buf).unwrap() else {
        panic!("not a snapshot");
    };
    let ServerMsg::Snapshot(sent) = msg else {
        panic!("not a snapshot");
    };
    got.widen(&crate::widen::Known {
        tick: sent.header.tick.wrapping_sub(300),
        ack: Some(sent.header.ack_seq.wrapping_add(40)),
        next_event,
    });
    assert_eq!(&got, sent);
    buf
}

/// A burst of births and ends costs a handful of bytes each, and decodes exactly.
#[test]
fn a_fight_burst_is_small_and_exact() {
    let mut events = Vec::new();
    for i in 0..4u16 {
        // Ids as the rulebook gives them: the owner, then its command seq's low byte.
        let id = netarena_sim::step::shot_id(i as u8, 40 + u32::from(i));
        let p = Projectile {
            id,
            owner: i as u8,
            born: 69_990 + u32::from(i),
            x: 5000,
            y: 7000,
            // A diagonal bolt's sub-step.
            vx: 22,
            vy: -22,
        };
        events.push((100_000 + 2 * u32::from(i), GameEvent::Shot(p)));
        events.push((
            100_001 + 2 * u32::from(i),
            GameEvent::ShotEnd {
                id,
                tick: 69_999,
                hit: None,
            },
        ));
    }
    let msg = snapshot(events.clone());
    let buf = round_trip(&msg, 100_003);
    let sizes = wire_sizes(&events, 70_000);
    // The events, their length prefix and first seq, beside the snapshot's own fields.
    let events_len = sizes.iter().sum::<usize>() + 3;
    assert!(
        events_len < buf.len() && buf.len() < events_len + 24,
        "{sizes:?}"
    );
    // Past the first pair: 10 bytes a birth, 3 an end (a plain encoding: 21 and 12),
    // whatever the owners: the id costs its low byte.
    assert!(sizes[2..].iter().all(|&n| n <= 10), "{sizes:?}");
    assert!(sizes[3] <= 3, "{sizes:?}");
}

/// Gaps in seqs, origins outside any arena and hits all come back as they went.
#[test]
fn unusual_events_round_trip() {
    let far = Projectile {
        id: 0,
        owner: 1,
        born: u32::MAX,
        x: -5,
        y: 70_000,
        vx: -3,
        vy: 0,
    };
    let rail = RailShot {
        id: 0x0307,
        shooter: 3,
        tick: 69_998,
        from: (300, 65_535),
        to: (0, 900),
        hit: Some(1),
        rewound_ticks: 9,
        tested_at: Some((1, 2)),
        present_at: None,
        wanted_ticks: 30,
        bound_ticks: 21,
        nearest: Some((2, (5, 6), (7, 8))),
        verdict: RailVerdict::PastBound,
    };
    let status = PlayerStatus {
        id: 4,
        health: -7,
        alive: false,
        frags: -2,
        deaths: 65_535,
        weapon: Weapon::Rail,
        protected: true,
    };
    let events = vec![
        (u32::MAX, GameEvent::Shot(far)),
        (
            7,
            GameEvent::ShotEnd {
                id: 65_535,
                tick: 0,
                hit: Some(3),
            },
        ),
        (
            8,
            GameEvent::ShotEnd {
                id: 2,
                tick: 9,
                hit: None,
            },
        ),
        (
            3,
            GameEvent::Kill {
                killer: 1,
                victim: 3,
                weapon: Weapon::Rail,
            },
        ),
        (
            4,
            GameEvent::Kill {
                killer: 2,
                victim: 2,
                weapon: Weapon::Blaster,
            },
        ),
        (5, GameEvent::Rail(rail)),
        (
            6,
            GameEvent::Rail(RailShot {
                id: 0x0407,
                from: (-1, 0),
                ..rail
            }),
        ),
        (
            7,
            GameEvent::Rail(RailShot {
                tick: 3,
                present_at: Some((70_000, 0)),
                ..rail
            }),
        ),
        (8, GameEvent::Status(status)),
        (
            9,
            GameEvent::Status(PlayerStatus {
                alive: true,
                weapon: Weapon::Blaster,
                protected: false,
                ..status
            }),
        ),
        (
            10,
            GameEvent::TickRate {
                tick_rate: 128,
                snapshot_interval: 6,
                from_tick: 70_000,
                from_seq: u32::MAX,
            },
        ),
    ];
    // The client expects a seq a little before the first (it is ahead, across
    // the wrap of u32).
    round_trip(&snapshot(events), 3);
}

/// A status costs five bytes while health and frags are those of a match (eight
/// before), a hit five (seven), a kill three (four).
#[test]
fn statuses_hits_and_kills_are_small() {
    let status = PlayerStatus {
        id: 9,
        health: 75,
        alive: true,
        frags: 30,
        deaths: 40,
        weapon: Weapon::Rail,
        protected: true,
    };
    let hit = |id| GameEvent::ShotEnd {
        id,
        tick: 70_001,
        hit: Some(9),
    };
    let kill = GameEvent::Kill {
        killer: 1,
        victim: 9,
        weapon: Weapon::Blaster,
    };
    let events = vec![
        (5, GameEvent::Status(status)),
        (6, hit(0x0305)),
        (7, hit(0x0a31)),
        (8, kill),
    ];
    assert_eq!(wire_sizes(&events, 70_000), vec![5, 5, 5, 3]);
    // The two hits are projectiles; the status and the kill are other events.
    let mut out = Vec::new();
    assert_eq!(write(&events, 70_000, false, &mut out), (5 + 5, 5 + 3));
    round_trip(&snapshot(events), 5);
}
