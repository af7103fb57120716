//! The colours of whole frames, cell by cell: in every theme nothing is drawn in a
//! fixed white, black or grey on the terminal's own background (where it vanishes on
//! white, or on black), and `mono` draws without colour.

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::style::Modifier;

use super::tests::plain_view;
use super::theme::assert_readable;
use super::*;

const THEMES: [Theme; 4] = [Theme::Auto, Theme::Dark, Theme::Light, Theme::Mono];

fn frame(view: &View, width: u16, height: u16) -> Buffer {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal.draw(|f| draw(f, view)).unwrap();
    terminal.backend().buffer().clone()
}

/// Everything the arena can show at once: every kind of sprite, beams, a protected
/// player, the feed, the chat and an explanation.
fn busy_sprites() -> Vec<Sprite> {
    let mut sprites = Vec::new();
    let kinds = [
        SpriteKind::Trail { age_secs: 0.05 },
        SpriteKind::Trail { age_secs: 0.3 },
        SpriteKind::Ghost,
        SpriteKind::LocalGhost,
        SpriteKind::FlashPredicted,
        SpriteKind::FlashCorrected,
        SpriteKind::Projectile,
        SpriteKind::Muzzle,
        SpriteKind::TestedBox,
        SpriteKind::PresentBox,
        SpriteKind::Aim(3),
    ];
    for (i, kind) in kinds.into_iter().enumerate() {
        let id = i as PlayerId % 7;
        sprites.push(Sprite::new(id, 3.5 + 2.0 * i as f64, 5.5, kind));
    }
    for id in 1..13 {
        let x = 2.5 + 2.0 * f64::from(id);
        sprites.push(Sprite::new(id, x, 9.5, SpriteKind::Remote));
        sprites.push(Sprite::new(id, x + 0.5, 9.5, SpriteKind::Aim(0)));
    }
    sprites.push(Sprite::new(0, 10.5, 12.5, SpriteKind::Local));
    sprites.push(Sprite::new(0, 11.0, 12.5, SpriteKind::Aim(0)));
    sprites
}

fn busy(view: &mut View) {
    view.protected = vec![3];
    view.beams = vec![
        Beam {
            id: 2,
            from: (2.5, 3.5),
            to: (30.5, 3.5),
            fading: false,
        },
        Beam {
            id: 4,
            from: (2.5, 14.5),
            to: (12.5, 17.5),
            fading: true,
        },
    ];
    view.feed = vec!["bot-1 [rail] bot-2".into(), "ann [blaster] bot-1".into()];
    view.chat = vec!["bot-2: hello".into()];
    view.explanation = Some("prediction off: your @ now waits a round trip (~151 ms)".into());
    view.roster = (0..6)
        .map(|id| RosterLine {
            id,
            name: format!("player-{id}"),
            local: id == 0,
            bot: id > 0,
        })
        .collect();
    let c = view.combat.as_mut().unwrap();
    c.hit = true;
    c.rail_cooldown_secs = Some(0.5);
    c.protected_secs = Some(1.5);
}

fn scores() -> Vec<ScoreLine> {
    (0..4)
        .map(|id| ScoreLine {
            id,
            name: format!("player-{id}"),
            frags: 4 - id as i16,
            deaths: 1,
            ping_ms: 20,
            local: id == 0,
        })
        .collect()
}

/// On a light terminal the `@`, the HUD's values, the weapon, frags, clock and `@ name`
/// vanished (fixed bright white), and labels and the floor were fixed grey. Every frame
/// the game draws (the arena, help, scores, results, stats, chat, death, a narrow
/// and a wide screen) keeps to the rule in every theme.
#[test]
fn no_frame_has_fixed_white_black_or_grey_text_on_the_default_background() {
    let map = Map::builtin("arena").unwrap();
    type Change = fn(&mut View);
    let frames: [(&str, Change); 8] = [
        ("game", |_| {}),
        ("help", |v| v.help = true),
        ("scoreboard", |v| v.scoreboard = Some(scores())),
        ("results", |v| {
            v.results = Some(ResultsView {
                winner: "player-1".into(),
                lines: scores(),
                next_map: "duel".into(),
            });
        }),
        ("stats", |v| v.stats = Some(crate::bench::render::stats(5))),
        ("chat input", |v| {
            v.chat_input = Some(crate::ui::ChatInput {
                left: 120usize.saturating_sub("x".repeat(190).chars().count()),
                text: "x".repeat(190),
            })
        }),
        ("hurt", |v| v.combat.as_mut().unwrap().hurt = true),
        ("dead", |v| {
            let c = v.combat.as_mut().unwrap();
            c.alive = false;
            c.health = 10;
            c.death = Some(("fragged by bot-1 with rail".into(), 1.5));
        }),
    ];
    for theme in THEMES {
        for (what, change) in frames {
            for (w, h) in [(80, 24), (160, 45)] {
                let mut view = plain_view(&map, busy_sprites());
                view.theme = theme;
                busy(&mut view);
                change(&mut view);
                assert_readable(&frame(&view, w, h), theme, &format!("{what} at {w}x{h}"));
            }
        }
    }
}

