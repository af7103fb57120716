//! The arena: walls, floor and sprites, written straight into the frame buffer (one pass
//! over the map, no allocation per cell).

use ratatui::buffer::Buffer;
use ratatui::layout::{Position, Rect};
use ratatui::style::{Color, Modifier, Style};

use super::{Beam, CELL_COLS, Sprite, SpriteKind, View, player_color, player_glyph};
use crate::sim::map::Tile;

const WALL: Style = Style::new().fg(Color::Gray).bg(Color::DarkGray);
const FLOOR: Style = Style::new().fg(Color::DarkGray);

/// The map's walls and floor seen through `area`, the cell `camera` at its top left.
pub(crate) fn draw_tiles(buf: &mut Buffer, area: Rect, camera: (u16, u16), view: &View) {
    let map = view.map;
    let cols = (area.width / CELL_COLS).min(map.width().saturating_sub(camera.0));
    let rows = area.height.min(map.height().saturating_sub(camera.1));
    for y in 0..rows {
        for x in 0..cols {
            let cell = (i32::from(camera.0 + x), i32::from(camera.1 + y));
            let (symbol, style) = match map.tile(cell.0, cell.1) {
                Tile::Wall => ("▒", WALL),
                Tile::Floor => (" ", FLOOR),
            };
            for c in 0..CELL_COLS {
                let pos = Position::new(area.x + x * CELL_COLS + c, area.y + y);
                if let Some(cell) = buf.cell_mut(pos) {
                    let symbol = if c == 0 && symbol == " " {
                        "·"
                    } else {
                        symbol
                    };
                    cell.set_symbol(symbol).set_style(style);
                }
            }
        }
    }
}

/// The terminal column and row of a point in cells, if inside `area`. Two columns per
/// cell give half-cell steps horizontally: a glyph sits in the column its centre is
/// nearest to.
fn screen_at(area: Rect, camera: (u16, u16), x: f64, y: f64) -> Option<(u16, u16)> {
    let col = ((x - f64::from(camera.0)) * f64::from(CELL_COLS) - 0.5).floor();
    let row = (y - f64::from(camera.1)).floor();
    let inside =
        (0.0..f64::from(area.width)).contains(&col) && (0.0..f64::from(area.height)).contains(&row);
    inside.then(|| (area.x + col as u16, area.y + row as u16))
}

fn is_player(kind: SpriteKind) -> bool {
    matches!(kind, SpriteKind::Remote | SpriteKind::Local)
}

/// Beams and sprites over the tiles. Players go last, whatever the order: a bolt, a
/// muzzle flash or an arrow never hides one.
pub(crate) fn draw_sprites(buf: &mut Buffer, area: Rect, camera: (u16, u16), view: &View) {
    for beam in &view.beams {
        draw_beam(buf, area, camera, beam);
    }
    // Just hurt: the '@' flashes red.
    let hurt = view.combat.as_ref().is_some_and(|c| c.hurt);
    let (players, things): (Vec<&Sprite>, Vec<&Sprite>) =
        view.sprites.iter().partition(|s| is_player(s.kind));
    for sprite in things.into_iter().chain(players) {
        draw_sprite(buf, area, camera, view, sprite, hurt);
    }
}

/// The screen cells where a player or a projectile is drawn: text over the arena (the
/// kill feed and chat in a narrow terminal) keeps off them.
pub(crate) fn occupied(area: Rect, camera: (u16, u16), view: &View) -> Vec<(u16, u16)> {
    view.sprites
        .iter()
        .filter(|s| is_player(s.kind) || s.kind == SpriteKind::Projectile)
        .filter_map(|s| screen_at(area, camera, s.x, s.y))
        .collect()
}

fn draw_sprite(
    buf: &mut Buffer,
    area: Rect,
    camera: (u16, u16),
    view: &View,
    sprite: &Sprite,
    hurt: bool,
) {
    let Some((col, row)) = screen_at(area, camera, sprite.x, sprite.y) else {
        return;
    };
    // The muzzle flash is a decoration: never over a wall.
    if sprite.kind == SpriteKind::Muzzle
        && view
            .map
            .is_wall(sprite.x.floor() as i32, sprite.y.floor() as i32)
    {
        return;
    }
    let (glyph, style) = glyph_and_style(sprite, hurt);
    // Spawn protection: the player on blue.
    let flashing = hurt && sprite.kind == SpriteKind::Local;
    let style = if is_player(sprite.kind) && view.protected.contains(&sprite.id) && !flashing {
        style.bg(Color::Blue)
    } else {
        style
    };
    if let Some(cell) = buf.cell_mut(Position::new(col, row)) {
        cell.set_char(glyph).set_style(style);
    }
}

