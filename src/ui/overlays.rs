//! Overlays drawn over the arena: the live network stats with the lagometer, the kill
//! feed and chat, and the scoreboard.

use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::{Position, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Sparkline};

use super::ellipsis::{ellipsize, ellipsize_line};
use super::{Role, ScoreLine, Theme};

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
    /// Snapshots that arrived in this slice after a newer one: late, not lost (each was
    /// in a slice's `dropped` until it came). Marked `!` under the bar.
    pub(crate) late: u16,
    /// Snapshots counted in a slice's `dropped` that were not lost after all: the late
    /// ones, and those the server held back before them.
    pub(crate) unlost: u16,
    /// Snapshots the server held back for the link's rate before one in this slice: the
    /// bar is yellow (Quake 3's suppressed snapshots).
    pub(crate) withheld: u16,
    /// Largest estimated one-way delay of a snapshot in this slice, in ms.
    pub(crate) delay_ms: f32,
    /// RTT estimate at the end of the slice, in ms.
    pub(crate) rtt_ms: f32,
    /// No snapshot had come for a while: the column is drawn red, whole.
    pub(crate) interrupted: bool,
    /// No snapshot arrived in this slice, but none was due yet (snapshots come a period
    /// apart, not one a slice): the bar of the last one is drawn on, not a gap.
    pub(crate) awaited: bool,
}

/// The numbers behind the stats overlay.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct StatsView {
    pub(crate) rtt_ms: f64,
    /// Seconds since the last snapshot while the link is interrupted: the RTT is stale.
    pub(crate) silent_secs: Option<f64>,
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
    /// The player's own dials and their values now (empty: no line for them).
    pub(crate) dials: Vec<DialLine>,
}

/// One of the player's dials, as the stats overlay shows it.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct DialLine {
    pub(crate) name: &'static str,
    pub(crate) value: String,
    /// The one `[` `]` turn: drawn as a heading.
    pub(crate) chosen: bool,
}

fn labelled(parts: &[(&str, String)], t: Theme) -> Line<'static> {
    let mut spans = Vec::with_capacity(parts.len() * 2);
    for (label, value) in parts {
        spans.push(Span::styled(format!("{label} "), t.style(Role::Label)));
        spans.push(Span::styled(format!("{value}  "), t.style(Role::Value)));
    }
    Line::from(spans)
}

/// How the lagometer's top row shows how a slice's frames were drawn: a glyph each, so
/// the kinds differ without colour too.
fn draw_mode_mark(mode: DrawMode) -> (&'static str, Role) {
    match mode {
        DrawMode::Interpolated => ("▀", Role::LagInterp),
        DrawMode::Extrapolated => ("▚", Role::LagExtrap),
        DrawMode::Held => ("█", Role::LagHeld),
    }
}

/// Height of the lagometer's snapshot-delay bars.
const BAR_ROWS: u16 = 4;

/// Rows of the lagometer: how frames were drawn, the bars, and the RTT row.
const GRAPH_ROWS: u16 = BAR_ROWS + 2;

/// The stats overlay's widest, borders included.
pub(crate) const STATS_WIDTH: u16 = 62;

