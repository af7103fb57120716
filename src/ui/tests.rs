//! `insta` frames of the game's screen: arena, HUD, ghosts, roster, overlays, feeds and
//! beams.

use ratatui::Terminal;
use ratatui::backend::TestBackend;

use super::*;

pub(super) fn small_map() -> Map {
    Map::parse(
        "small",
        "############\n#S.........#\n#...##.....#\n#.........S#\n############",
    )
    .unwrap()
}

fn hud() -> Hud {
    Hud {
        fps: 2345.0,
        rtt_ms: 151.0,
        rtt_stale: false,
        server_tick: 1234,
        pending: 9,
        corrections: 2,
        switches: SwitchLights {
            prediction: true,
            reconciliation: true,
            interpolation: true,
            smoothing: true,
            ghosts: true,
            ..SwitchLights::default()
        },
        conditions: "75±10ms 2.0% loss".into(),
    }
}

fn render(map: &Map, width: u16, height: u16, sprites: Vec<Sprite>) -> String {
    render_with(map, width, height, sprites, |_| {})
}

pub(super) fn plain_view(map: &Map, sprites: Vec<Sprite>) -> View<'_> {
    View {
        map,
        focus: None,
        protected: Vec::new(),
        sprites,
        beams: Vec::new(),
        combat: Some(CombatHud {
            health: 75,
            alive: true,
            weapon: crate::sim::combat::Weapon::Rail,
            frags: 3,
            frag_limit: 20,
            time_left_secs: Some(125),
            hurt: false,
            hit: false,
            death: None,
            rail_cooldown_secs: None,
            protected_secs: None,
        }),
        feed: Vec::new(),
        chat: Vec::new(),
        chat_input: None,
        scoreboard: None,
        results: None,
        hud: hud(),
        roster: vec![
            RosterLine {
                id: 0,
                name: "ann".into(),
                local: true,
                bot: false,
            },
            RosterLine {
                id: 1,
                name: "bot-1".into(),
                local: false,
                bot: true,
            },
        ],
        notice: None,
        stats: None,
        help: false,
        explanation: None,
        theme: Theme::default(),
    }
}

pub(super) fn render_with(
    map: &Map,
    width: u16,
    height: u16,
    sprites: Vec<Sprite>,
    change: impl FnOnce(&mut View),
) -> String {
    let mut view = plain_view(map, sprites);
    change(&mut view);
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal.draw(|f| draw(f, &view)).unwrap();
    let buf = terminal.backend().buffer();
    let mut out = String::new();
    for y in 0..buf.area.height {
        for x in 0..buf.area.width {
            out.push_str(buf[(x, y)].symbol());
        }
        out.push('\n');
    }
    out
}

#[test]
fn arena_with_hud_ghosts_and_roster() {
    let map = small_map();
    let sprites = vec![
        // The local player's ghost trails it by a cell; the remote's ghost leads it.
        Sprite::new(0, 2.5, 1.5, SpriteKind::LocalGhost),
        Sprite::new(1, 8.5, 3.5, SpriteKind::Ghost),
        Sprite::new(1, 7.5, 3.5, SpriteKind::Remote),
        Sprite::new(0, 3.5, 1.5, SpriteKind::Local),
    ];
    insta::assert_snapshot!(render(&map, 110, 8, sprites));
}

#[test]
fn half_cell_positions_use_the_second_column() {
    let map = small_map();
    let at = |x| render(&map, 24, 8, vec![Sprite::new(0, x, 1.5, SpriteKind::Local)]);
    let col = |s: String| s.lines().nth(2).unwrap().chars().position(|c| c == '@');
    assert_eq!(col(at(3.5)), Some(6));
    assert_eq!(col(at(3.99)), Some(7));
    assert_eq!(col(at(4.0)), Some(7));
    assert_eq!(col(at(4.3)), Some(8));
}

