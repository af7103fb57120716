//! The 80-column terminal: nothing on the HUD, the combat line, the help box or a
//! notice is cut mid-word or left out.

use super::tests::{render_with, small_map};
use super::*;

/// At 80 columns the HUD was cut mid-word (`+gho`), the key hints too, and a long
/// roster simply stopped.
#[test]
fn at_80_columns_nothing_is_cut_mid_word_and_a_long_roster_ends_with_an_ellipsis() {
    let map = small_map();
    let out = render_with(&map, 80, 8, vec![], |v| {
        v.hud.switches.ghost_trail = true;
        v.hud.fps = 12345.0;
        v.roster = (0..12)
            .map(|id| RosterLine {
                id,
                name: format!("player-{id}"),
                local: id == 0,
                bot: id > 0,
            })
            .collect();
    });
    let lines: Vec<&str> = out.lines().collect();
    let words = |l: &str| l.split_whitespace().map(str::to_owned).collect::<Vec<_>>();
    let hud = words(lines[0]);
    for w in &hud {
        let known = ["FPS", "RTT", "tick", "pend", "corr", "│"].contains(&w.as_str())
            || w.chars().all(|c| c.is_ascii_digit())
            || w.ends_with("ms")
            || [
                "pred",
                "rec",
                "int",
                "ext",
                "smo",
                "ghost+trail",
                "gh+tr",
                "lagc",
            ]
            .iter()
            .any(|s| w[1..] == **s);
        assert!(known, "{w:?} cut in {:?}", lines[0]);
    }
    let combat = lines[6];
    let whole = ["fire", "weapon", "chat", "scores", "help"];
    assert!(
        whole.iter().any(|w| combat.trim_end().ends_with(w)),
        "{combat}"
    );
    let roster = lines[7];
    assert!(roster.contains("… ") || roster.contains("…"), "{roster}");
    assert!(roster.contains("player-0"), "{roster}");
}

/// The help box was taller than an 80x24 arena and its lines were cut mid-word.
#[test]
fn help_fits_an_80x24_terminal_whole() {
    let map = Map::builtin("arena").unwrap();
    let out = render_with(&map, 80, 24, vec![], |v| v.help = true);
    assert!(out.contains("? / F1 this help"), "{out}");
    assert!(out.contains("only changes are drawn"), "{out}");
    for whole in [
        "move; a tap: one cell; you aim as you move",
        "close overlays, else quit (asks once)",
        "lag compensation marks (HUD lagc)",
        "HUD: +on/-off: pred rec int ext smo ghost lagc",
    ] {
        assert!(out.contains(whole), "{whole:?} cut:\n{out}");
    }
}

/// At 80 columns the help hint was the first to go: with the shield up or while dead,
/// the combat line ended at "1/2 weapon" or at the clock, and nothing said `?`.
#[test]
fn the_help_hint_is_always_on_the_combat_line_at_80_columns() {
    let map = Map::builtin("arena").unwrap();
    type Change = fn(&mut CombatHud);
    let cases: [(&str, Change); 4] = [
        ("playing", |_| {}),
        ("shielded", |c| {
            c.health = 100;
            c.weapon = crate::sim::combat::Weapon::Blaster;
            c.protected_secs = Some(3.0);
        }),
        ("hit, rail cooling", |c| {
            c.hit = true;
            c.rail_cooldown_secs = Some(1.2);
            c.frags = 19;
            c.time_left_secs = Some(599);
        }),
        ("dead", |c| {
            c.alive = false;
            c.death = Some(("fragged by sixteen-letters with blaster".into(), 1.8));
        }),
    ];
    for (what, change) in cases {
        let out = render_with(&map, 80, 24, vec![], |v| change(v.combat.as_mut().unwrap()));
        let line = out
            .lines()
            .find(|l| l.starts_with("HP") || l.starts_with("DEAD"))
            .unwrap();
        assert!(line.trim_end().ends_with("? help"), "{what}: {line:?}");
        if what == "shielded" {
            insta::assert_snapshot!(line);
        }
    }
}

