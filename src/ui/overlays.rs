//! Overlays drawn over the arena: the live network stats with the lagometer, and help.

use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::{Position, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Sparkline};

use super::ScoreLine;

/// How the frames of a lagometer slice were drawn: between snapshots, projected past
/// the newest, or frozen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DrawMode {
    Interpolated,
    Extrapolated,
    Held,
}

/// One column of the lagometer: a fixed slice of recent time.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct LagSlice {
    /// The worst way any frame in this slice was drawn (None: no frame).
    pub(crate) worst: Option<DrawMode>,
    pub(crate) snapshots: u16,
    /// Snapshots found missing when a later one arrived in this slice.
    pub(crate) dropped: u16,
    /// Snapshots the server held back for the link's rate before one in this slice: the
    /// bar is yellow (Quake 3's suppressed snapshots).
    pub(crate) withheld: u16,
    /// Largest estimated one-way delay of a snapshot in this slice, in ms.
    pub(crate) delay_ms: f32,
    /// RTT estimate at the end of the slice, in ms.
    pub(crate) rtt_ms: f32,
}

/// The numbers behind the stats overlay.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct StatsView {
    pub(crate) rtt_ms: f64,
    pub(crate) jitter_ms: f64,
    pub(crate) packets_in: f64,
    pub(crate) packets_out: f64,
    pub(crate) bytes_in: f64,
    pub(crate) bytes_out: f64,
    pub(crate) loss_up_pct: f64,
    pub(crate) loss_down_pct: f64,
    pub(crate) snapshots_per_sec: f64,
    /// The server is holding snapshots back: our link carries no more.
    pub(crate) rate_limited: bool,
    pub(crate) commands_sent: u64,
    pub(crate) commands_acked: u32,
    pub(crate) pending: u32,
    pub(crate) corrections: u64,
    pub(crate) corrections_per_min: f64,
    pub(crate) last_correction_cells: f64,
    pub(crate) max_correction_cells: f64,
    pub(crate) fire_mispredictions: u64,
    pub(crate) server_decisions: u64,
    /// The last few corrections, newest last: "12.3s 0.25 cells: why".
    pub(crate) recent_corrections: Vec<String>,
    pub(crate) interp_delay_ms: f64,
    pub(crate) buffered: usize,
    pub(crate) frames_extrapolated: u64,
    pub(crate) frames_held: u64,
    pub(crate) underruns: u64,
    /// Oldest first, one per lagometer column.
    pub(crate) slices: Vec<LagSlice>,
}

const LABEL: Style = Style::new().fg(Color::DarkGray);
const VALUE: Style = Style::new().fg(Color::White);
const HEAD: Style = Style::new().fg(Color::LightCyan);

fn row(parts: &[(&str, String)]) -> Line<'static> {
    let mut spans = Vec::with_capacity(parts.len() * 2);
    for (label, value) in parts {
        spans.push(Span::styled(format!("{label} "), LABEL));
        spans.push(Span::styled(format!("{value}  "), VALUE));
    }
    Line::from(spans)
}

/// Height of the lagometer's snapshot-delay bars.
const BAR_ROWS: u16 = 4;

