//! Drawing, and nothing else: [`draw`] is a function of a [`View`] that the client builds
//! each frame. Nothing here decides where anything is.

mod arena;
mod hud;
pub mod join_screen;
mod overlays;

pub use overlays::{DrawMode, LagSlice, StatsView};

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Color;
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Wrap};

use crate::sim::combat::Weapon;
use crate::sim::map::Map;
use crate::sim::world::PlayerId;

/// Terminal columns per arena cell: two, so a step sideways looks as long as a step down.
pub const CELL_COLS: u16 = 2;
/// Rows taken by the HUD above the arena, and the combat line and roster below it.
pub const CHROME_ROWS: u16 = 3;

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SpriteKind {
    /// A snapshot position still in the interpolation buffer, with its age.
    Trail {
        age_secs: f32,
    },
    /// Where the newest snapshot puts a remote player.
    Ghost,
    /// Where the newest snapshot puts the local player (its state at the acked command).
    LocalGhost,
    Remote,
    Local,
    /// Just after a correction: where the prediction had the local player...
    FlashPredicted,
    /// ...and where the server's state, replayed, put it.
    FlashCorrected,
    Projectile,
    /// The local "tell": a muzzle flash drawn the moment fire is pressed.
    Muzzle,
    /// A rail victim where the server tested the shot (rewound to the shooter's view)...
    TestedBox,
    /// ...and where it really was at that moment.
    PresentBox,
    /// Which way a player faces (and so fires): an arrow beside it, aim 0..8.
    Aim(u8),
}

/// A rail beam, in cells.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Beam {
    pub id: PlayerId,
    pub from: (f64, f64),
    pub to: (f64, f64),
    pub fading: bool,
}

/// The local player's fighting state.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CombatHud {
    pub health: i16,
    pub alive: bool,
    pub weapon: Weapon,
    pub frags: i16,
    pub frag_limit: u16,
    pub time_left_secs: Option<u32>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ScoreLine {
    pub id: PlayerId,
    pub name: String,
    pub frags: i16,
    pub deaths: u16,
    pub ping_ms: u16,
    pub local: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ResultsView {
    pub winner: String,
    pub lines: Vec<ScoreLine>,
    pub next_map: String,
}

/// Something to draw at a position in cells (the centre of the player's square).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sprite {
    pub id: PlayerId,
    pub x: f64,
    pub y: f64,
    pub kind: SpriteKind,
}

impl Sprite {
    pub fn new(id: PlayerId, x: f64, y: f64, kind: SpriteKind) -> Sprite {
        Sprite { id, x, y, kind }
    }
}

/// Which netcode techniques are on, as the HUD shows them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SwitchLights {
    pub prediction: bool,
    pub reconciliation: bool,
    pub interpolation: bool,
    pub extrapolation: bool,
    pub smoothing: bool,
    /// The server-position ghosts, and with them the interpolation buffer's trail.
    pub ghosts: bool,
    pub ghost_trail: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Hud {
    pub fps: f64,
    pub rtt_ms: f64,
    pub server_tick: u32,
    pub pending: u32,
    pub corrections: u64,
    pub switches: SwitchLights,
    /// The simulated network conditions in force, as a short summary.
    pub conditions: String,
}

#[derive(Clone, Debug, PartialEq)]
pub struct RosterLine {
    pub id: PlayerId,
    pub name: String,
    pub local: bool,
    pub bot: bool,
}

/// Everything one frame shows.
pub struct View<'a> {
    pub map: &'a Map,
    /// Drawn in order: later sprites cover earlier ones.
    pub sprites: Vec<Sprite>,
    pub beams: Vec<Beam>,
    pub combat: Option<CombatHud>,
    /// Kill feed and chat lines, oldest first.
    pub feed: Vec<String>,
    pub chat: Vec<String>,
    /// The chat line being typed, when the editor is open.
    pub chat_input: Option<String>,
    pub scoreboard: Option<Vec<ScoreLine>>,
    pub results: Option<ResultsView>,
    pub hud: Hud,
    pub roster: Vec<RosterLine>,
    /// A message shown over the arena (waiting, disconnected...).
    pub notice: Option<String>,
    pub stats: Option<StatsView>,
    pub help: bool,
}

/// The letter a player is drawn with; the local player is always `@`.
pub fn player_glyph(id: PlayerId) -> char {
    char::from(b'A' + id % 26)
}

/// Colours that stay distinct on 16-colour terminals, in the order ids get them.
const PALETTE: [Color; 12] = [
    Color::LightRed,
    Color::LightGreen,
    Color::LightYellow,
    Color::LightBlue,
    Color::LightMagenta,
    Color::LightCyan,
    Color::Red,
    Color::Green,
    Color::Yellow,
    Color::Blue,
    Color::Magenta,
    Color::Cyan,
];

pub fn player_color(id: PlayerId) -> Color {
    PALETTE[usize::from(id) % PALETTE.len()]
}

/// The terminal size (columns, rows) a map needs.
pub fn required_size(map: &Map) -> (u16, u16) {
    (map.width() * CELL_COLS, map.height() + CHROME_ROWS)
}

pub fn draw(frame: &mut Frame, view: &View) {
    let area = frame.area();
    let (need_w, need_h) = required_size(view.map);
    if area.width < need_w || area.height < need_h {
        let text = format!(
            "Terminal too small: this map needs {need_w}x{need_h}, the terminal is {}x{}. Enlarge it or press q.",
            area.width, area.height
        );
        frame.render_widget(Paragraph::new(text).wrap(Wrap { trim: true }), area);
        return;
    }
    // Centre the arena; the HUD and roster span the full width above and below it.
    let left = area.x + (area.width - need_w) / 2;
    let top = area.y + (area.height - need_h) / 2;
    let arena = Rect::new(left, top + 1, need_w, view.map.height());
    hud::draw_hud(frame, Rect::new(area.x, top, area.width, 1), &view.hud);
    arena::draw_tiles(frame.buffer_mut(), arena, view);
    overlays::draw_feeds(frame, arena, &view.feed, &view.chat);
    arena::draw_sprites(frame.buffer_mut(), arena, view);
    hud::draw_combat(
        frame,
        Rect::new(area.x, arena.bottom(), area.width, 1),
        view.combat.as_ref(),
        view.chat_input.as_deref(),
    );
    hud::draw_roster(
        frame,
        Rect::new(area.x, arena.bottom() + 1, area.width, 1),
        &view.roster,
        &view.hud.conditions,
    );
    if let Some(lines) = &view.scoreboard {
        overlays::draw_scoreboard(frame, arena, " scores (Tab) ", lines, None);
    }
    if let Some(r) = &view.results {
        let title = format!(" match over: {} wins — next: {} ", r.winner, r.next_map);
        overlays::draw_scoreboard(frame, arena, &title, &r.lines, Some(&r.winner));
    }
    if let Some(stats) = &view.stats {
        overlays::draw_stats(frame, arena, stats);
    }
    if view.help {
        overlays::draw_help(frame, arena);
    }
    if let Some(notice) = &view.notice {
        let width = (notice.chars().count() as u16 + 4).min(arena.width);
        let r = Rect::new(
            arena.x + (arena.width - width) / 2,
            arena.y + arena.height / 2,
            width,
            1,
        );
        frame.render_widget(Paragraph::new(Line::from(format!("  {notice}  "))), r);
    }
}

#[cfg(test)]
mod tests;