#[test]
fn too_small_terminal_says_what_it_needs() {
    let map = small_map();
    let out = render(&map, 20, 5, vec![]);
    assert!(out.contains("needs 24x8"), "{out}");
}

/// The kill feed was drawn first and players, arrows and bolts over it, leaving lines
/// like `bot-1 [rail] b←@-3`.
#[test]
fn the_kill_feed_is_never_drawn_over() {
    let map = small_map();
    // Players, arrows and a bolt all along the top row, where the feed goes.
    let mut sprites = Vec::new();
    for x in 1..11 {
        let x = f64::from(x) + 0.5;
        sprites.push(Sprite::new(1, x, 1.5, SpriteKind::Remote));
        sprites.push(Sprite::new(2, x, 1.5, SpriteKind::Aim(4)));
        sprites.push(Sprite::new(1, x, 1.4, SpriteKind::Projectile));
    }
    for width in [24, 110] {
        let out = render_with(&map, width, 14, sprites.clone(), |v| {
            v.feed = vec!["bot-1 [rail] bot-3".into(), "ann [blaster] bot-1".into()];
        });
        for line in ["bot-1 [rail] bot-3", "ann [blaster] bot-1"] {
            let shown: String = line.chars().take(usize::from(width / 2)).collect();
            assert!(out.contains(&shown), "{line:?} whole at {width}:\n{out}");
        }
    }
}

/// The stats overlay lists the last corrections with their causes, and still has room
/// for the lagometer's bars (a row added to the text once left it none).
#[test]
fn net_stats_show_recent_corrections_and_the_lagometer() {
    let map = Map::builtin("warehouse").unwrap();
    let out = render_with(&map, 160, 45, vec![], |v| {
        v.stats = Some(crate::bench::render::stats(5));
    });
    assert!(out.contains("bot-1 was elsewhere than predicted"), "{out}");
    assert!(out.contains("lagometer"), "{out}");
    let bars = ["▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"];
    assert!(
        out.lines()
            .any(|l| bars.iter().filter(|b| l.contains(*b)).count() >= 3),
        "no lagometer bars:\n{out}"
    );
}

/// On the short maps (`arena`, `duel`) each listed correction took a row from the
/// lagometer, in the box capped at the arena's height: after two server decisions only
/// its legend was left. The graph is kept; the oldest corrections give way.
#[test]
fn the_lagometer_stays_on_short_maps_with_corrections_listed() {
    let bars = ["▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"];
    for name in ["arena", "duel"] {
        let map = Map::builtin(name).unwrap();
        for (w, h) in [(80, 24), (160, 45)] {
            let out = render_with(&map, w, h, vec![], |v| {
                let mut stats = crate::bench::render::stats(5);
                stats.recent_corrections = (1..=3)
                    .map(|i| format!("{i}.0s 2.00 cells: the server moved you"))
                    .collect();
                v.stats = Some(stats);
            });
            assert!(out.contains("lagometer"), "{name} {w}x{h}:\n{out}");
            assert!(
                out.lines()
                    .any(|l| bars.iter().filter(|b| l.contains(*b)).count() >= 3),
                "{name} {w}x{h}: no lagometer bars:\n{out}"
            );
        }
    }
}

/// In a narrow terminal the feed is drawn over the arena: a player spawning under it
/// was alive and invisible. The local player shows through the feed's text.
#[test]
fn the_kill_feed_never_hides_the_local_player() {
    let map = small_map();
    let mut sprites = Vec::new();
    for x in 1..11 {
        sprites.push(Sprite::new(0, f64::from(x) + 0.5, 1.5, SpriteKind::Local));
    }
    let out = render_with(&map, 24, 14, sprites, |v| {
        v.feed = (1..4).map(|i| format!("bot-{i} [rail] bot-9")).collect();
    });
    // The second feed line lies over the players' row: they show through it (only the
    // local player's own cell of the text gives way); the other lines stay whole.
    assert!(out.contains("bot-1 [rail] bot-9"), "{out}");
    assert!(out.contains("bot-3 [rail] bot-9"), "{out}");
    assert_eq!(out.matches('@').count(), 10, "{out}");
}

