//! Keys to button state and actions.
//!
//! Holding a key must move smoothly and letting go must stop promptly. Terminals that
//! speak the keyboard enhancement protocol report releases, which is exact. Others only
//! send a press and then, after the OS repeat delay, a stream of repeats; there a key
//! counts as held until a timeout after its last press or repeat. After a first press
//! that timeout is short, so a tap moves about one cell, always the same; once repeats
//! flow it bridges the gaps between them. (Holding a key therefore steps one cell,
//! pauses for the repeat delay, then runs: precise taps are worth that.)
#![doc(hidden)] // Public for the binary, tests or fuzz targets: see the crate docs.

use std::time::{Duration, Instant};

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use crate::sim::world::Buttons;
use crate::ui::keys::{self, Game as Bound, Key};

/// How long a first press of a direction counts as held: about one cell of movement
/// (9 cells a second: 7 command ticks at 60 Hz, 6 at worst).
pub(crate) const TAP_HOLD: Duration = Duration::from_millis(110);
/// Once repeats arrive every ~30 ms, a gap this long means the key was released.
const REPEAT_HOLD: Duration = Duration::from_millis(150);
/// A second press this soon after the first is an auto-repeat, not a new press.
const REPEAT_WINDOW: Duration = Duration::from_millis(700);

pub use crate::ui::keys::{Action, ChatKey};

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
    bindings: Bindings,
}

/// The game's keys, by the name the config file's `[keys]` uses, with their defaults:
/// the one binding table's (`ui::keys::GAME`), which `Bindings::default`, the config
/// file and its errors read.
fn named() -> impl Iterator<Item = &'static Key<Bound>> {
    keys::GAME.iter().flat_map(|r| r.keys)
}

/// The names `[keys]` accepts, for error messages and the docs.
pub fn binding_names() -> impl Iterator<Item = &'static str> {
    keys::game_names()
}

/// Which key does what in the game: the defaults, with the player's own bindings (the
/// config file's `[keys]`) in place of them. Ctrl-C always quits; Shift with a
/// direction's key turns to face that way.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bindings {
    table: Vec<(KeyCode, Bound)>,
    /// The keys bound by [`Bindings::bind`], and to what, so one key cannot be given
    /// to two actions.
    chosen: Vec<(KeyCode, &'static str)>,
}

impl Default for Bindings {
    fn default() -> Bindings {
        let table = named().map(|k| (k.code, k.does)).collect();
        Bindings {
            table,
            chosen: Vec::new(),
        }
    }
}

impl Bindings {
    /// Binds `action` (a name from [`binding_names`]) to `keys` instead of its
    /// defaults; a key that did something else by default now does only this. The
    /// error is one line, for the caller to prefix with where the binding came from.
    pub fn bind(&mut self, action: &str, keys: &[&str]) -> Result<(), String> {
        let Some(Key {
            name, does: bound, ..
        }) = named().find(|k| !k.name.is_empty() && k.name == action)
        else {
            return Err(format!(
                "unknown action {action:?} (one of: {})",
                binding_names().collect::<Vec<_>>().join(", ")
            ));
        };
        let codes = keys
            .iter()
            .map(|k| key_code(k))
            .collect::<Result<Vec<_>, _>>()?;
        if codes.is_empty() {
            return Err(format!("no key given for {action:?}"));
        }
        if let Some((i, (_, other))) = codes.iter().enumerate().find_map(|(i, c)| {
            self.chosen
                .iter()
                .find(|(k, n)| k == c && n != name)
                .map(|found| (i, *found))
        }) {
            return Err(format!("key {:?} is already bound to {other:?}", keys[i]));
        }
        self.chosen.retain(|(_, n)| n != name);
        self.chosen.extend(codes.iter().map(|c| (*c, *name)));
        self.table
            .retain(|(code, b)| b != bound && !codes.contains(code));
        self.table.extend(codes.into_iter().map(|c| (c, *bound)));
        Ok(())
    }

    fn get(&self, code: KeyCode) -> Option<Bound> {
        self.table
            .iter()
            .find_map(|(c, b)| (*c == code).then_some(*b))
    }

    fn held_key(&self, code: KeyCode, modifiers: KeyModifiers) -> Option<usize> {
        if modifiers.contains(KeyModifiers::SHIFT) && code != KeyCode::Char(' ') {
            // Shifted directions turn (see `face_key`); a shifted space still fires.
            return None;
        }
        match self.get(code)? {
            Bound::Hold(b) => HELD.iter().position(|h| *h == b),
            Bound::Act(_) | Bound::Save => None,
        }
    }

    /// Shift with a direction's key (`W A S D`, or Shift and an arrow): the aim to
    /// turn to.
    fn face_key(&self, code: KeyCode, modifiers: KeyModifiers) -> Option<u8> {
        let base = match code {
            KeyCode::Char(c) if c.is_ascii_uppercase() => KeyCode::Char(c.to_ascii_lowercase()),
            KeyCode::Char(_) => return None,
            other if modifiers.contains(KeyModifiers::SHIFT) => other,
            _ => return None,
        };
        match self.get(base)? {
            Bound::Hold(Buttons::RIGHT) => Some(0),
            Bound::Hold(Buttons::DOWN) => Some(2),
            Bound::Hold(Buttons::LEFT) => Some(4),
            Bound::Hold(Buttons::UP) => Some(6),
            _ => None,
        }
    }

