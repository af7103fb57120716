//! Drawing, and nothing else: `draw` is a function of a `View` that the client builds
//! each frame. Nothing here decides where anything is.
#![doc(hidden)] // Public for the binary, tests or fuzz targets: see the crate docs.

mod arena;
pub(crate) mod ellipsis;
mod help;
mod hud;
pub(crate) mod join_screen;
pub(crate) mod keys;
pub(crate) mod lab;
pub(crate) mod ladder;
mod layout;
mod overlays;
pub(crate) mod theme;
pub(crate) mod timeline;

pub(crate) use layout::{full_size, minimum_size};

pub(crate) use overlays::{DialLine, DrawMode, LagSlice, StatsView, lagometer_lines};
pub(crate) use theme::Role;
pub use theme::Theme;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Clear, Paragraph, Wrap};

use crate::sim::combat::Weapon;
use crate::sim::map::Map;
use crate::sim::world::PlayerId;

/// Terminal columns per arena cell: two, so a step sideways looks as long as a step down.
pub(crate) const CELL_COLS: u16 = 2;
/// Rows taken by the HUD above the arena, and the combat line and roster below it.
pub(crate) const CHROME_ROWS: u16 = 3;

#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum SpriteKind {
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
pub(crate) struct Beam {
    pub(crate) id: PlayerId,
    pub(crate) from: (f64, f64),
    pub(crate) to: (f64, f64),
    pub(crate) fading: bool,
}

/// The local player's fighting state.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct CombatHud {
    pub(crate) health: i16,
    pub(crate) alive: bool,
    pub(crate) weapon: Weapon,
    pub(crate) frags: i16,
    pub(crate) frag_limit: u16,
    pub(crate) time_left_secs: Option<u32>,
    /// Just hurt: the health flashes.
    pub(crate) hurt: bool,
    /// One of our shots just hit someone.
    pub(crate) hit: bool,
    /// While dead: how ("fragged by bot-1 with rail") and seconds to the respawn.
    pub(crate) death: Option<(String, f64)>,
    /// Seconds until the rail can fire again, while it cools down.
    pub(crate) rail_cooldown_secs: Option<f64>,
    /// Seconds of spawn protection left.
    pub(crate) protected_secs: Option<f64>,
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ScoreLine {
    pub(crate) id: PlayerId,
    pub(crate) name: String,
    pub(crate) frags: i16,
    pub(crate) deaths: u16,
    pub(crate) ping_ms: u16,
    pub(crate) local: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ResultsView {
    pub(crate) winner: String,
    pub(crate) lines: Vec<ScoreLine>,
    pub(crate) next_map: String,
}

/// Something to draw at a position in cells (the centre of the player's square).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Sprite {
    pub(crate) id: PlayerId,
    pub(crate) x: f64,
    pub(crate) y: f64,
    pub(crate) kind: SpriteKind,
}

impl Sprite {
    pub(crate) fn new(id: PlayerId, x: f64, y: f64, kind: SpriteKind) -> Sprite {
        Sprite { id, x, y, kind }
    }
}

/// Which netcode techniques are on, as the HUD shows them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct SwitchLights {
    pub(crate) prediction: bool,
    pub(crate) reconciliation: bool,
    pub(crate) interpolation: bool,
    pub(crate) extrapolation: bool,
    pub(crate) smoothing: bool,
    /// The server-position ghosts, and with them the interpolation buffer's trail.
    pub(crate) ghosts: bool,
    pub(crate) ghost_trail: bool,
    /// The lag compensation overlay (`v`).
    pub(crate) lag_compensation: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Hud {
    pub(crate) fps: f64,
    pub(crate) rtt_ms: f64,
    /// No snapshot for a while: the RTT is the last one measured, shown as doubtful.
    pub(crate) rtt_stale: bool,
    pub(crate) server_tick: u32,
    pub(crate) pending: u32,
    pub(crate) corrections: u64,
    pub(crate) switches: SwitchLights,
    /// The simulated network conditions in force, as a short summary.
    pub(crate) conditions: String,
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct RosterLine {
    pub(crate) id: PlayerId,
    pub(crate) name: String,
    pub(crate) local: bool,
    pub(crate) bot: bool,
}

/// The chat line being typed, and how many more characters the protocol takes.
#[derive(Clone, Debug, Default)]
pub(crate) struct ChatInput {
    pub(crate) text: String,
    pub(crate) left: usize,
}

/// Everything one frame shows.
pub(crate) struct View<'a> {
    pub(crate) map: &'a Map,
    /// What the camera follows when the map is larger than the terminal, in cells.
    pub(crate) focus: Option<(f64, f64)>,
    /// Players under spawn protection: drawn on blue.
    pub(crate) protected: Vec<PlayerId>,
    /// Drawn in order: later sprites cover earlier ones.
    pub(crate) sprites: Vec<Sprite>,
    pub(crate) beams: Vec<Beam>,
    pub(crate) combat: Option<CombatHud>,
    /// Kill feed and chat lines, oldest first.
    pub(crate) feed: Vec<String>,
    pub(crate) chat: Vec<String>,
    /// The chat line being typed, when the editor is open.
    pub(crate) chat_input: Option<ChatInput>,
    pub(crate) scoreboard: Option<Vec<ScoreLine>>,
    pub(crate) results: Option<ResultsView>,
    pub(crate) hud: Hud,
    pub(crate) roster: Vec<RosterLine>,
    /// A message shown over the arena (waiting, disconnected...).
    pub(crate) notice: Option<String>,
    pub(crate) stats: Option<StatsView>,
    pub(crate) help: bool,
    /// What the last switch change does, on the bottom line for a few seconds.
    pub(crate) explanation: Option<String>,
    pub(crate) theme: Theme,
}

