//! Keys to button state and actions.
//!
//! Holding a key must move smoothly and letting go must stop promptly. Terminals that
//! speak the keyboard enhancement protocol report releases, which is exact. Others only
//! send a press and then, after the OS repeat delay, a stream of repeats; there a key
//! counts as held until a timeout after its last press or repeat: long after the first
//! press (to bridge the repeat delay), short once repeats are flowing.

use std::time::{Duration, Instant};

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use crate::sim::world::Buttons;

/// Bridges the gap between a key's first press and its first auto-repeat (typically
/// 250-600 ms).
const FIRST_HOLD: Duration = Duration::from_millis(550);
/// Once repeats arrive every ~30 ms, a gap this long means the key was released.
const REPEAT_HOLD: Duration = Duration::from_millis(150);
/// A second press this soon after the first is an auto-repeat, not a new press.
const REPEAT_WINDOW: Duration = Duration::from_millis(700);

/// Something a key asks for besides movement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    Quit,
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

fn held_key(code: KeyCode) -> Option<usize> {
    match code {
        KeyCode::Char(' ') => Some(FIRE),
        KeyCode::Up | KeyCode::Char('w' | 'W') => Some(0),
        KeyCode::Down | KeyCode::Char('s' | 'S') => Some(1),
        KeyCode::Left | KeyCode::Char('a' | 'A') => Some(2),
        KeyCode::Right | KeyCode::Char('d' | 'D') => Some(3),
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
        if let Some(i) = held_key(ev.code) {
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
        match ev.code {
            KeyCode::Char('q') | KeyCode::Esc => Some(Action::Quit),
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
                    (false, _) => FIRST_HOLD,
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

    #[test]
    fn legacy_hold_bridges_the_repeat_delay_and_stops_after_release() {
        let t0 = Instant::now();
        let ms = |n| t0 + Duration::from_millis(n);
        let mut k = Keys::new(false);
        k.handle(&key(KeyCode::Char('d'), KeyEventKind::Press), t0);
        assert_eq!(
            k.buttons(ms(400)),
            Buttons::RIGHT,
            "still held before the first repeat"
        );
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
            Some(Action::Quit)
        );
        let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
        assert_eq!(k.handle(&ctrl_c, t0), Some(Action::Quit));
        assert_eq!(
            k.handle(&key(KeyCode::Char('g'), KeyEventKind::Press), t0),
            Some(Action::CycleGhosts)
        );
    }
}
