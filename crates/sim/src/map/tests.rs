//! The map format and its errors (each at `file:line:col`), and the built-in maps: they
//! parse, fit a terminal, and have room and no unreachable floor.

use super::*;

/// A small valid map used as the base for the error cases.
const SMALL: &str = "#####\n#S..#\n#.#.#\n#..S#\n#####";

fn syntax_error(result: Result<Map, MapError>) -> (usize, usize, String) {
    match result {
        Err(MapError::Syntax { line, col, msg, .. }) => (line, col, msg),
        other => panic!("expected a syntax error, got {other:?}"),
    }
}

fn position(result: Result<Map, MapError>) -> (usize, usize) {
    let (line, col, _) = syntax_error(result);
    (line, col)
}

#[test]
fn parses_a_small_map() {
    let map = Map::parse("maps/small.txt", SMALL).unwrap();
    assert_eq!(map.name(), "small");
    assert_eq!((map.width(), map.height()), (5, 5));
    assert_eq!(map.spawns(), &[(1, 1), (3, 3)]);
    assert_eq!(map.tile(1, 1), Tile::Floor);
    assert_eq!(map.tile(2, 2), Tile::Wall);
    assert!(map.is_wall(0, 0));
    assert!(!map.is_wall(3, 1));
    assert_eq!(map.text(), SMALL);
}

#[test]
fn no_two_builtin_spawns_share_a_clear_line() {
    for name in Map::BUILTIN_NAMES {
        let map = Map::builtin(name).unwrap();
        assert_eq!(map.spawns_in_line(), None, "{name}");
    }
    // The check sees rows, columns and diagonals, and walls between.
    let open = Map::parse("m", "#######\n#S...S#\n#.....#\n#.....#\n#######").unwrap();
    assert_eq!(open.spawns_in_line(), Some(((1, 1), (5, 1))));
    let walled = Map::parse("m", "#######\n#S.#.S#\n#.....#\n#.....#\n#######").unwrap();
    assert_eq!(walled.spawns_in_line(), None);
    let diagonal = Map::parse("m", "#####\n#S..#\n#...#\n#..S#\n#####").unwrap();
    assert_eq!(diagonal.spawns_in_line(), Some(((1, 1), (3, 3))));
}

#[test]
fn text_after_a_blank_line_is_blamed_not_the_blank() {
    let text = "#####\n#S..#\n#...#\n#...#\n#####\n\n\n#####\n";
    let (line, col, msg) = syntax_error(Map::parse("m", text));
    assert_eq!((line, col), (8, 1), "{msg}");
    assert!(msg.contains("blank line 6"), "{msg}");
    assert!(!msg.contains("ragged"), "{msg}");
}

#[test]
fn error_display_has_file_line_col() {
    let err = Map::parse("pit.txt", "#####\n#S.x#\n#...#\n#...#\n#####").unwrap_err();
    assert_eq!(
        err.to_string(),
        "pit.txt:2:4: unknown glyph 'x' (expected '#', '.' or 'S')"
    );
}

#[test]
fn unknown_glyph() {
    let (line, col, msg) = syntax_error(Map::parse("m", "#####\n#S..#\n#.#@#\n#...#\n#####"));
    assert_eq!((line, col), (3, 4));
    assert!(msg.contains("'@'"), "{msg}");
}

#[test]
fn control_characters_are_escaped() {
    let (line, col, msg) = syntax_error(Map::parse("m", "#####\n#S.\t#\n#...#\n#...#\n#####"));
    assert_eq!((line, col), (2, 4));
    assert!(msg.contains(r"'\t'"), "{msg}");
}

#[test]
fn comment_after_grid_is_an_error() {
    let (line, col, msg) = syntax_error(Map::parse("m", "#####\n#S..#\n; no\n#...#\n#####"));
    assert_eq!((line, col), (3, 1));
    assert!(msg.contains("above the grid"), "{msg}");
}

