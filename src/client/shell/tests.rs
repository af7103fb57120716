//! The shell's rules without a terminal: a fake screen driven through the routing of
//! events, the end of a tick and the wake-up time.

use std::time::{Duration, Instant};

use ratatui::Frame;
use ratatui::crossterm::event::{Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use super::*;
use crate::client::shell::frames::MOTION_STEP;

/// A screen that notes what reached it and quits on `x`.
#[derive(Default)]
struct Fake {
    keys: Vec<KeyEvent>,
    sizes: Vec<(u16, u16)>,
    moving: bool,
    keys_wake: bool,
    due_in: Option<Duration>,
}

impl Screen for Fake {
    fn on_key(&mut self, key: &KeyEvent, _now: Instant) -> anyhow::Result<Flow> {
        self.keys.push(*key);
        Ok(if key.code == KeyCode::Char('x') {
            Flow::Quit
        } else {
            Flow::Go
        })
    }
    fn on_resize(&mut self, w: u16, h: u16, _now: Instant) {
        self.sizes.push((w, h));
    }
    fn draw(&mut self, _frame: &mut Frame, _now: Instant, _fps: f64) {}
    fn in_motion(&self, _now: Instant) -> bool {
        self.moving
    }
    fn next_due(&self, now: Instant) -> Instant {
        self.due_in.map_or(now + MAX_SLEEP, |d| now + d)
    }
    fn keys_wake(&self) -> bool {
        self.keys_wake
    }
}

fn key(code: KeyCode, modifiers: KeyModifiers, kind: KeyEventKind) -> Event {
    Event::Key(KeyEvent::new_with_kind(code, modifiers, kind))
}

/// Ctrl-C quits every screen from anywhere (a chat being typed would have taken the
/// `c` as a letter): the shell takes it before the screen sees it. Its release, which
/// only screens that hold keys get, is an ordinary key.
#[test]
fn ctrl_c_quits_before_any_screen_sees_it() {
    let now = Instant::now();
    let mut fake = Fake::default();
    let ctrl = KeyModifiers::CONTROL;
    let press = key(KeyCode::Char('c'), ctrl, KeyEventKind::Press);
    assert_eq!(
        route(&mut fake, press, now).unwrap(),
        Routed::Done(Outcome::Quit)
    );
    assert!(
        fake.keys.is_empty(),
        "the screen saw Ctrl-C: {:?}",
        fake.keys
    );
    let release = key(KeyCode::Char('c'), ctrl, KeyEventKind::Release);
    assert_eq!(route(&mut fake, release, now).unwrap(), Routed::Go);
    assert_eq!(fake.keys.len(), 1);
}

#[test]
fn keys_go_to_the_screen_which_may_quit() {
    let now = Instant::now();
    let mut fake = Fake::default();
    let none = KeyModifiers::NONE;
    let typed = key(KeyCode::Char('c'), none, KeyEventKind::Press);
    assert_eq!(route(&mut fake, typed, now).unwrap(), Routed::Go);
    let quit = key(KeyCode::Char('x'), none, KeyEventKind::Press);
    assert_eq!(
        route(&mut fake, quit, now).unwrap(),
        Routed::Done(Outcome::Quit)
    );
    let codes: Vec<KeyCode> = fake.keys.iter().map(|k| k.code).collect();
    assert_eq!(codes, [KeyCode::Char('c'), KeyCode::Char('x')]);
}

/// A resize (and the resume after Ctrl-Z, which comes as one) reaches the screen and
/// has the shell forget what it showed.
#[test]
fn a_resize_reaches_the_screen_and_redraws_everything() {
    let now = Instant::now();
    let mut fake = Fake::default();
    assert_eq!(
        route(&mut fake, Event::Resize(100, 30), now).unwrap(),
        Routed::Resized
    );
    assert_eq!(fake.sizes, [(100, 30)]);
    assert_eq!(
        route(&mut fake, Event::FocusGained, now).unwrap(),
        Routed::Go
    );
    assert!(fake.keys.is_empty());
}

/// A tick that quits because its wait was ended by a signal is a stop (exit 128 + N),
/// not a quit (exit 0).
#[test]
fn a_tick_ended_by_a_signal_is_a_stop() {
    assert_eq!(ended(Flow::Go, true), None);
    assert_eq!(ended(Flow::Quit, false), Some(Outcome::Quit));
    assert_eq!(ended(Flow::Quit, true), Some(Outcome::Stopped));
}

/// The loop wakes for the screen's next due time; while the picture moves, for the
/// next look; and if keys cannot wake the screen's wait, often enough to read them.
#[test]
fn the_loop_wakes_for_what_is_due_motion_and_keys() {
    let now = Instant::now();
    let mut pacer = FramePacer::new(None, now);
    let mut fake = Fake {
        keys_wake: true,
        ..Fake::default()
    };
    assert_eq!(wake(&pacer, &fake, now), now + MAX_SLEEP);
    fake.due_in = Some(Duration::from_millis(30));
    assert_eq!(wake(&pacer, &fake, now), now + Duration::from_millis(30));
    fake.moving = true;
    pacer.after_frame(now, true, fake.in_motion(now));
    assert_eq!(wake(&pacer, &fake, now), now + MOTION_STEP);
    fake.moving = false;
    pacer.after_frame(now, true, fake.in_motion(now));
    fake.keys_wake = false;
    assert_eq!(wake(&pacer, &fake, now), now + KEY_CHECK);
}
