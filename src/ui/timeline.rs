//! The replay's timeline strip, under the arena: one column per command tick around the
//! cursor (the replay time), one row per thing the netcode did in that tick, the
//! cursor with a caption (which snapshots the cursor's frame draws remote players
//! between), and a legend.
//!
//! ```text
//!  paused 1x  01:23.450 / 10:00.000  fix 3/41: 0.19 cells, bot-2 was elsewhere
//! cmds  |||||||r||||||||||||||||||x|||||||||
//! ack   ··+··+·····+··+··+··+··+··+··+··+··+
//! snap  S··S··x··S··[··]··S··L··S··S··S··S··
//! draw  ~~~~~~~~~eee~~~~~~~~~~~~~~~~~~~~~~~~   (s: at a snapshot, interpolation off)
//! fix   ··········!·························
//!                  ^ interp 1234→1237 (62%)
//! r resent copy got there  x lost  ? unsure │ [ ] interp pair  L late
//! ```
//!
//! [`draw_correction_paths`] draws, over the arena, a correction's predicted path and
//! the server's.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};

use super::View;

/// Rows the strip takes: status, five tracks, the cursor, the legend.
pub(crate) const TIMELINE_ROWS: u16 = 8;
const LABEL_COLS: u16 = 6;

/// The glyphs the rows use beyond the obvious, in one line of 80 columns.
pub(crate) const LEGEND: &str =
    "r recovered by a resent copy  x lost  ? unsure  [ ] interpolated pair  L late";
/// The legend while remote players are drawn at their newest snapshot (interpolation
/// and extrapolation off): the `draw` row's glyphs.
pub(crate) const AT_SNAPSHOT_LEGEND: &str =
    "draw: s at the newest snapshot (interpolation off)  e extrapolated  h held";
/// The marks of a correction's paths over the arena.
pub(crate) const PATHS_LEGEND: &str =
    "correction: • predicted  + server (its state, our commands replayed)  ⊕ both";

/// How one track draws a slot.
type Glyph = fn(&TimelineSlot) -> (char, Color);

/// What happened in one command tick.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct TimelineSlot {
    pub(crate) commands: u8,
    /// Of those: the first packet lost, a later packet's copy got there (recovered
    /// by redundancy); maybe so (some of the packets around were lost, which is not
    /// known); never reached the server.
    pub(crate) recovered: u8,
    pub(crate) unsure: u8,
    pub(crate) commands_lost: u8,
    /// The server acknowledged more of our commands.
    pub(crate) acked: bool,
    pub(crate) snapshots: u8,
    pub(crate) snapshots_lost: u8,
    /// Snapshots that arrived after a newer one (counted lost at first).
    pub(crate) snapshots_late: u8,
    /// The two snapshots the cursor's frame draws remote players between arrived here.
    pub(crate) interp_from: bool,
    pub(crate) interp_to: bool,
    /// Frames in this tick drawn past the newest snapshot, or frozen on it.
    pub(crate) extrapolated: bool,
    pub(crate) held: bool,
    /// Frames in this tick drawn at the newest snapshot because interpolation (and
    /// extrapolation) is off: not interpolated, and not a buffer run dry.
    pub(crate) at_snapshot: bool,
    pub(crate) corrections: u8,
}

pub(crate) struct TimelineView {
    /// The slots to draw, oldest first; `cursor` indexes the replay time among them.
    pub(crate) slots: Vec<TimelineSlot>,
    pub(crate) cursor: usize,
    pub(crate) status: String,
    /// Beside the cursor: what the cursor's frame shows.
    pub(crate) caption: String,
    pub(crate) legend: String,
}

impl TimelineView {
    /// How many slots fit in `width` columns.
    pub(crate) fn columns(width: u16) -> usize {
        usize::from(width.saturating_sub(LABEL_COLS))
    }
}

