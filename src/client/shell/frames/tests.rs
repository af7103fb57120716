//! The wait-driven loop on simulated time: it sleeps as the pacer says, wakes for
//! datagrams and keys, and must still show every change of the picture at once.

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;

use super::*;
use crate::client::driver::Driver;
use crate::client::netcode::rates::Rates;
use crate::client::netcode::session::ClientSession;
use crate::client::play::app::App;
use crate::net::conditioner::Conditions;
use crate::net::delta;
use crate::net::protocol::{PlayerSnap, ServerMsg, Snapshot, SnapshotHeader};
use crate::sim::world::{Buttons, PlayerState};
use crate::ui;

const ME: u8 = 1;
const THEM: u8 = 2;

fn driver(t0: Instant) -> Driver {
    let session = ClientSession::on_duel(ME, t0);
    Driver::new(session, App::new(Conditions::default()), t0)
}

/// The k-th snapshot: we stand at (1, 1); they walk right along row 5 for 15
/// snapshots, then stand still. Every command so far is acknowledged.
fn snapshot(k: u32, ack_seq: u32) -> ServerMsg {
    let step = k.min(15) as i32;
    let mut them = PlayerState::at_cell(1, 5);
    them.x += step * 115;
    them.vx = if k < 15 { 38 } else { 0 };
    let snap = Snapshot {
        header: SnapshotHeader {
            tick: 3 * k + 1,
            ack_seq,
            ..Default::default()
        },
        players: vec![
            PlayerSnap {
                id: ME,
                state: PlayerState::at_cell(1, 1),
            },
            PlayerSnap {
                id: THEM,
                state: them,
            },
        ],
    };
    ServerMsg::Snapshot(delta::encode(&snap, None))
}

/// The picture at `now`, as a terminal of 60x20 would show it.
fn picture(term: &mut Terminal<TestBackend>, d: &Driver, now: Instant) -> Buffer {
    let view = d.view(now, 0.0, Rates::default());
    term.draw(|f| ui::draw(f, &view)).unwrap();
    term.backend().buffer().clone()
}

#[test]
fn the_wait_driven_loop_shows_every_change_at_once_and_sleeps_when_still() {
    let t0 = Instant::now();
    let ms = |n: u64| t0 + Duration::from_millis(n);
    let mut d = driver(t0);
    let mut pacer = FramePacer::new(None, t0);
    let (mut seen, mut truth) = (
        Terminal::new(TestBackend::new(60, 20)).unwrap(),
        Terminal::new(TestBackend::new(60, 20)).unwrap(),
    );
    let mut shown = Buffer::empty(ratatui::layout::Rect::ZERO);
    // Presses 1 ms after a command tick (at 1500 and 1800 ms) and half way between two
    // (1708 ms): each must be drawn at once, not at the next tick.
    let presses = [
        (ms(1501), ms(1650), Buttons::LEFT),
        (ms(1708), ms(1790), Buttons::RIGHT),
        (ms(1801), ms(1950), Buttons::LEFT),
    ];
    let mut next_snapshot = 0u32;
    let (mut draws, mut wakes, mut stale_run, mut worst_stale) = (Vec::new(), Vec::new(), 0, 0);
    let mut now = t0;
    while now < ms(2500) {
        wakes.push(now);
        while ms(50 * u64::from(next_snapshot)) <= now {
            let acked = d.session().latest_seq();
            d.receive(now, snapshot(next_snapshot, acked), 60);
            next_snapshot += 1;
        }
        let keys = presses
            .iter()
            .find(|(down, up, _)| (*down..*up).contains(&now))
            .map_or(Buttons::empty(), |p| p.2);
        d.play(now, keys, |_| {});
        d.frame(now);
        let p = picture(&mut seen, &d, now);
        if p != shown {
            shown = p;
            draws.push(now);
        }
        pacer.after_frame(now, draws.last() == Some(&now), d.in_motion(now));
        // Wake for the pacer, the next datagram or the key, whichever is first.
        let mut wake = pacer
            .next_wake(now, d.next_command())
            .min(ms(50 * u64::from(next_snapshot)));
        for k in presses.iter().flat_map(|p| [p.0, p.1]) {
            if k > now {
                wake = wake.min(k);
            }
        }
        // Until then the screen keeps `shown`: how long does it differ from the truth?
        let mut u = now + Duration::from_millis(1);
        while u < wake {
            if picture(&mut truth, &d, u) == shown {
                stale_run = 0;
            } else {
                stale_run += 1;
                worst_stale = worst_stale.max(stale_run);
            }
            u += Duration::from_millis(1);
        }
        stale_run = 0;
        now = wake;
    }
    assert!(
        worst_stale <= MOTION_STEP.as_millis() as u64,
        "a change waited {worst_stale} ms"
    );
    for (down, _, keys) in presses {
        let after = down.duration_since(t0).as_millis();
        assert!(
            draws.contains(&down),
            "{keys:?} pressed at {after} ms is not drawn at once"
        );
    }
    // They moved for about a second: drawn many times, but not every millisecond.
    let moving = draws
        .iter()
        .filter(|t| (ms(100)..ms(1100)).contains(*t))
        .count();
    assert!(
        (10..300).contains(&moving),
        "{moving} frames while they moved"
    );
    // Once everyone stands still the loop wakes only for command ticks (60 a second)
    // and snapshots (20): 200 ms, about 16 wakes, not one every 4 ms.
    let still = wakes
        .iter()
        .filter(|t| (ms(1300)..ms(1500)).contains(*t))
        .count();
    assert!(still <= 18, "{still} wakes in 200 ms while still");
    let moving = wakes
        .iter()
        .filter(|t| (ms(300)..ms(500)).contains(*t))
        .count();
    assert!(moving >= 40, "{moving} wakes in 200 ms while they moved");
    assert!(wakes.len() < 2500 / 3, "{} wakes in 2.5 s", wakes.len());
}
