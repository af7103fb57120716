//! The enums a record holds: every variant survives the format and no two share a
//! code; a recording holding every action replays to its end; a recording that cannot
//! be written says so; each kind of record has the code its limit is kept by.

use std::time::Duration;

use super::file::Entry;
use super::format::{
    KEYFRAME, Record, START, every_action, every_chat_key, every_ghost_mode, every_loop_kind,
};
use super::reader::Reader;
use super::tests::{Live, replay};
use super::writer::Writer;
use crate::client::Switches;
use crate::client::play::input::Action;
use crate::client::tap::{LoopKind, TapEvent};
use crate::net::codec;
use crate::sim::world::Command;

/// `records` written after a start and read back.
fn through_the_format(records: &[Record]) -> Vec<Record> {
    let live = Live::new(0, LoopKind::Headless);
    let config = crate::client::ClientConfig::new("127.0.0.1:1".parse().unwrap(), "x");
    let start = super::Start::of(LoopKind::Headless, &live.welcome(), &config);
    let mut w = Writer::new(Vec::new()).unwrap();
    w.start(&start).unwrap();
    for r in records {
        w.record(r).unwrap();
    }
    let bytes = w.into_inner();
    let mut back: Vec<Record> = Reader::new(&bytes[..])
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(back.remove(0), Record::Start(Box::new(start)));
    back
}

#[test]
fn every_action_decodes_to_itself() {
    let all = every_action();
    // Every variant, and each byte of the two that carry one.
    assert_eq!(all.len(), 22 + 2 * 256);
    let records: Vec<Record> = all.into_iter().map(Record::Action).collect();
    assert_eq!(through_the_format(&records), records);
}

/// The other way: no two actions are written alike, so none reads back as another.
#[test]
fn every_code_decodes_to_the_action_that_has_it() {
    let mut codes = std::collections::HashMap::new();
    for a in every_action() {
        let mut bytes = Vec::new();
        codec::encode_state(&Record::Action(a), &mut bytes).unwrap();
        if let Some(other) = codes.insert(bytes.clone(), a) {
            panic!("{a:?} and {other:?} are both {bytes:?}");
        }
    }
    assert_eq!(codes.len(), every_action().len());
}

#[test]
fn every_chat_key_loop_kind_and_ghost_mode_decodes_to_itself() {
    let chat: Vec<Record> = every_chat_key().into_iter().map(Record::Chat).collect();
    assert_eq!(through_the_format(&chat), chat);
    for kind in every_loop_kind() {
        let back: LoopKind = codec::decode_state(&encoded(&kind)).unwrap();
        assert_eq!(back, kind);
    }
    for ghosts in every_ghost_mode() {
        let s = Switches {
            ghosts,
            ..Switches::default()
        };
        let back: Switches = codec::decode_state(&encoded(&s)).unwrap();
        assert_eq!(back, s);
    }
}

fn encoded<T: serde::Serialize>(value: &T) -> Vec<u8> {
    let mut bytes = Vec::new();
    codec::encode_state(value, &mut bytes).unwrap();
    bytes
}

/// The kinds with limits of their own are the variants they name (a record's kind is
/// its first byte in the codec's form), and no kind past the last is taken.
#[test]
fn each_kind_is_its_variant() {
    let live = Live::new(0, LoopKind::Headless);
    let config = crate::client::ClientConfig::new("127.0.0.1:1".parse().unwrap(), "x");
    let start = super::Start::of(LoopKind::Headless, &live.welcome(), &config);
    assert_eq!(encoded(&Record::Start(Box::new(start)))[0], START);
    let keyframe = Record::Keyframe {
        at: Duration::ZERO,
        state: vec![1, 2, 3],
    };
    assert_eq!(encoded(&keyframe)[0], KEYFRAME);
    let settings = Record::Settings {
        at: Duration::ZERO,
        settings: live.driver.settings(),
    };
    let last = encoded(&settings)[0];
    assert!(Record::max_payload(last).is_some());
    assert_eq!(Record::max_payload(last + 1), None);
}

