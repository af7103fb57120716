//! The app's keys: aim, overlays, the chat editor and its rate, quitting, the network and
//! dial keys.

use super::*;
use crate::client::Switches;

fn app() -> App {
    App::new(Conditions::default())
}

/// A switch key names its switch; the switches themselves are the session's, flipped
/// by the one rule in [`Switches::toggled`].
#[test]
fn reconciliation_follows_prediction() {
    let mut a = app();
    let off = a.handle(Action::TogglePrediction);
    assert_eq!(off, Some(Effect::Toggle(Switch::Prediction)));
    let s = Switches::default().toggled(Switch::Prediction);
    assert!(!s.prediction && !s.reconciliation);
    // Without prediction there is nothing to reconcile: the key does nothing.
    assert_eq!(
        a.handle(Action::ToggleReconciliation),
        Some(Effect::Toggle(Switch::Reconciliation))
    );
    assert_eq!(s.toggled(Switch::Reconciliation), s);
    assert!(!s.toggled(Switch::Reconciliation).reconciliation);
    let s = s.toggled(Switch::Prediction);
    assert!(s.prediction && s.reconciliation);
    let s = s.toggled(Switch::Reconciliation);
    assert!(s.prediction && !s.reconciliation);
}

/// The grace that keeps a diagonal aim when one of its keys goes first is a time, not a
/// count of ticks: 130 ms (rounded up to a whole tick) at 20, 60 and 128 Hz alike.
#[test]
fn a_diagonals_grace_lasts_the_same_time_at_every_tick_rate() {
    let up_right = aim_of(1, -1).unwrap();
    for rate in [20.0, 60.0, 128.0] {
        let mut a = app();
        a.command(Buttons::UP.union(Buttons::RIGHT), rate);
        assert_eq!(a.aim(), up_right);
        let kept = (0..100)
            .take_while(|_| a.command(Buttons::UP, rate).aim == up_right)
            .count();
        let ms = kept as f64 * 1000.0 / rate;
        assert!(
            (130.0..130.0 + 1000.0 / rate).contains(&ms),
            "{rate} Hz keeps the diagonal {kept} ticks, {ms:.0} ms"
        );
    }
}

#[test]
fn overlays_weapon_and_aim_stay_in_the_app() {
    let mut a = app();
    assert_eq!(a.handle(Action::ToggleScoreboard), None);
    assert_eq!(a.handle(Action::ToggleStats), None);
    assert!(a.overlays().scoreboard && a.overlays().stats && !a.overlays().help);
    assert_eq!(a.handle(Action::SelectWeapon(1)), None);
    let cmd = a.command(Buttons::LEFT, 60.0);
    assert_eq!((cmd.weapon, cmd.aim), (1, aim_of(-1, 0).unwrap()));
    // Standing still keeps the aim; firing fires that way.
    let cmd = a.command(Buttons::FIRE, 60.0);
    assert_eq!(cmd.aim, aim_of(-1, 0).unwrap());
    assert_eq!(a.handle(Action::Quit), None, "the first q asks");
    assert_eq!(a.handle(Action::Quit), Some(Effect::Quit));
}

/// The server keeps a reading player's spawn protection a little longer: it must be
/// told, in every command, while `?` help or the scoreboard is open, and only then.
#[test]
fn commands_say_when_help_or_the_scoreboard_is_open() {
    let mut a = app();
    assert!(
        !a.command(Buttons::empty(), 60.0)
            .buttons
            .contains(Buttons::READING)
    );
    a.handle(Action::ToggleStats);
    assert!(
        !a.command(Buttons::empty(), 60.0)
            .buttons
            .contains(Buttons::READING)
    );
    for open in [Action::ToggleHelp, Action::ToggleScoreboard] {
        a.handle(open);
        let cmd = a.command(Buttons::LEFT, 60.0);
        assert_eq!(cmd.buttons, Buttons::LEFT.union(Buttons::READING));
        a.handle(Action::Back);
        assert!(
            !a.command(Buttons::LEFT, 60.0)
                .buttons
                .contains(Buttons::READING)
        );
    }
}

#[test]
fn quitting_asks_once_and_any_other_key_plays_on() {
    let mut a = app();
    assert_eq!(a.handle(Action::Quit), None);
    assert!(a.quit_asked());
    assert_eq!(a.handle(Action::ToggleStats), None, "another key plays on");
    assert!(!a.quit_asked());
    assert_eq!(a.handle(Action::Quit), None, "and the next q asks again");
    assert_eq!(a.handle(Action::Quit), Some(Effect::Quit));
    // Esc with nothing open asks the same way; q confirms it.
    let mut a = app();
    a.handle(Action::ToggleStats);
    assert_eq!(a.handle(Action::Back), None, "closes the overlay");
    assert_eq!(a.handle(Action::Back), None, "asks");
    assert_eq!(a.handle(Action::Quit), Some(Effect::Quit));
}

