//! Keys to button state and actions.
//!
//! Holding a key must move smoothly and letting go must stop promptly. Terminals that
//! speak the keyboard enhancement protocol report releases, which is exact. Others only
//! send a press and then, after the OS repeat delay, a stream of repeats; there a key
//! counts as held until a timeout after its last press or repeat. After a first press
//! that timeout is short, so a tap moves about one cell, always the same; once repeats
//! flow it bridges the gaps between them. (Holding a key therefore steps one cell,
//! pauses for the repeat delay, then runs: precise taps are worth that.)

use std::time::{Duration, Instant};

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use crate::sim::world::Buttons;

/// How long a first press of a direction counts as held: about one cell of movement
/// (9 cells a second: 7 command ticks at 60 Hz, 6 at worst).
pub(crate) const TAP_HOLD: Duration = Duration::from_millis(110);
/// Once repeats arrive every ~30 ms, a gap this long means the key was released.
const REPEAT_HOLD: Duration = Duration::from_millis(150);
/// A second press this soon after the first is an auto-repeat, not a new press.
const REPEAT_WINDOW: Duration = Duration::from_millis(700);

/// Something a key asks for besides movement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    Quit,
    /// Esc: closes what is open (overlays), or quits when nothing is.
    Back,
    /// Turn to face this aim (0..8) without walking.
    Face(u8),
    TogglePrediction,
    ToggleReconciliation,
    ToggleInterpolation,
    ToggleExtrapolation,
    ToggleSmoothing,
    CycleGhosts,
    ToggleStats,
    ToggleHelp,
    LagUp,
    LagDown,
    CycleJitter,
    CycleLoss,
    CycleProfile,
    SelectWeapon(u8),
    ToggleScoreboard,
    OpenChat,
    ToggleLagCompensation,
}

/// One key into the chat editor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChatKey {
    Char(char),
    Backspace,
    Send,
    Cancel,
}

#[derive(Clone, Copy, Debug)]
struct Hold {
    last: Instant,
    repeating: bool,
}

/// The held keys: four directions, then fire.
const HELD: [Buttons; 5] = [
    Buttons::UP,
    Buttons::DOWN,
    Buttons::LEFT,
    Buttons::RIGHT,
    Buttons::FIRE,
];
const FIRE: usize = 4;
/// A single tap of fire is one shot, not half a second of shooting: its first hold is
/// short. Held down, repeats keep it going.
const FIRE_FIRST_HOLD: Duration = Duration::from_millis(120);

#[derive(Debug)]
pub(crate) struct Keys {
    /// True when the terminal reports key releases.
    enhanced: bool,
    held: [Option<Hold>; 5],
}

fn held_key(code: KeyCode, modifiers: KeyModifiers) -> Option<usize> {
    if modifiers.contains(KeyModifiers::SHIFT) {
        // Shifted directions turn (see `face_key`); a shifted space still fires.
        return (code == KeyCode::Char(' ')).then_some(FIRE);
    }
    match code {
        KeyCode::Char(' ') => Some(FIRE),
        KeyCode::Up | KeyCode::Char('w') => Some(0),
        KeyCode::Down | KeyCode::Char('s') => Some(1),
        KeyCode::Left | KeyCode::Char('a') => Some(2),
        KeyCode::Right | KeyCode::Char('d') => Some(3),
        _ => None,
    }
}

/// Shift with a direction (`W A S D`, or Shift and an arrow): the aim to turn to.
fn face_key(code: KeyCode, modifiers: KeyModifiers) -> Option<u8> {
    let shifted = modifiers.contains(KeyModifiers::SHIFT);
    match code {
        KeyCode::Char('D') => Some(0),
        KeyCode::Right if shifted => Some(0),
        KeyCode::Char('S') => Some(2),
        KeyCode::Down if shifted => Some(2),
        KeyCode::Char('A') => Some(4),
        KeyCode::Left if shifted => Some(4),
        KeyCode::Char('W') => Some(6),
        KeyCode::Up if shifted => Some(6),
        _ => None,
    }
}

