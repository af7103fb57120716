//! The replay's keys: the binding table's (`ui::keys::REPLAY`), which binds each key to
//! what it does ([`Do`]) and says it in words, for the `?` box, and in short, for the
//! combat line. The screen's key handler, its help box and its hints all read it, so a
//! key cannot be bound without being listed.

use ratatui::crossterm::event::KeyCode;

pub(super) use crate::ui::keys::Replay as Do;
use crate::ui::keys::{self, REPLAY, Row};

/// Every key of the replay, a help line a row.
pub(super) const BINDINGS: &[Row<Do>] = REPLAY;

/// What `code` does in the replay, if anything, `help_open` while the `?` box is.
pub(super) fn binding_of(code: KeyCode, help_open: bool) -> Option<Do> {
    keys::replay_code(code, help_open)
}

/// The combat line's hints, in the table's order, the help key's last (it is kept
/// whatever else gives way).
pub(super) fn hints() -> Vec<&'static str> {
    let is_help = |b: &&Row<Do>| b.keys.iter().any(|k| k.does == Do::Help);
    let (help, rest): (Vec<&Row<Do>>, Vec<&Row<Do>>) = BINDINGS.iter().partition(is_help);
    rest.iter()
        .chain(&help)
        .flat_map(|b| b.hints.iter().copied())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// REPLAY.md's table of replay keys says what each binding does, in the words of
    /// the help box: a key bound here and not documented there fails.
    #[test]
    fn the_guide_lists_every_replay_key() {
        let guide = include_str!("../../docs/REPLAY.md");
        let section = guide
            .split("## The replay screen")
            .nth(1)
            .expect("REPLAY.md's replay screen section");
        for b in BINDINGS {
            assert!(
                section.contains(&format!("| {}", b.does)),
                "docs/REPLAY.md's replay keys lack {:?} ({})",
                b.label,
                b.does
            );
        }
    }

    #[test]
    fn every_replay_key_is_bound_once() {
        let keys: Vec<KeyCode> = BINDINGS
            .iter()
            .flat_map(|b| b.keys)
            .map(|k| k.code)
            .collect();
        for (i, k) in keys.iter().enumerate() {
            assert!(!keys[i + 1..].contains(k), "{k:?} twice");
        }
        assert_eq!(hints().last(), Some(&"? keys"));
        assert_eq!(binding_of(KeyCode::Char(' '), false), Some(Do::Pause));
        assert_eq!(binding_of(KeyCode::Char('z'), false), None);
    }
}