/// In `mono` (and under NO_COLOR, which strips the colours of the default theme) the
/// local player is in reverse video, a shielded player underlined, a ghost dim: told
/// apart by attributes, not colour. The `@` and the facing arrow took the floor's dim
/// from the cell under them, and showed grey on black.
#[test]
fn without_colour_the_local_player_and_the_shielded_are_told_apart() {
    let map = Map::builtin("arena").unwrap();
    for theme in [Theme::Auto, Theme::Mono] {
        let mut view = plain_view(&map, busy_sprites());
        view.theme = theme;
        view.protected = vec![3];
        let buf = frame(&view, 80, 24);
        let find = |glyph: &str| {
            let area = buf.area;
            (0..area.height)
                .flat_map(|y| (0..area.width).map(move |x| (x, y)))
                .map(|p| &buf[p])
                .find(|c| c.symbol() == glyph)
                .unwrap_or_else(|| panic!("no {glyph}"))
        };
        assert!(find("@").modifier.contains(Modifier::REVERSED), "{theme:?}");
        // Nothing of the floor's dim under them: the `@` and the arrow were grey.
        assert!(!find("@").modifier.contains(Modifier::DIM), "{theme:?}");
        assert!(!find("→").modifier.contains(Modifier::DIM), "{theme:?}");
        assert!(
            find("D").modifier.contains(Modifier::UNDERLINED),
            "{theme:?}"
        );
        assert!(
            !find("E").modifier.contains(Modifier::UNDERLINED),
            "{theme:?}"
        );
        assert!(find("o").modifier.contains(Modifier::DIM), "{theme:?}");
    }
}

/// `?` help had empty rows and no word on what `o`, the lower-case ghosts, the trail,
/// the `x`/`+` flashes and the lag compensation boxes are: the legend is beside the
/// keys, whole, in an 80x24 terminal.
#[test]
fn help_has_the_glyph_legend_at_80x24() {
    let map = Map::builtin("arena").unwrap();
    let mut view = plain_view(&map, Vec::new());
    view.help = true;
    let buf = frame(&view, 80, 24);
    let text: Vec<String> = (0..24)
        .map(|y| (0..80).map(|x| buf[(x, y)].symbol()).collect())
        .collect();
    let all = text.join("\n");
    for entry in [
        "@ you",
        "B another player",
        "→ facing",
        "o g: you, server",
        "b g: B, server",
        "• g: B's trail",
        "x fix: predicted",
        "+ fix: server's",
        "▢ v: rail tested",
        "◆ v: target was",
        "@ spawn shield",
        "move; a tap: one cell; you aim as you move",
        "? / F1 this help",
    ] {
        assert!(all.contains(entry), "{entry:?} missing or cut:\n{all}");
    }
    let top = text.iter().position(|l| l.contains("keys (?")).unwrap();
    let bottom = text.iter().rposition(|l| l.contains('└')).unwrap();
    insta::assert_snapshot!(text[top..=bottom].join("\n"));
}

/// A switch's explanation takes the bottom line's left (the players come back after
/// it), and the network conditions stay on its right.
#[test]
fn the_explanation_is_on_the_bottom_line_beside_the_network() {
    let map = Map::builtin("arena").unwrap();
    let mut view = plain_view(&map, Vec::new());
    let text = "prediction off: your @ now waits a round trip (~301 ms) to move";
    view.explanation = Some(text.into());
    let bottom = |view: &View| {
        let buf = frame(view, 80, 24);
        (0..24)
            .map(|y| (0..80).map(|x| buf[(x, y)].symbol()).collect::<String>())
            .rfind(|l| l.contains("net "))
            .unwrap()
    };
    // With the conditions short, the whole line; with them long, cut with `…`.
    view.hud.conditions = "clean".into();
    let line = bottom(&view);
    assert!(line.starts_with(text), "{line:?}");
    assert!(line.trim_end().ends_with("net clean"), "{line:?}");
    view.hud.conditions = "75±10ms 2.0% loss".into();
    let line = bottom(&view);
    assert!(
        line.starts_with("prediction off: your @ now waits"),
        "{line:?}"
    );
    assert!(
        line.contains('…') && line.trim_end().ends_with("2.0% loss"),
        "{line:?}"
    );
    view.explanation = None;
    assert!(bottom(&view).contains("@ ann"), "the players are back");
}