impl Keys {
    pub(crate) fn new(enhanced: bool) -> Keys {
        Keys {
            enhanced,
            held: [None; 5],
        }
    }

    /// Takes one key event; returns an action if the key is bound to one.
    pub(crate) fn handle(&mut self, ev: &KeyEvent, now: Instant) -> Option<Action> {
        if let Some(i) = held_key(ev.code, ev.modifiers) {
            match ev.kind {
                KeyEventKind::Release => self.held[i] = None,
                KeyEventKind::Press | KeyEventKind::Repeat => {
                    let repeating = ev.kind == KeyEventKind::Repeat
                        || self.held[i].is_some_and(|h| now.duration_since(h.last) < REPEAT_WINDOW);
                    self.held[i] = Some(Hold {
                        last: now,
                        repeating,
                    });
                    if !self.enhanced && i != FIRE {
                        // Without release events a terminal repeats only the last key
                        // pressed, so the opposite direction is certainly not held.
                        self.held[i ^ 1] = None;
                    }
                }
            }
            return None;
        }
        if ev.kind == KeyEventKind::Release {
            return None;
        }
        if ev.modifiers.contains(KeyModifiers::CONTROL) {
            return matches!(ev.code, KeyCode::Char('c')).then_some(Action::Quit);
        }
        if let Some(aim) = face_key(ev.code, ev.modifiers) {
            return Some(Action::Face(aim));
        }
        match ev.code {
            KeyCode::Char('q') => Some(Action::Quit),
            KeyCode::Esc => Some(Action::Back),
            KeyCode::Char('p') => Some(Action::TogglePrediction),
            KeyCode::Char('r') => Some(Action::ToggleReconciliation),
            KeyCode::Char('i') => Some(Action::ToggleInterpolation),
            KeyCode::Char('x') => Some(Action::ToggleExtrapolation),
            KeyCode::Char('m') => Some(Action::ToggleSmoothing),
            KeyCode::Char('g') => Some(Action::CycleGhosts),
            KeyCode::Char('n') => Some(Action::ToggleStats),
            KeyCode::Char('?') | KeyCode::F(1) => Some(Action::ToggleHelp),
            KeyCode::Char('+' | '=') => Some(Action::LagUp),
            KeyCode::Char('-' | '_') => Some(Action::LagDown),
            KeyCode::Char('j') => Some(Action::CycleJitter),
            KeyCode::Char('l') => Some(Action::CycleLoss),
            KeyCode::Char('c') => Some(Action::CycleProfile),
            KeyCode::Char('1') => Some(Action::SelectWeapon(0)),
            KeyCode::Char('2') => Some(Action::SelectWeapon(1)),
            KeyCode::Tab => Some(Action::ToggleScoreboard),
            KeyCode::Char('t') => Some(Action::OpenChat),
            KeyCode::Char('v') => Some(Action::ToggleLagCompensation),
            _ => None,
        }
    }

    /// The buttons held at `now`.
    pub(crate) fn buttons(&mut self, now: Instant) -> Buttons {
        let mut b = Buttons::empty();
        for (i, slot) in self.held.iter_mut().enumerate() {
            if let Some(h) = *slot {
                let limit = match (h.repeating, i) {
                    (true, _) => REPEAT_HOLD,
                    (false, FIRE) => FIRE_FIRST_HOLD,
                    (false, _) => TAP_HOLD,
                };
                if !self.enhanced && now.duration_since(h.last) > limit {
                    *slot = None;
                    continue;
                }
                b.set(HELD[i], true);
            }
        }
        b
    }
}