pub(crate) fn draw_stats(frame: &mut Frame, arena: Rect, s: &StatsView) {
    let lines = stats_lines(s);
    let text_rows = lines.len() as u16;
    let width = arena.width.min(62);
    // The text, the lagometer (a status row, the bars, an axis row) and the borders.
    let height = (text_rows + BAR_ROWS + 2 + 2).min(arena.height);
    let area = Rect::new(arena.right() - width, arena.y, width, height);
    frame.render_widget(Clear, area);
    let block = Block::default()
        .borders(Borders::ALL)
        .title(" net stats (n) ")
        .border_style(LABEL);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    frame.render_widget(Paragraph::new(lines), inner);

    let graph = Rect::new(
        inner.x,
        inner.y + text_rows,
        inner.width,
        inner.height.saturating_sub(text_rows),
    );
    if graph.height < BAR_ROWS + 2 {
        return;
    }
    let columns = usize::from(graph.width);
    let slices = &s.slices[s.slices.len().saturating_sub(columns)..];
    draw_lagometer(
        frame.buffer_mut(),
        Rect::new(graph.x, graph.y, graph.width, BAR_ROWS + 1),
        slices,
    );
    let rtt: Vec<u64> = slices.iter().map(|sl| sl.rtt_ms.round() as u64).collect();
    let spark_area = Rect::new(graph.x, graph.y + BAR_ROWS + 1, graph.width, 1);
    frame.render_widget(
        Sparkline::default()
            .data(&rtt)
            .style(Style::new().fg(Color::Magenta)),
        spark_area,
    );
}

/// The overlay's text: traffic, prediction, interpolation, and the lagometer's legend.
fn stats_lines(s: &StatsView) -> Vec<Line<'static>> {
    let kb = |b: f64| format!("{:.1}kB/s", b / 1000.0);
    let recent = s
        .recent_corrections
        .iter()
        .map(|c| Line::styled(format!("  {c}"), LABEL));
    let mut first = row(&[
        ("RTT", format!("{:.0}ms", s.rtt_ms)),
        ("jitter", format!("{:.1}ms", s.jitter_ms)),
        ("snaps", format!("{:.1}/s", s.snapshots_per_sec)),
    ]);
    if s.rate_limited {
        first.push_span(Span::styled("rate limited", Style::new().fg(Color::Yellow)));
    }
    let mut lines = vec![
        first,
        row(&[
            (
                "in ",
                format!("{:>3.0}pkt/s {:>8}", s.packets_in, kb(s.bytes_in)),
            ),
            ("loss", format!("{:.1}%", s.loss_down_pct)),
        ]),
        row(&[
            (
                "out",
                format!("{:>3.0}pkt/s {:>8}", s.packets_out, kb(s.bytes_out)),
            ),
            ("loss", format!("{:.1}%", s.loss_up_pct)),
        ]),
        Line::styled("prediction", HEAD),
        row(&[
            ("cmds sent", s.commands_sent.to_string()),
            ("acked", s.commands_acked.to_string()),
            ("pending", s.pending.to_string()),
        ]),
        row(&[
            ("corrections", s.corrections.to_string()),
            ("/min", format!("{:.1}", s.corrections_per_min)),
            ("last", format!("{:.2}", s.last_correction_cells)),
            ("max", format!("{:.2} cells", s.max_correction_cells)),
        ]),
        row(&[
            ("shots mispredicted", s.fire_mispredictions.to_string()),
            ("server decisions", s.server_decisions.to_string()),
        ]),
    ];
    lines.extend(recent);
    lines.extend([
        Line::styled("interpolation", HEAD),
        row(&[
            ("delay", format!("{:.0}ms", s.interp_delay_ms)),
            ("buffered", s.buffered.to_string()),
            ("underruns", s.underruns.to_string()),
        ]),
        row(&[
            ("frames extrapolated", s.frames_extrapolated.to_string()),
            ("held", s.frames_held.to_string()),
        ]),
        Line::from(vec![
            Span::styled("lagometer ", HEAD),
            Span::styled("█", Style::new().fg(Color::Green)),
            Span::styled("interp ", LABEL),
            Span::styled("█", Style::new().fg(Color::Yellow)),
            Span::styled("extrap ", LABEL),
            Span::styled("█", Style::new().fg(Color::Red)),
            Span::styled("held ", LABEL),
            Span::styled("│", Style::new().fg(Color::Cyan)),
            Span::styled("snapshot delay ", LABEL),
            Span::styled("×", Style::new().fg(Color::Red)),
            Span::styled("lost", LABEL),
        ]),
    ]);
    lines
}

