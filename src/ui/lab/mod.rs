//! The lab's screen: a server view and one view per client side by side (a grid when
//! narrow), each following its player with a camera when the map does not fit, the
//! wire lanes under them, panels in the rows left under the lanes, a line for the clock
//! at the top and one for explanations at the bottom. Like the rest of `ui`, this only
//! draws what it is given.

use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::{Position, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Wrap};

use super::ellipsis::{ellipsize, ellipsize_line};
use super::{CELL_COLS, Role, Theme, View, arena, keys, overlays};
use lanes::{LANES_LEGEND, draw_lane};
pub(crate) use lanes::{LaneDot, LaneView};

mod lanes;

/// The smallest pane worth drawing: its arena inside, without border and status line.
const MIN_ARENA: (u16, u16) = (16, 4);
/// A pane's border (two columns, two rows) and its status line.
const PANE_CHROME: (u16, u16) = (2, 3);

/// Everything one lab frame shows.
pub(crate) struct LabView<'a> {
    /// The server's view first, then the clients'.
    pub(crate) panes: Vec<Pane<'a>>,
    pub(crate) lanes: Vec<LaneView>,
    /// Boxes of text drawn left to right in the rows the views and lanes leave.
    pub(crate) panels: Vec<Panel>,
    /// A panel drawn over the views, when one is toggled there (a small screen has no
    /// rows under the lanes).
    pub(crate) overlay: Option<Panel>,
    /// The clock line: speed, paused, virtual time, tick, who the keys act on.
    pub(crate) clock: String,
    pub(crate) paused: bool,
    /// A one-line explanation of the last change, or the key reminder.
    pub(crate) message: String,
    pub(crate) help: bool,
    pub(crate) theme: Theme,
    /// The views in this many columns (an A/B run: A left, B right); None: the grid
    /// that shows the most of the map.
    pub(crate) columns: Option<u16>,
}

pub(crate) struct Pane<'a> {
    pub(crate) title: String,
    pub(crate) view: View<'a>,
    /// Where the camera looks, in cells, when the map is larger than the pane.
    pub(crate) focus: Option<(f64, f64)>,
    pub(crate) status: String,
    pub(crate) selected: bool,
}

/// A box in the lab's panel area: a title and lines already styled, as wide as it
/// asks (the last panel takes what is left). Lines longer than fit are cut with `…`,
/// lines more than fit are left out.
#[derive(Clone, Debug, Default)]
pub(crate) struct Panel {
    pub(crate) title: String,
    pub(crate) lines: Vec<Line<'static>>,
    /// Columns it wants, borders included; 0 for an equal share of the row.
    pub(crate) width: u16,
    /// What it shows instead when its lines do not all fit the rows it gets (empty:
    /// its lines, cut).
    pub(crate) short: Vec<Line<'static>>,
    /// When its lines are more than fit, the last ones show (a log, newest at the
    /// bottom), not the first.
    pub(crate) tail: bool,
    /// Its lines must all show (a lesson's step and its prompt): the views give up
    /// rows for them, and a screen too small for both says what size it needs.
    pub(crate) whole: bool,
}

/// Where everything goes on a screen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct LabLayout {
    pub(crate) clock: Rect,
    pub(crate) panes: Vec<Rect>,
    pub(crate) lanes: Rect,
    pub(crate) lane_rows: u16,
    /// The rows between the lanes and the message line, for the panels (may be empty).
    pub(crate) panels: Rect,
    pub(crate) message: Rect,
}

/// The smallest screen the lab can use with `panes` views and `lanes` links.
pub(crate) fn required_size(panes: u16, lanes: u16) -> (u16, u16) {
    let rows = panes.div_ceil(2);
    (
        2 * (MIN_ARENA.0 + PANE_CHROME.0),
        rows * (MIN_ARENA.1 + PANE_CHROME.1) + lanes + 2,
    )
}

