//! The arena: walls, floor and sprites, written straight into the frame buffer (one pass
//! over the map, no allocation per cell).

use ratatui::buffer::{Buffer, Cell};
use ratatui::layout::{Position, Rect};
use ratatui::style::{Modifier, Style};

use super::{Beam, CELL_COLS, Role, Sprite, SpriteKind, Theme, View, player_glyph};
use crate::sim::map::Tile;

/// The map's walls and floor seen through `area`, the cell `camera` at its top left.
pub(crate) fn draw_tiles(buf: &mut Buffer, area: Rect, camera: (u16, u16), view: &View) {
    let map = view.map;
    let cols = (area.width / CELL_COLS).min(map.width().saturating_sub(camera.0));
    let rows = area.height.min(map.height().saturating_sub(camera.1));
    // Three finished cells, copied into place: a wall, a floor cell's dotted left
    // column and its blank right one. Setting a symbol and a style on each of a big
    // map's cells was a fifth of a frame.
    let tile = |symbol: &'static str, role| {
        let mut cell = Cell::new(symbol);
        cell.set_style(Style::reset().patch(view.theme.style(role)));
        cell
    };
    let (wall, dot, blank) = (
        tile("▒", Role::Wall),
        tile("·", Role::Floor),
        tile(" ", Role::Floor),
    );
    for y in 0..rows {
        for x in 0..cols {
            let (first, rest) = match map.tile(i32::from(camera.0 + x), i32::from(camera.1 + y)) {
                Tile::Wall => (&wall, &wall),
                Tile::Floor => (&dot, &blank),
            };
            for c in 0..CELL_COLS {
                let pos = Position::new(area.x + x * CELL_COLS + c, area.y + y);
                if let Some(cell) = buf.cell_mut(pos) {
                    cell.clone_from(if c == 0 { first } else { rest });
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
        draw_beam(buf, area, camera, beam, view.theme);
    }
    // Just hurt: the '@' flashes red.
    let hurt = view.combat.as_ref().is_some_and(|c| c.hurt);
    let (players, things): (Vec<&Sprite>, Vec<&Sprite>) =
        view.sprites.iter().partition(|s| is_player(s.kind));
    for sprite in things.into_iter().chain(players) {
        draw_sprite(buf, area, camera, view, sprite, hurt);
    }
}

/// `glyph` in `style` alone: nothing of the floor's style under it (its dim) stays.
fn put(cell: &mut ratatui::buffer::Cell, glyph: char, style: Style) {
    cell.set_char(glyph).set_style(Style::reset().patch(style));
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
    let theme = view.theme;
    let (glyph, style) = glyph_and_style(sprite, hurt, theme);
    // Spawn protection: the player on blue, underlined.
    let flashing = hurt && sprite.kind == SpriteKind::Local;
    let style = if is_player(sprite.kind) && view.protected.contains(&sprite.id) && !flashing {
        theme.style(Role::Protected)
    } else {
        style
    };
    if let Some(cell) = buf.cell_mut(Position::new(col, row)) {
        put(cell, glyph, style);
    }
}

/// How a sprite looks: its glyph and style (`hurt`: the local player flashes).
fn glyph_and_style(sprite: &Sprite, hurt: bool, theme: Theme) -> (char, Style) {
    let player = theme.player(sprite.id);
    let letter = player_glyph(sprite.id);
    let dim = player.add_modifier(Modifier::DIM);
    match sprite.kind {
        // Not '·': that is the floor.
        SpriteKind::Trail { age_secs } if age_secs < 0.1 => ('•', dim),
        SpriteKind::Trail { .. } => ('∘', dim),
        SpriteKind::Ghost => (letter.to_ascii_lowercase(), dim),
        SpriteKind::LocalGhost => ('o', theme.style(Role::LocalGhost)),
        SpriteKind::FlashPredicted => ('x', theme.style(Role::Predicted)),
        SpriteKind::FlashCorrected => ('+', theme.style(Role::Corrected)),
        SpriteKind::Projectile => ('*', player.add_modifier(Modifier::BOLD)),
        SpriteKind::Muzzle => ('✶', theme.style(Role::Muzzle)),
        SpriteKind::TestedBox => ('▢', theme.style(Role::TestedBox)),
        SpriteKind::PresentBox => ('◆', theme.style(Role::PresentBox)),
        SpriteKind::Aim(aim) => (
            ['→', '↘', '↓', '↙', '←', '↖', '↑', '↗'][usize::from(aim % 8)],
            theme.style(Role::Aim),
        ),
        SpriteKind::Remote => (letter, player.add_modifier(Modifier::BOLD)),
        SpriteKind::Local if hurt => ('@', theme.style(Role::LocalHurt)),
        SpriteKind::Local => ('@', theme.style(Role::Local)),
    }
}

/// A rail beam in the shooter's colour: one clean line of cells, wherever in its cell
/// the shot started. Across, every column of its row. Otherwise one glyph a row: where
/// the shooter is drawn, then a whole cell further each row (the line at the shot's own
/// height within each row), the last one where the shot stopped. Sampling every half
/// cell put two glyphs on each row of a diagonal: a beam two columns wide.
fn draw_beam(buf: &mut Buffer, area: Rect, camera: (u16, u16), beam: &Beam, theme: Theme) {
    let (x0, y0) = beam.from;
    let (x1, y1) = beam.to;
    let (dx, dy) = (x1 - x0, y1 - y0);
    let glyph = match (dx.abs() > 0.1, dy.abs() > 0.1) {
        (true, false) => '─',
        (false, true) => '│',
        _ if dx * dy > 0.0 => '╲',
        _ => '╱',
    };
    let mut style = theme.player(beam.id);
    if beam.fading {
        style = style.add_modifier(Modifier::DIM);
    }
    let mut put = |x: f64, y: f64| {
        if let Some((col, row)) = screen_at(area, camera, x, y)
            && let Some(cell) = buf.cell_mut(Position::new(col, row))
        {
            put(cell, glyph, style);
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
    theme: Theme,
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
        let (glyph, role) = match bits {
            1 => ('•', Role::Predicted),
            2 => ('+', Role::Corrected),
            _ => ('⊕', Role::Muzzle),
        };
        let style = theme.style(role);
        let Some(cell) = buf.cell_mut(Position::new(col, row)) else {
            continue;
        };
        if cell.symbol() == "@" {
            // Under the `@`: the mark's colour (its fore, reversed), else underlined.
            let under = style
                .fg
                .map_or(Style::new().add_modifier(Modifier::UNDERLINED), |c| {
                    Style::new().bg(c)
                });
            cell.set_style(under);
        } else {
            put(cell, glyph, style);
        }
    }
}