/// Issue 21: Shift+direction (`Face`) and Esc (`Back`) were written as 255, and a
/// replay stopped at the first one ("unknown action 255"). Every action, played in a
/// live session, is read back and replayed to the very state the live loop ended in.
#[test]
fn a_recording_with_every_action_replays_to_its_end() {
    let mut live = Live::new(2, LoopKind::Interactive);
    live.run(Duration::from_millis(500));
    let playable = every_action().into_iter().filter(|a| match a {
        Action::Face(aim) => *aim < 8,
        Action::SelectWeapon(w) => *w < 2,
        _ => true,
    });
    let mut played = 0;
    for action in playable {
        live.driver.handle(action);
        live.run(Duration::from_millis(20));
        played += 1;
    }
    assert_eq!(played, 22 + 8 + 2);
    let whole = live.finish();
    let mut reader = Reader::new(&whole[..]).unwrap();
    let mut actions = 0;
    while let Some(r) = reader.next_record().unwrap() {
        actions += usize::from(matches!(r, super::Record::Action(_)));
    }
    assert_eq!(actions, played);
    let replayed = replay(&whole);
    assert_eq!(
        replayed.report().ended,
        "replayed to the end of the recording"
    );
    assert_eq!(replayed.keyframe().unwrap(), live.state());
}

/// More commands at one instant than a record holds is an error, not a record cut
/// short in silence.
#[test]
fn too_many_commands_at_one_instant_is_an_error() {
    let mut w = Writer::new(Vec::new()).unwrap();
    let many = vec![Command::default(); 17];
    let err = w
        .event(Duration::ZERO, &TapEvent::Ticks(&many))
        .unwrap_err();
    assert!(err.to_string().contains("17 commands"), "{err}");
}

/// A recording to a file that cannot take it says so: the tap reports the failure
/// (which the shells show and end with), and a save says why.
#[cfg(target_os = "linux")]
#[test]
fn a_recording_that_cannot_be_written_says_so() {
    use crate::client::tap::{LinkTotals, Tap};
    let live = Live::new(0, LoopKind::Headless);
    let mut tap = super::recorder::Recorder::create(std::path::Path::new("/dev/full")).unwrap();
    assert_eq!(tap.failure(), None);
    let config = crate::client::ClientConfig::new("127.0.0.1:1".parse().unwrap(), "x");
    let welcome = live.welcome();
    tap.start(live.start, LoopKind::Headless, &welcome, &config);
    let why = tap.failure().expect("a failure");
    assert!(
        why.contains("/dev/full") && why.contains("stopped"),
        "{why}"
    );
    assert_eq!(tap.save(LinkTotals::default()), Some(Err(why)));
}

/// Found by the loud failure: a start record holds the map's text, and one over the
/// record limit (a server datagram plus 64 bytes) was refused, so a game on warehouse
/// or catacombs recorded nothing (and F8 saved nothing) without a word. Every built-in
/// map, and the largest map there can be, records and reads back.
#[test]
fn a_session_on_every_map_can_be_recorded() {
    use crate::client::ClientConfig;
    use crate::net::map_chunks::MAX_MAP_BYTES;
    use crate::net::protocol::Welcome;
    use crate::sim::map::Map;
    let largest = {
        let row = |wall: bool| {
            let inner = if wall { "#" } else { "." };
            format!("#{}#\n", inner.repeat(98))
        };
        let mut text = row(true);
        text.push_str(&row(false).replace(".#\n", "S#\n"));
        for _ in 0..47 {
            text.push_str(&row(false));
        }
        text.push_str(&row(true));
        text
    };
    assert!(largest.len() <= MAX_MAP_BYTES && largest.len() > MAX_MAP_BYTES - 60);
    let mut maps: Vec<(String, String)> = ["arena", "duel", "warehouse", "catacombs"]
        .iter()
        .map(|n| (n.to_string(), Map::builtin(n).unwrap().text().to_owned()))
        .collect();
    maps.push(("largest".into(), largest));
    for (name, text) in maps {
        let welcome = Welcome {
            player_id: 1,
            tick_rate: 60,
            snapshot_interval: 3,
            server_tick: 1,
            server_name: "s".repeat(32),
            map_name: name.clone(),
            map: crate::net::map_chunks::info(&text, 1024),
            map_text: text,
        };
        let mut config = ClientConfig::new("127.0.0.1:1".parse().unwrap(), "x");
        // The player's dials go in the start record too.
        config.tuning.interp_ratio = Some(2.5);
        config.tuning.redundancy = 8;
        config.tuning.extrapolation_limit_ms = Some(50);
        let start = super::Start::of(LoopKind::Interactive, &welcome, &config);
        let mut w = Writer::new(Vec::new()).unwrap();
        w.start(&start).unwrap_or_else(|e| panic!("{name}: {e}"));
        let bytes = w.into_inner();
        let mut reader = Reader::new(&bytes[..]).unwrap();
        let back = reader
            .next_record()
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(back, Some(super::Record::Start(Box::new(start))), "{name}");
    }
}
