//! The binding table against itself, the screens and the docs.

use std::path::Path;

use super::*;

/// The docs whose marked key tables are generated from the binding table.
const DOCS: [&str; 4] = [
    "README.md",
    "docs/PLAYING.md",
    "docs/COURSE.md",
    "docs/REPLAY.md",
];
const REGENERATE: &str = "NETARENA_UPDATE_DOCS=1 cargo test --lib ui::keys";

/// The key tables of README.md and the three guides are the binding table's: a key added,
/// changed or described differently there and not here (or the other way) fails.
/// `NETARENA_UPDATE_DOCS=1` rewrites them.
#[test]
fn the_docs_key_tables_are_the_binding_tables() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let update = std::env::var_os("NETARENA_UPDATE_DOCS").is_some();
    let mut stale = Vec::new();
    for doc in DOCS {
        let path = root.join(doc);
        let text = std::fs::read_to_string(&path).expect("read the doc");
        let fresh = with_doc_tables(&text);
        if fresh != text {
            if update {
                std::fs::write(&path, &fresh).expect("write the doc");
            } else {
                stale.push(doc);
            }
        }
    }
    assert!(
        stale.is_empty(),
        "the key tables of {} differ from src/ui/keys.rs; regenerate them with:\n  {REGENERATE}",
        stale.join(" and ")
    );
}

/// Every context's table is in the document its readers open: the game's in the README
/// and the player's guide (with the chat's, the browser's and the `[keys]` names), the
/// lab's in the course, the replay's in the replay reference.
#[test]
fn every_context_has_a_marked_table() {
    let readme = include_str!("../../../README.md");
    let playing = include_str!("../../../docs/PLAYING.md");
    let course = include_str!("../../../docs/COURSE.md");
    let replay = include_str!("../../../docs/REPLAY.md");
    assert!(readme.contains("<!-- keys:game -->"));
    assert!(playing.contains("<!-- keys:names -->"));
    for c in Context::ALL {
        let (name, doc) = match c {
            Context::Game | Context::Chat | Context::Browser => ("PLAYING", playing),
            Context::Lab | Context::Learn => ("COURSE", course),
            Context::Replay => ("REPLAY", replay),
        };
        let marker = format!("<!-- keys:{} -->", c.marker());
        assert!(doc.contains(&marker), "docs/{name}.md lacks {marker}");
    }
}

#[test]
fn doc_tables_replace_only_what_is_between_the_markers() {
    let text = "intro\n<!-- keys:browser -->\nold\n<!-- /keys -->\nafter\n";
    let fresh = with_doc_tables(text);
    assert!(
        fresh.starts_with("intro\n<!-- keys:browser -->\n| Key | Action |\n"),
        "{fresh}"
    );
    assert!(fresh.contains("| `Enter` | join the address typed"));
    assert!(fresh.ends_with("|\n<!-- /keys -->\nafter\n"), "{fresh}");
    assert!(!fresh.contains("old"));
    assert_eq!(
        with_doc_tables(&fresh),
        fresh,
        "regenerating changes nothing"
    );
}

fn codes<A>(table: &'static [Row<A>]) -> Vec<KeyCode> {
    table.iter().flat_map(|r| r.keys).map(|k| k.code).collect()
}

#[test]
fn no_key_is_bound_twice_on_one_screen() {
    for (what, keys) in [
        ("game", codes(GAME)),
        ("chat", codes(CHAT)),
        ("lab", codes(LAB)),
        ("learn", codes(LEARN)),
        ("replay", codes(REPLAY)),
        ("browser", codes(BROWSER)),
    ] {
        for (i, k) in keys.iter().enumerate() {
            assert!(!keys[i + 1..].contains(k), "{what}: {k:?} twice");
        }
    }
}

/// `learn` takes its keys before the lab's: none of them may hide a lab key.
#[test]
fn the_learn_keys_leave_the_lab_keys_alone() {
    let lab = codes(LAB);
    for k in codes(LEARN) {
        assert!(!lab.contains(&k), "{k:?} is a lab key");
    }
    assert_eq!(learn_key(&press(KeyCode::Char('o'))), Some(Learn::Next));
    assert_eq!(learn_key(&release(KeyCode::Char('o'))), None);
    assert_eq!(learn_key(&press(KeyCode::End)), Some(Learn::Skip));
    assert_eq!(learn_key(&press(KeyCode::Char('p'))), None);
}

