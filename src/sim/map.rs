//! Arena maps: the text format, its validation, and the maps that ship with the game.
//!
//! A map is a rectangle of glyphs (`#` wall, `.` floor, `S` spawn point on floor),
//! optionally preceded by `;` comment lines. The format is documented for players in
//! `maps/README.md`. The server sends [`Map::text`] to every client, which re-parses it
//! with [`Map::parse`], so the canonical text must always parse back to the same map.
//!
//! Validation is strict and reports `file:line:col` positions because maps are
//! hand-written by players; a vague "bad map" would send them hunting.

use std::path::Path;

/// Sub-cell units per cell: positions are fixed point so the simulation stays
/// deterministic across machines without floats.
pub const CELL: i32 = 256;
/// Widest map accepted, in cells.
pub const MAX_WIDTH: usize = 100;
/// Tallest map accepted, in cells.
pub const MAX_HEIGHT: usize = 50;
/// Longest map name, in characters: it travels in welcomes and match events.
pub const MAX_NAME_CHARS: usize = 32;

/// Anything smaller has no room for a floor, let alone a fight, once the border is walled.
const MIN_SIZE: usize = 5;
/// Far more than 16 players can use; the bound keeps spawn indices small and cheap to send.
const MAX_SPAWNS: usize = 64;

/// Built-in maps, compiled into the binary so the game works from any directory.
const BUILTINS: &[(&str, &str)] = &[
    ("arena", include_str!("../../maps/arena.txt")),
    ("duel", include_str!("../../maps/duel.txt")),
    ("warehouse", include_str!("../../maps/warehouse.txt")),
    ("catacombs", include_str!("../../maps/catacombs.txt")),
];

/// What occupies one cell. Spawn points are floor; they are kept in [`Map::spawns`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tile {
    Floor,
    Wall,
}

/// A validated arena: rectangular, walled in on every side, with at least one spawn.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Map {
    name: String,
    width: u16,
    height: u16,
    /// Row-major, `width * height` entries.
    tiles: Vec<Tile>,
    /// `(x, y)` in reading order, which is also the order spawn indices refer to.
    spawns: Vec<(u16, u16)>,
    /// Canonical grid text: no comments, `\n` between rows, no trailing newline.
    text: String,
}

/// Why a map could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum MapError {
    /// The content is wrong; the position points at the offending glyph.
    #[error("{file}:{line}:{col}: {msg}")]
    Syntax {
        file: String,
        line: usize,
        col: usize,
        msg: String,
    },
    /// The file could not be used at all (missing, a directory or other non-regular file,
    /// too large, unknown name); the loader outside `sim` reports these.
    #[error("{0}")]
    File(String),
}