pub(crate) fn draw_stats(frame: &mut Frame, arena: Rect, s: &StatsView, t: Theme) {
    // The lagometer comes before the list of recent corrections: the box is no taller
    // than the arena, and each listed correction once pushed the graph out of it.
    let room = arena.height.saturating_sub(GRAPH_ROWS + 2);
    let width = arena.width.min(STATS_WIDTH);
    // A line longer than the box is cut with `…` (at 80 columns "rate limited" read
    // "rate limite").
    let lines: Vec<Line> = stats_lines(s, t, usize::from(room))
        .into_iter()
        .map(|l| ellipsize_line(l, usize::from(width.saturating_sub(2))))
        .collect();
    let text_rows = lines.len() as u16;
    // The text, the lagometer and the borders.
    let height = (text_rows + GRAPH_ROWS + 2).min(arena.height);
    let area = Rect::new(arena.right() - width, arena.y, width, height);
    frame.render_widget(Clear, area);
    let block = Block::default()
        .borders(Borders::ALL)
        .title(ellipsize(
            " net stats (n) ",
            usize::from(width.saturating_sub(2)),
        ))
        .border_style(t.style(Role::Label));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    frame.render_widget(Paragraph::new(lines), inner);

    let graph = Rect::new(
        inner.x,
        inner.y + text_rows,
        inner.width,
        inner.height.saturating_sub(text_rows),
    );
    if graph.height < GRAPH_ROWS {
        return;
    }
    let columns = usize::from(graph.width);
    let slices = &s.slices[s.slices.len().saturating_sub(columns)..];
    draw_lagometer(
        frame.buffer_mut(),
        Rect::new(graph.x, graph.y, graph.width, BAR_ROWS + 1),
        slices,
        t,
    );
    // The RTT row on a fixed scale, named at its start: a steady RTT filled the row
    // whatever it was when the row was scaled to its own maximum.
    let rtt: Vec<u64> = slices.iter().map(|sl| sl.rtt_ms.round() as u64).collect();
    let scale = rtt_scale(rtt.iter().copied().max().unwrap_or(0));
    let label = format!("RTT≤{scale}ms ");
    let label_width = (label.chars().count() as u16).min(graph.width);
    let row = graph.y + BAR_ROWS + 1;
    frame.render_widget(
        Paragraph::new(Span::styled(label, t.style(Role::Label))),
        Rect::new(graph.x, row, label_width, 1),
    );
    let spark_width = graph.width - label_width;
    let newest = &rtt[rtt.len().saturating_sub(usize::from(spark_width))..];
    frame.render_widget(
        Sparkline::default()
            .data(newest)
            .max(scale)
            .style(t.style(Role::Spark)),
        Rect::new(graph.x + label_width, row, spark_width, 1),
    );
}

/// The RTT row's full scale: the first of a few round figures the RTT stays under.
fn rtt_scale(max_ms: u64) -> u64 {
    [100, 250, 500, 1000, 2000]
        .into_iter()
        .find(|&s| max_ms <= s)
        .unwrap_or_else(|| max_ms.div_ceil(1000) * 1000)
}

/// The overlay's text: traffic, prediction, interpolation, and the lagometer's legend;
/// as many of the recent corrections (the newest) as fit in `rows` with the rest.
fn stats_lines(s: &StatsView, t: Theme, rows: usize) -> Vec<Line<'static>> {
    let (label, head) = (t.style(Role::Label), t.style(Role::Heading));
    let mark = |mode| {
        let (glyph, role) = draw_mode_mark(mode);
        Span::styled(glyph, t.style(role))
    };
    let row = |parts: &[(&str, String)]| labelled(parts, t);
    let kb = |b: f64| format!("{:.1}kB/s", b / 1000.0);
    let mut first = row(&[
        ("RTT", rtt_text(s.rtt_ms, s.silent_secs)),
        // A mean deviation, not the ±range a link is set to (its mean deviation is half).
        ("jitter", format!("{:.1}ms mean dev", s.jitter_ms)),
        ("snaps", format!("{:.1}/s", s.snapshots_per_sec)),
    ]);
    if s.rate_limited {
        first.push_span(Span::styled("rate limited", t.style(Role::Warn)));
    }
    // Each line with its rank: when `rows` cannot hold them all, the lowest ranks stay
    // (the legend, to read the graph by; the RTT; the interpolation delay; ...) and the
    // recent corrections, oldest first, go first.
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
        Line::styled("prediction", head),
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
    let fixed = lines.len();
    lines.extend(
        s.recent_corrections
            .iter()
            .map(|c| Line::styled(format!("  {c}"), label)),
    );
    lines.extend([
        Line::styled("interpolation", head),
        row(&[
            // Behind the newest snapshot's arrival: behind the server's present by
            // the link's one-way delay more.
            ("delay", format!("{:.0}ms after arrival", s.interp_delay_ms)),
            ("buffered", s.buffered.to_string()),
            ("underruns", s.underruns.to_string()),
        ]),
        row(&[
            ("frames extrapolated", s.frames_extrapolated.to_string()),
            ("held", s.frames_held.to_string()),
        ]),
        Line::from(vec![
            Span::styled("lagometer ", head),
            mark(DrawMode::Interpolated),
            Span::styled("interp ", label),
            mark(DrawMode::Extrapolated),
            Span::styled("extrap ", label),
            mark(DrawMode::Held),
            Span::styled("held ", label),
            Span::styled("│", t.style(Role::LagBar)),
            Span::styled("snapshot delay ", label),
            Span::styled("×", t.style(Role::Bad)),
            Span::styled("lost ", label),
            Span::styled("!", t.style(Role::Warn)),
            Span::styled("late", label),
        ]),
    ]);
    let recent = s.recent_corrections.len();
    // first, in, out, heading, cmds, corrections, shots, [recent], heading, delay,
    // frames, legend, [dials].
    let mut ranks: Vec<usize> = vec![1, 4, 5, 9, 6, 3, 7];
    debug_assert_eq!(ranks.len(), fixed);
    ranks.extend((0..recent).map(|i| 11 + recent - i));
    ranks.extend([10, 2, 8, 0]);
    if !s.dials.is_empty() {
        // The dials the keys turn, after the RTT and the interpolation delay.
        lines.push(dials_line(&s.dials, t));
        ranks.push(2);
    }
    let mut order: Vec<usize> = (0..lines.len()).collect();
    order.sort_by_key(|&i| ranks[i]);
    let mut keep = vec![false; lines.len()];
    for &i in order.iter().take(rows) {
        keep[i] = true;
    }
    lines
        .into_iter()
        .zip(keep)
        .filter_map(|(l, k)| k.then_some(l))
        .collect()
}