    fn action(&self, code: KeyCode) -> Option<Action> {
        match self.get(code)? {
            Bound::Act(a) => Some(a),
            Bound::Hold(_) | Bound::Save => None,
        }
    }
}

/// A key by its name in the config file: one character, or `space`, `tab`, `esc`,
/// `enter`, `backspace`, `up`, `down`, `left`, `right`, `f1` to `f12`.
fn key_code(name: &str) -> Result<KeyCode, String> {
    let mut chars = name.chars();
    if let (Some(c), None) = (chars.next(), chars.next()) {
        if c.is_ascii_uppercase() {
            return Err(format!(
                "key {name:?}: Shift with a direction's key turns; bind \"{}\"",
                c.to_ascii_lowercase()
            ));
        }
        if c.is_control() {
            return Err(format!("key {name:?} is a control character"));
        }
        return Ok(KeyCode::Char(c));
    }
    let lower = name.to_ascii_lowercase();
    let code = match lower.as_str() {
        "space" => KeyCode::Char(' '),
        "tab" => KeyCode::Tab,
        "esc" | "escape" => KeyCode::Esc,
        "enter" => KeyCode::Enter,
        "backspace" => KeyCode::Backspace,
        "up" => KeyCode::Up,
        "down" => KeyCode::Down,
        "left" => KeyCode::Left,
        "right" => KeyCode::Right,
        f if f.starts_with('f') => match f[1..].parse::<u8>() {
            Ok(n @ 1..=12) => KeyCode::F(n),
            _ => return Err(format!("unknown key {name:?}")),
        },
        _ => return Err(format!("unknown key {name:?}")),
    };
    Ok(code)
}

impl Keys {
    pub(crate) fn new(enhanced: bool) -> Keys {
        Keys::with_bindings(enhanced, Bindings::default())
    }

    pub(crate) fn with_bindings(enhanced: bool, bindings: Bindings) -> Keys {
        Keys {
            enhanced,
            held: [None; 5],
            bindings,
        }
    }

