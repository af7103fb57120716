//! The codes of the enums a record holds: every variant decodes to itself, every code
//! decodes to one variant at most; a recording holding every action replays to its
//! end; a recording that cannot be written says so.

use std::time::Duration;

use super::format::{
    action_code, action_from, chat_code, chat_from, every_action, every_chat_key, every_ghost_mode,
    every_loop_kind, kind_code, kind_from, switches_bits, switches_from,
};
use super::reader::Reader;
use super::tests::{Live, replay};
use super::writer::Writer;
use crate::client::Switches;
use crate::client::play::input::Action;
use crate::client::tap::{LoopKind, TapEvent};
use crate::sim::world::Command;

#[test]
fn every_action_decodes_to_itself() {
    let all = every_action();
    // Every variant, and each byte of the two that carry one.
    assert_eq!(all.len(), 22 + 2 * 256);
    for a in all {
        let [code, arg] = action_code(a);
        assert_eq!(action_from(code, arg), Some(a), "{a:?} as {code} {arg}");
    }
}

/// The other way: a code decodes to one action at most, and that action has that
/// code, so no two actions share one.
#[test]
fn every_code_decodes_to_the_action_that_has_it() {
    let mut known = 0;
    for code in 0..=u8::MAX {
        for arg in 0..=u8::MAX {
            if let Some(a) = action_from(code, arg) {
                assert_eq!(action_code(a), [code, arg], "{a:?}");
                known += 1;
            }
        }
    }
    assert_eq!(known, every_action().len());
}

#[test]
fn every_chat_key_loop_kind_and_ghost_mode_decodes_to_itself() {
    for k in every_chat_key() {
        let (code, c) = chat_code(k);
        assert_eq!(chat_from(code, c), Some(k), "{k:?}");
    }
    for k in every_loop_kind() {
        assert_eq!(kind_from(kind_code(k)), Some(k));
    }
    for ghosts in every_ghost_mode() {
        let s = Switches {
            ghosts,
            ..Switches::default()
        };
        let [bits, g] = switches_bits(s);
        assert_eq!(switches_from(bits, g), Some(s));
    }
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
        config.interp_ratio = Some(2.5);
        config.redundancy = 8;
        config.extrapolation_limit_ms = Some(50);
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