/// Lays `panes` views of a `map` cells large and `lanes` links out on `area`: the grid
/// that shows the most of the map, lanes two rows each if they fit, else one. None when
/// the screen is too small for even the smallest grid.
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) fn layout(area: Rect, panes: u16, lanes: u16, map: (u16, u16)) -> Option<LabLayout> {
    layout_in(area, panes, lanes, map, None, 0)
}

/// [`layout`], in `columns` columns if given, with at least `reserve` rows for the
/// panels.
fn layout_in(
    area: Rect,
    panes: u16,
    lanes: u16,
    map: (u16, u16),
    columns: Option<u16>,
    reserve: u16,
) -> Option<LabLayout> {
    let want = (map.0 * CELL_COLS, map.1);
    let mut best: Option<(f64, LabLayout)> = None;
    for lane_rows in [2, 1] {
        let band = lanes * lane_rows;
        let views_h = area.height.checked_sub(band + 2 + reserve)?;
        for rows in 1..=panes {
            let cols = panes.div_ceil(rows);
            if columns.is_some_and(|c| c != cols) {
                continue;
            }
            let (w, h) = (area.width / cols, views_h / rows);
            let inner = (
                w.saturating_sub(PANE_CHROME.0),
                h.saturating_sub(PANE_CHROME.1),
            );
            if inner.0 < MIN_ARENA.0 || inner.1 < MIN_ARENA.1 {
                continue;
            }
            let shown = f64::from(inner.0.min(want.0)) / f64::from(want.0)
                * (f64::from(inner.1.min(want.1)) / f64::from(want.1));
            if best.as_ref().is_some_and(|(s, _)| *s >= shown) {
                continue;
            }
            // Panes no bigger than they need be; what is left goes round them.
            let (pw, ph) = (w.min(want.0 + PANE_CHROME.0), h.min(want.1 + PANE_CHROME.1));
            let left = area.x + (area.width - pw * cols) / 2;
            let top = area.y + 1;
            let rects = (0..panes)
                .map(|i| Rect::new(left + (i % cols) * pw, top + (i / cols) * ph, pw, ph))
                .collect();
            let lanes_at = top + rows * ph;
            let panels_at = lanes_at + band;
            let message_at = area.bottom() - 1;
            best = Some((
                shown,
                LabLayout {
                    clock: Rect::new(area.x, area.y, area.width, 1),
                    panes: rects,
                    lanes: Rect::new(area.x, lanes_at, area.width, band),
                    lane_rows,
                    panels: Rect::new(
                        area.x,
                        panels_at,
                        area.width,
                        message_at.saturating_sub(panels_at),
                    ),
                    message: Rect::new(area.x, message_at, area.width, 1),
                },
            ));
        }
        if best.as_ref().is_some_and(|(s, _)| *s >= 1.0) {
            break;
        }
    }
    best.map(|(_, l)| l)
}