/// The stats overlay's lines as plain text, whole, for the tests of how they are cut.
#[cfg(test)]
pub(crate) fn stats_text(s: &StatsView) -> Vec<String> {
    stats_lines(s, Theme::default(), usize::MAX)
        .iter()
        .map(super::ellipsis::plain)
        .collect()
}

/// The player's dials, each one's name and value, the one `[` `]` turn in brackets.
fn dials_line(dials: &[DialLine], t: Theme) -> Line<'static> {
    let mut spans = Vec::new();
    for d in dials {
        let (open, close) = if d.chosen { ("[", "]") } else { ("", "") };
        let role = if d.chosen { Role::Heading } else { Role::Label };
        spans.push(Span::styled(format!("{open}{} ", d.name), t.style(role)));
        spans.push(Span::styled(d.value.clone(), t.style(Role::Value)));
        spans.push(Span::styled(format!("{close} "), t.style(role)));
    }
    Line::from(spans)
}

/// The RTT, and how stale it is while no snapshot comes.
fn rtt_text(rtt_ms: f64, silent_secs: Option<f64>) -> String {
    match silent_secs {
        Some(s) => format!("{rtt_ms:.0}ms, stale {s:.1}s"),
        None => format!("{rtt_ms:.0}ms"),
    }
}

/// One column per slice: the top row shows how frames were drawn, the rows below a bar
/// as tall as the slice's worst snapshot delay (full height = 250 ms), `×` for losses.
fn draw_lagometer(buf: &mut Buffer, area: Rect, slices: &[LagSlice], t: Theme) {
    let bar_rows = area.height.saturating_sub(1);
    for (r, line) in lagometer_lines(slices, bar_rows, t).iter().enumerate() {
        buf.set_line(area.x, area.y + r as u16, line, area.width);
    }
}

/// The lagometer as lines, one column per slice (oldest first): the top line shows how
/// frames were drawn (`▀` interpolated, `▚` extrapolated, `█` held), the `bar_rows`
/// lines below a bar as tall as the slice's worst snapshot delay (full height = 250
/// ms; yellow when the server held snapshots back), `×` at the bottom for a loss found,
/// `!` for a snapshot that came late, the column red while the link was interrupted.
/// The stats overlay and the lab's lagometers draw it.
pub(crate) fn lagometer_lines(slices: &[LagSlice], bar_rows: u16, t: Theme) -> Vec<Line<'static>> {
    const LEVELS: [&str; 8] = ["▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"];
    const FULL_SCALE_MS: f32 = 250.0;
    let blank = || (" ", Style::default());
    // Cells by row: the top row, then the bars from the top down.
    let mut rows: Vec<Vec<(&'static str, Style)>> =
        vec![Vec::with_capacity(slices.len()); usize::from(bar_rows) + 1];
    // The delay of the newest snapshot drawn, and whether it was held back for.
    let mut last: Option<(f32, bool)> = None;
    for slice in slices {
        let mut column = vec![blank(); usize::from(bar_rows) + 1];
        if let Some(mode) = slice.worst {
            let (glyph, role) = draw_mode_mark(mode);
            column[0] = (glyph, t.style(role));
        }
        // Row `r` of the bars, counted from the bottom (row 0 is the top line's when
        // there are no bars: nothing is drawn there).
        let bottom = |r: u16| usize::from(bar_rows.saturating_sub(r));
        if bar_rows == 0 {
            rows[0].push(column[0]);
            continue;
        }
        if slice.interrupted {
            last = None;
            for r in 0..bar_rows {
                column[bottom(r)] = ("█", t.style(Role::Bad));
            }
        } else if slice.dropped > 0 {
            last = Some((slice.delay_ms, slice.withheld > 0));
            column[bottom(0)] = ("×", t.style(Role::Bad));
        } else {
            let delay_ms = if slice.snapshots > 0 {
                last = Some((slice.delay_ms, slice.withheld > 0));
                Some(slice.delay_ms)
            } else {
                match last.filter(|_| slice.awaited) {
                    Some((delay, _)) => Some(delay),
                    None => {
                        last = None;
                        None
                    }
                }
            };
            if let Some(delay_ms) = delay_ms {
                let withheld = last.is_some_and(|(_, w)| w);
                let bar = if withheld { Role::Warn } else { Role::LagBar };
                // Eighths of a row, so small differences in delay still show.
                let eighths = ((delay_ms / FULL_SCALE_MS).min(1.0) * f32::from(bar_rows * 8))
                    .round()
                    .max(1.0) as u16;
                for r in 0..bar_rows {
                    let fill = eighths.saturating_sub(r * 8).min(8);
                    if fill == 0 {
                        break;
                    }
                    column[bottom(r)] = (LEVELS[usize::from(fill - 1)], t.style(bar));
                }
            }
            if slice.late > 0 {
                column[bottom(0)] = ("!", t.style(Role::Warn));
            }
        }
        for (row, cell) in rows.iter_mut().zip(column) {
            row.push(cell);
        }
    }
    rows.into_iter()
        .map(|cells| {
            Line::from(
                cells
                    .into_iter()
                    .map(|(glyph, style)| Span::styled(glyph, style))
                    .collect::<Vec<_>>(),
            )
        })
        .collect()
}