#[test]
fn ragged_row_shorter() {
    let (line, col, msg) = syntax_error(Map::parse("m", "#####\n#S..#\n#..#\n#...#\n#####"));
    assert_eq!((line, col), (3, 5));
    assert!(msg.contains("ragged"), "{msg}");
}

#[test]
fn ragged_row_longer() {
    let (line, col, msg) = syntax_error(Map::parse("m", "#####\n#S..#\n#...##\n#...#\n#####"));
    assert_eq!((line, col), (3, 6));
    assert!(msg.contains("ragged"), "{msg}");
}

#[test]
fn blank_line_inside_grid_blames_the_line_after_it() {
    // Issue 14: the blank line is not the mistake, the text after it is.
    let (line, col, _) = syntax_error(Map::parse("m", "#####\n#S..#\n\n#...#\n#####"));
    assert_eq!((line, col), (4, 1));
}

#[test]
fn open_border_top_row() {
    let (line, col, msg) = syntax_error(Map::parse("m", "##.##\n#S..#\n#...#\n#...#\n#####"));
    assert_eq!((line, col), (1, 3));
    assert!(msg.contains("open border"), "{msg}");
}

#[test]
fn open_border_sides_and_bottom() {
    let left = Map::parse("m", "#####\n#S..#\n....#\n#...#\n#####");
    assert_eq!(position(left), (3, 1));
    let right = Map::parse("m", "#####\n#S..#\n#....\n#...#\n#####");
    assert_eq!(position(right), (3, 5));
    let (line, col, msg) = syntax_error(Map::parse("m", "#####\n#S..#\n#...#\n#...#\n###S#"));
    assert_eq!((line, col), (5, 4));
    assert!(msg.contains("'S'"), "{msg}");
}

#[test]
fn no_spawn() {
    let (line, col, msg) = syntax_error(Map::parse("m", "#####\n#...#\n#...#\n#...#\n#####"));
    assert_eq!((line, col), (1, 1));
    assert_eq!(msg, "no spawn point (S)");
    let with_comment = "; title\n#####\n#...#\n#...#\n#...#\n#####";
    assert_eq!(syntax_error(Map::parse("m", with_comment)).0, 2);
}

#[test]
fn too_many_spawns() {
    let mut rows = vec!["#".repeat(12)];
    rows.extend((0..8).map(|_| format!("#{}#", "S".repeat(10))));
    rows.push("#".repeat(12));
    let (line, col, msg) = syntax_error(Map::parse("m", &rows.join("\n")));
    // The 65th spawn is the 5th one on the 7th spawn row (line 8).
    assert_eq!((line, col), (8, 6));
    assert!(msg.contains("too many spawn points"), "{msg}");
    // Exactly 64 is fine.
    rows[7] = format!("#{}#", "S".repeat(4) + &".".repeat(6));
    rows[8] = format!("#{}#", ".".repeat(10));
    assert_eq!(
        Map::parse("m", &rows.join("\n")).unwrap().spawns().len(),
        64
    );
}

#[test]
fn too_small() {
    let (line, col, msg) = syntax_error(Map::parse("m", "; x\n####\n#S.#\n#..#\n####"));
    assert_eq!((line, col), (2, 1));
    assert!(msg.contains("too small"), "{msg}");
}

/// A walled map of the given size with one spawn in the top-left corner.
fn walled(width: usize, height: usize) -> String {
    let mut rows = vec!["#".repeat(width)];
    for y in 1..height - 1 {
        let glyph = if y == 1 { "S" } else { "." };
        rows.push(format!("#{glyph}{}#", ".".repeat(width - 3)));
    }
    rows.push("#".repeat(width));
    rows.join("\n")
}

#[test]
fn largest_map_is_accepted() {
    let map = Map::parse("m", &walled(MAX_WIDTH, MAX_HEIGHT)).unwrap();
    assert_eq!((map.width(), map.height()), (100, 50));
}