#[test]
fn network_keys_step_and_wrap() {
    let mut a = app();
    let Some(Effect::Conditions(c)) = a.handle(Action::LagUp) else {
        panic!("lag changes the link");
    };
    assert_eq!(c.latency_ms, LAG_STEP_MS);
    assert_eq!(
        a.handle(Action::LagDown),
        Some(Effect::Conditions(Conditions::default()))
    );
    assert_eq!(a.handle(Action::LagDown), None, "already at zero");
    for want in [1.0, 2.0, 5.0, 10.0, 20.0, 0.0] {
        a.handle(Action::CycleLoss);
        assert_eq!(a.conditions().loss_pct, want);
    }
}

#[test]
fn chat_editor_takes_the_keys_and_sends_on_enter() {
    let mut a = app();
    assert_eq!(a.type_chat(ChatKey::Char('x')), None, "closed: ignored");
    a.handle(Action::OpenChat);
    assert_eq!(
        a.held(Buttons::UP),
        Buttons::empty(),
        "no moving while typing"
    );
    for c in "hi!".chars() {
        a.type_chat(ChatKey::Char(c));
    }
    a.type_chat(ChatKey::Char('\u{7}'));
    a.type_chat(ChatKey::Backspace);
    assert_eq!(a.chat_input(), Some("hi"));
    assert_eq!(a.type_chat(ChatKey::Send), Some(Effect::Chat("hi".into())));
    assert!(!a.chatting());
    a.handle(Action::OpenChat);
    a.type_chat(ChatKey::Char(' '));
    assert_eq!(a.type_chat(ChatKey::Send), None, "blank lines are not sent");
    a.handle(Action::OpenChat);
    a.type_chat(ChatKey::Char('x'));
    a.type_chat(ChatKey::Cancel);
    assert_eq!(a.chat_input(), None);
    assert_eq!(a.held(Buttons::UP), Buttons::UP);
}

/// Esc quit even with an overlay open; now it closes what is open first.
#[test]
fn esc_closes_overlays_before_quitting_and_shift_turns() {
    let mut a = app();
    a.handle(Action::ToggleHelp);
    a.handle(Action::ToggleStats);
    assert_eq!(a.handle(Action::Back), None);
    assert_eq!(a.overlays(), Overlays::default());
    assert_eq!(a.handle(Action::Back), None, "asks before quitting");
    assert_eq!(a.handle(Action::Back), Some(Effect::Quit));
    a.handle(Action::Face(4));
    assert_eq!(
        a.command(Buttons::empty(), 60.0).aim,
        4,
        "turned, not walking"
    );
    assert_eq!(a.command(Buttons::empty(), 60.0).buttons, Buttons::empty());
}

/// The server drops chat lines past its rate without a word; the client now keeps
/// the same count and says so.
#[test]
fn chat_past_the_rate_is_not_sent_and_the_player_is_told() {
    let t0 = Instant::now();
    let mut a = app();
    for _ in 0..3 {
        assert!(a.may_send_chat(t0));
    }
    assert!(!a.may_send_chat(t0));
    assert!(a.note(t0).is_some_and(|n| n.contains("not sent")));
    let later = t0 + std::time::Duration::from_millis(1000);
    assert!(a.may_send_chat(later));
    assert!(a.note(t0 + std::time::Duration::from_secs(5)).is_none());
}

mod stepped {
    //! Keys, app and session stepped on simulated time, one millisecond a step.

    use std::time::{Duration, Instant};

    use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

    use super::*;
    use crate::client::driver::Driver;
    use crate::client::netcode::session::ClientSession;
    use crate::client::play::input::Keys;
    use crate::net::delta;
    use crate::net::protocol::{PlayerSnap, ServerMsg, Snapshot, SnapshotHeader};
    use crate::sim::world::PlayerState;

    fn driver(t0: Instant) -> Driver {
        let session = ClientSession::on_duel(1, t0);
        let mut d = Driver::new(session, app(), t0);
        // In the open at (12, 5) of duel.
        let snap = Snapshot {
            header: SnapshotHeader {
                tick: 1,
                ..Default::default()
            },
            players: vec![PlayerSnap {
                id: 1,
                state: PlayerState::at_cell(12, 5),
            }],
        };
        d.receive(t0, ServerMsg::Snapshot(delta::encode(&snap, None)), 60);
        d
    }

    fn press(code: KeyCode, kind: KeyEventKind) -> KeyEvent {
        KeyEvent::new_with_kind(code, KeyModifiers::NONE, kind)
    }