    /// Takes one key event; returns an action if the key is bound to one.
    pub(crate) fn handle(&mut self, ev: &KeyEvent, now: Instant) -> Option<Action> {
        if let Some(i) = self.bindings.held_key(ev.code, ev.modifiers) {
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
        if let Some(aim) = self.bindings.face_key(ev.code, ev.modifiers) {
            return Some(Action::Face(aim));
        }
        self.bindings.action(ev.code)
    }

    /// Whether `ev` asks to save the session kept in memory (F8 unless rebound).
    pub(crate) fn saves(&self, ev: &KeyEvent) -> bool {
        ev.kind != KeyEventKind::Release && self.bindings.get(ev.code) == Some(Bound::Save)
    }

    /// Whether `ev`'s key quits or closes (`q`, `Esc` unless rebound): what still acts
    /// while the terminal is too small to show the game.
    pub(crate) fn quits(&self, ev: &KeyEvent) -> bool {
        matches!(
            self.bindings.action(ev.code),
            Some(Action::Quit | Action::Back)
        )
    }

    /// Lets go of every key: after a resize or a suspend, whose releases may never come.
    pub(crate) fn release_all(&mut self) {
        self.held = [None; 5];
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

/// A key for the chat editor, if it means anything there (the binding table's
/// `CHAT` rows, else a typed character).
pub(crate) fn chat_key(ev: &KeyEvent) -> Option<ChatKey> {
    keys::chat_key(ev)
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

    /// A key held when Ctrl-Z suspended the game was still held after `fg` (its release
    /// came while the game was stopped), and the player walked on by itself.
    #[test]
    fn release_all_lets_go_of_keys_held_in_an_enhanced_terminal() {
        let t0 = Instant::now();
        let mut k = Keys::new(true);
        k.handle(&key(KeyCode::Up, KeyEventKind::Press), t0);
        k.release_all();
        assert_eq!(k.buttons(t0 + Duration::from_secs(5)), Buttons::empty());
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

    #[test]
    fn rebound_keys_act_and_their_defaults_do_not() {
        let t0 = Instant::now();
        let mut b = Bindings::default();
        b.bind("fire", &["f"]).unwrap();
        b.bind("up", &["k", "up"]).unwrap();
        // `p` was prediction's: bound to chat, it only opens chat now.
        b.bind("chat", &["p"]).unwrap();
        let press = |c| key(c, KeyEventKind::Press);
        let mut k = Keys::with_bindings(false, b.clone());
        k.handle(&press(KeyCode::Char('f')), t0);
        assert_eq!(k.buttons(t0), Buttons::FIRE);
        let mut k = Keys::with_bindings(false, b);
        k.handle(&press(KeyCode::Char(' ')), t0);
        assert_eq!(k.buttons(t0), Buttons::empty(), "space no longer fires");
        k.handle(&press(KeyCode::Char('k')), t0);
        assert_eq!(k.buttons(t0), Buttons::UP);
        assert_eq!(k.handle(&press(KeyCode::Char('w')), t0), None);
        assert_eq!(
            k.handle(&press(KeyCode::Char('p')), t0),
            Some(Action::OpenChat)
        );
        assert_eq!(k.handle(&press(KeyCode::Char('t')), t0), None);
        // Shift with the new up key turns up.
        let shift_k = KeyEvent::new(KeyCode::Char('K'), KeyModifiers::SHIFT);
        assert_eq!(k.handle(&shift_k, t0), Some(Action::Face(6)));
    }

    #[test]
    fn a_bad_binding_is_one_line_naming_what_is_wrong() {
        let mut b = Bindings::default();
        let err = b.bind("jump", &["j"]).unwrap_err();
        assert!(
            err.starts_with("unknown action \"jump\" (one of: up, down"),
            "{err}"
        );
        let err = b.bind("fire", &["ctrl-f"]).unwrap_err();
        assert_eq!(err, "unknown key \"ctrl-f\"");
        let err = b.bind("up", &["W"]).unwrap_err();
        assert!(err.contains("bind \"w\""), "{err}");
        assert!(b.bind("help", &["f13"]).is_err());
        b.bind("chat", &["y"]).unwrap();
        let err = b.bind("fire", &["space", "y"]).unwrap_err();
        assert_eq!(err, "key \"y\" is already bound to \"chat\"");
        assert!(!err.contains('\n'));
        let mut only_chat = Bindings::default();
        only_chat.bind("chat", &["y"]).unwrap();
        assert_eq!(b, only_chat, "a refused binding changes nothing");
    }

    /// The player's guide's `[keys]` paragraph names every action the config file accepts, in
    /// the binding table's order (it is generated: see `ui::keys`).
    #[test]
    fn the_guide_lists_every_binding_name() {
        let guide = include_str!("../../../docs/PLAYING.md");
        let section = guide
            .split("- `[keys]` rebinds")
            .nth(1)
            .and_then(|s| s.split("<!-- keys:names -->").nth(1))
            .expect("the guide's [keys] paragraph");
        let listed = section.split("<!-- /keys -->").next().unwrap_or_default();
        let names: Vec<String> = binding_names().map(|n| format!("`{n}`")).collect();
        let mut at = 0;
        for n in &names {
            let found = listed[at..].find(n.as_str());
            assert!(
                found.is_some(),
                "docs/PLAYING.md's [keys] lacks {n} (after {at})"
            );
            at += found.unwrap_or_default() + n.len();
        }
        assert_eq!(listed.matches('`').count() / 2, names.len(), "{listed}");
    }

    #[test]
    fn f8_saves_unless_rebound() {
        let k = Keys::new(false);
        assert!(k.saves(&key(KeyCode::F(8), KeyEventKind::Press)));
        assert!(!k.saves(&key(KeyCode::F(8), KeyEventKind::Release)));
        let mut b = Bindings::default();
        b.bind("save", &["f9"]).unwrap();
        let k = Keys::with_bindings(false, b);
        assert!(k.saves(&key(KeyCode::F(9), KeyEventKind::Press)));
        assert!(!k.saves(&key(KeyCode::F(8), KeyEventKind::Press)));
        assert!(k.quits(&key(KeyCode::Esc, KeyEventKind::Press)));
        assert!(k.quits(&key(KeyCode::Char('q'), KeyEventKind::Press)));
        assert!(!k.quits(&key(KeyCode::Char('w'), KeyEventKind::Press)));
    }

    #[test]
    fn every_default_key_still_does_what_it_did() {
        let b = Bindings::default();
        assert_eq!(b.action(KeyCode::Char('?')), Some(Action::ToggleHelp));
        assert_eq!(b.action(KeyCode::F(1)), Some(Action::ToggleHelp));
        assert_eq!(b.action(KeyCode::Char('_')), Some(Action::LagDown));
        assert_eq!(b.action(KeyCode::Tab), Some(Action::ToggleScoreboard));
        assert_eq!(b.action(KeyCode::Char('2')), Some(Action::SelectWeapon(1)));
        assert_eq!(
            b.held_key(KeyCode::Char(' '), KeyModifiers::SHIFT),
            Some(FIRE)
        );
        assert_eq!(b.held_key(KeyCode::Up, KeyModifiers::SHIFT), None);
        assert_eq!(b.face_key(KeyCode::Up, KeyModifiers::SHIFT), Some(6));
        assert_eq!(b.face_key(KeyCode::Char('D'), KeyModifiers::NONE), Some(0));
        assert_eq!(b.face_key(KeyCode::Char('d'), KeyModifiers::NONE), None);
    }
}