#[test]
fn too_wide() {
    let (line, col, msg) = syntax_error(Map::parse("m", &walled(MAX_WIDTH + 1, 6)));
    assert_eq!((line, col), (1, 101));
    assert!(msg.contains("too wide"), "{msg}");
    // A wide row further down is reported on its own line.
    let text = format!("; c\n{}\n{}", walled(10, 5), "#".repeat(120));
    let (line, col, _) = syntax_error(Map::parse("m", &text));
    assert_eq!((line, col), (7, 11));
}

#[test]
fn too_tall() {
    let (line, col, msg) = syntax_error(Map::parse("m", &walled(10, MAX_HEIGHT + 1)));
    assert_eq!((line, col), (51, 1));
    assert!(msg.contains("too tall"), "{msg}");
}

#[test]
fn empty() {
    for text in ["", "\n", "\r\n\r\n", "   \n"] {
        let (line, col, msg) = syntax_error(Map::parse("m", text));
        assert_eq!((line, col, msg.as_str()), (1, 1, "empty map"), "{text:?}");
    }
    let (line, col, _) = syntax_error(Map::parse("m", "; only\n; comments\n"));
    assert_eq!((line, col), (3, 1));
    let err = Map::parse_bytes("x.txt", b"").unwrap_err();
    assert_eq!(err.to_string(), "x.txt:1:1: empty map");
}

#[test]
fn nul_byte() {
    let (line, col, msg) = syntax_error(Map::parse_bytes("m", b"#####\n#S\0..#\n"));
    assert_eq!((line, col), (2, 3));
    assert_eq!(msg, "binary data (NUL byte)");
}

#[test]
fn invalid_utf8() {
    let (line, col, msg) = syntax_error(Map::parse_bytes("m", b"; caf\xc3\xa9\n#####\n#S.\xff#\n"));
    // The two-byte 'é' above is one column; the bad byte is the 4th character.
    assert_eq!((line, col), (3, 4));
    assert_eq!(msg, "not UTF-8 text");
    // UTF-16 starts with a byte order mark that is not UTF-8.
    let (line, col, _) = syntax_error(Map::parse_bytes("m", b"\xff\xfe#\0#\0"));
    assert_eq!((line, col), (1, 1));
}

#[test]
fn earliest_bad_byte_wins() {
    let (line, col, msg) = syntax_error(Map::parse_bytes("m", b"##\xff#\0#"));
    assert_eq!((line, col, msg.as_str()), (1, 3, "not UTF-8 text"));
    let (line, col, msg) = syntax_error(Map::parse_bytes("m", b"#\0#\xff"));
    assert_eq!((line, col, msg.as_str()), (1, 2, "binary data (NUL byte)"));
}

#[test]
fn comments_shift_line_numbers() {
    let text = "; The Pit\n; by someone\n\n#####\n#S..#\n#..x#\n#...#\n#####\n";
    let (line, col, _) = syntax_error(Map::parse("m", text));
    assert_eq!((line, col), (6, 4));
    let fixed = text.replace('x', ".");
    let map = Map::parse("m", &fixed).unwrap();
    assert_eq!(map.text(), "#####\n#S..#\n#...#\n#...#\n#####");
}

#[test]
fn crlf_and_trailing_blank_lines_accepted() {
    let crlf = format!(
        "\u{feff}; windows\r\n{}\r\n\r\n\r\n",
        SMALL.replace('\n', "\r\n")
    );
    let map = Map::parse("m", &crlf).unwrap();
    assert_eq!(map, Map::parse("m", SMALL).unwrap());
    // Errors on CRLF lines point at the same columns as with LF.
    let ragged = "#####\r\n#S..#\r\n#..#\r\n#...#\r\n#####\r\n";
    assert_eq!(position(Map::parse("m", ragged)), (3, 5));
}

