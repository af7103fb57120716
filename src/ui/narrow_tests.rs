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

/// Every word of `narrow` is a word of `wide` or ends with `…` (cut from one), and a
/// line that lost the end of the wide one ends with `…`.
fn whole_or_marked(what: &str, narrow: &str, wide: &str) {
    // The bar between groups is a word of its own.
    let (narrow, wide) = (narrow.replace('│', " │ "), wide.replace('│', " │ "));
    let (narrow, wide) = (narrow.as_str(), wide.as_str());
    let wide_words: Vec<&str> = wide.split_whitespace().collect();
    let words: Vec<&str> = narrow.split_whitespace().collect();
    for w in &words {
        let whole = wide_words.contains(w) || *w == "…";
        let cut = w
            .strip_suffix('…')
            .is_some_and(|stem| wide_words.iter().any(|x| x.starts_with(stem)));
        assert!(
            whole || cut,
            "{what}: {w:?} cut without `…` in {narrow:?} ({wide:?})"
        );
    }
    let end = wide_words.last().copied().unwrap_or_default();
    assert!(
        words.contains(&end) || narrow.trim_end().ends_with('…'),
        "{what}: the end of {wide:?} is gone without `…`: {narrow:?}"
    );
}

/// A change made to the plain view.
type ViewChange = fn(&mut View);

/// Crowded HUD and combat lines, each to be drawn at 80 and 100 columns.
fn crowded_cases() -> Vec<(&'static str, ViewChange)> {
    vec![
        ("every figure large", |v| {
            v.hud.fps = 12345.0;
            v.hud.rtt_ms = 1250.0;
            v.hud.rtt_stale = true;
            v.hud.pending = 999;
            v.hud.corrections = 123_456;
            v.hud.server_tick = 4_000_000;
            v.hud.switches.ghost_trail = true;
            v.hud.switches.lag_compensation = true;
            v.hud.conditions = "150±40ms 5.0% loss 1% dup 1% reorder 64kbit/s".into();
            let c = v.combat.as_mut().unwrap();
            c.hit = true;
            c.protected_secs = Some(9.9);
            c.rail_cooldown_secs = Some(1.2);
            c.frags = 999;
            c.frag_limit = 999;
            c.time_left_secs = Some(3599);
        }),
        ("dead", |v| {
            let c = v.combat.as_mut().unwrap();
            c.alive = false;
            c.death = Some(("fragged by sixteen-letters with blaster".into(), 1.8));
        }),
        ("an explanation", |v| {
            v.explanation = Some(
                "prediction off: your own moves now wait a round trip for the server's \
                 answer before they are drawn"
                    .into(),
            );
        }),
    ]
}

/// Issue 30: nothing on the HUD, the combat line or the bottom line is cut without
/// `…` at 80 and 100 columns: each line is compared with the same view drawn 300
/// columns wide.
#[test]
fn the_hud_lines_are_whole_or_marked_at_80_and_100_columns() {
    let map = Map::builtin("arena").unwrap();
    for (what, change) in crowded_cases() {
        let wide = render_with(&map, 300, 30, vec![], change);
        let wide: Vec<&str> = wide.lines().collect();
        for (width, height) in [(80, 24), (100, 30)] {
            let out = render_with(&map, width, height, vec![], change);
            let lines: Vec<&str> = out.lines().collect();
            let combat_at = |ls: &[&str]| {
                ls.iter()
                    .position(|l| l.starts_with("HP") || l.starts_with("DEAD"))
                    .unwrap_or_else(|| panic!("{what}: no combat line:\n{}", ls.join("\n")))
            };
            let at = format!("{what} at {width}");
            // The ghost mode's short form is by design, not a cut.
            let hud = |ls: &[&str]| {
                let l = ls.iter().find(|l| l.starts_with("FPS")).unwrap();
                l.replace("gh+tr", "ghost+trail")
            };
            whole_or_marked(&format!("{at}, HUD"), &hud(&lines), &hud(&wide));
            let (c, cw) = (combat_at(&lines), combat_at(&wide));
            whole_or_marked(&format!("{at}, combat"), lines[c], wide[cw]);
            // The players (or the explanation) under it, not the network on the right.
            let players = |l: &str| l[..l.find("net ").unwrap_or(l.len())].to_owned();
            whole_or_marked(
                &format!("{at}, bottom"),
                &players(lines[c + 1]),
                &players(wide[cw + 1]),
            );
        }
    }
}