impl Map {
    /// Names accepted by [`Map::builtin`]; the first one is the default.
    pub const BUILTIN_NAMES: &'static [&'static str] = &["arena", "duel", "warehouse", "catacombs"];

    /// Parses map text. `file` appears in error messages, and its file stem becomes the
    /// map's name (so `maps/pit.txt` is called `pit`).
    pub fn parse(file: &str, text: &str) -> Result<Map, MapError> {
        let syntax = |line: usize, col: usize, msg: String| MapError::Syntax {
            file: file.to_owned(),
            line,
            col,
            msg,
        };

        // Windows editors like to prepend a byte order mark; it is invisible to the
        // author, so it must not become a glyph or shift column numbers.
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let lines: Vec<&str> = text
            .split('\n')
            .map(|line| line.strip_suffix('\r').unwrap_or(line))
            .collect();

        // Comments (and blank lines between them) are only allowed above the grid; they
        // still count towards line numbers so errors point at the right place in the file.
        let start = lines
            .iter()
            .position(|line| !(line.starts_with(';') || is_blank(line)));
        let end = lines.len() - lines.iter().rev().take_while(|line| is_blank(line)).count();
        let Some(start) = start else {
            let after_comments = lines.iter().rposition(|line| line.starts_with(';'));
            return Err(match after_comments {
                None => syntax(1, 1, "empty map".to_owned()),
                Some(i) => syntax(i + 2, 1, "empty map (nothing but comments)".to_owned()),
            });
        };
        let rows = &lines[start..end];
        let line_of = |row: usize| start + row + 1;
        // A blank line ends the grid: whatever follows it is the mistake, not the blank.
        if let Some((blank, after)) = text_after_blank(rows) {
            let msg = format!(
                "text after the end of the grid (blank line {})",
                line_of(blank)
            );
            return Err(syntax(line_of(after), 1, msg));
        }
        let (width, tiles, spawns) = read_grid(rows, &line_of, &syntax)?;
        let height = rows.len();

        if width < MIN_SIZE || height < MIN_SIZE {
            return Err(syntax(
                line_of(0),
                1,
                format!("map too small: {width}x{height}, the minimum is {MIN_SIZE}x{MIN_SIZE}"),
            ));
        }

        if let Some((y, x, glyph)) = first_open_border(rows, width) {
            return Err(syntax(
                line_of(y),
                x + 1,
                format!("open border: edge cells must be '#', found {glyph:?}"),
            ));
        }

        if spawns.is_empty() {
            return Err(syntax(line_of(0), 1, "no spawn point (S)".to_owned()));
        }
        if let Some(&(x, y)) = spawns.get(MAX_SPAWNS) {
            return Err(syntax(
                line_of(usize::from(y)),
                usize::from(x) + 1,
                format!("too many spawn points (at most {MAX_SPAWNS})"),
            ));
        }

        Ok(Map {
            name: name_of_file(file),
            width: width as u16,
            height: height as u16,
            tiles,
            spawns,
            text: rows.join("\n"),
        })
    }

    /// Parses raw file content, refusing binary data and non-UTF-8 text with the position
    /// of the first bad byte (someone will eventually pass a PNG or a UTF-16 file).
    pub fn parse_bytes(file: &str, bytes: &[u8]) -> Result<Map, MapError> {
        let (text, bad_utf8) = match bytes.utf8_chunks().next() {
            None => ("", false),
            Some(chunk) => (chunk.valid(), !chunk.invalid().is_empty()),
        };
        let error_at = |offset: usize, msg: &str| {
            let (line, col) = line_col(text, offset);
            MapError::Syntax {
                file: file.to_owned(),
                line,
                col,
                msg: msg.to_owned(),
            }
        };
        // A NUL is valid UTF-8, but no text editor produces one: it means a binary file.
        if let Some(offset) = text.find('\0') {
            return Err(error_at(offset, "binary data (NUL byte)"));
        }
        if bad_utf8 {
            return Err(error_at(text.len(), "not UTF-8 text"));
        }
        Map::parse(file, text)
    }

    /// One of the maps compiled into the game, see [`Map::BUILTIN_NAMES`].
    pub fn builtin(name: &str) -> Option<Map> {
        let &(name, text) = BUILTINS.iter().find(|(builtin, _)| *builtin == name)?;
        // Every built-in is checked by the unit tests, so failing here is a build bug.
        let map = Map::parse(&format!("maps/{name}.txt"), text)
            .unwrap_or_else(|e| panic!("built-in map is invalid: {e}"));
        Some(map)
    }

    /// Display name: the file stem unless changed with [`Map::with_name`].
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Width in cells.
    pub fn width(&self) -> u16 {
        self.width
    }

    /// Height in cells.
    pub fn height(&self) -> u16 {
        self.height
    }

    /// The tile at cell `(x, y)`. Everything outside the grid counts as wall, so movement
    /// and line-of-sight code never needs its own bounds checks.
    pub fn tile(&self, x: i32, y: i32) -> Tile {
        let (Ok(x), Ok(y)) = (usize::try_from(x), usize::try_from(y)) else {
            return Tile::Wall;
        };
        let (width, height) = (usize::from(self.width), usize::from(self.height));
        if x >= width || y >= height {
            return Tile::Wall;
        }
        self.tiles[y * width + x]
    }

    /// Whether cell `(x, y)` blocks movement and shots; true outside the grid.
    pub fn is_wall(&self, x: i32, y: i32) -> bool {
        self.tile(x, y) == Tile::Wall
    }

    /// Spawn cells as `(x, y)`, in reading order (top to bottom, left to right).
    pub fn spawns(&self) -> &[(u16, u16)] {
        &self.spawns
    }

    /// The canonical grid text: what the server sends and clients feed to [`Map::parse`].
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The same map under another display name (a map received over the network would
    /// otherwise be named after whatever label the client parsed it with).
    /// Two spawn points on one clear straight line (a row, a column or a diagonal with
    /// no wall between them), if any: players spawning there would face each other down
    /// a rail line. Built-in maps have none.
    pub fn spawns_in_line(&self) -> Option<((u16, u16), (u16, u16))> {
        let clear = |(x0, y0): (u16, u16), (x1, y1): (u16, u16)| {
            let (dx, dy) = (i32::from(x1) - i32::from(x0), i32::from(y1) - i32::from(y0));
            if dx != 0 && dy != 0 && dx.abs() != dy.abs() {
                return false;
            }
            let (sx, sy, n) = (dx.signum(), dy.signum(), dx.abs().max(dy.abs()));
            (1..n).all(|k| !self.is_wall(i32::from(x0) + k * sx, i32::from(y0) + k * sy))
        };
        let s = &self.spawns;
        (0..s.len())
            .flat_map(|i| (i + 1..s.len()).map(move |j| (s[i], s[j])))
            .find(|&(a, b)| clear(a, b))
    }

    pub fn with_name(mut self, name: &str) -> Map {
        self.name = name.chars().take(MAX_NAME_CHARS).collect();
        self
    }
}