/// The letter a player is drawn with; the local player is always `@`.
pub(crate) fn player_glyph(id: PlayerId) -> char {
    char::from(b'A' + id % 26)
}

pub(crate) fn draw(frame: &mut Frame, view: &View) {
    draw_in(frame, frame.area(), view);
}

/// [`draw`] into part of the frame.
pub(crate) fn draw_in(frame: &mut Frame, area: Rect, view: &View) {
    draw_in_keyed(frame, area, view, &keys::hints(keys::GAME));
}

/// [`draw_in`] with other key hints on the combat line (the replay keeps rows for its
/// timeline, and has keys of its own); the last of `keys` is kept whatever else gives way.
pub(crate) fn draw_in_keyed(frame: &mut Frame, area: Rect, view: &View, keys: &[&str]) {
    let Some(l) = layout::layout(area, view.map, view.focus) else {
        let (need_w, need_h) = minimum_size(view.map);
        let (full_w, full_h) = full_size(view.map);
        let text = format!(
            "Terminal too small: this map needs {full_w}x{full_h} to show in full and at least {need_w}x{need_h} to play; the terminal is {}x{}. Enlarge it or press q.",
            area.width, area.height
        );
        frame.render_widget(Paragraph::new(text).wrap(Wrap { trim: true }), area);
        return;
    };
    let t = view.theme;
    hud::draw_hud(frame, l.hud, &view.hud, t);
    arena::draw_tiles(frame.buffer_mut(), l.arena, l.camera, view);
    arena::draw_sprites(frame.buffer_mut(), l.arena, l.camera, view);
    // Text goes over the sprites: nothing draws into a line of the feed or chat.
    if let Some(side) = l.side {
        // Under the kill feed's four lines, above the chat's three.
        let r = Rect::new(
            side.x,
            side.y + 5,
            side.width,
            side.height.saturating_sub(9),
        );
        hud::draw_roster_list(frame, r, &view.roster, t);
    }
    // In a narrow terminal the feed and chat are over the arena: never over a player.
    let (feeds, keep_clear) = match l.side {
        Some(side) => (side, Vec::new()),
        None => (l.arena, arena::occupied(l.arena, l.camera, view)),
    };
    overlays::draw_feeds(
        frame,
        feeds,
        l.side.is_some(),
        &view.feed,
        &view.chat,
        &keep_clear,
        t,
    );
    hud::draw_combat(
        frame,
        l.combat,
        view.combat.as_ref(),
        view.chat_input.as_ref(),
        keys,
        t,
    );
    hud::draw_roster(
        frame,
        l.roster,
        &view.roster,
        view.explanation.as_deref(),
        &view.hud.conditions,
        t,
    );
    // Boxes go over the arena: the side panel holds the feed and the player list,
    // which a box there would cut mid-word.
    let boxes = l.arena;
    if let Some(lines) = &view.scoreboard {
        overlays::draw_scoreboard(frame, boxes, " scores (Tab) ", lines, None, t);
    }
    if let Some(r) = &view.results {
        let title = format!(" match over: {} wins — next: {} ", r.winner, r.next_map);
        overlays::draw_scoreboard(frame, boxes, &title, &r.lines, Some(&r.winner), t);
    }
    if let Some(stats) = &view.stats {
        overlays::draw_stats(frame, boxes, stats, t);
    }
    if view.help {
        help::draw_help(frame, boxes, t);
    }
    if let Some(notice) = &view.notice {
        draw_notice(frame, l.arena, notice);
    }
}

/// A notice in the middle of the arena, as wide as the whole screen allows and wrapped
/// onto more lines when longer: a saved recording's path must be readable whole.
fn draw_notice(frame: &mut Frame, arena: Rect, notice: &str) {
    let screen = frame.area();
    let text: Vec<char> = format!("  {notice}  ").chars().collect();
    let width = (text.len() as u16).clamp(1, screen.width.max(1));
    let lines: Vec<Line> = text
        .chunks(usize::from(width))
        .map(|c| Line::from(c.iter().collect::<String>()))
        .collect();
    let height = (lines.len() as u16).min(arena.height.max(1));
    let r = Rect::new(
        screen.x + (screen.width - width) / 2,
        arena.y + arena.height.saturating_sub(height) / 2,
        width,
        height,
    );
    frame.render_widget(Clear, r);
    frame.render_widget(Paragraph::new(lines), r);
}

/// One line of text in the middle of the screen (connecting, and the like).
pub(crate) fn draw_message(frame: &mut Frame, text: &str) {
    let area = frame.area();
    let width = (text.chars().count() as u16).min(area.width);
    let r = Rect::new(
        area.x + (area.width - width) / 2,
        area.y + area.height / 2,
        width,
        area.height.min(1),
    );
    frame.render_widget(Paragraph::new(text.to_owned()), r);
}

#[cfg(test)]
mod colour_tests;
#[cfg(test)]
mod narrow_tests;
#[cfg(test)]
mod tests;