pub(crate) fn draw(frame: &mut Frame, lab: &LabView) {
    let area = frame.area();
    let map = lab
        .panes
        .first()
        .map_or((1, 1), |p| (p.view.map.width(), p.view.map.height()));
    let (panes, lanes) = (lab.panes.len() as u16, lab.lanes.len() as u16);
    // A panel that must be whole takes its rows, borders included, from the views.
    let reserve = lab
        .panels
        .iter()
        .filter(|p| p.whole)
        .map(|p| p.lines.len() as u16 + 2)
        .max()
        .unwrap_or(0);
    let Some(l) = layout_in(area, panes, lanes, map, lab.columns, reserve) else {
        let (w, h) = required_size(panes, lanes);
        // As wide as the lab needs, the rows a panel's text takes at this width.
        let text = if reserve > 0 && area.width >= w {
            format!(
                "Too small: this step needs {}x{}, the terminal is {}x{}. Enlarge it or press q.",
                area.width,
                h + reserve,
                area.width,
                area.height
            )
        } else {
            format!(
                "Terminal too small: the lab needs {w}x{h}, the terminal is {}x{}. Enlarge it or press q.",
                area.width, area.height
            )
        };
        frame.render_widget(Paragraph::new(text).wrap(Wrap { trim: true }), area);
        return;
    };
    let t = lab.theme;
    let clock_style = if lab.paused {
        t.style(Role::Paused)
    } else {
        Style::new().add_modifier(Modifier::BOLD)
    };
    let fit = |text: &str, r: Rect| ellipsize(text, usize::from(r.width));
    frame.render_widget(
        Paragraph::new(Span::styled(fit(&lab.clock, l.clock), clock_style)),
        l.clock,
    );
    for (pane, rect) in lab.panes.iter().zip(&l.panes) {
        draw_pane(frame, *rect, pane, t);
    }
    for (i, lane) in lab.lanes.iter().enumerate() {
        let y = l.lanes.y + i as u16 * l.lane_rows;
        draw_lane(
            frame.buffer_mut(),
            l.lanes.x,
            y,
            l.lanes.width,
            l.lane_rows,
            lane,
            t,
        );
    }
    draw_panels(frame, l.panels, &lab.panels, t);
    if let Some(panel) = &lab.overlay {
        // Over the views, from under the clock line to the lanes.
        let top = l.clock.bottom();
        let w = if panel.width == 0 {
            area.width
        } else {
            panel.width.min(area.width)
        };
        let r = Rect::new(area.x, top, w, l.lanes.y.saturating_sub(top));
        if r.height >= MIN_PANEL_ROWS {
            frame.render_widget(Clear, r);
            draw_panels(frame, r, std::slice::from_ref(panel), t);
        }
    }
    for (pane, rect) in lab.panes.iter().zip(&l.panes) {
        draw_stats_over(frame, *rect, pane, t);
    }
    frame.render_widget(
        Paragraph::new(Span::styled(
            fit(&lab.message, l.message),
            t.style(Role::Message),
        )),
        l.message,
    );
    if lab.help {
        draw_help(frame, area);
    }
}

/// The smallest panel worth drawing: a border and two lines.
const MIN_PANEL_ROWS: u16 = 4;

/// Lays `panels` out left to right in `area`: each as wide as it asks while room is
/// left, the ones asking for an equal share splitting what remains. A panel that gets
/// no room is not drawn.
pub(crate) fn panel_rects(area: Rect, panels: &[Panel]) -> Vec<Rect> {
    if area.height < MIN_PANEL_ROWS || panels.is_empty() {
        return Vec::new();
    }
    let asked: u16 = panels.iter().map(|p| p.width).sum();
    let shares = panels.iter().filter(|p| p.width == 0).count() as u16;
    let share = area.width.saturating_sub(asked) / shares.max(1);
    let mut x = area.x;
    let mut rects = Vec::new();
    for p in panels {
        let want = if p.width == 0 { share } else { p.width };
        let w = want.min(area.right().saturating_sub(x));
        if w < 8 {
            break;
        }
        rects.push(Rect::new(x, area.y, w, area.height));
        x += w;
    }
    rects
}

fn draw_panels(frame: &mut Frame, area: Rect, panels: &[Panel], t: Theme) {
    for (panel, rect) in panels.iter().zip(panel_rects(area, panels)) {
        let block = Block::new()
            .borders(Borders::ALL)
            .border_style(t.style(Role::Label))
            .title(Span::styled(
                title(&panel.title, rect.width),
                t.style(Role::Label),
            ));
        let rows = usize::from(rect.height.saturating_sub(2));
        let lines = if panel.lines.len() > rows && !panel.short.is_empty() {
            &panel.short
        } else {
            &panel.lines
        };
        // A log's newest lines, at the bottom, stay in view.
        let skip = if panel.tail {
            lines.len().saturating_sub(rows)
        } else {
            0
        };
        let inner = usize::from(rect.width.saturating_sub(2));
        let lines: Vec<Line> = lines[skip..]
            .iter()
            .map(|l| ellipsize_line(l.clone(), inner))
            .collect();
        frame.render_widget(Paragraph::new(lines).block(block), rect);
    }
}

