//! A lab client whose own simulated link drops many of its input packets, recorded:
//! the link's verdicts reach the recording, and the timeline reads each command's fate
//! from them exactly.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use super::format::Record;
use super::player::Player;
use super::reader::Reader;
use super::recorder::Recorder;
use super::replay::Replayer;
use crate::client::netcode::session::DrawnFrom;
use crate::lab::{Lab, LabConfig};
use crate::net::conditioner::Conditions;
use crate::net::protocol::ServerMsg;
use crate::net::widen::ack_of;
use crate::server::ServerConfig;
use crate::sim::map::Map;
use crate::ui::timeline::TimelineSlot;

/// What each command became, worked out from first principles: the packets that
/// carried it and which of them the link dropped. (seq, recovered, lost) per command:
/// the timeline's `cmds` row has a column per command, seq n in column n from the start.
fn expected(records: &[Record], dropped: &HashSet<u32>) -> Vec<(usize, bool, bool)> {
    let Some(Record::Start(start)) = records.first() else {
        panic!("no start record")
    };
    let mut r = Replayer::begin(start, records.get(1), Instant::now(), None).unwrap();
    let (mut made, mut packets, mut acked) = (Vec::new(), Vec::new(), 0);
    for record in &records[1..] {
        let before = r.session().latest_seq();
        r.apply(record.clone());
        packets.extend_from_slice(r.sent());
        // A snapshot's acknowledgement comes as its low 16 bits, or 8 in a near one
        // (as recorded): widened against the newest before it, as it arrived.
        if let Record::Received { msg, .. } = record
            && let ServerMsg::Snapshot(d) = msg.as_ref()
        {
            acked = acked.max(ack_of(d, acked));
        }
        made.extend(before + 1..=r.session().latest_seq());
    }
    made.into_iter()
        .filter(|&seq| seq <= acked)
        .map(|seq| {
            let carriers: Vec<u32> = packets
                .iter()
                .filter(|&&(_, first, last)| (first..=last).contains(&seq))
                .map(|&(number, ..)| number)
                .collect();
            let lost = carriers.iter().all(|n| dropped.contains(n));
            let recovered = !lost && dropped.contains(&carriers[0]);
            (seq as usize, recovered, lost)
        })
        .collect()
}

#[test]
fn the_links_own_drops_give_each_command_its_exact_fate() {
    let mut server = ServerConfig::new(Map::builtin("duel").unwrap());
    server.bots = 0;
    server.seed = 3;
    let config = LabConfig {
        server,
        profiles: vec!["wifi".into()],
        walkers: 0,
        correction: Default::default(),
        keyboard: 0,
        tuning: Default::default(),
    };
    let t0 = Instant::now();
    let mut lab = Lab::new(&config, t0).unwrap();
    let name = format!("netarena-{}-link-drops.narec", std::process::id());
    let file = std::env::temp_dir().join(name);
    lab.record(0, Box::new(Recorder::create(&file).unwrap()), None)
        .unwrap();
    // Commands up a 10 ms link losing 30 % in runs of 40 packets on average, snapshots
    // down a clean one: a command rides in a few packets, or in every one until acked
    // (at most 64 commands a packet, about a second). A long run no longer drops all of
    // a command's packets: the client makes no command past what one packet carries and
    // resends while it holds (`client::netcode::outage`), so every command is recovered or
    // arrives.
    // No reordering: the server's counts then see no loss but the link's.
    let c = &mut lab.clients[0];
    c.up.set_conditions(Conditions {
        latency_ms: 10,
        loss_pct: 30.0,
        burst_len: 40.0,
        ..Conditions::default()
    });
    c.down.set_conditions(Conditions::default());
    lab.run_until(t0 + Duration::from_secs(30));
    lab.finish_recordings().unwrap();
    let link_dropped = lab.clients[0].up.traffic().dropped;

    let bytes = std::fs::read(&file).unwrap();
    let records: Vec<Record> = Reader::new(&bytes[..])
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let mut dropped = HashSet::new();
    for r in &records {
        if let Record::Dropped { packet, .. } = r {
            assert!(dropped.insert(*packet), "packet {packet} dropped twice");
        }
    }
    // The conditioner's own count, and the server's: every packet missing there is one
    // the link said it dropped, and no other.
    assert_eq!(dropped.len() as u64, link_dropped);
    let (received, high) = records
        .iter()
        .rev()
        .find_map(|r| match r {
            Record::Received { msg, .. } => match msg.as_ref() {
                ServerMsg::Snapshot(d) => d.header.inputs.map(|i| (i.received, i.high)),
                _ => None,
            },
            _ => None,
        })
        .unwrap();
    let dropped_below = dropped.iter().filter(|&&n| n <= high).count() as u32;
    assert_eq!(high - received, dropped_below);

    let want = expected(&records, &dropped);
    let recovered = want.iter().filter(|c| c.1).count();
    let lost = want.iter().filter(|c| c.2).count();
    assert!(
        recovered > 100 && lost == 0,
        "{recovered} recovered, {lost} lost"
    );

    // Without the link's verdicts (as recordings were before they held them) the
    // timeline could not tell a lost command from a late one: some read `?`. With them,
    // none does (each column is checked below).
    let without: Vec<Record> = records[1..]
        .iter()
        .filter(|r| !matches!(r, Record::Dropped { .. }))
        .cloned()
        .collect();
    let without = unsure(&records[0], without);
    assert!(without > 0, "without the drops no command read `?`");
    assert_eq!(unsure(&records[0], records[1..].to_vec()), 0);

    let mut player = Player::load(&file).unwrap();
    let _ = std::fs::remove_file(&file);
    let last = want.last().unwrap().0;
    let (slots, cursor) = player.timeline(2 * last + 2);
    assert_eq!(cursor, 0, "the timeline from the start");
    for (column, s) in slots.iter().enumerate().take(last + 1) {
        let here = want.iter().filter(|c| c.0 == column);
        let r = here.clone().filter(|c| c.1).count() as u8;
        let x = here.filter(|c| c.2).count() as u8;
        assert_eq!(
            (s.recovered, s.commands_lost, s.unsure),
            (r, x, 0),
            "command {column}"
        );
    }

    // 25 s in, the two snapshots the frame is drawn between are marked where they
    // arrived: their ticks, recorded in their low 8 or 16 bits as they came, are
    // widened first (unwidened, a near snapshot's tick 1,500 was 220 and no mark
    // showed).
    player.seek(Duration::from_secs(25));
    let Some(DrawnFrom::Between { from, to, .. }) = player.drawn_from() else {
        panic!("interpolating at 25 s: {:?}", player.drawn_from());
    };
    assert!(from > 255, "tick {from}");
    let (slots, _) = player.timeline(120);
    let marks = |pick: fn(&TimelineSlot) -> bool| slots.iter().filter(|s| pick(s)).count();
    assert_eq!(
        (marks(|s| s.interp_from), marks(|s| s.interp_to)),
        (1, 1),
        "ticks {from} and {to}"
    );
}

/// How many commands of a whole recording the timeline reads as unsure (`?`).
fn unsure(start: &Record, records: Vec<Record>) -> u64 {
    let Record::Start(start) = start else {
        panic!("no start record")
    };
    let player = Player::new((**start).clone(), records, None).unwrap();
    let slots = player.duration().as_nanos() / player.tick().as_nanos() + 2;
    let (slots, _) = player.timeline(2 * slots as usize);
    slots.iter().map(|s| u64::from(s.unsure)).sum()
}