/// At 80 columns the top line used to lose its last switches (the ghost mode and
/// lagc) to the server tick: every switch stays, the tick and long names give way.
#[test]
fn every_switch_is_on_the_top_line_at_80_columns() {
    let map = Map::builtin("arena").unwrap();
    let out = render_with(&map, 80, 24, vec![], |v| {
        v.hud.fps = 12345.0;
        v.hud.rtt_ms = 1250.0;
        v.hud.pending = 99;
        v.hud.corrections = 123;
        v.hud.switches.ghost_trail = true;
        v.hud.switches.lag_compensation = true;
    });
    let top = out.lines().find(|l| l.contains("FPS")).unwrap();
    for switch in ["+pred", "+rec", "-ext", "+smo", "+gh+tr", "+lagc"] {
        assert!(top.contains(switch), "{switch} missing: {top:?}");
    }
    assert!(
        top.contains("FPS 12345") && top.contains("RTT 1250ms"),
        "{top:?}"
    );
    // Wide enough, nothing is abbreviated or left out.
    let out = render_with(&map, 120, 30, vec![], |v| v.hud.switches.ghost_trail = true);
    let top = out.lines().find(|l| l.contains("FPS")).unwrap();
    assert!(
        top.contains("tick 1234") && top.contains("+ghost+trail -lagc"),
        "{top:?}"
    );
}

/// The F8 notice was cut at the map's width, path and all: it takes the screen's width
/// and goes on to further lines when longer, so the path can be read whole.
#[test]
fn a_long_notice_is_shown_whole() {
    let map = small_map();
    let path = "/home/someone/games/netarena-1795453890.narec";
    let notice = format!("saved; watch it with: netarena replay {path}");
    let out = render_with(&map, 40, 12, vec![], |v| v.notice = Some(notice.clone()));
    let joined: String = out.lines().map(str::trim).collect();
    assert!(
        joined.contains("saved; watch it with: netarena replay"),
        "{out}"
    );
    assert!(joined.contains(path), "{out}");
}

/// At 80x24 the kill feed lies over the arena, and a player at a spawn point under it
/// was not drawn: you died to someone you could not see. Every player and bolt shows
/// through the feed and the chat, and the feed's lines are still there to read.
#[test]
fn no_player_is_covered_by_the_feed_or_the_chat_at_80x24() {
    let map = Map::builtin("arena").unwrap();
    // Everyone on a spawn point, and a bolt beside each; more on the top rows.
    let mut sprites = Vec::new();
    for (i, &(x, y)) in map.spawns().iter().enumerate() {
        let (x, y) = (f64::from(x) + 0.5, f64::from(y) + 0.5);
        sprites.push(Sprite::new(i as PlayerId + 1, x, y, SpriteKind::Remote));
        sprites.push(Sprite::new(9, x + 1.0, y, SpriteKind::Projectile));
    }
    for x in (26..38).step_by(3) {
        sprites.push(Sprite::new(0, f64::from(x) + 0.5, 1.5, SpriteKind::Local));
    }
    let feed: Vec<String> = (1..=4)
        .map(|i| format!("sixteen-letters-{i} [blaster] sixteen-letters-{}", i + 4))
        .collect();
    let chat: Vec<String> = (1..=3)
        .map(|i| format!("sixteen-letters-{i}: a chat line long enough to cross"))
        .collect();
    let bare = render_with(&map, 80, 24, sprites.clone(), |_| {});
    let busy = render_with(&map, 80, 24, sprites, |v| {
        v.feed = feed.clone();
        v.chat = chat.clone();
    });
    let cells = |s: &str| -> Vec<Vec<char>> { s.lines().map(|l| l.chars().collect()).collect() };
    let (bare, shown) = (cells(&bare), cells(&busy));
    let mut players = 0;
    for (y, row) in bare.iter().enumerate() {
        for (x, c) in row.iter().enumerate() {
            if c.is_ascii_uppercase() || *c == '@' || *c == '*' {
                players += 1;
                assert_eq!(shown[y][x], *c, "covered at {x},{y}:\n{busy}");
            }
        }
    }
    assert!(players > 8, "{players} players and bolts drawn:\n{busy}");
    for line in feed.iter().chain(&chat) {
        assert!(busy.contains(line.as_str()), "{line:?} not whole:\n{busy}");
    }
}