pub(crate) fn draw_timeline(buf: &mut Buffer, area: Rect, t: &TimelineView) {
    if area.height < TIMELINE_ROWS || area.width <= LABEL_COLS {
        return;
    }
    let dim = Style::default().fg(Color::DarkGray);
    buf.set_stringn(
        area.x,
        area.y,
        &t.status,
        usize::from(area.width),
        Style::default(),
    );
    let tracks: [(&str, Glyph); 5] = [
        ("cmds", command_glyph),
        ("ack", |s| mark(s.acked, '+', Color::Green)),
        ("snap", snapshot_glyph),
        ("draw", draw_glyph),
        ("fix", |s| mark(s.corrections > 0, '!', Color::LightRed)),
    ];
    let columns = TimelineView::columns(area.width).min(t.slots.len());
    for (row, (label, glyph)) in tracks.iter().enumerate() {
        let y = area.y + 1 + row as u16;
        buf.set_string(area.x, y, label, dim);
        for (i, slot) in t.slots.iter().take(columns).enumerate() {
            let (c, color) = glyph(slot);
            let mut style = Style::default().fg(color);
            if i == t.cursor {
                style = style.add_modifier(Modifier::REVERSED);
            }
            let x = area.x + LABEL_COLS + i as u16;
            buf[(x, y)].set_char(c).set_style(style);
        }
    }
    let y = area.y + TIMELINE_ROWS - 2;
    if t.cursor < columns {
        let x = area.x + LABEL_COLS + t.cursor as u16;
        buf[(x, y)].set_char('^');
        caption(buf, area, x, y, &t.caption);
    }
    buf.set_stringn(area.x, y + 1, &t.legend, usize::from(area.width), dim);
}

/// The caption right of the cursor, or left of it when it does not fit there.
fn caption(buf: &mut Buffer, area: Rect, cursor: u16, y: u16, text: &str) {
    let len = text.chars().count() as u16;
    let right = area.right().saturating_sub(cursor + 2);
    let x = if len <= right {
        cursor + 2
    } else {
        cursor.saturating_sub(len + 1).max(area.x)
    };
    let room = if x > cursor { right } else { cursor - x };
    buf.set_stringn(x, y, text, usize::from(room), Style::default());
}

fn command_glyph(s: &TimelineSlot) -> (char, Color) {
    if s.commands_lost > 0 {
        ('x', Color::Red)
    } else if s.recovered > 0 {
        ('r', Color::LightYellow)
    } else if s.unsure > 0 {
        ('?', Color::DarkGray)
    } else {
        mark(s.commands > 0, '|', Color::Green)
    }
}

fn draw_glyph(s: &TimelineSlot) -> (char, Color) {
    match s {
        _ if s.held => ('h', Color::Red),
        _ if s.extrapolated => ('e', Color::Yellow),
        _ if s.at_snapshot => ('s', Color::Cyan),
        _ => ('~', Color::DarkGray),
    }
}

fn snapshot_glyph(s: &TimelineSlot) -> (char, Color) {
    match s {
        _ if s.interp_to => (']', Color::LightMagenta),
        _ if s.interp_from => ('[', Color::LightMagenta),
        _ if s.snapshots_lost > 0 => ('x', Color::Red),
        _ if s.snapshots_late > 0 => ('L', Color::Yellow),
        _ if s.snapshots > 0 => ('S', Color::Cyan),
        _ => ('·', Color::DarkGray),
    }
}

/// A correction's two paths, in cells, oldest first.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct CorrectionPaths {
    pub(crate) predicted: Vec<(f64, f64)>,
    pub(crate) server: Vec<(f64, f64)>,
}

/// Draws `paths` over the arena as [`super::draw_in`] laid it out in `area` for `view`:
/// `•` predicted, `+` the server's, `⊕` where both fall in one place.
pub(crate) fn draw_correction_paths(
    buf: &mut Buffer,
    area: Rect,
    view: &View,
    paths: &CorrectionPaths,
) {
    if let Some(l) = super::layout::layout(area, view.map, view.focus) {
        super::arena::draw_paths(
            buf,
            l.arena,
            l.camera,
            &paths.predicted,
            &paths.server,
            view.theme,
        );
    }
}

