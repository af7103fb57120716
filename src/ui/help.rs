//! The help box (`?`): the keys (the binding table's, `ui::keys::GAME`), and beside them what each glyph on the screen means,
//! drawn as the arena draws it.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::ellipsis::ellipsize_line;
use super::keys::{GAME, help_lines};
use super::overlays::popup;
use super::{Role, Theme};

/// A sample of something the arena shows: its glyph, drawn as the arena draws it.
#[derive(Clone, Copy)]
enum Sample {
    Role(Role),
    /// Another player's letter: bold, dim (a ghost), or plain in its colour.
    Player(Modifier),
}

/// What the arena's glyphs mean, beside the keys: one a line, 14 columns of words.
const LEGEND: &[(&str, Sample, &str)] = &[
    ("@", Sample::Role(Role::Local), "you"),
    ("B", Sample::Player(Modifier::BOLD), "another player"),
    ("→", Sample::Role(Role::Aim), "facing"),
    ("*", Sample::Player(Modifier::BOLD), "a bolt"),
    ("✶", Sample::Role(Role::Muzzle), "your shot"),
    ("@", Sample::Role(Role::Protected), "spawn shield"),
    ("o", Sample::Role(Role::LocalGhost), "g: you, server"),
    ("b", Sample::Player(Modifier::DIM), "g: B, server"),
    ("•", Sample::Player(Modifier::DIM), "g: B's trail"),
    ("x", Sample::Role(Role::Predicted), "fix: predicted"),
    ("+", Sample::Role(Role::Corrected), "fix: server's"),
    ("▢", Sample::Role(Role::TestedBox), "v: rail tested"),
    ("◆", Sample::Role(Role::PresentBox), "v: target was"),
];

/// The key column's width, and the legend's beside it (" @ " and 14 columns).
const KEYS_WIDTH: u16 = 13 + 1 + 42;
const LEGEND_WIDTH: u16 = 3 + 14;

pub(crate) fn draw_help(frame: &mut Frame, arena: Rect, t: Theme) {
    let keys = help_lines(GAME).count();
    let inner = popup(
        frame,
        arena,
        KEYS_WIDTH + 1 + LEGEND_WIDTH + 2,
        keys as u16 + 2,
        " keys (? to close) and what you see ",
        t,
    );
    let mut lines: Vec<Line> = help_lines(GAME)
        .map(|(k, what)| {
            Line::from(vec![
                Span::styled(format!("{k:>13} "), t.style(Role::Key)),
                Span::styled(format!("{what:<42}"), t.style(Role::Value)),
            ])
        })
        .collect();
    // The legend beside the keys when the box is wide enough (the arena of an
    // 80-column terminal); the keys alone when not.
    if inner.width >= KEYS_WIDTH + 1 + LEGEND_WIDTH {
        let rows = std::iter::once(None).chain(LEGEND.iter().map(Some));
        for (line, entry) in lines.iter_mut().zip(rows) {
            line.spans.push(Span::raw(" "));
            let Some((glyph, sample, what)) = entry else {
                line.spans
                    .push(Span::styled("on the screen", t.style(Role::Heading)));
                continue;
            };
            let style = match *sample {
                Sample::Role(role) => t.style(role),
                Sample::Player(m) => t.player(1).add_modifier(m),
            };
            line.spans.push(Span::raw(" "));
            line.spans.push(Span::styled(*glyph, style));
            line.spans
                .push(Span::styled(format!(" {what}"), t.style(Role::Value)));
        }
    }
    let label = t.style(Role::Label);
    lines.push(Line::styled(
        "HUD: +on/-off: pred rec int ext smo ghost lagc",
        label,
    ));
    lines.push(Line::styled(
        "FPS counts frames drawn: only changes are drawn",
        label,
    ));
    if inner.width >= KEYS_WIDTH + 1 + LEGEND_WIDTH {
        // The legend's shorthand, under it.
        lines[keys]
            .spans
            .push(Span::styled("  g v: the key that shows it", label));
        lines[keys + 1]
            .spans
            .push(Span::styled("  fix: a correction", label));
    }
    // A box narrower than its lines (a 48-column terminal) cuts them with `…`.
    let lines: Vec<Line> = lines
        .into_iter()
        .map(|l| ellipsize_line(l, usize::from(inner.width)))
        .collect();
    frame.render_widget(Paragraph::new(lines), inner);
}