/// A key for the chat editor, if it means anything there.
pub(crate) fn chat_key(ev: &KeyEvent) -> Option<ChatKey> {
    if ev.kind == KeyEventKind::Release {
        return None;
    }
    match ev.code {
        KeyCode::Esc => Some(ChatKey::Cancel),
        KeyCode::Enter => Some(ChatKey::Send),
        KeyCode::Backspace => Some(ChatKey::Backspace),
        KeyCode::Char(c) => Some(ChatKey::Char(c)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(code: KeyCode, kind: KeyEventKind) -> KeyEvent {
        KeyEvent::new_with_kind(code, KeyModifiers::NONE, kind)
    }

    /// A tap used to count as held for 550 ms (to bridge the repeat delay), so one tap
    /// of a direction walked 4-5 cells.
    #[test]
    fn legacy_tap_is_short_and_a_hold_runs_once_repeats_flow() {
        let t0 = Instant::now();
        let ms = |n| t0 + Duration::from_millis(n);
        let mut k = Keys::new(false);
        k.handle(&key(KeyCode::Char('d'), KeyEventKind::Press), t0);
        assert_eq!(k.buttons(ms(100)), Buttons::RIGHT, "a tap holds briefly");
        assert_eq!(k.buttons(ms(120)), Buttons::empty(), "and no longer");
        // Repeats every 33 ms from 500 ms to 1000 ms, then the key is let go.
        let mut t = 500;
        while t <= 1000 {
            k.handle(&key(KeyCode::Char('d'), KeyEventKind::Press), ms(t));
            assert_eq!(k.buttons(ms(t + 20)), Buttons::RIGHT);
            t += 33;
        }
        assert_eq!(
            k.buttons(ms(1200)),
            Buttons::empty(),
            "stopped within 200 ms of release"
        );
    }

    #[test]
    fn shifted_directions_turn_without_walking() {
        let t0 = Instant::now();
        let mut k = Keys::new(false);
        let shift = |code| KeyEvent::new(code, KeyModifiers::SHIFT);
        assert_eq!(
            k.handle(&shift(KeyCode::Char('A')), t0),
            Some(Action::Face(4))
        );
        assert_eq!(k.handle(&shift(KeyCode::Up), t0), Some(Action::Face(6)));
        assert_eq!(k.buttons(t0), Buttons::empty());
    }

    #[test]
    fn enhanced_terminals_use_release_events() {
        let t0 = Instant::now();
        let mut k = Keys::new(true);
        k.handle(&key(KeyCode::Up, KeyEventKind::Press), t0);
        k.handle(&key(KeyCode::Left, KeyEventKind::Press), t0);
        assert_eq!(
            k.buttons(t0 + Duration::from_secs(5)),
            Buttons::UP.union(Buttons::LEFT)
        );
        k.handle(&key(KeyCode::Up, KeyEventKind::Release), t0);
        assert_eq!(k.buttons(t0), Buttons::LEFT);
    }

    #[test]
    fn opposite_key_cancels_in_legacy_mode() {
        let t0 = Instant::now();
        let mut k = Keys::new(false);
        k.handle(&key(KeyCode::Char('a'), KeyEventKind::Press), t0);
        k.handle(&key(KeyCode::Char('d'), KeyEventKind::Press), t0);
        assert_eq!(k.buttons(t0), Buttons::RIGHT);
    }

    #[test]
    fn actions() {
        let mut k = Keys::new(false);
        let t0 = Instant::now();
        assert_eq!(
            k.handle(&key(KeyCode::Char('q'), KeyEventKind::Press), t0),
            Some(Action::Quit)
        );
        assert_eq!(
            k.handle(&key(KeyCode::Esc, KeyEventKind::Press), t0),
            Some(Action::Back)
        );
        let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
        assert_eq!(k.handle(&ctrl_c, t0), Some(Action::Quit));
        assert_eq!(
            k.handle(&key(KeyCode::Char('g'), KeyEventKind::Press), t0),
            Some(Action::CycleGhosts)
        );
    }
}