/// A bolt leaving its shooter was drawn over the shooter's letter, and the muzzle
/// flash over a player next to the one firing.
#[test]
fn bolts_and_flashes_never_cover_a_player() {
    let map = small_map();
    let sprites = vec![
        Sprite::new(1, 3.5, 1.5, SpriteKind::Remote),
        Sprite::new(1, 3.6, 1.5, SpriteKind::Projectile),
        Sprite::new(0, 5.5, 1.5, SpriteKind::Local),
        Sprite::new(2, 5.5, 1.5, SpriteKind::Muzzle),
    ];
    let out = render(&map, 24, 8, sprites);
    let row = out.lines().nth(2).unwrap();
    assert!(row.contains('B') && row.contains('@'), "{row}");
    assert!(!row.contains('*') && !row.contains('✶'), "{row}");
}

/// Facing a wall hid the facing arrow; the chat editor ran off the screen; the combat
/// line said only "DEAD, respawning…".
#[test]
fn facing_a_wall_chat_scrolling_death_and_cooldown_are_shown() {
    let map = small_map();
    let out = render(
        &map,
        24,
        8,
        vec![
            Sprite::new(0, 0.75, 1.5, SpriteKind::Aim(4)),
            Sprite::new(0, 1.5, 1.5, SpriteKind::Local),
        ],
    );
    assert!(out.lines().nth(2).unwrap().contains('←'), "{out}");

    let long: String = "abcdefghij".repeat(11);
    let out = render_with(&map, 40, 8, vec![], |v| {
        v.chat_input = Some(crate::ui::ChatInput {
            left: 120usize.saturating_sub(long.clone().chars().count()),
            text: long.clone(),
        })
    });
    let line = out.lines().nth(6).unwrap();
    assert!(
        line.starts_with("say: …") && line.contains("hij_"),
        "{line}"
    );
    assert!(line.contains("10 left"), "{line}");

    let out = render_with(&map, 100, 8, vec![], |v| {
        let c = v.combat.as_mut().unwrap();
        c.alive = false;
        c.death = Some(("fragged by bot-1 with rail".into(), 1.42));
    });
    assert!(
        out.contains("DEAD: fragged by bot-1 with rail, back in 1.4s"),
        "{out}"
    );
    let out = render_with(&map, 100, 8, vec![], |v| {
        let c = v.combat.as_mut().unwrap();
        c.rail_cooldown_secs = Some(0.75);
        c.hit = true;
        v.hud.switches.lag_compensation = true;
    });
    assert!(out.contains("✕ hit") && out.contains("rail 0.8s"), "{out}");
    assert!(out.contains("+lagc"), "{out}");
}

#[test]
fn a_wide_terminal_lists_the_players_beside_the_arena() {
    let map = Map::parse(
        "tall",
        &["############"; 1]
            .into_iter()
            .chain(["#S........S#"; 12])
            .chain(["############"])
            .collect::<Vec<_>>()
            .join("\n"),
    )
    .unwrap();
    let out = render(&map, 100, 17, vec![]);
    let beside: Vec<&str> = out.lines().filter(|l| l.contains("▒ ")).collect();
    assert!(
        beside.iter().any(|l| l.trim_end().ends_with("players")),
        "{out}"
    );
    assert!(beside.iter().any(|l| l.contains("B bot-1 (bot)")), "{out}");
}