fn draw_pane(frame: &mut Frame, rect: Rect, pane: &Pane, t: Theme) {
    let border = if pane.selected {
        t.style(Role::Selected)
    } else {
        t.style(Role::Label)
    };
    let block = Block::new()
        .borders(Borders::ALL)
        .border_style(border)
        .title(Span::styled(title(&pane.title, rect.width), border));
    let inner = block.inner(rect);
    frame.render_widget(block, rect);
    let arena = Rect::new(
        inner.x,
        inner.y,
        inner.width,
        inner.height.saturating_sub(1),
    );
    draw_camera(frame.buffer_mut(), arena, &pane.view, pane.focus);
    if let Some(notice) = &pane.view.notice {
        frame.render_widget(
            Paragraph::new(notice.as_str()).wrap(Wrap { trim: true }),
            arena,
        );
    }
    let status = Rect::new(inner.x, arena.bottom(), inner.width, 1);
    frame.render_widget(
        Paragraph::new(ellipsize(&pane.status, usize::from(status.width))),
        status,
    );
}

/// A box's title, a blank each side, cut with `…` to fit between its corners.
fn title(text: &str, box_width: u16) -> String {
    let room = usize::from(box_width.saturating_sub(2));
    ellipsize(
        &format!(" {} ", ellipsize(text, room.saturating_sub(2))),
        room,
    )
}

/// A pane's stats overlay (`n`), drawn after everything else: a pane (a duel's is 48
/// columns by 12 rows) is too small for its rows and lagometer, so it goes over the
/// neighbouring views, lanes and panels, from the pane's arena top to the message line,
/// over the pane where it fits on screen.
fn draw_stats_over(frame: &mut Frame, rect: Rect, pane: &Pane, t: Theme) {
    let Some(stats) = &pane.view.stats else {
        return;
    };
    let arena = Block::new().borders(Borders::ALL).inner(rect);
    let screen = frame.area();
    let w = overlays::STATS_WIDTH.min(screen.width);
    let x = if arena.width >= w {
        arena.right() - w
    } else {
        arena.x.min(screen.right() - w)
    };
    let bottom = screen.bottom().saturating_sub(1);
    let over = Rect::new(x, arena.y, w, bottom.saturating_sub(arena.y));
    overlays::draw_stats(frame, over, stats, t);
}

/// The arena drawn whole off screen, then the window the camera sees copied into
/// `area`: centred when the map fits, else following `focus` up to the map's edges.
fn draw_camera(buf: &mut Buffer, area: Rect, view: &View, focus: Option<(f64, f64)>) {
    let full = Rect::new(0, 0, view.map.width() * CELL_COLS, view.map.height());
    let mut off = Buffer::empty(full);
    arena::draw_tiles(&mut off, full, (0, 0), view);
    arena::draw_sprites(&mut off, full, (0, 0), view);
    let (fx, fy) = focus.unwrap_or((
        f64::from(view.map.width()) / 2.0,
        f64::from(view.map.height()) / 2.0,
    ));
    let axis = |size: u16, room: u16, at: f64| -> (u16, u16) {
        if size <= room {
            // (source offset, destination offset)
            (0, (room - size) / 2)
        } else {
            let start = (at - f64::from(room) / 2.0).round().max(0.0) as u16;
            (start.min(size - room), 0)
        }
    };
    let (sx, dx) = axis(full.width, area.width, fx * f64::from(CELL_COLS));
    let (sy, dy) = axis(full.height, area.height, fy);
    for row in 0..area.height.min(full.height) {
        for col in 0..area.width.min(full.width) {
            if let (Some(from), Some(to)) = (
                off.cell(Position::new(sx + col, sy + row)),
                buf.cell_mut(Position::new(area.x + dx + col, area.y + dy + row)),
            ) {
                *to = from.clone();
            }
        }
    }
}