fn mark(on: bool, c: char, color: Color) -> (char, Color) {
    if on {
        (c, color)
    } else {
        ('·', Color::DarkGray)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_track_marks_its_slot_and_the_cursor_is_under_the_replay_time() {
        let mut slots = vec![TimelineSlot::default(); 10];
        slots[2].commands = 1;
        slots[2].acked = true;
        slots[3].snapshots = 1;
        slots[4].snapshots_lost = 1;
        slots[5].extrapolated = true;
        slots[6].corrections = 1;
        slots[7].at_snapshot = true;
        let view = TimelineView {
            slots,
            cursor: 6,
            status: "paused".into(),
            caption: String::new(),
            legend: "legend".into(),
        };
        let area = Rect::new(0, 0, 20, TIMELINE_ROWS);
        let mut buf = Buffer::empty(area);
        draw_timeline(&mut buf, area, &view);
        let row = |y: u16| -> String { (0..20).map(|x| buf[(x, y)].symbol()).collect() };
        assert!(row(0).starts_with("paused"));
        assert_eq!(row(1), "cmds  ··|·······    ");
        assert_eq!(row(2), "ack   ··+·······    ");
        assert_eq!(row(3), "snap  ···Sx·····    ");
        assert_eq!(row(4), "draw  ~~~~~e~s~~    ");
        assert_eq!(row(5), "fix   ······!···    ");
        assert_eq!(row(6), "            ^       ");
        assert_eq!(row(7), "legend              ");
    }

    fn text(buf: &Buffer) -> String {
        let mut out = String::new();
        for y in 0..buf.area.height {
            for x in 0..buf.area.width {
                out.push_str(buf[(x, y)].symbol());
            }
            out.push('\n');
        }
        out
    }

    /// Three seconds of a lossy session: a snapshot every third tick, a command every
    /// tick, one snapshot lost and one late, commands recovered, unsure and lost.
    fn busy_strip(width: u16, cursor_at: usize) -> String {
        let mut slots = vec![TimelineSlot::default(); 180];
        for (i, s) in slots.iter_mut().enumerate() {
            s.commands = 1;
            if i % 3 == 0 {
                s.snapshots = 1;
                s.acked = true;
            }
        }
        slots[60].snapshots = 0;
        slots[63].snapshots_lost = 1;
        (64..67).for_each(|i| slots[i].extrapolated = true);
        slots[72].snapshots_late = 1;
        (52..56).for_each(|i| slots[i].recovered = 1);
        (57..60).for_each(|i| slots[i].unsure = 1);
        slots[61].commands_lost = 1;
        slots[78].interp_from = true;
        slots[81].interp_to = true;
        slots[70].corrections = 1;
        let columns = TimelineView::columns(width);
        let first = cursor_at.saturating_sub(columns / 2);
        let view = TimelineView {
            slots: slots[first..].iter().take(columns).copied().collect(),
            cursor: cursor_at - first,
            status: " paused 1x  00:01.450 / 00:03.000  corrections 1 (last 0.31 cells: bot-1 was elsewhere than predicted)".into(),
            caption: "interp 1234→1237 (62%)".into(),
            legend: LEGEND.into(),
        };
        let area = Rect::new(0, 0, width, TIMELINE_ROWS);
        let mut buf = Buffer::empty(area);
        draw_timeline(&mut buf, area, &view);
        text(&buf)
    }

    #[test]
    fn the_strip_at_80_columns() {
        insta::assert_snapshot!(busy_strip(80, 87));
    }

    #[test]
    fn the_strip_at_120_columns() {
        insta::assert_snapshot!(busy_strip(120, 87));
    }

    #[test]
    fn the_caption_goes_left_of_a_cursor_near_the_right_edge() {
        let strip = busy_strip(40, 87);
        let cursor_row = strip.lines().nth(6).unwrap();
        assert!(cursor_row.contains("interp 1234→1237 (62%) ^"), "{strip}");
    }
}
