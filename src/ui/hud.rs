//! The one-line HUD above the arena and the roster below it.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::{CombatHud, Hud, RosterLine, player_color, player_glyph};

const LABEL: Style = Style::new().fg(Color::DarkGray);
const VALUE: Style = Style::new().fg(Color::White);

/// A switch as `+name` (on, green) or `-name` (off, grey): readable without colour.
fn switch(name: &str, on: bool) -> Span<'static> {
    if on {
        Span::styled(format!("+{name}"), Style::new().fg(Color::LightGreen))
    } else {
        Span::styled(format!("-{name}"), Style::new().fg(Color::DarkGray))
    }
}

/// As many whole groups as fit in `width` columns, in order: a line is never cut
/// in the middle of a word. A group that does not fit ends the line.
fn fit(groups: Vec<Vec<Span<'static>>>, width: u16) -> Line<'static> {
    let mut spans = Vec::new();
    let mut used = 0;
    for group in groups {
        let w: usize = group.iter().map(Span::width).sum();
        if used + w > usize::from(width) {
            break;
        }
        used += w;
        spans.extend(group);
    }
    Line::from(spans)
}

fn pair(label: &str, value: String) -> Vec<Span<'static>> {
    vec![
        Span::styled(format!("{label} "), LABEL),
        Span::styled(value, VALUE),
    ]
}

pub(crate) fn draw_hud(frame: &mut Frame, area: Rect, hud: &Hud) {
    let s = &hud.switches;
    let ghost = if s.ghost_trail {
        "ghost+trail"
    } else {
        "ghost"
    };
    let mut groups = vec![
        pair("FPS", format!("{:<5.0} ", hud.fps)),
        pair("RTT", format!("{:.0}ms ", hud.rtt_ms)),
        pair("tick", format!("{} ", hud.server_tick)),
        pair("pend", format!("{} ", hud.pending)),
        pair("corr", format!("{} ", hud.corrections)),
        vec![Span::styled("│", LABEL)],
    ];
    for (name, on) in [
        ("pred", s.prediction),
        ("rec", s.reconciliation),
        ("int", s.interpolation),
        ("ext", s.extrapolation),
        ("smo", s.smoothing),
        (ghost, s.ghosts),
    ] {
        groups.push(vec![Span::raw(" "), switch(name, on)]);
    }
    frame.render_widget(Paragraph::new(fit(groups, area.width)), area);
}

/// The fighting line: health, weapon, frags, clock; or the chat line being typed.
pub(crate) fn draw_combat(
    frame: &mut Frame,
    area: Rect,
    combat: Option<&CombatHud>,
    chat_input: Option<&str>,
) {
    if let Some(text) = chat_input {
        let line = Line::from(vec![
            Span::styled("say: ", Style::new().fg(Color::LightYellow)),
            Span::raw(format!("{text}_")),
            Span::styled("   Enter send, Esc cancel", LABEL),
        ]);
        frame.render_widget(Paragraph::new(line), area);
        return;
    }
    let Some(c) = combat else {
        return;
    };
    let mut spans = Vec::new();
    let mut groups = Vec::new();
    if c.alive {
        let color = match c.health {
            h if h > 60 => Color::LightGreen,
            h if h > 25 => Color::LightYellow,
            _ => Color::LightRed,
        };
        spans.push(Span::styled("HP ", LABEL));
        spans.push(Span::styled(
            format!("{:<3} ", c.health),
            Style::new().fg(color).add_modifier(Modifier::BOLD),
        ));
    } else {
        spans.push(Span::styled(
            "DEAD, respawning… ",
            Style::new()
                .fg(Color::LightRed)
                .add_modifier(Modifier::BOLD),
        ));
    }
    spans.push(Span::styled(format!("{:<7} ", c.weapon.name()), VALUE));
    spans.push(Span::styled("frags ", LABEL));
    spans.push(Span::styled(
        format!("{}/{} ", c.frags, c.frag_limit),
        VALUE,
    ));
    if let Some(t) = c.time_left_secs {
        spans.push(Span::styled("time ", LABEL));
        spans.push(Span::styled(format!("{}:{:02} ", t / 60, t % 60), VALUE));
    }
    groups.push(spans);
    groups.push(vec![Span::styled("│", LABEL)]);
    for hint in ["space fire", "1/2 weapon", "t chat", "Tab scores", "? help"] {
        groups.push(vec![Span::styled(format!(" {hint} "), LABEL)]);
    }
    frame.render_widget(Paragraph::new(fit(groups, area.width)), area);
}

/// Players on the left, the simulated network conditions on the right.
pub(crate) fn draw_roster(frame: &mut Frame, area: Rect, roster: &[RosterLine], conditions: &str) {
    let net = Line::from(vec![
        Span::styled("net ", LABEL),
        Span::styled(conditions.to_owned(), Style::new().fg(Color::LightYellow)),
    ]);
    let net_width = (net.width() as u16).min(area.width);
    let room = usize::from(area.width - net_width).saturating_sub(2);
    let mut spans = Vec::with_capacity(roster.len() * 2);
    let mut used = 0;
    for (i, r) in roster.iter().enumerate() {
        let (glyph, color) = if r.local {
            ('@', Color::White)
        } else {
            (player_glyph(r.id), player_color(r.id))
        };
        let name = format!("{}  ", r.name);
        let width = 2 + name.chars().count();
        // Whole names only; the last one that fits leaves room for "…" if more follow.
        let more = i + 1 < roster.len();
        if used + width + usize::from(more) > room {
            spans.push(Span::styled("…", LABEL));
            break;
        }
        used += width;
        spans.push(Span::styled(
            format!("{glyph} "),
            Style::new().fg(color).add_modifier(Modifier::BOLD),
        ));
        spans.push(Span::styled(name, Style::new().fg(color)));
    }
    let players = Rect::new(area.x, area.y, area.width - net_width, 1);
    frame.render_widget(Paragraph::new(Line::from(spans)), players);
    let right = Rect::new(area.right() - net_width, area.y, net_width, 1);
    frame.render_widget(Paragraph::new(net), right);
}