/// Issue 30: at 48 to 50 columns the death notice was left out whole (it did not fit
/// beside `? help`): it says at least when we are back.
#[test]
fn the_death_notice_stays_at_48_to_50_columns() {
    let map = Map::builtin("arena").unwrap();
    for width in 48..=50 {
        let out = render_with(&map, width, 24, vec![], |v| {
            let c = v.combat.as_mut().unwrap();
            c.alive = false;
            c.death = Some(("fragged by sixteen-letters with blaster".into(), 1.8));
        });
        let line = out
            .lines()
            .find(|l| l.contains("? help"))
            .unwrap_or_else(|| panic!("{out}"));
        assert!(
            line.starts_with("DEAD") && line.contains("back in 1.8s"),
            "{width}: {line:?}"
        );
    }
}

/// Issue 30: a stats line longer than the box was cut where the box ended (`rate
/// limite`): at 80 and 100 columns each line of the box is whole or ends with `…`.
#[test]
fn the_stats_lines_are_whole_or_marked_at_80_and_100_columns() {
    let stats = StatsView {
        rtt_ms: 1250.0,
        silent_secs: Some(12.5),
        jitter_ms: 123.4,
        snapshots_per_sec: 20.0,
        rate_limited: true,
        packets_in: 120.0,
        bytes_in: 123_456.0,
        commands_sent: 1_234_567,
        commands_acked: 1_234_560,
        pending: 7,
        corrections: 12_345,
        corrections_per_min: 123.4,
        last_correction_cells: 12.25,
        max_correction_cells: 123.25,
        fire_mispredictions: 1234,
        server_decisions: 5678,
        recent_corrections: vec![
            "123.4s 1.25 cells: bot-1 stepped into the predicted path at the door".into(),
        ],
        interp_delay_ms: 1234.0,
        frames_extrapolated: 123_456,
        frames_held: 123_456,
        underruns: 1234,
        dials: ["interp", "input", "redund", "extrap"]
            .iter()
            .map(|&name| DialLine {
                name,
                value: "auto (2 periods + jitter = 112ms)".into(),
                chosen: name == "input",
            })
            .collect(),
        ..StatsView::default()
    };
    let full: Vec<String> = overlays::stats_text(&stats);
    let map = Map::builtin("arena").unwrap();
    let mut cut = 0;
    for (width, height) in [(80, 24), (100, 30)] {
        let out = render_with(&map, width, height, vec![], |v| {
            v.stats = Some(stats.clone())
        });
        let rows: Vec<Vec<char>> = out.lines().map(|l| l.chars().collect()).collect();
        let (top, left) = rows
            .iter()
            .enumerate()
            .find_map(|(y, r)| {
                let s: String = r.iter().collect();
                s.find("net stats")
                    .map(|_| (y, r.iter().position(|&c| c == '┌').unwrap()))
            })
            .unwrap_or_else(|| panic!("no stats box:\n{out}"));
        let right = left + rows[top][left..].iter().position(|&c| c == '┐').unwrap();
        let mut seen = 0;
        for row in &rows[top + 1..] {
            let inside: String = row[left + 1..right].iter().collect();
            let inside = inside.trim_end();
            if inside.starts_with("lagometer") {
                break;
            }
            seen += 1;
            let whole = full.iter().any(|l| l.trim_end() == inside);
            let marked = inside
                .strip_suffix('…')
                .is_some_and(|stem| full.iter().any(|l| l.starts_with(stem)));
            assert!(
                whole || marked,
                "{width}: {inside:?} cut without `…`:\n{out}"
            );
            cut += usize::from(marked);
        }
        assert!(seen >= 8, "{width}: {seen} lines:\n{out}");
    }
    assert!(cut >= 2, "no line was long enough to cut");
}