/// The `?` box: the lab's keys from the binding table, then the lanes' legend.
fn draw_help(frame: &mut Frame, area: Rect) {
    let rows: Vec<(&str, &str)> = keys::help_lines(keys::LAB).collect();
    let label_width = rows
        .iter()
        .map(|(l, _)| l.chars().count())
        .max()
        .unwrap_or(0);
    let lines: Vec<Line> = rows
        .iter()
        .map(|(label, does)| Line::from(format!("{label:>label_width$}  {does}")))
        .chain(LANES_LEGEND.iter().map(|l| Line::from(*l)))
        .collect();
    let w = (lines.iter().map(Line::width).max().unwrap_or(0) as u16 + 4).min(area.width);
    let h = (lines.len() as u16 + 2).min(area.height);
    let r = Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    );
    frame.render_widget(Clear, r);
    frame.render_widget(
        Paragraph::new(lines).block(Block::new().borders(Borders::ALL).title(" lab keys ")),
        r,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_duel_views_fit_side_by_side_at_160x45_and_in_a_grid_at_100x30() {
        let l = layout(Rect::new(0, 0, 160, 45), 3, 2, (24, 12)).unwrap();
        assert_eq!(l.lane_rows, 2);
        assert!(
            l.panes
                .iter()
                .all(|p| p.y == 1 && p.width == 50 && p.height == 15)
        );
        let l = layout(Rect::new(0, 0, 100, 30), 3, 2, (24, 12)).unwrap();
        assert!(l.panes.iter().all(|p| p.bottom() <= l.lanes.y));
        assert!(l.lanes.bottom() < 30);
        let l = layout(Rect::new(0, 0, 160, 45), 5, 4, (24, 12)).unwrap();
        assert_eq!(l.panes.len(), 5);
        assert!(layout(Rect::new(0, 0, 30, 10), 3, 2, (24, 12)).is_none());
        let (w, h) = required_size(3, 2);
        assert!(layout(Rect::new(0, 0, w, h), 3, 2, (24, 12)).is_some());
    }

    /// Panels go left to right under the lanes: the ones that ask for a width get it,
    /// the others share the rest; none when there are not rows enough.
    #[test]
    fn panels_fill_the_rows_under_the_lanes() {
        let l = layout(Rect::new(0, 0, 160, 45), 3, 2, (24, 12)).unwrap();
        assert_eq!(l.panels.y, l.lanes.bottom());
        assert_eq!(l.panels.bottom(), l.message.y);
        assert!(l.panels.height >= 20, "{:?}", l.panels);
        let panels = [
            Panel {
                width: 60,
                ..Panel::default()
            },
            Panel::default(),
            Panel::default(),
        ];
        let rects = panel_rects(l.panels, &panels);
        let widths: Vec<u16> = rects.iter().map(|r| r.width).collect();
        assert_eq!(widths, [60, 50, 50]);
        let short = Rect::new(0, 40, 160, MIN_PANEL_ROWS - 1);
        assert!(panel_rects(short, &panels).is_empty());
    }

    /// A panel whose lines do not fit the rows it gets shows its short form instead;
    /// one that fits, its lines.
    #[test]
    fn a_panel_too_tall_for_its_rows_shows_its_short_form() {
        let panel = Panel {
            title: "meters".into(),
            lines: (0..10).map(|i| Line::raw(format!("long {i}"))).collect(),
            width: 20,
            short: vec![Line::raw("short")],
            ..Panel::default()
        };
        let drawn = |rows: u16| {
            let backend = ratatui::backend::TestBackend::new(20, rows);
            let mut term = ratatui::Terminal::new(backend).unwrap();
            let panels = std::slice::from_ref(&panel);
            term.draw(|f| draw_panels(f, f.area(), panels, Theme::default()))
                .unwrap();
            let buf = term.backend().buffer().clone();
            (0..rows)
                .map(|y| (0..20).map(|x| buf[(x, y)].symbol()).collect::<String>())
                .collect::<Vec<_>>()
                .join("\n")
        };
        let cramped = drawn(6);
        assert!(
            cramped.contains("short") && !cramped.contains("long"),
            "{cramped}"
        );
        let roomy = drawn(12);
        assert!(
            roomy.contains("long 9") && !roomy.contains("short"),
            "{roomy}"
        );
    }

    /// The `?` box lists every lab key of the binding table, words and all, inside a
    /// 100x30 terminal (the smallest grid).
    #[test]
    fn the_help_box_lists_every_lab_key() {
        let backend = ratatui::backend::TestBackend::new(100, 30);
        let mut term = ratatui::Terminal::new(backend).unwrap();
        term.draw(|f| draw_help(f, f.area())).unwrap();
        let buf = term.backend().buffer();
        let text: Vec<String> = (0..30)
            .map(|y| (0..100).map(|x| buf[(x, y)].symbol().to_owned()).collect())
            .collect();
        let shown = text.join("\n");
        for (label, does) in keys::help_lines(keys::LAB) {
            assert!(
                text.iter().any(|l| l.contains(label) && l.contains(does)),
                "{label} {does}:\n{shown}"
            );
        }
        assert!(shown.contains("× lost"), "{shown}");
    }

    /// Issue 30: the lab's lines were cut where the screen or the box ended, the key
    /// reminder at `? hel`. At 80 and 100 columns the clock, the message, every title,
    /// status and panel line (the dials' too) is whole or ends with `…`.
    #[test]
    fn every_lab_line_is_whole_or_marked_at_80_and_100_columns() {
        let map = crate::ui::tests::small_map();
        let long = |what: &str| format!("{what}: {}", "many words that go on and on ".repeat(6));
        let pane = |n: usize| Pane {
            title: long(&format!("client {n} = B custom link"))
                .trim_end()
                .to_owned(),
            view: crate::ui::tests::plain_view(&map, Vec::new()),
            focus: None,
            status: long(&format!("status {n} rtt 152ms sent #123456")),
            selected: false,
        };
        let dials = Panel {
            title: long("dials of client 1"),
            lines: vec![Line::from(vec![
                Span::raw("[interp auto (2 periods + jitter = 112ms)] "),
                Span::raw(long("input 30/s redund 64")),
            ])],
            ..Panel::default()
        };
        let message = format!(" {}", keys::hints(keys::LAB).join(" · "));
        let lab = LabView {
            panes: vec![pane(0), pane(1)],
            lanes: Vec::new(),
            panels: vec![dials.clone()],
            overlay: None,
            clock: long("1.0x  t 12.3s  tick 738"),
            paused: false,
            message: message.clone(),
            help: false,
            theme: Theme::default(),
            columns: None,
        };
        let texts: Vec<String> = [
            lab.clock.clone(),
            message,
            format!(" {} ", dials.title),
            crate::ui::ellipsis::plain(&dials.lines[0]),
        ]
        .into_iter()
        .chain(
            lab.panes
                .iter()
                .flat_map(|p| [format!(" {} ", p.title), p.status.clone()]),
        )
        .collect();
        for (width, height) in [(80, 40), (100, 30)] {
            let backend = ratatui::backend::TestBackend::new(width, height);
            let mut term = ratatui::Terminal::new(backend).unwrap();
            term.draw(|f| draw(f, &lab)).unwrap();
            let buf = term.backend().buffer();
            let rows: Vec<String> = (0..height)
                .map(|y| (0..width).map(|x| buf[(x, y)].symbol()).collect())
                .collect();
            let screen = rows.join("\n");
            for text in &texts {
                // Where the text begins, to the box's edge or the row's end.
                let head: String = text.chars().take(12).collect();
                let shown = rows
                    .iter()
                    .find_map(|r| r.find(&head).map(|at| &r[at..]))
                    .unwrap_or_else(|| panic!("{width}: {head:?} not drawn:\n{screen}"));
                let shown = shown.split(['│', '┐', '─']).next().unwrap().trim_end();
                let whole = shown == text.trim_end();
                let marked = shown
                    .strip_suffix('…')
                    .is_some_and(|stem| text.starts_with(stem));
                assert!(
                    whole || marked,
                    "{width}: {shown:?} cut without `…`:\n{screen}"
                );
                assert!(marked, "{width}: {text:?} should not fit:\n{screen}");
            }
        }
    }
}