/// A bordered box centred on the arena, cleared; returns the area inside the border.
pub(super) fn popup(
    frame: &mut Frame,
    arena: Rect,
    width: u16,
    inner_height: u16,
    title: &str,
    t: Theme,
) -> Rect {
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
        .title(ellipsize(title, usize::from(width.saturating_sub(2))))
        .border_style(t.style(Role::Label));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    inner
}

/// Kill feed at the top right of `area` (at the top left when `beside` the arena, in
/// the side panel), chat at its bottom left. A line never covers a cell of
/// `keep_clear` (a player or a bolt): it moves to the other side of its row, or a row
/// further in (down for the feed, up for the chat); when no row is free it is drawn
/// around those cells, and lines that find no row at all are left out.
pub(crate) fn draw_feeds(
    frame: &mut Frame,
    area: Rect,
    beside: bool,
    feed: &[String],
    chat: &[String],
    keep_clear: &[(u16, u16)],
    t: Theme,
) {
    let style = t.style(Role::Feed);
    // The feed goes down as far as the chat's rows; the chat up to the feed's last.
    let chat_rows = chat.len().min(3) as u16;
    let mut rows = area.y..area.bottom().saturating_sub(chat_rows).max(area.y);
    let mut feed_end = area.y;
    // A line wider than the area (a blank each side) is cut with `…`.
    let fits = |line: &str| ellipsize(line, usize::from(area.width.saturating_sub(2)));
    for line in feed.iter().rev().take(4) {
        let line = &fits(line);
        let Some(r) = place(area, line, !beside, &mut rows, keep_clear) else {
            break;
        };
        feed_end = r.y + 1;
        draw_around(frame, r, line, style, keep_clear);
    }
    let style = t.style(Role::Chat);
    let mut rows = (feed_end..area.bottom()).rev();
    for line in chat.iter().rev().take(3) {
        let line = &fits(line);
        let Some(r) = place(area, line, false, &mut rows, keep_clear) else {
            break;
        };
        draw_around(frame, r, line, style, keep_clear);
    }
}

/// Where a line of text goes: the first of `rows` where it fits at its side of `area`
/// (the right when `right`) or else at the other, clear of `keep_clear`; if none, the
/// first row, at its side. `rows` is left after the row taken.
fn place(
    area: Rect,
    line: &str,
    right: bool,
    rows: &mut impl Iterator<Item = u16>,
    keep_clear: &[(u16, u16)],
) -> Option<Rect> {
    let width = (line.chars().count() as u16 + 2).min(area.width);
    let (near, far) = (area.x, area.right() - width);
    let sides = if right { [far, near] } else { [near, far] };
    let clear = |r: Rect| {
        !keep_clear
            .iter()
            .any(|&(x, y)| r.contains(Position::new(x, y)))
    };
    let mut first = None;
    for y in rows.by_ref() {
        let at = |x| Rect::new(x, y, width, 1);
        first.get_or_insert(at(sides[0]));
        if let Some(r) = sides.into_iter().map(at).find(|r| clear(*r)) {
            return Some(r);
        }
    }
    first
}

