//! The golden recording, `tests/data/golden.narec`: a short clip as F8 saves one (the
//! start, a keyframe, every action a player can take, a dial turned, an end), committed so that every
//! later netarena is checked against it. It must replay to its end, to the state
//! written in `tests/data/golden.txt`, or be refused by its version, in one line naming
//! both versions. A change that means to alter either (a new format version, a client
//! that replays the same inputs differently) regenerates both:
//!
//! ```text
//! NETARENA_BLESS=1 cargo test --lib record::golden_tests
//! ```
//!
//! and says why in its commit.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use super::format::{OLDEST, Record, Start, VERSION, every_action};
use super::reader::{ReadError, Reader};
use super::replay::Replayer;
use super::tests::{Live, read};
use super::writer::Writer;
use crate::client::play::input::Action;
use crate::client::tap::LoopKind;

const GOLDEN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/golden.narec");
const SUMMARY: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/golden.txt");
const BLESS: &str = "NETARENA_BLESS";

/// A session of half a second, then every action a player can take, 20 ms apart,
/// saved as a clip from a keyframe taken before the first action.
fn make_golden() -> Vec<u8> {
    let mut live = Live::new(1, LoopKind::Interactive);
    live.run(Duration::from_millis(500));
    let from = live.now() - live.start;
    let playable = every_action().into_iter().filter(|a| match a {
        Action::Face(aim) => *aim < 8,
        Action::SelectWeapon(w) => *w < 2,
        _ => true,
    });
    for action in playable {
        live.driver.handle(action);
        live.run(Duration::from_millis(20));
    }
    // A dial turned (the player's redundancy): a settings record.
    let mut settings = live.driver.settings();
    settings.tuning.redundancy = 8;
    let now = live.now();
    live.driver.set_settings(now, settings);
    live.run(Duration::from_millis(20));
    let whole = live.finish();
    let (start, records) = read(&whole);
    clip_from(&start, &records, from)
}

/// The recording from time `from` on: the start, a keyframe of the loop at `from`,
/// then the records after it.
fn clip_from(start: &Start, records: &[Record], from: Duration) -> Vec<u8> {
    let mut all = Replayer::new(start, Instant::now()).unwrap();
    let mut clip = Writer::new(Vec::new()).unwrap();
    clip.start(start).unwrap();
    let mut keyed = false;
    for record in records {
        // Actions have no time of their own: the first after `from` starts the clip too.
        let after = record.at().is_some_and(|at| at > from) || matches!(record, Record::Action(_));
        if after && !keyed {
            clip.keyframe(all.at(), &all.keyframe().unwrap()).unwrap();
            keyed = true;
        }
        if keyed {
            clip.record(record).unwrap();
        } else {
            all.apply(record.clone());
        }
    }
    clip.into_inner()
}

/// What the golden recording holds and where its replay ends, as text.
fn summarize(bytes: &[u8]) -> String {
    let (start, records) = read(bytes);
    let mut out = String::new();
    let mut line = |s: String| {
        out.push_str(&s);
        out.push('\n');
    };
    line(format!(
        "format version {}",
        u16::from_le_bytes([bytes[6], bytes[7]])
    ));
    line(format!(
        "loop {:?}, map {}",
        start.kind, start.welcome.map_name
    ));
    let mut kinds: Vec<(&str, usize)> = Vec::new();
    for r in &records {
        let name = match r {
            Record::Start(_) => "start",
            Record::Received { .. } => "received",
            Record::Ticks { .. } => "ticks",
            Record::Keys { .. } => "keys",
            Record::Frame { .. } => "frame",
            Record::Action(_) => "action",
            Record::Chat(_) => "chat",
            Record::Size(..) => "size",
            Record::End(_) => "end",
            Record::Keyframe { .. } => "keyframe",
            Record::Dropped { .. } => "dropped",
            Record::Settings { .. } => "settings",
        };
        match kinds.iter_mut().find(|(k, _)| *k == name) {
            Some((_, n)) => *n += 1,
            None => kinds.push((name, 1)),
        }
    }
    let mut counts = String::new();
    for (k, n) in kinds {
        let _ = write!(counts, " {k} {n}");
    }
    line(format!("records:{counts}"));
    let actions: Vec<String> = records
        .iter()
        .filter_map(|r| match r {
            Record::Action(a) => Some(format!("{a:?}")),
            _ => None,
        })
        .collect();
    line(format!("actions: {}", actions.join(" ")));
    let mut r = Replayer::begin(&start, records.first(), Instant::now(), None).unwrap();
    for record in records {
        r.apply(record);
    }
    line(format!("replayed to {:?}", r.at()));
    let report = r.report();
    line(format!("ended: {}", report.ended));
    let json = serde_json::to_value(&report).unwrap();
    for key in ["seconds", "bytes_in", "bytes_out", "snapshots_received"] {
        line(format!("{key}: {}", json[key]));
    }
    line(format!("switches at the end: {:?}", r.session().switches()));
    line(format!("dials at the end: {:?}", r.session().tuning()));
    out
}

#[test]
fn the_golden_recording_replays_to_its_end_or_is_refused_by_version() {
    if std::env::var_os(BLESS).is_some_and(|v| v == "1") {
        let bytes = make_golden();
        std::fs::create_dir_all(std::path::Path::new(GOLDEN).parent().unwrap()).unwrap();
        std::fs::write(GOLDEN, &bytes).unwrap();
        std::fs::write(SUMMARY, summarize(&bytes)).unwrap();
    }
    let bytes = std::fs::read(GOLDEN).expect("tests/data/golden.narec");
    match Reader::new(&bytes[..]) {
        Err(ReadError::Version { found }) => {
            // A later netarena that no longer reads it says so, naming both versions.
            let line = ReadError::Version { found }.to_string();
            assert!(found < OLDEST, "{line}");
            assert!(
                line.contains(&format!("version {found}")) && line.contains(&VERSION.to_string()),
                "{line}"
            );
            eprintln!("{line}: regenerate with {BLESS}=1 (see src/record/golden_tests.rs)");
            return;
        }
        Err(e) => panic!("the golden recording: {e}"),
        Ok(reader) => {
            if let Some(Err(e)) = reader.into_iter().find(Result::is_err) {
                panic!(
                    "the golden recording: {e}. A change to what a record holds (the \
                     server messages too) needs a new record::format::VERSION, with OLDEST \
                     past the versions it can no longer read; then regenerate with {BLESS}=1"
                );
            }
        }
    }
    let (_, records) = read(&bytes);
    assert!(
        matches!(records.first(), Some(Record::Keyframe { .. })),
        "a clip from a keyframe"
    );
    let expected = std::fs::read_to_string(SUMMARY).expect("tests/data/golden.txt");
    assert_eq!(
        summarize(&bytes),
        expected,
        "the golden recording replays differently; if that is meant, regenerate it \
         with {BLESS}=1 (see src/record/golden_tests.rs)"
    );
}
