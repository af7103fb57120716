//! Dials turned mid-run are in the recording: a lab client's recording, with its
//! redundancy, interpolation delay, correction style and the server's snapshot rate
//! turned at tick 300, replays to the very state the live client ended in. (Before the
//! settings record, a recording held only the settings at the start, and the replay
//! went on with them.)

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::time::{Duration, Instant};

use super::format::{Record, Start};
use super::tests::{read, replay, replay_until};
use super::writer::Writer;
use crate::client::ClientConfig;
use crate::client::CorrectionStyle;
use crate::client::tap::{LinkTotals, LoopKind, Tap, TapEvent};
use crate::lab::dials::DIALS;
use crate::lab::{Lab, LabConfig};
use crate::net::protocol::Welcome;
use crate::server::ServerConfig;
use crate::sim::map::Map;

/// Writes a session into memory and keeps the instant it started.
struct Memory {
    out: Rc<RefCell<Writer<Vec<u8>>>>,
    start: Rc<Cell<Option<Instant>>>,
}

impl Tap for Memory {
    fn start(&mut self, start: Instant, kind: LoopKind, welcome: &Welcome, config: &ClientConfig) {
        self.start.set(Some(start));
        let s = Start::of(kind, welcome, config);
        self.out.borrow_mut().start(&s).unwrap();
    }
    fn event(&mut self, at: Instant, event: TapEvent<'_>) {
        let offset = at.saturating_duration_since(self.start.get().unwrap());
        self.out.borrow_mut().event(offset, &event).unwrap();
    }
    fn finish(&mut self, totals: LinkTotals) {
        self.out.borrow_mut().end(&totals).unwrap();
    }
}

fn dial(name: &str) -> usize {
    DIALS.iter().position(|d| d.name == name).unwrap()
}

#[test]
fn dials_turned_mid_run_replay_exactly() {
    let mut server = ServerConfig::new(Map::builtin("duel").unwrap());
    server.bots = 1;
    server.seed = 5;
    let config = LabConfig {
        server,
        profiles: vec!["wifi".into(), "lan".into()],
        walkers: 1,
        correction: Default::default(),
        keyboard: 0,
        tuning: Default::default(),
    };
    let t0 = Instant::now();
    let mut lab = Lab::new(&config, t0).unwrap();
    let out = Rc::new(RefCell::new(Writer::new(Vec::new()).unwrap()));
    let start = Rc::new(Cell::new(None));
    let tap = Memory {
        out: out.clone(),
        start: start.clone(),
    };
    lab.record(0, Box::new(tap), None).unwrap();
    // Tick 300, then the dials: the client's own, and the server's snapshot rate (which
    // reaches the client as a setting too).
    lab.run_until(t0 + Duration::from_secs(5));
    lab.set_dial(dial("redundancy"), 0, 4).unwrap();
    lab.set_dial(dial("interpolation delay"), 0, 30).unwrap();
    lab.set_dial(dial("correction style"), 0, 0).unwrap();
    lab.set_dial(dial("snapshot rate"), 0, 10).unwrap();
    lab.run_until(t0 + Duration::from_secs(8));
    // And once more, back: two changes at two times.
    lab.set_dial(dial("interpolation delay"), 0, 15).unwrap();
    lab.run_until(t0 + Duration::from_secs(10));
    lab.finish_recordings().unwrap();
    let live = lab.clients[0]
        .driver
        .keyframe(start.get().unwrap())
        .unwrap();
    let s = lab.session(0);
    assert_eq!(s.tuning().redundancy, 4);
    assert_eq!(s.tuning().interp_ratio, Some(1.5));
    assert_eq!(s.correction(), CorrectionStyle::Snap);
    assert_eq!(s.snapshot_interval(), 6);

    let bytes = out.borrow().get_ref().clone();
    let (_, records) = read(&bytes);
    let turned: Vec<Duration> = records
        .iter()
        .filter_map(|r| match r {
            Record::Settings { at, .. } => Some(*at),
            _ => None,
        })
        .collect();
    // Four dials at 5 s (the snapshot rate among them), one at 8 s; each is recorded
    // at its time.
    assert_eq!(turned.len(), 5, "{turned:?}");
    assert!(
        turned[..4]
            .iter()
            .all(|at| at.abs_diff(Duration::from_secs(5)) < Duration::from_millis(5)),
        "{turned:?}"
    );
    let replayed = replay(&bytes);
    assert_eq!(replayed.diverged(), 0);
    let r = replayed.session();
    assert_eq!(
        (r.tuning(), r.correction(), r.snapshot_interval()),
        (s.tuning(), s.correction(), s.snapshot_interval())
    );
    // The very state the live client ended in, byte for byte.
    let again = replayed.keyframe().unwrap();
    assert!(
        again == live,
        "the replay's state differs from the live one's"
    );
    // The replay knows the last change and says it in the dial's words.
    let (at, text) = replayed.dialed().unwrap();
    assert_eq!(at, turned[4]);
    assert!(text.contains("interpolation delay 1.5 x 100 ms"), "{text}");
    // The snapshot rate's record says it too, in the lab's words.
    let upto = replay_until(&bytes, turned[3]);
    let (_, text) = upto.dialed().unwrap();
    assert_eq!(text, "snapshots 10 Hz: one every 6 ticks = 100 ms");
}