/// How a sprite looks: its glyph and style (`hurt`: the local player flashes red).
fn glyph_and_style(sprite: &Sprite, hurt: bool) -> (char, Style) {
    let color = player_color(sprite.id);
    let letter = player_glyph(sprite.id);
    match sprite.kind {
        SpriteKind::Trail { age_secs } => {
            // Not '·': that is the floor.
            let glyph = if age_secs < 0.1 { '•' } else { '∘' };
            (glyph, Style::new().fg(color).add_modifier(Modifier::DIM))
        }
        SpriteKind::Ghost => (
            letter.to_ascii_lowercase(),
            Style::new().fg(color).add_modifier(Modifier::DIM),
        ),
        SpriteKind::LocalGhost => (
            'o',
            Style::new().fg(Color::White).add_modifier(Modifier::DIM),
        ),
        SpriteKind::FlashPredicted => (
            'x',
            Style::new()
                .fg(Color::LightRed)
                .add_modifier(Modifier::BOLD),
        ),
        SpriteKind::FlashCorrected => (
            '+',
            Style::new()
                .fg(Color::LightGreen)
                .add_modifier(Modifier::BOLD),
        ),
        SpriteKind::Projectile => ('*', Style::new().fg(color).add_modifier(Modifier::BOLD)),
        SpriteKind::Muzzle => (
            '✶',
            Style::new()
                .fg(Color::LightYellow)
                .add_modifier(Modifier::BOLD),
        ),
        SpriteKind::TestedBox => (
            '▢',
            Style::new()
                .fg(Color::LightMagenta)
                .add_modifier(Modifier::BOLD),
        ),
        SpriteKind::PresentBox => ('◆', Style::new().fg(Color::LightCyan)),
        SpriteKind::Aim(aim) => (
            ['→', '↘', '↓', '↙', '←', '↖', '↑', '↗'][usize::from(aim % 8)],
            Style::new().fg(color).add_modifier(Modifier::DIM),
        ),
        SpriteKind::Remote => (letter, Style::new().fg(color).add_modifier(Modifier::BOLD)),
        SpriteKind::Local if hurt => (
            '@',
            Style::new()
                .fg(Color::White)
                .bg(Color::Red)
                .add_modifier(Modifier::BOLD),
        ),
        SpriteKind::Local => (
            '@',
            Style::new().fg(Color::White).add_modifier(Modifier::BOLD),
        ),
    }
}

/// A rail beam in the shooter's colour: one clean line of cells, wherever in its cell
/// the shot started. Across, every column of its row. Otherwise one glyph a row: where
/// the shooter is drawn, then a whole cell further each row (the line at the shot's own
/// height within each row), the last one where the shot stopped. Sampling every half
/// cell put two glyphs on each row of a diagonal: a beam two columns wide.
fn draw_beam(buf: &mut Buffer, area: Rect, camera: (u16, u16), beam: &Beam) {
    let (x0, y0) = beam.from;
    let (x1, y1) = beam.to;
    let (dx, dy) = (x1 - x0, y1 - y0);
    let glyph = match (dx.abs() > 0.1, dy.abs() > 0.1) {
        (true, false) => '─',
        (false, true) => '│',
        _ if dx * dy > 0.0 => '╲',
        _ => '╱',
    };
    let mut style = Style::new().fg(player_color(beam.id));
    if beam.fading {
        style = style.add_modifier(Modifier::DIM);
    }
    let mut put = |x: f64, y: f64| {
        if let Some((col, row)) = screen_at(area, camera, x, y)
            && let Some(cell) = buf.cell_mut(Position::new(col, row))
        {
            cell.set_char(glyph).set_style(style);
        }
    };
    if glyph == '─' {
        let steps = (dx.abs() * f64::from(CELL_COLS)).ceil().max(1.0) as u32;
        for i in 0..=steps {
            let t = f64::from(i) / f64::from(steps);
            put(x0 + dx * t, y0 + dy * t);
        }
        return;
    }
    let (top, bottom) = (y0.min(y1), y0.max(y1));
    let rows = (y1.floor() - y0.floor()).abs() as u32;
    for k in 0..=rows {
        let y = (y0 + dy.signum() * f64::from(k)).clamp(top, bottom);
        put(x0 + dx * (y - y0) / dy, y);
    }
}

/// A correction's two paths of the local player (positions in cells, one per command):
/// `•` predicted, `+` the server's state with our commands replayed, `⊕` where both
/// fall in one screen cell. The local player's `@` stays, on the mark's colour.
pub(crate) fn draw_paths(
    buf: &mut Buffer,
    area: Rect,
    camera: (u16, u16),
    predicted: &[(f64, f64)],
    server: &[(f64, f64)],
) {
    let mut marks: Vec<((u16, u16), u8)> = Vec::new();
    for (points, bit) in [(predicted, 1), (server, 2)] {
        for &(x, y) in points {
            let Some(at) = screen_at(area, camera, x, y) else {
                continue;
            };
            match marks.iter_mut().find(|(m, _)| *m == at) {
                Some((_, bits)) => *bits |= bit,
                None => marks.push((at, bit)),
            }
        }
    }
    for ((col, row), bits) in marks {
        let (glyph, color) = match bits {
            1 => ('•', Color::LightRed),
            2 => ('+', Color::LightGreen),
            _ => ('⊕', Color::LightYellow),
        };
        let Some(cell) = buf.cell_mut(Position::new(col, row)) else {
            continue;
        };
        if cell.symbol() == "@" {
            cell.set_bg(color);
        } else {
            cell.set_char(glyph)
                .set_style(Style::new().fg(color).add_modifier(Modifier::BOLD));
        }
    }
}