/// One column per slice: the top row shows how frames were drawn, the rows below a bar
/// as tall as the slice's worst snapshot delay (full height = 250 ms), `×` for losses.
fn draw_lagometer(buf: &mut Buffer, area: Rect, slices: &[LagSlice]) {
    const LEVELS: [&str; 8] = ["▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"];
    const FULL_SCALE_MS: f32 = 250.0;
    for (i, slice) in slices.iter().enumerate() {
        let x = area.x + i as u16;
        let color = match slice.worst {
            Some(DrawMode::Interpolated) => Some(Color::Green),
            Some(DrawMode::Extrapolated) => Some(Color::Yellow),
            Some(DrawMode::Held) => Some(Color::Red),
            None => None,
        };
        if let (Some(color), Some(cell)) = (color, buf.cell_mut(Position::new(x, area.y))) {
            cell.set_symbol("▀").set_style(Style::new().fg(color));
        }
        let bottom = area.y + area.height - 1;
        if slice.dropped > 0 {
            if let Some(cell) = buf.cell_mut(Position::new(x, bottom)) {
                cell.set_symbol("×").set_style(Style::new().fg(Color::Red));
            }
            continue;
        }
        if slice.snapshots == 0 {
            continue;
        }
        let bar = if slice.withheld > 0 {
            Color::Yellow
        } else {
            Color::Cyan
        };
        // Eighths of a row, so small differences in delay still show.
        let eighths = ((slice.delay_ms / FULL_SCALE_MS).min(1.0) * f32::from(BAR_ROWS * 8))
            .round()
            .max(1.0) as u16;
        for r in 0..BAR_ROWS {
            let fill = eighths.saturating_sub(r * 8).min(8);
            if fill == 0 {
                break;
            }
            if let Some(cell) = buf.cell_mut(Position::new(x, bottom - r)) {
                cell.set_symbol(LEVELS[usize::from(fill - 1)])
                    .set_style(Style::new().fg(bar));
            }
        }
    }
}

/// Each line fits the box (the text column is 42 wide).
const HELP: &[(&str, &str)] = &[
    (
        "WASD / arrows",
        "move; a tap: one cell; you aim as you move",
    ),
    ("Shift+dir", "turn without walking"),
    ("space  1 / 2", "fire; blaster / rail"),
    ("Tab  t", "scoreboard; chat"),
    ("Esc  q", "close overlays, else quit (asks once)"),
    ("p  r", "prediction / reconciliation on/off"),
    ("i  x", "interpolation / extrapolation on/off"),
    ("m", "correction smoothing on/off"),
    ("g", "ghosts: off / server / server + trail"),
    ("v", "lag compensation marks (HUD lagc)"),
    ("n", "network stats and lagometer"),
    ("+ - j l c", "lag +/-25 ms, jitter, loss, profile"),
    ("F8", "save the last minute as a recording"),
    ("? / F1", "this help"),
];

pub(crate) fn draw_help(frame: &mut Frame, arena: Rect) {
    let inner = popup(
        frame,
        arena,
        60,
        HELP.len() as u16 + 4,
        " keys (? to close) ",
    );
    let mut lines: Vec<Line> = HELP
        .iter()
        .map(|(k, what)| {
            Line::from(vec![
                Span::styled(format!("{k:>14}  "), Style::new().fg(Color::LightYellow)),
                Span::styled(*what, VALUE),
            ])
        })
        .collect();
    lines.push(Line::styled(
        "HUD: +on/-off: pred rec int ext smo ghost lagc",
        LABEL,
    ));
    lines.push(Line::styled(
        "FPS counts frames drawn: only changes are drawn",
        LABEL,
    ));
    frame.render_widget(Paragraph::new(lines), inner);
}

