//! The lab's ladder: the articles' sequence diagram drawn live. A client column on
//! the left, the server's on the right, time running down one row at a time (the
//! same axis for every datagram, so jitter and reordering show as crossing arrows),
//! each datagram a slanted arrow from its sending to its arrival. This turns a plain
//! [`LadderView`] into lines for a lab panel; `lab::ladder` fills it.

use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

use super::{Role, Theme};

/// Columns of the time label at the left of each row.
const TIME_COLS: usize = 7;
/// Columns after the server column, for the tick label.
const TICK_COLS: usize = 6;

/// What the ladder shows: rows top (oldest) to bottom (now).
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct LadderView {
    /// The time each row starts at, as shown at its left.
    pub(crate) times: Vec<String>,
    /// Per row: the first server tick run in it, marked on the server's column.
    pub(crate) ticks: Vec<Option<u32>>,
    pub(crate) arrows: Vec<Arrow>,
    pub(crate) marks: Vec<Mark>,
}

/// One datagram.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Arrow {
    /// Client to server (true) or server to client.
    pub(crate) up: bool,
    /// Where it starts and ends, in rows from the top (fractions within a row; before
    /// the first row is negative).
    pub(crate) from: f64,
    pub(crate) to: f64,
    /// How far across it got at `to`: 1 arrived, less when lost or in flight.
    pub(crate) reach: f64,
    pub(crate) end: End,
    pub(crate) label: String,
    /// Part of the followed command's or snapshot's life: drawn highlighted.
    pub(crate) followed: bool,
}

/// How an arrow ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum End {
    Arrived,
    /// The link dropped it: the arrow stops with `×`.
    Lost,
    InFlight,
    /// A second copy the link made, arriving again.
    Duplicate,
}

/// A mark on one of the columns: a followed command made, applied, reconciled.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Mark {
    pub(crate) row: f64,
    pub(crate) server: bool,
    pub(crate) glyph: char,
}

type Cell = (char, Style);

struct Grid {
    rows: Vec<Vec<Cell>>,
}

impl Grid {
    fn put(&mut self, row: i64, col: usize, c: char, style: Style) {
        if let Some(cell) = usize::try_from(row)
            .ok()
            .and_then(|r| self.rows.get_mut(r))
            .and_then(|r| r.get_mut(col))
        {
            *cell = (c, style);
        }
    }

    fn text(&mut self, row: i64, col: usize, text: &str, style: Style) {
        for (i, c) in text.chars().enumerate() {
            self.put(row, col + i, c, style);
        }
    }
}

/// The ladder as `width` columns of lines, one per row.
pub(crate) fn lines(v: &LadderView, width: u16, t: Theme) -> Vec<Line<'static>> {
    let width = usize::from(width);
    let rows = v.times.len();
    if width < TIME_COLS + TICK_COLS + 12 {
        return Vec::new();
    }
    let (cx, sx) = (TIME_COLS, width - TICK_COLS - 1);
    let dim = t.style(Role::Label);
    let mut g = Grid {
        rows: vec![vec![(' ', Style::new()); width]; rows],
    };
    for (r, time) in v.times.iter().enumerate() {
        let r = r as i64;
        g.text(r, 0, &format!("{time:>6}"), dim);
        g.put(r, cx, '│', dim);
        match v.ticks.get(r as usize).copied().flatten() {
            Some(tick) => {
                g.put(r, sx, '┼', dim);
                g.text(r, sx + 1, &tick.to_string(), dim);
            }
            None => g.put(r, sx, '│', dim),
        }
    }
    // The followed arrows last, on top; what is in flight over what arrived.
    let mut order: Vec<&Arrow> = v.arrows.iter().collect();
    order.sort_by_key(|a| (a.followed, a.end == End::InFlight));
    // Bodies, then heads: where an arrow arrives stays readable under the others.
    for a in &order {
        draw_body(&mut g, a, cx, sx, t);
    }
    for a in &order {
        draw_head(&mut g, a, cx, sx, t);
    }
    for a in &order {
        let style = arrow_style(a, t);
        let row = a.from.floor() as i64;
        if a.end == End::Duplicate {
            continue;
        }
        // A column off each end, where the other way's heads arrive; the followed
        // marked `▸` (for a screen without colours).
        let label = if a.followed {
            format!("▸{}", a.label)
        } else {
            a.label.clone()
        };
        if a.up {
            g.text(row, cx + 2, &label, style);
        } else {
            let len = label.chars().count();
            g.text(row, sx.saturating_sub(len + 1), &label, style);
        }
    }
    let mark = t.style(Role::Selected).add_modifier(Modifier::BOLD);
    for m in &v.marks {
        let col = if m.server { sx } else { cx };
        g.put(m.row.floor() as i64, col, m.glyph, mark);
    }
    g.rows
        .into_iter()
        .map(|row| {
            // Runs of one style as one span.
            let mut spans: Vec<Span> = Vec::new();
            let mut run = String::new();
            let mut style = None;
            for (c, s) in row {
                if style.is_some_and(|st| st != s) {
                    spans.push(Span::styled(
                        std::mem::take(&mut run),
                        style.unwrap_or_default(),
                    ));
                }
                style = Some(s);
                run.push(c);
            }
            spans.push(Span::styled(run, style.unwrap_or_default()));
            Line::from(spans)
        })
        .collect()
}

