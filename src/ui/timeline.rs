//! The replay's timeline strip, under the arena: one column per command tick around the
//! cursor (the replay time), one row per thing the netcode did in that tick.
//!
//! ```text
//!  ▶ 1.0x  01:23.450 / 10:00.000   what-if: interpolation off (re-simulated)
//! cmds  ||||||||||||||||·|||||||||||||||||||
//! ack   ··+··+·····+··+··+··+··+··+··+··+··+
//! snap  S··S··x··S··S··S··S··S··S··S··S··S··
//! draw  ~~~~~~~~~eee~~~~~~~~~~~~~~~~~~~~~~~~
//! fix   ··········!·························
//!                  ^
//! ```

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};

/// Rows the strip takes: status, five tracks, the cursor.
pub(crate) const TIMELINE_ROWS: u16 = 7;
const LABEL_COLS: u16 = 6;

/// How one track draws a slot.
type Glyph = fn(&TimelineSlot) -> (char, Color);

/// What happened in one command tick.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct TimelineSlot {
    pub(crate) commands: u8,
    /// The server acknowledged more of our commands.
    pub(crate) acked: bool,
    pub(crate) snapshots: u8,
    pub(crate) snapshots_lost: u8,
    /// Frames in this tick drawn past the newest snapshot, or frozen on it.
    pub(crate) extrapolated: bool,
    pub(crate) held: bool,
    pub(crate) corrections: u8,
}

pub(crate) struct TimelineView {
    /// The slots to draw, oldest first; `cursor` indexes the replay time among them.
    pub(crate) slots: Vec<TimelineSlot>,
    pub(crate) cursor: usize,
    pub(crate) status: String,
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
        ("cmds", |s| mark(s.commands > 0, '|', Color::Green)),
        ("ack", |s| mark(s.acked, '+', Color::Green)),
        ("snap", |s| match (s.snapshots, s.snapshots_lost) {
            (_, l) if l > 0 => ('x', Color::Red),
            (n, _) if n > 0 => ('S', Color::Cyan),
            _ => ('·', Color::DarkGray),
        }),
        ("draw", |s| match (s.held, s.extrapolated) {
            (true, _) => ('h', Color::Red),
            (_, true) => ('e', Color::Yellow),
            _ => ('~', Color::DarkGray),
        }),
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
    if t.cursor < columns {
        let x = area.x + LABEL_COLS + t.cursor as u16;
        buf[(x, area.y + TIMELINE_ROWS - 1)].set_char('^');
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
        let view = TimelineView {
            slots,
            cursor: 6,
            status: "paused".into(),
        };
        let area = Rect::new(0, 0, 20, TIMELINE_ROWS);
        let mut buf = Buffer::empty(area);
        draw_timeline(&mut buf, area, &view);
        let row = |y: u16| -> String { (0..20).map(|x| buf[(x, y)].symbol()).collect() };
        assert!(row(0).starts_with("paused"));
        assert_eq!(row(1), "cmds  ··|·······    ");
        assert_eq!(row(2), "ack   ··+·······    ");
        assert_eq!(row(3), "snap  ···Sx·····    ");
        assert_eq!(row(4), "draw  ~~~~~e~~~~    ");
        assert_eq!(row(5), "fix   ······!···    ");
        assert_eq!(row(6), "            ^       ");
    }
}