/// ` line ` in `r`, except over the cells of `keep_clear`, which keep what they show.
fn draw_around(frame: &mut Frame, r: Rect, line: &str, style: Style, keep_clear: &[(u16, u16)]) {
    let buf = frame.buffer_mut();
    let kept: Vec<((u16, u16), ratatui::buffer::Cell)> = keep_clear
        .iter()
        .filter(|&&(x, y)| r.contains(Position::new(x, y)))
        .filter_map(|&(x, y)| buf.cell(Position::new(x, y)).map(|c| ((x, y), c.clone())))
        .collect();
    frame.render_widget(Clear, r);
    frame.render_widget(Paragraph::new(format!(" {line} ")).style(style), r);
    let buf = frame.buffer_mut();
    for ((x, y), cell) in kept {
        if let Some(to) = buf.cell_mut(Position::new(x, y)) {
            *to = cell;
        }
    }
}

/// The scoreboard (Tab) and the end-of-match results share one table.
pub(crate) fn draw_scoreboard(
    frame: &mut Frame,
    arena: Rect,
    title: &str,
    lines: &[ScoreLine],
    winner: Option<&str>,
    t: Theme,
) {
    let inner = popup(frame, arena, 52, lines.len() as u16 + 1, title, t);
    let mut text = vec![Line::styled(
        format!(
            "{:<20} {:>5} {:>6} {:>6}",
            "player", "frags", "deaths", "ping"
        ),
        t.style(Role::Label),
    )];
    for l in lines {
        let mut style = if l.local {
            t.style(Role::Value)
        } else {
            t.player(l.id)
        };
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
    let text: Vec<Line> = text
        .into_iter()
        .map(|l| ellipsize_line(l, usize::from(inner.width)))
        .collect();
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
        let t = Theme::default();
        let mut s = StatsView::default();
        assert!(!text(&stats_lines(&s, t, 40)).contains("rate limited"));
        s.rate_limited = true;
        assert!(text(&stats_lines(&s, t, 40)).contains("rate limited"));

        let slice = |withheld| LagSlice {
            snapshots: 1,
            withheld,
            delay_ms: 250.0,
            ..LagSlice::default()
        };
        let area = Rect::new(0, 0, 2, BAR_ROWS + 1);
        let mut buf = Buffer::empty(area);
        draw_lagometer(&mut buf, area, &[slice(0), slice(2)], t);
        let bottom = area.height - 1;
        let (bar, warn) = (t.style(Role::LagBar).fg, t.style(Role::Warn).fg);
        assert_ne!(bar, warn);
        assert_eq!(buf[(0, bottom)].fg, bar.unwrap());
        assert_eq!(buf[(1, bottom)].fg, warn.unwrap());
    }

    /// When the box is short the oldest listed corrections go first, then the
    /// least-needed lines; the legend the graph is read by stays.
    #[test]
    fn a_short_box_drops_the_oldest_corrections_first() {
        let t = Theme::default();
        let s = StatsView {
            recent_corrections: (1..=3).map(|i| format!("{i}.0s")).collect(),
            ..StatsView::default()
        };
        let all = text(&stats_lines(&s, t, 40));
        assert!(all.contains("1.0s") && all.contains("3.0s"), "{all}");
        let short = stats_lines(&s, t, 13);
        assert_eq!(short.len(), 13);
        let short = text(&short);
        assert!(!short.contains("1.0s") && short.contains("2.0s") && short.contains("3.0s"));
        let tiny = text(&stats_lines(&s, t, 3));
        assert!(tiny.contains("lagometer") && tiny.contains("RTT") && tiny.contains("delay"));
        assert!(!tiny.contains("3.0s"), "{tiny}");
    }

    /// Issue 23: the player's dials, one line, the one the keys turn in brackets; it
    /// stays in a short box after the RTT, the legend and the interpolation delay.
    #[test]
    fn the_players_dials_are_one_line_that_stays_in_a_short_box() {
        let t = Theme::default();
        let dial = |name, value: &str, chosen| DialLine {
            name,
            value: value.to_owned(),
            chosen,
        };
        let s = StatsView {
            dials: vec![
                dial("interp", "4.0x", true),
                dial("input", "30/s", false),
                dial("redund", "64", false),
            ],
            ..StatsView::default()
        };
        let line = "[interp 4.0x] input 30/s redund 64 ";
        assert!(text(&stats_lines(&s, t, 40)).contains(line));
        let tiny = text(&stats_lines(&s, t, 4));
        assert!(tiny.contains(line) && tiny.contains("RTT"), "{tiny}");
        // No dials (the lab's clients, whose dials its own line shows): no line.
        let none = text(&stats_lines(&StatsView::default(), t, 40));
        assert!(!none.contains("redund"), "{none}");
    }

    /// The RTT row was scaled to its own maximum, so a steady 152 ms filled it: it is
    /// drawn on a named fixed scale.
    #[test]
    fn the_rtt_row_has_a_fixed_named_scale() {
        let t = Theme::default();
        let s = StatsView {
            slices: vec![
                LagSlice {
                    rtt_ms: 152.0,
                    ..LagSlice::default()
                };
                120
            ],
            ..StatsView::default()
        };
        let mut term = ratatui::Terminal::new(ratatui::backend::TestBackend::new(64, 30)).unwrap();
        term.draw(|f| draw_stats(f, f.area(), &s, t)).unwrap();
        let buf = term.backend().buffer();
        let rows: Vec<String> = (0..30)
            .map(|y| (0..64).map(|x| buf[(x, y)].symbol().to_owned()).collect())
            .collect();
        let spark = rows
            .iter()
            .find(|r| r.contains("RTT≤250ms"))
            .unwrap_or_else(|| panic!("{}", rows.join("\n")));
        // 152 of 250 ms is about half the row: `▄`, not a full block.
        assert!(spark.contains("▄▄▄") && !spark.contains('█'), "{spark}");
        assert_eq!(rtt_scale(0), 100);
        assert_eq!(rtt_scale(251), 500);
        assert_eq!(rtt_scale(4500), 5000);
    }

    /// A slice with no snapshot while none was due draws the last bar on; a gap is left
    /// only where one was overdue.
    #[test]
    fn an_awaited_slice_is_no_gap() {
        let t = Theme::default();
        let snap = LagSlice {
            snapshots: 1,
            delay_ms: 125.0,
            ..LagSlice::default()
        };
        let awaited = LagSlice {
            awaited: true,
            ..LagSlice::default()
        };
        let area = Rect::new(0, 0, 4, BAR_ROWS + 1);
        let mut buf = Buffer::empty(area);
        draw_lagometer(
            &mut buf,
            area,
            &[snap, awaited, LagSlice::default(), snap],
            t,
        );
        let bottom = area.height - 1;
        let col = |x| buf[(x, bottom)].symbol().to_owned();
        assert_eq!(col(0), "█");
        assert_eq!(col(1), "█", "awaited: the last bar drawn on");
        assert_eq!(col(2), " ", "overdue: a gap");
    }

    /// The overlay and the lab draw one lagometer: the lines are the overlay's cells,
    /// one column a slice, a late snapshot `!` under its bar (a loss found in the same
    /// slice wins), and any number of bar rows.
    #[test]
    fn the_lagometer_lines_are_the_overlays_cells() {
        let t = Theme::default();
        let snap = LagSlice {
            worst: Some(DrawMode::Extrapolated),
            snapshots: 1,
            delay_ms: 250.0,
            ..LagSlice::default()
        };
        let late = LagSlice { late: 1, ..snap };
        let lost_and_late = LagSlice { dropped: 1, ..late };
        let slices = [snap, late, lost_and_late];
        let area = Rect::new(0, 0, 3, BAR_ROWS + 1);
        let mut buf = Buffer::empty(area);
        draw_lagometer(&mut buf, area, &slices, t);
        let lines = lagometer_lines(&slices, BAR_ROWS, t);
        assert_eq!(lines.len(), usize::from(BAR_ROWS) + 1);
        for (y, line) in lines.iter().enumerate() {
            let cells: Vec<&str> = line.spans.iter().map(|s| s.content.as_ref()).collect();
            let drawn: Vec<&str> = (0..3).map(|x| buf[(x, y as u16)].symbol()).collect();
            assert_eq!(cells, drawn, "row {y}");
        }
        let bottom: Vec<&str> = lines[usize::from(BAR_ROWS)]
            .spans
            .iter()
            .map(|s| s.content.as_ref())
            .collect();
        assert_eq!(bottom, ["█", "!", "×"]);
        let two = lagometer_lines(&slices, 2, t);
        assert_eq!(two.len(), 3);
        assert!(two.iter().all(|l| l.spans.len() == 3));
    }
}
