//! The lab's lanes: each client's datagrams up and down on one time axis, and what
//! their marks mean.

use ratatui::buffer::Buffer;
use ratatui::style::{Modifier, Style};

use crate::ui::{Role, Theme};

/// One client's link: datagrams going up (commands) and down (snapshots), on one time
/// axis `span_ms` long.
pub(crate) struct LaneView {
    pub(crate) label: String,
    pub(crate) span_ms: u64,
    /// Each way's link, up then down (`150ms ±40 5%`), at the end of its row: a link
    /// may differ each way.
    pub(crate) links: [String; 2],
    /// The server's input buffer for this client, at the server's end of the up row.
    pub(crate) buffer: String,
    pub(crate) up: Vec<LaneDot>,
    pub(crate) down: Vec<LaneDot>,
}

/// A datagram on a lane: how long ago it was sent (0 just now, 1 the lane's span ago:
/// the sender's end to the receiver's), its mark, and whether it arrived or was lost.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct LaneDot {
    pub(crate) progress: f64,
    pub(crate) mark: String,
    pub(crate) arrived: bool,
    pub(crate) lost: bool,
}

/// A lane: `label` on the left (and the time it spans under it), the client end at
/// the left of the track and the server at the right. The track is one time axis:
/// datagrams sent in the last `span_ms`, each where its age puts it, commands moving
/// right on the first row, snapshots left on the second (or both on one row when space
/// is short). One in flight is drawn bold in its colour, one that arrived dim, a lost
/// one as a red `×`.
pub(super) fn draw_lane(
    buf: &mut Buffer,
    x: u16,
    y: u16,
    width: u16,
    rows: u16,
    lane: &LaneView,
    t: Theme,
) {
    // "client 4 custom" whole, and a space.
    const LABEL: u16 = 16;
    const TAG: u16 = 7;
    if width < LABEL + TAG + 16 {
        return;
    }
    let start = x + LABEL + TAG;
    // Room for each way's link after the track, when there are two rows to put them on.
    let links = if rows > 1 {
        lane.links
            .iter()
            .map(|l| l.chars().count() as u16 + 1)
            .max()
            .unwrap_or(0)
            .min(width.saturating_sub(LABEL + TAG + 16 + 6))
    } else {
        0
    };
    let mut track = width - LABEL - TAG - 6 - links;
    // The buffer's figures go after `▶ srv` if the track keeps 16 columns.
    let buffer = lane.buffer.chars().count() as u16 + 1;
    let show_buffer = !lane.buffer.is_empty() && track >= buffer + 16;
    let buffer_cols = if show_buffer {
        track -= buffer;
        buf.set_string(start + track + 6, y, &lane.buffer, t.style(Role::Label));
        buffer
    } else {
        0
    };
    let dim = t.style(Role::Label);
    let label = Style::new().add_modifier(Modifier::BOLD);
    buf.set_stringn(x, y, &lane.label, usize::from(LABEL - 1), label);
    if rows > 1 {
        let span = format!("{} ms axis", lane.span_ms);
        buf.set_stringn(x, y + 1, span, usize::from(LABEL - 1), dim);
    }
    let tags = [("cmd ▶", "▶ srv"), ("◀ snap", "  srv")];
    for (dy, (left, right)) in tags.iter().enumerate().take(usize::from(rows)) {
        let row = y + dy as u16;
        let left = if rows == 1 { "cmd◀▶" } else { left };
        buf.set_string(x + LABEL, row, left, dim);
        buf.set_string(start, row, "─".repeat(usize::from(track)), dim);
        buf.set_string(start + track, row, *right, dim);
        if links > 0 {
            buf.set_stringn(
                start + track + 6 + buffer_cols,
                row,
                format!(" {}", lane.links[dy]),
                usize::from(links),
                dim,
            );
        }
    }
    let mut put = |dot: &LaneDot, row: u16, rightwards: bool| {
        let along = if rightwards {
            dot.progress
        } else {
            1.0 - dot.progress
        };
        let style = if dot.lost {
            t.style(Role::Bad).add_modifier(Modifier::BOLD)
        } else if dot.arrived {
            dim
        } else if rightwards {
            t.style(Role::Up).add_modifier(Modifier::BOLD)
        } else {
            t.style(Role::Down).add_modifier(Modifier::BOLD)
        };
        let mark = if dot.lost { "×" } else { dot.mark.as_str() };
        let len = mark.chars().count() as u16;
        // The mark's first character at its time, kept inside the track.
        let col = ((along * f64::from(track - 1)).round() as u16).min(track.saturating_sub(len));
        buf.set_stringn(start + col, row, mark, usize::from(track - col), style);
    };
    // Arrived first, then in flight, then losses: what is moving stays on top.
    let order = |d: &&LaneDot| (d.lost, !d.arrived);
    let mut down: Vec<&LaneDot> = lane.down.iter().collect();
    down.sort_by_key(order);
    for dot in down {
        put(dot, y + rows - 1, false);
    }
    let mut up: Vec<&LaneDot> = lane.up.iter().collect();
    up.sort_by_key(order);
    for dot in up {
        put(dot, y, true);
    }
}

/// What the lanes' marks mean, under the keys in the help box.
pub(super) const LANES_LEGEND: &[&str] = &[
    "lanes: one time axis each (its span under the label):",
    "a number = commands in an input packet, S snapshot,",
    "E snapshot with events, R roster; bold = in flight,",
    "dim = arrived, × lost (one per datagram); each way's link",
    "at the right: ±N, jitter over that range (its mean",
    "deviation, the stats' jitter measure, is N/2)",
    "ladder: time runs down; ╲ ▶ an input packet (#commands),",
    "╱ ◀ a snapshot (t tick, a ack), × lost, » « dup, reord",
    "overtook; f follows: ● made, ◆ applied, ✓ reconciled",
];

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::layout::Rect;

    /// A lane's label was cut at 13 columns: `client 2 cust` for a custom link.
    #[test]
    fn the_longest_lane_label_is_whole() {
        let mut buf = Buffer::empty(Rect::new(0, 0, 80, 2));
        let lane = LaneView {
            label: "client 4 custom".into(),
            span_ms: 100,
            links: Default::default(),
            buffer: String::new(),
            up: Vec::new(),
            down: Vec::new(),
        };
        draw_lane(&mut buf, 0, 0, 80, 2, &lane, Theme::Auto);
        let row: String = (0..80).map(|x| buf[(x, 0)].symbol().to_owned()).collect();
        assert!(row.starts_with("client 4 custom "), "{row}");
    }

    /// A lane showed one profile name for both ways: an asymmetric link's up and down
    /// delays could not be read apart.
    #[test]
    fn each_way_of_a_lane_shows_its_own_link() {
        let mut buf = Buffer::empty(Rect::new(0, 0, 100, 2));
        let lane = LaneView {
            label: "client 1 custom".into(),
            span_ms: 250,
            links: ["20ms".into(), "150ms ±40 5%".into()],
            buffer: String::new(),
            up: Vec::new(),
            down: Vec::new(),
        };
        draw_lane(&mut buf, 0, 0, 100, 2, &lane, Theme::Auto);
        let row = |y| -> String { (0..100).map(|x| buf[(x, y)].symbol().to_owned()).collect() };
        assert!(row(0).trim_end().ends_with("▶ srv  20ms"), "{}", row(0));
        assert!(
            row(1).trim_end().ends_with("srv  150ms ±40 5%"),
            "{}",
            row(1)
        );
    }
}