/// A bordered box centred on the arena, cleared; returns the area inside the border.
fn popup(frame: &mut Frame, arena: Rect, width: u16, inner_height: u16, title: &str) -> Rect {
    let width = arena.width.min(width);
    let height = (inner_height + 2).min(arena.height);
    let area = Rect::new(
        arena.x + (arena.width - width) / 2,
        arena.y + (arena.height - height) / 2,
        width,
        height,
    );
    frame.render_widget(Clear, area);
    let block = Block::default()
        .borders(Borders::ALL)
        .title(title.to_owned())
        .border_style(LABEL);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    inner
}

/// Kill feed at the top right of `arena` (at the top left when `beside` it, in the side
/// panel), chat at its bottom left.
pub(crate) fn draw_feeds(
    frame: &mut Frame,
    arena: Rect,
    beside: bool,
    feed: &[String],
    chat: &[String],
) {
    for (i, line) in feed.iter().rev().take(4).enumerate() {
        let width = (line.chars().count() as u16 + 2).min(arena.width);
        let x = if beside {
            arena.x
        } else {
            arena.right() - width
        };
        let r = Rect::new(x, arena.y + i as u16, width, 1);
        frame.render_widget(Clear, r);
        frame.render_widget(
            Paragraph::new(format!(" {line} ")).style(Style::new().fg(Color::LightRed)),
            r,
        );
    }
    let shown: Vec<&String> = chat.iter().rev().take(3).collect();
    for (i, line) in shown.iter().enumerate() {
        let width = (line.chars().count() as u16 + 2).min(arena.width);
        let r = Rect::new(
            arena.x,
            arena.bottom().saturating_sub(1 + i as u16),
            width,
            1,
        );
        frame.render_widget(Clear, r);
        frame.render_widget(
            Paragraph::new(format!(" {line} ")).style(Style::new().fg(Color::LightYellow)),
            r,
        );
    }
}

/// The scoreboard (Tab) and the end-of-match results share one table.
pub(crate) fn draw_scoreboard(
    frame: &mut Frame,
    arena: Rect,
    title: &str,
    lines: &[ScoreLine],
    winner: Option<&str>,
) {
    let inner = popup(frame, arena, 52, lines.len() as u16 + 1, title);
    let mut text = vec![Line::styled(
        format!(
            "{:<20} {:>5} {:>6} {:>6}",
            "player", "frags", "deaths", "ping"
        ),
        LABEL,
    )];
    for l in lines {
        let mut style = Style::new().fg(if l.local {
            Color::White
        } else {
            super::player_color(l.id)
        });
        if l.local || winner == Some(l.name.as_str()) {
            style = style.add_modifier(Modifier::BOLD);
        }
        text.push(Line::styled(
            format!(
                "{:<20} {:>5} {:>6} {:>4}ms",
                l.name, l.frags, l.deaths, l.ping_ms
            ),
            style,
        ));
    }
    frame.render_widget(Paragraph::new(text), inner);
}

#[cfg(test)]
mod rate_tests {
    use super::*;

    fn text(lines: &[Line<'_>]) -> String {
        lines
            .iter()
            .flat_map(|l| l.spans.iter().map(|s| s.content.to_string()))
            .collect()
    }

    // Nothing on screen showed the server adapting to a thin link.
    #[test]
    fn a_rate_limited_link_says_so_and_its_bars_are_yellow() {
        let mut s = StatsView::default();
        assert!(!text(&stats_lines(&s)).contains("rate limited"));
        s.rate_limited = true;
        assert!(text(&stats_lines(&s)).contains("rate limited"));

        let slice = |withheld| LagSlice {
            snapshots: 1,
            withheld,
            delay_ms: 250.0,
            ..LagSlice::default()
        };
        let area = Rect::new(0, 0, 2, BAR_ROWS + 1);
        let mut buf = Buffer::empty(area);
        draw_lagometer(&mut buf, area, &[slice(0), slice(2)]);
        let bottom = area.height - 1;
        assert_eq!(buf[(0, bottom)].fg, Color::Cyan);
        assert_eq!(buf[(1, bottom)].fg, Color::Yellow);
    }
}
