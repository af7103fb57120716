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

mod path;

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
/// Saved (in a recording's keyframe) as its name and text and parsed again when read,
/// so a saved map is as valid as a loaded one.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(into = "MapText", try_from = "MapText")]
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
        check_grid(rows, width, &spawns, &line_of, &syntax)?;
        Ok(Map {
            name: name_of_file(file),
            width: width as u16,
            height: rows.len() as u16,
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

    /// Display name: the file stem unless changed with `Map::with_name`.
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

    /// Two spawn points on one clear straight line (a row, a column or a diagonal with
    /// no wall between them), if any: players spawning there would face each other down
    /// a rail line. Built-in maps have none (checked by the tests).
    #[cfg(test)]
    pub(crate) fn spawns_in_line(&self) -> Option<((u16, u16), (u16, u16))> {
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

    /// The same map under another display name (a map received over the network would
    /// otherwise be named after whatever label the client parsed it with).
    pub fn with_name(mut self, name: &str) -> Map {
        self.name = name.chars().take(MAX_NAME_CHARS).collect();
        self
    }
}

/// A map's serial form: its name and canonical text.
#[derive(serde::Serialize, serde::Deserialize)]
pub(crate) struct MapText {
    name: String,
    text: String,
}

impl From<Map> for MapText {
    fn from(map: Map) -> MapText {
        MapText {
            name: map.name,
            text: map.text,
        }
    }
}

impl TryFrom<MapText> for Map {
    type Error = MapError;
    fn try_from(saved: MapText) -> Result<Map, MapError> {
        Ok(Map::parse("saved map", &saved.text)?.with_name(&saved.name))
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

/// The rules for the grid as a whole: big enough, closed at the edges, with spawn
/// points, and not too many of them.
fn check_grid(
    rows: &[&str],
    width: usize,
    spawns: &[(u16, u16)],
    line_of: &dyn Fn(usize) -> usize,
    syntax: &dyn Fn(usize, usize, String) -> MapError,
) -> Result<(), MapError> {
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
    Ok(())
}

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
mod tests;