/// A map's name: its file's stem (at most [`MAX_NAME_CHARS`]).
fn name_of_file(file: &str) -> String {
    let name = Path::new(file)
        .file_stem()
        .and_then(|stem| stem.to_str())
        .filter(|stem| !stem.is_empty())
        .unwrap_or(file);
    name.chars().take(MAX_NAME_CHARS).collect()
}

/// The first blank row among `rows` and the first non-blank row after it, if any.
fn text_after_blank(rows: &[&str]) -> Option<(usize, usize)> {
    let blank = rows.iter().position(|row| is_blank(row))?;
    let after = (blank..rows.len()).find(|&y| !is_blank(rows[y]))?;
    Some((blank, after))
}

type Grid = (usize, Vec<Tile>, Vec<(u16, u16)>);

/// Reads the grid rows: the width, the tiles row-major, and the spawn points; or the
/// first error at its line and column.
fn read_grid(
    rows: &[&str],
    line_of: &dyn Fn(usize) -> usize,
    syntax: &dyn Fn(usize, usize, String) -> MapError,
) -> Result<Grid, MapError> {
    let mut width = 0;
    let mut tiles = Vec::new();
    let mut spawns = Vec::new();
    for (y, row) in rows.iter().enumerate() {
        let line = line_of(y);
        if y == MAX_HEIGHT {
            return Err(syntax(
                line,
                1,
                format!("map too tall: more than {MAX_HEIGHT} rows"),
            ));
        }
        let mut len = 0;
        for (x, glyph) in row.chars().enumerate() {
            let col = x + 1;
            if col > MAX_WIDTH {
                return Err(syntax(
                    line,
                    col,
                    format!("map too wide: more than {MAX_WIDTH} columns"),
                ));
            }
            if y > 0 && col > width {
                let len = row.chars().count();
                return Err(syntax(line, col, ragged(len, width)));
            }
            let tile = tile_for(glyph).map_err(|msg| syntax(line, col, msg))?;
            if glyph == 'S' {
                // Both coordinates are bounded by MAX_WIDTH/MAX_HEIGHT above.
                spawns.push((x as u16, y as u16));
            }
            tiles.push(tile);
            len = col;
        }
        if y == 0 {
            width = len;
        } else if len < width {
            return Err(syntax(line, len + 1, ragged(len, width)));
        }
    }
    Ok((width, tiles, spawns))
}

fn tile_for(glyph: char) -> Result<Tile, String> {
    match glyph {
        '#' => Ok(Tile::Wall),
        // A spawn point is floor; the caller records where it is.
        '.' | 'S' => Ok(Tile::Floor),
        ';' => Err("unknown glyph ';' (comments are only allowed above the grid)".to_owned()),
        other => Err(format!(
            "unknown glyph {other:?} (expected '#', '.' or 'S')"
        )),
    }
}

/// The first non-wall edge cell in reading order, as `(row, column, glyph)`.
///
/// An open edge would let players walk off the grid, so the border is mandatory rather
/// than implied. `rows` must already be rectangular and `width` wide.
fn first_open_border(rows: &[&str], width: usize) -> Option<(usize, usize, char)> {
    let last_row = rows.len() - 1;
    rows.iter().enumerate().find_map(|(y, row)| {
        let edge_row = y == 0 || y == last_row;
        row.chars()
            .enumerate()
            .find(|&(x, glyph)| (edge_row || x == 0 || x == width - 1) && glyph != '#')
            .map(|(x, glyph)| (y, x, glyph))
    })
}

fn is_blank(line: &str) -> bool {
    line.trim().is_empty()
}

fn ragged(len: usize, width: usize) -> String {
    format!("ragged row: {len} columns, but the first row has {width}")
}

/// 1-based line and column (in characters) of byte `offset` in `text`.
fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset];
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let line_text = &before[line_start..];
    // Same rule as `parse`: a leading byte order mark is not a column.
    let line_text = line_text.strip_prefix('\u{feff}').unwrap_or(line_text);
    (
        before.matches('\n').count() + 1,
        line_text.chars().count() + 1,
    )
}

#[cfg(test)]
mod tests {
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
        let (line, col, msg) =
            syntax_error(Map::parse_bytes("m", b"; caf\xc3\xa9\n#####\n#S.\xff#\n"));
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
}
