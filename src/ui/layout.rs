//! Where things go on the screen: the HUD above the arena, the combat line and roster
//! below it, a side panel beside it when the terminal is wide, and the camera, which
//! follows the player when the map is larger than the terminal.

use ratatui::layout::Rect;

use super::{CELL_COLS, CHROME_ROWS};
use crate::sim::map::Map;

/// The side panel (kill feed, chat, overlays) appears when this many columns are free
/// beside the whole map...
const SIDE_MIN_COLS: u16 = 30;
/// ...and grows to this width at most.
const SIDE_MAX_COLS: u16 = 64;
/// The smallest window onto a map that is still playable, in cells.
const MIN_VIEW_CELLS: (u16, u16) = (24, 10);

/// The rectangles of one frame, and which cell of the map is at the arena's top left.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Layout {
    pub(crate) hud: Rect,
    pub(crate) arena: Rect,
    /// The map cell drawn at the arena's top left corner.
    pub(crate) camera: (u16, u16),
    pub(crate) combat: Rect,
    pub(crate) roster: Rect,
    /// Beside the arena, when the terminal is wide enough.
    pub(crate) side: Option<Rect>,
}

/// The terminal size (columns, rows) that shows the whole map.
pub(crate) fn full_size(map: &Map) -> (u16, u16) {
    (map.width() * CELL_COLS, map.height() + CHROME_ROWS)
}

/// The smallest terminal the map can be played in, the camera following the player.
pub(crate) fn minimum_size(map: &Map) -> (u16, u16) {
    let (w, h) = full_size(map);
    (
        w.min(MIN_VIEW_CELLS.0 * CELL_COLS),
        h.min(MIN_VIEW_CELLS.1 + CHROME_ROWS),
    )
}

/// The camera's first cell along one axis: `focus` centred in `shown` of `total` cells.
fn follow(focus: Option<f64>, shown: u16, total: u16) -> u16 {
    let spare = total.saturating_sub(shown);
    let Some(focus) = focus else {
        return spare / 2;
    };
    let first = (focus - f64::from(shown) / 2.0).round();
    first.clamp(0.0, f64::from(spare)) as u16
}

/// Lays out `area` for `map`, the camera centred on `focus` (in cells) where the map
/// does not fit. None when the terminal is below [`minimum_size`].
pub(crate) fn layout(area: Rect, map: &Map, focus: Option<(f64, f64)>) -> Option<Layout> {
    let (min_w, min_h) = minimum_size(map);
    if area.width < min_w || area.height < min_h {
        return None;
    }
    let (full_w, _) = full_size(map);
    // Whole cells only: an odd column left over stays blank.
    let arena_w = full_w.min(area.width - area.width % CELL_COLS);
    let arena_h = map.height().min(area.height - CHROME_ROWS);
    let spare = area.width - arena_w;
    let side_w = (spare > SIDE_MIN_COLS).then(|| (spare - 1).min(SIDE_MAX_COLS));
    let block_w = arena_w + side_w.map_or(0, |w| w + 1);
    let left = area.x + (area.width - block_w) / 2;
    let top = area.y + (area.height - arena_h - CHROME_ROWS) / 2;
    let arena = Rect::new(left, top + 1, arena_w, arena_h);
    let camera = (
        follow(focus.map(|f| f.0), arena_w / CELL_COLS, map.width()),
        follow(focus.map(|f| f.1), arena_h, map.height()),
    );
    Some(Layout {
        hud: Rect::new(area.x, top, area.width, 1),
        arena,
        camera,
        combat: Rect::new(area.x, arena.bottom(), area.width, 1),
        roster: Rect::new(area.x, arena.bottom() + 1, area.width, 1),
        side: side_w.map(|w| Rect::new(arena.right() + 1, arena.y, w, arena_h)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(w: usize, h: usize) -> Map {
        let mut rows = vec!["#".repeat(w)];
        for y in 1..h - 1 {
            let inner = if y == 1 { "S" } else { "." };
            rows.push(format!("#{}{}#", inner, ".".repeat(w - 3)));
        }
        rows.push("#".repeat(w));
        Map::parse("test", &rows.join("\n")).unwrap()
    }

    #[test]
    fn a_large_map_is_followed_by_the_camera() {
        let m = map(60, 40);
        let l = layout(Rect::new(0, 0, 80, 24), &m, Some((50.5, 30.5))).unwrap();
        assert_eq!((l.arena.width, l.arena.height), (80, 21));
        // 40 cells shown, centred on x 50 but clamped at the map's right edge.
        assert_eq!(l.camera, (20, 19));
        let l = layout(Rect::new(0, 0, 80, 24), &m, Some((2.0, 2.0))).unwrap();
        assert_eq!(l.camera, (0, 0));
        assert_eq!(l.side, None, "no room beside");
    }

    #[test]
    fn a_wide_terminal_gets_a_side_panel_and_a_small_one_none() {
        let m = map(38, 20);
        let l = layout(Rect::new(0, 0, 160, 45), &m, None).unwrap();
        let side = l.side.unwrap();
        assert_eq!(l.camera, (0, 0));
        assert!(side.x > l.arena.right() && side.width == SIDE_MAX_COLS);
        assert!(layout(Rect::new(0, 0, 40, 10), &m, None).is_none());
        assert_eq!(minimum_size(&m), (48, 13));
    }
}