fn arrow_style(a: &Arrow, t: Theme) -> Style {
    let base = if a.followed {
        t.style(Role::Selected)
    } else if a.up {
        t.style(Role::Up)
    } else {
        t.style(Role::Down)
    };
    if a.followed || a.end == End::InFlight {
        base.add_modifier(Modifier::BOLD)
    } else {
        base
    }
}

/// Where an arrow starts and ends, in columns.
fn ends(a: &Arrow, cx: usize, sx: usize) -> (f64, f64) {
    let (start, full) = if a.up {
        (cx as f64 + 1.0, sx as f64 - 1.0)
    } else {
        (sx as f64 - 1.0, cx as f64 + 1.0)
    };
    (start, start + (full - start) * a.reach.clamp(0.0, 1.0))
}

/// An arrow's line: a horizontal run when it starts and ends in one row, else one
/// slant on each row it crosses, where its line is in the middle of that row's time
/// (a run per row would merge the arrows in flight into solid rows).
fn draw_body(g: &mut Grid, a: &Arrow, cx: usize, sx: usize, t: Theme) {
    let (start, end) = ends(a, cx, sx);
    let style = arrow_style(a, t);
    let (first, last) = (a.from.floor() as i64, a.to.floor() as i64);
    if first == last {
        let (lo, hi) = (
            start.min(end).round() as usize,
            start.max(end).round() as usize,
        );
        for col in lo..=hi {
            g.put(first, col, '─', style);
        }
    } else {
        let x_at = |row: f64| start + (end - start) * ((row - a.from) / (a.to - a.from));
        let slant = if a.up { '╲' } else { '╱' };
        for r in first..last {
            let mid = (a.from.max(r as f64) + a.to.min(r as f64 + 1.0)) / 2.0;
            g.put(r, x_at(mid).round() as usize, slant, style);
        }
    }
}

/// An arrow's head: `▶` `◀` arrived, `›` `‹` in flight, `×` lost, `»` `«` a
/// duplicate's second copy.
fn draw_head(g: &mut Grid, a: &Arrow, cx: usize, sx: usize, t: Theme) {
    let (_, end) = ends(a, cx, sx);
    let style = arrow_style(a, t);
    let last = a.to.floor() as i64;
    let head = end.round() as usize;
    let (c, style) = match (a.end, a.up) {
        (End::Lost, _) => ('×', t.style(Role::Bad).add_modifier(Modifier::BOLD)),
        (End::InFlight, true) => ('›', style),
        (End::InFlight, false) => ('‹', style),
        (End::Arrived, true) => ('▶', style),
        (End::Arrived, false) => ('◀', style),
        (End::Duplicate, true) => ('»', style),
        (End::Duplicate, false) => ('«', style),
    };
    g.put(last, head, c, style);
    if a.end == End::Duplicate {
        let col = if a.up {
            head.saturating_sub(4)
        } else {
            head + 2
        };
        g.text(last, col, "dup", style);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(lines: &[Line]) -> Vec<String> {
        lines
            .iter()
            .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
            .collect()
    }

    /// An input packet sent on row 0 and arrived on row 2 goes right and down to the
    /// server's column, its label at the client's end; a snapshot lost on its way
    /// stops with `×`.
    #[test]
    fn arrows_slant_down_the_time_axis_and_a_loss_stops_with_a_cross() {
        let v = LadderView {
            times: (0..4).map(|i| format!("{i}.0")).collect(),
            ticks: vec![Some(10), None, Some(11), None],
            arrows: vec![
                Arrow {
                    up: true,
                    from: 0.2,
                    to: 2.5,
                    reach: 1.0,
                    end: End::Arrived,
                    label: "#4-5".into(),
                    followed: false,
                },
                Arrow {
                    up: false,
                    from: 1.0,
                    to: 2.0,
                    reach: 0.5,
                    end: End::Lost,
                    label: "t9 a3".into(),
                    followed: false,
                },
            ],
            marks: Vec::new(),
        };
        let rows = text(&lines(&v, 40, Theme::Auto));
        assert_eq!(rows.len(), 4);
        assert!(rows[0].contains("│ #4-5"), "{rows:#?}");
        assert!(rows[0].contains("┼10"), "{rows:#?}");
        assert!(rows[2].contains("▶┼11"), "{rows:#?}");
        assert!(rows[1].contains("t9 a3 │"), "{rows:#?}");
        assert!(rows[2].contains('×'), "{rows:#?}");
    }
}