    /// Steps `d` from `from` to `to` ms with the keys `k` holds; `events` are
    /// (ms, key) handed to `k` as they fall due.
    fn run(
        d: &mut Driver,
        k: &mut Keys,
        t0: Instant,
        ms: std::ops::Range<u64>,
        events: &[(u64, KeyEvent)],
    ) {
        for n in ms {
            let now = t0 + Duration::from_millis(n);
            for (_, ev) in events.iter().filter(|(at, _)| *at == n) {
                if let Some(action) = k.handle(ev, now) {
                    d.handle(action);
                }
            }
            d.play(now, k.buttons(now), |_| {});
            if n % 50 == 49 {
                acknowledge(d, now, n as u32 + 2);
            }
        }
    }

    /// The server's word that every command so far was applied where the prediction
    /// put it: a client that hears nothing stops making commands
    /// (`client::netcode::outage`).
    fn acknowledge(d: &mut Driver, now: Instant, tick: u32) {
        let s = d.session();
        let Some(state) = s.predicted() else {
            return;
        };
        let snap = Snapshot {
            header: SnapshotHeader {
                tick,
                ack_seq: s.latest_seq(),
                ..Default::default()
            },
            players: vec![PlayerSnap { id: 1, state }],
        };
        d.receive(now, ServerMsg::Snapshot(delta::encode(&snap, None)), 60);
    }

    /// One tap of a direction walked 4-5 cells in terminals without key releases:
    /// now it walks about one cell, the same whenever between ticks it falls.
    #[test]
    fn a_tap_moves_one_cell_whatever_its_phase() {
        let cell = f64::from(crate::sim::map::CELL);
        for phase in 0..17 {
            let t0 = Instant::now();
            let mut d = driver(t0);
            let mut k = Keys::new(false);
            let start = d.session().predicted().unwrap().x;
            let tap = [(500 + phase, press(KeyCode::Char('d'), KeyEventKind::Press))];
            run(&mut d, &mut k, t0, 0..1500, &tap);
            let moved = f64::from(d.session().predicted().unwrap().x - start) / cell;
            assert!(
                (0.85..=1.1).contains(&moved),
                "a tap at phase {phase} ms moved {moved:.2} cells"
            );
        }
    }

    /// A diagonal aim was lost on release, because one of its keys goes first.
    #[test]
    fn a_diagonal_aim_survives_the_release_of_its_keys() {
        let up_right = aim_of(1, -1).unwrap();
        // With release events: up goes 40 ms before right.
        let t0 = Instant::now();
        let mut d = driver(t0);
        let mut k = Keys::new(true);
        let keys = [
            (100, press(KeyCode::Char('w'), KeyEventKind::Press)),
            (105, press(KeyCode::Char('d'), KeyEventKind::Press)),
            (400, press(KeyCode::Char('w'), KeyEventKind::Release)),
            (440, press(KeyCode::Char('d'), KeyEventKind::Release)),
        ];
        run(&mut d, &mut k, t0, 0..800, &keys);
        assert_eq!(d.app().aim(), up_right);
        // Without: two taps 20 ms apart, each expiring on its own.
        let mut d = driver(t0);
        let mut k = Keys::new(false);
        let keys = [
            (100, press(KeyCode::Char('w'), KeyEventKind::Press)),
            (120, press(KeyCode::Char('d'), KeyEventKind::Press)),
        ];
        run(&mut d, &mut k, t0, 0..800, &keys);
        assert_eq!(d.app().aim(), up_right);
        // A direction held on its own still turns, after the grace.
        let keys = [(900, press(KeyCode::Right, KeyEventKind::Press))];
        let mut k = Keys::new(true);
        run(&mut d, &mut k, t0, 800..1200, &keys);
        assert_eq!(d.app().aim(), aim_of(1, 0).unwrap());
    }
}

/// The dial keys: `k` and `K` go round the player's dials, `[` and `]` ask the driver
/// to turn the chosen one. A keyframe's dial out of range (a corrupt file) chooses
/// within range, and the next key neither panics nor leaves it out of range.
#[test]
fn the_dial_keys_go_round_and_ask_for_a_turn() {
    use crate::client::dials::DIALS;
    let mut a = app();
    assert_eq!(a.dial(), 0);
    assert_eq!(a.handle(Action::PreviousDial), None);
    assert_eq!(a.dial(), DIALS.len() - 1);
    assert_eq!(a.handle(Action::NextDial), None);
    assert_eq!(a.handle(Action::NextDial), None);
    assert_eq!(a.dial(), 1);
    assert_eq!(
        a.handle(Action::DialUp),
        Some(Effect::Turn { dial: 1, up: true })
    );
    assert_eq!(
        a.handle(Action::DialDown),
        Some(Effect::Turn { dial: 1, up: false })
    );
    a.dial = u8::MAX;
    assert!(a.dial() < DIALS.len());
    a.handle(Action::NextDial);
    assert!(usize::from(a.dial) < DIALS.len());
    a.dial = 0;
    a.handle(Action::PreviousDial);
    assert_eq!(a.dial(), DIALS.len() - 1);
}