#[test]
fn out_of_bounds_is_wall() {
    let map = Map::parse("m", SMALL).unwrap();
    for (x, y) in [
        (-1, 1),
        (1, -1),
        (5, 1),
        (1, 5),
        (i32::MIN, i32::MIN),
        (i32::MAX, 2),
    ] {
        assert_eq!(map.tile(x, y), Tile::Wall, "({x}, {y})");
        assert!(map.is_wall(x, y));
    }
}

#[test]
fn text_round_trips() {
    let original = Map::parse(
        "custom.txt",
        &format!("; hi\r\n{}\r\n", SMALL.replace('\n', "\r\n")),
    )
    .unwrap();
    let received = Map::parse("<server>", original.text()).unwrap();
    assert_ne!(received.name(), original.name());
    assert_eq!(received.with_name(original.name()), original);

    for &name in Map::BUILTIN_NAMES {
        let map = Map::builtin(name).unwrap();
        let copy = Map::parse("<server>", map.text()).unwrap().with_name(name);
        assert_eq!(copy, map, "{name}");
    }
}

#[test]
fn readme_example_is_valid() {
    let readme = include_str!("../../maps/README.md");
    let example = readme
        .split("## Example")
        .nth(1)
        .and_then(|rest| rest.split("```text\n").nth(1))
        .and_then(|block| block.split("```").next())
        .expect("maps/README.md has an example block");
    let map = Map::parse("pit.txt", example).unwrap();
    assert_eq!((map.width(), map.height(), map.spawns().len()), (9, 5, 2));
}

#[test]
fn builtins_parse_and_match_their_names() {
    let table: Vec<&str> = BUILTINS.iter().map(|(name, _)| *name).collect();
    assert_eq!(table, Map::BUILTIN_NAMES);
    for &name in Map::BUILTIN_NAMES {
        let map = Map::builtin(name).unwrap_or_else(|| panic!("{name} missing"));
        assert_eq!(map.name(), name);
    }
    assert!(Map::builtin("nope").is_none());
}

#[test]
fn default_arena_fits_a_standard_terminal() {
    // 80x24 terminal, two columns per cell, two HUD lines.
    let map = Map::builtin(Map::BUILTIN_NAMES[0]).unwrap();
    assert_eq!(map.name(), "arena");
    assert!(usize::from(map.width()) * 2 <= 79, "{}", map.width());
    assert!(usize::from(map.height()) + 2 <= 23, "{}", map.height());
}

#[test]
fn builtins_have_room_for_a_crowd() {
    for &name in Map::BUILTIN_NAMES {
        let map = Map::builtin(name).unwrap();
        let cells = usize::from(map.width()) * usize::from(map.height());
        let wanted = if cells >= 600 { 8 } else { 2 };
        assert!(
            map.spawns().len() >= wanted,
            "{name}: {} spawns",
            map.spawns().len()
        );
    }
}

#[test]
fn builtins_have_no_unreachable_floor() {
    for &name in Map::BUILTIN_NAMES {
        let map = Map::builtin(name).unwrap();
        let (w, h) = (i32::from(map.width()), i32::from(map.height()));
        let index = |x: i32, y: i32| (y * w + x) as usize;

        let mut seen = vec![false; (w * h) as usize];
        let (sx, sy) = map.spawns()[0];
        let mut stack = vec![(i32::from(sx), i32::from(sy))];
        seen[index(stack[0].0, stack[0].1)] = true;
        while let Some((x, y)) = stack.pop() {
            for (nx, ny) in [(x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)] {
                if !map.is_wall(nx, ny) && !seen[index(nx, ny)] {
                    seen[index(nx, ny)] = true;
                    stack.push((nx, ny));
                }
            }
        }

        for y in 0..h {
            for x in 0..w {
                assert!(
                    map.is_wall(x, y) || seen[index(x, y)],
                    "{name}: floor at ({x}, {y}) is unreachable from the first spawn"
                );
            }
        }
    }
}