/// How a help label may write a key.
fn spellings(code: KeyCode) -> Vec<String> {
    match code {
        KeyCode::Char(' ') => vec!["space".into(), "Space".into()],
        KeyCode::Char(c) => vec![c.to_string(), c.to_ascii_uppercase().to_string()],
        KeyCode::Up => vec!["↑".into(), "arrows".into()],
        KeyCode::Down => vec!["↓".into(), "arrows".into()],
        KeyCode::Left => vec!["←".into(), "arrows".into()],
        KeyCode::Right => vec!["→".into(), "arrows".into()],
        KeyCode::F(n) => vec![format!("F{n}")],
        other => vec![format!("{other:?}")],
    }
}

/// A row's label names a key of each thing the row does (`=` for lag up may go
/// unsaid beside `+`, not a thing no key of the label does).
fn labels_name_their_keys<A: PartialEq + std::fmt::Debug>(table: &'static [Row<A>]) {
    for r in table {
        for k in r.keys {
            let named = r
                .keys
                .iter()
                .filter(|other| other.does == k.does)
                .any(|other| spellings(other.code).iter().any(|s| r.label.contains(s)));
            assert!(named, "{:?} names no key of {:?}", r.label, k.does);
        }
    }
}

#[test]
fn every_label_names_its_keys() {
    labels_name_their_keys(GAME);
    labels_name_their_keys(CHAT);
    labels_name_their_keys(LAB);
    labels_name_their_keys(LEARN);
    labels_name_their_keys(REPLAY);
    labels_name_their_keys(BROWSER);
}

/// The game's help box has 13 columns of keys and 42 of words, and fits an 80x24
/// terminal's arena (at most 14 rows of keys).
#[test]
fn the_game_help_fits_its_box() {
    let rows: Vec<_> = help_lines(GAME).collect();
    assert!(rows.len() <= 14, "{} rows", rows.len());
    for (label, does) in rows {
        assert!(label.chars().count() <= 13, "{label}");
        assert!(does.chars().count() <= 42, "{does}");
    }
}

/// The lab's switch keys are the game's default keys for the same switch, and the
/// replay's what-if keys the game's for the switch they re-run.
#[test]
fn the_lab_and_the_replay_use_the_games_switch_keys() {
    let game = |code| find(GAME, code);
    for k in LAB.iter().flat_map(|r| r.keys) {
        if let Lab::Switch(a) = k.does {
            assert_eq!(game(k.code), Some(Game::Act(a)), "lab {:?}", k.code);
        }
    }
    let mut what_ifs = 0;
    for k in REPLAY.iter().flat_map(|r| r.keys) {
        if let Replay::WhatIf(a) = k.does {
            assert_eq!(
                game(k.code),
                Some(Game::Act(a)),
                "replay {:?} is not the game's key for {a:?}",
                k.code
            );
            what_ifs += 1;
        }
    }
    assert_eq!(what_ifs, 6);
}

/// The hints read from the table are the words the screens showed when they were
/// written out by hand.
#[test]
fn the_hint_lines_read_as_before() {
    assert_eq!(
        hints(GAME),
        ["space fire", "1/2 weapon", "t chat", "Tab scores", "? help"]
    );
    assert_eq!(hints(CHAT).join(", "), "Enter send, Esc cancel");
    assert_eq!(
        hints(BROWSER).join("  "),
        "↑↓ choose  Enter join  F5 refresh  type HOST[:PORT]  Esc quit"
    );
    assert_eq!(
        format!(" {}", hints(LAB).join(" · ")),
        " client 1: WASD space 1/2 · client 2: arrows Enter 9/0 · Tab: choose client · k [ ] dials · P pause · . tick · < > speed · ? help · q quit"
    );
}

