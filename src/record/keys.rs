//! The replay's keys, defined once: [`BINDINGS`] binds each key to what it does
//! ([`Do`]) and says it in words, for the `?` box, and in short, for the combat line.
//! The screen's key handler, its help box and its hints all read this table, so a key
//! cannot be bound without being listed.

use ratatui::crossterm::event::KeyCode;

use crate::client::Switch;

/// What a replay key does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Do {
    Pause,
    /// One frame forward (true) or back.
    Frame(bool),
    /// One tick forward or back.
    Tick(bool),
    /// Seek by this many seconds.
    Seek(i8),
    /// Faster (true) or slower.
    Speed(bool),
    /// The next (true) or previous correction.
    Correction(bool),
    /// Re-run with this switch flipped.
    WhatIf(Switch),
    AsRecorded,
    Help,
    Quit,
}

/// Keys that do one thing (or two, one each way), as the help box lists them.
pub(super) struct Binding {
    pub(super) keys: &'static [(KeyCode, Do)],
    pub(super) label: &'static str,
    pub(super) does: &'static str,
    /// On the combat line, when there is room.
    pub(super) hint: Option<&'static str>,
}

const fn bind(
    keys: &'static [(KeyCode, Do)],
    label: &'static str,
    does: &'static str,
    hint: Option<&'static str>,
) -> Binding {
    Binding {
        keys,
        label,
        does,
        hint,
    }
}

/// Every key of the replay: the one place they are defined.
pub(super) const BINDINGS: &[Binding] = &[
    bind(
        &[(KeyCode::Char(' '), Do::Pause)],
        "Space",
        "pause / play",
        Some("space pause"),
    ),
    bind(
        &[
            (KeyCode::Char('.'), Do::Frame(true)),
            (KeyCode::Char(','), Do::Frame(false)),
        ],
        ". ,",
        "one frame forward / back",
        Some(". , frame"),
    ),
    bind(
        &[
            (KeyCode::Char(']'), Do::Tick(true)),
            (KeyCode::Char('['), Do::Tick(false)),
        ],
        "] [",
        "one tick forward / back",
        None,
    ),
    bind(
        &[(KeyCode::Right, Do::Seek(1)), (KeyCode::Left, Do::Seek(-1))],
        "→ ←",
        "1 s forward / back",
        Some("←→ seek"),
    ),
    bind(
        &[(KeyCode::Up, Do::Seek(10)), (KeyCode::Down, Do::Seek(-10))],
        "↑ ↓",
        "10 s forward / back",
        None,
    ),
    bind(
        &[
            (KeyCode::Char('+'), Do::Speed(true)),
            (KeyCode::Char('='), Do::Speed(true)),
            (KeyCode::Char('-'), Do::Speed(false)),
        ],
        "+ -",
        "faster / slower (0.1x to 4x)",
        Some("+- speed"),
    ),
    bind(
        &[
            (KeyCode::Char('c'), Do::Correction(true)),
            (KeyCode::Char('C'), Do::Correction(false)),
        ],
        "c C",
        "next / previous correction",
        Some("c fix"),
    ),
    bind(
        &[
            (KeyCode::Char('p'), Do::WhatIf(Switch::Prediction)),
            (KeyCode::Char('r'), Do::WhatIf(Switch::Reconciliation)),
            (KeyCode::Char('i'), Do::WhatIf(Switch::Interpolation)),
            (KeyCode::Char('x'), Do::WhatIf(Switch::Extrapolation)),
            (KeyCode::Char('m'), Do::WhatIf(Switch::Smoothing)),
            (KeyCode::Char('g'), Do::WhatIf(Switch::Ghosts)),
        ],
        "p r i x m g",
        "what-if: pred recon interp extrap smooth ghosts",
        Some("p r i x m g what-if"),
    ),
    bind(
        &[(KeyCode::Char('0'), Do::AsRecorded)],
        "0",
        "switches as recorded",
        None,
    ),
    bind(
        &[(KeyCode::Char('?'), Do::Help)],
        "?",
        "this help",
        Some("? keys"),
    ),
    bind(
        &[(KeyCode::Char('q'), Do::Quit), (KeyCode::Esc, Do::Quit)],
        "q Esc",
        "quit (Esc closes this help first)",
        Some("q quit"),
    ),
];

/// What `code` does in the replay, if anything.
pub(super) fn binding_of(code: KeyCode) -> Option<Do> {
    BINDINGS
        .iter()
        .flat_map(|b| b.keys)
        .find(|(k, _)| *k == code)
        .map(|&(_, d)| d)
}

/// The combat line's hints, in the table's order, the help key's last (it is kept
/// whatever else gives way).
pub(super) fn hints() -> Vec<&'static str> {
    let is_help = |b: &&Binding| b.keys.iter().any(|(_, d)| *d == Do::Help);
    let (help, rest): (Vec<&Binding>, Vec<&Binding>) = BINDINGS.iter().partition(is_help);
    rest.iter().chain(&help).filter_map(|b| b.hint).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The guide's table of replay keys says what each binding does, in the words of
    /// the help box: a key bound here and not documented there fails.
    #[test]
    fn the_guide_lists_every_replay_key() {
        let guide = include_str!("../../docs/GUIDE.md");
        let section = guide
            .split("### The replay screen")
            .nth(1)
            .expect("the guide's replay section");
        for b in BINDINGS {
            assert!(
                section.contains(&format!("| {}", b.does)),
                "docs/GUIDE.md's replay keys lack {:?} ({})",
                b.label,
                b.does
            );
        }
    }

    #[test]
    fn every_replay_key_is_bound_once() {
        let keys: Vec<KeyCode> = BINDINGS.iter().flat_map(|b| b.keys).map(|k| k.0).collect();
        for (i, k) in keys.iter().enumerate() {
            assert!(!keys[i + 1..].contains(k), "{k:?} twice");
        }
        assert_eq!(hints().last(), Some(&"? keys"));
        assert_eq!(binding_of(KeyCode::Char(' ')), Some(Do::Pause));
        assert_eq!(binding_of(KeyCode::Char('z')), None);
    }
}