#[test]
fn spawn_protection_is_marked() {
    let map = small_map();
    let mut terminal = Terminal::new(TestBackend::new(100, 8)).unwrap();
    let sprites = vec![Sprite::new(1, 7.5, 3.5, SpriteKind::Remote)];
    let out = render_with(&map, 100, 8, sprites.clone(), |v| {
        v.combat.as_mut().unwrap().protected_secs = Some(1.25);
    });
    assert!(out.contains("shield 1.2s"), "{out}");
    let view = View {
        protected: vec![1],
        ..plain_view(&map, sprites)
    };
    terminal.draw(|f| draw(f, &view)).unwrap();
    let buf = terminal.backend().buffer();
    let b = (0..buf.area.width)
        .flat_map(|x| (1..6).map(move |y| (x, y)))
        .find(|&(x, y)| buf[(x, y)].symbol() == "B")
        .unwrap();
    assert_eq!(buf[b].bg, ratatui::style::Color::Blue);
}

/// A rail fired from off a cell's centre was drawn two columns wide on the diagonals
/// (`╲╲` on every row): a beam is one glyph a row, a cell further each row, in line
/// with where the players at its ends are drawn.
#[test]
fn a_rail_beam_is_one_line_of_cells_wherever_it_starts() {
    let map = Map::parse(
        "open",
        &["############"; 1]
            .into_iter()
            .chain(["#S........S#"; 8])
            .chain(["############"])
            .collect::<Vec<_>>()
            .join("\n"),
    )
    .unwrap();
    let beam = |from: (f64, f64), to: (f64, f64)| {
        render_with(&map, 24, 13, vec![], |v| {
            v.beams = vec![Beam {
                id: 1,
                from,
                to,
                fading: false,
            }];
        })
    };
    // The arena's rows only: the combat line has a '│' of its own.
    let cols = |out: &str, glyph: char| -> Vec<Vec<usize>> {
        out.lines()
            .take(11)
            .map(|l| l.chars().enumerate().filter(|(_, c)| *c == glyph))
            .map(|hits| hits.map(|(i, _)| i).collect::<Vec<_>>())
            .filter(|hits| !hits.is_empty())
            .collect()
    };
    for (from, to, glyph) in [
        ((2.25, 1.25), (8.25, 7.25), '╲'),
        ((2.7, 1.6), (8.7, 7.6), '╲'),
        ((8.4, 1.3), (2.4, 7.3), '╱'),
        ((8.25, 7.75), (2.25, 1.75), '╲'),
        ((4.25, 8.5), (4.25, 1.1), '│'),
        ((4.0, 8.5), (4.0, 1.1), '│'),
    ] {
        let out = beam(from, to);
        let rows = cols(&out, glyph);
        assert!(rows.len() >= 7, "{from:?}: {rows:?}\n{out}");
        assert!(
            rows.iter().all(|r| r.len() == 1),
            "{from:?}: {rows:?}\n{out}"
        );
        // A cell (two columns) a row; the last row, where the shot stopped, may be
        // half a cell short.
        let step = if glyph == '│' { 0 } else { 2 };
        let steps: Vec<usize> = rows.windows(2).map(|p| p[0][0].abs_diff(p[1][0])).collect();
        let (last, inner) = steps.split_last().unwrap();
        assert!(inner.iter().all(|s| *s == step), "{from:?}:\n{out}");
        assert!(*last <= step && *last + 1 >= step, "{from:?}:\n{out}");
        // The beam starts where a player there is drawn.
        let start = render(
            &map,
            24,
            13,
            vec![Sprite::new(0, from.0, from.1, SpriteKind::Local)],
        );
        let at = cols(&start, '@')[0][0];
        let first: Vec<char> = out
            .lines()
            .nth(from.1 as usize + 1)
            .unwrap()
            .chars()
            .collect();
        assert_eq!(first[at], glyph, "{from:?} starts off the shooter:\n{out}");
    }
    // Across: every column between its ends, on one row.
    let out = beam((2.3, 3.4), (9.3, 3.4));
    let rows = cols(&out, '─');
    assert_eq!(rows.len(), 1, "{out}");
    assert!(rows[0].windows(2).all(|w| w[1] == w[0] + 1), "{out}");
}