fn press(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

fn release(code: KeyCode) -> KeyEvent {
    KeyEvent::new_with_kind(code, KeyModifiers::NONE, KeyEventKind::Release)
}

#[test]
fn lab_keys_decode_as_the_lab_did() {
    let ctrl = |c| KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL);
    assert_eq!(lab_key(&ctrl('c')), Some(Lab::Quit));
    assert_eq!(lab_key(&ctrl('p')), None);
    assert_eq!(lab_key(&press(Char(']'))), Some(Lab::Turn(true)));
    assert_eq!(lab_key(&press(Char('K'))), Some(Lab::ChooseDial(false)));
    assert_eq!(lab_key(&press(Char('W'))), Some(Lab::Play(0)));
    assert_eq!(lab_key(&release(Char('d'))), Some(Lab::Play(0)));
    assert_eq!(lab_key(&release(Left)), Some(Lab::Play(1)));
    assert_eq!(lab_key(&release(Enter)), Some(Lab::Fire(1)));
    assert_eq!(
        lab_key(&release(Char('p'))),
        None,
        "switches act on a press"
    );
    assert_eq!(
        lab_key(&press(Char('p'))),
        Some(Lab::Switch(Action::TogglePrediction))
    );
    assert_eq!(
        lab_key(&press(Char('_'))),
        Some(Lab::Switch(Action::LagDown))
    );
    assert_eq!(lab_key(&press(Char('0'))), Some(Lab::Weapon(1, 1)));
    assert_eq!(lab_key(&press(Char(','))), Some(Lab::Speed(false)));
    assert_eq!(lab_key(&press(F(1))), Some(Lab::Help));
    assert_eq!(lab_key(&press(Esc)), Some(Lab::Quit));
    assert_eq!(lab_key(&press(Char('t'))), None, "no chat in the lab");
}

/// Issue 30: `r` searched again and `q` left while nothing was typed, so
/// `raspberrypi.local` became `aspberrypi.local` and `quakebox` quit the browser. Every
/// printable character types; the browser's keys are none of them.
#[test]
fn every_browser_letter_types_from_the_first() {
    for c in ['q', 'r', 'Q', 'R', '1', '.', ':', '[', ' '] {
        assert_eq!(
            browser_key(&press(Char(c))),
            Some(Browser::Type(c)),
            "{c:?}"
        );
    }
    assert!(
        codes(BROWSER)
            .iter()
            .all(|k| !matches!(k, KeyCode::Char(_))),
        "a browser key is a character, which could not be typed"
    );
    assert_eq!(browser_key(&press(F(5))), Some(Browser::Refresh));
    assert_eq!(browser_key(&press(Esc)), Some(Browser::Quit));
    assert_eq!(browser_key(&press(Enter)), Some(Browser::Join));
    assert_eq!(browser_key(&press(KeyCode::Tab)), None);
    assert_eq!(browser_key(&release(Char('x'))), None);
    let ctrl = |c| KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL);
    assert_eq!(browser_key(&ctrl('c')), Some(Browser::Quit));
    assert_eq!(browser_key(&ctrl('r')), None);
}

#[test]
fn replay_keys_decode_from_the_table() {
    assert_eq!(replay_code(Char('='), false), Some(Replay::Speed(true)));
    assert_eq!(
        replay_code(Char('C'), false),
        Some(Replay::Correction(false))
    );
    assert_eq!(
        replay_code(Char('c'), false),
        Some(Replay::Correction(true))
    );
    assert_eq!(replay_code(Char('z'), false), None);
    // Esc closes the help box while it is open (the table's rule, not the screen's),
    // and quits when it is not; `q` quits either way.
    assert_eq!(replay_code(Esc, true), Some(Replay::Help));
    assert_eq!(replay_code(Esc, false), Some(Replay::Quit));
    assert_eq!(replay_code(Char('q'), true), Some(Replay::Quit));
}

#[test]
fn chat_keys_edit_and_everything_else_is_typed() {
    assert_eq!(chat_key(&press(Enter)), Some(ChatKey::Send));
    assert_eq!(chat_key(&press(Esc)), Some(ChatKey::Cancel));
    assert_eq!(
        chat_key(&press(KeyCode::Backspace)),
        Some(ChatKey::Backspace)
    );
    assert_eq!(chat_key(&press(Char('q'))), Some(ChatKey::Char('q')));
    assert_eq!(chat_key(&release(Char('q'))), None);
    assert_eq!(chat_key(&press(Up)), None);
}
