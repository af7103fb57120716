//! The one-line HUD above the arena and the roster below it.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::{CombatHud, Hud, RosterLine, player_color, player_glyph};
use crate::net::protocol::MAX_CHAT_CHARS;
use crate::sim::combat::Weapon;

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
    fit_into(&mut spans, groups, usize::from(width));
    Line::from(spans)
}

/// Appends to `spans` as many whole groups as fit in `room` columns; the width used.
fn fit_into(spans: &mut Vec<Span<'static>>, groups: Vec<Vec<Span<'static>>>, room: usize) -> usize {
    let mut used = 0;
    for group in groups {
        let w: usize = group.iter().map(Span::width).sum();
        if used + w > room {
            break;
        }
        used += w;
        spans.extend(group);
    }
    used
}

fn pair(label: &str, value: String) -> Vec<Span<'static>> {
    vec![
        Span::styled(format!("{label} "), LABEL),
        Span::styled(value, VALUE),
    ]
}

pub(crate) fn draw_hud(frame: &mut Frame, area: Rect, hud: &Hud) {
    // The switches matter most to someone watching the netcode: when the line is too
    // narrow, the server tick goes first, then the ghost mode is abbreviated, and only
    // then are trailing groups dropped.
    let tries = [(true, false), (false, false), (false, true)];
    let mut groups = Vec::new();
    for (tick, short) in tries {
        groups = hud_groups(hud, tick, short);
        let w: usize = groups.iter().flatten().map(Span::width).sum();
        if w <= usize::from(area.width) {
            break;
        }
    }
    frame.render_widget(Paragraph::new(fit(groups, area.width)), area);
}

fn hud_groups(hud: &Hud, with_tick: bool, short: bool) -> Vec<Vec<Span<'static>>> {
    let s = &hud.switches;
    let ghost = match (s.ghost_trail, short) {
        (true, false) => "ghost+trail",
        (true, true) => "gh+tr",
        (false, false) => "ghost",
        (false, true) => "gh",
    };
    let mut groups = vec![
        pair("FPS", format!("{:<5.0} ", hud.fps)),
        pair(
            "RTT",
            format!(
                "{:.0}ms{} ",
                hud.rtt_ms,
                if hud.rtt_stale { "?" } else { "" }
            ),
        ),
    ];
    if with_tick {
        groups.push(pair("tick", format!("{} ", hud.server_tick)));
    }
    groups.extend([
        pair("pend", format!("{} ", hud.pending)),
        pair("corr", format!("{} ", hud.corrections)),
        vec![Span::styled("│", LABEL)],
    ]);
    for (name, on) in [
        ("pred", s.prediction),
        ("rec", s.reconciliation),
        ("int", s.interpolation),
        ("ext", s.extrapolation),
        ("smo", s.smoothing),
        (ghost, s.ghosts),
        ("lagc", s.lag_compensation),
    ] {
        groups.push(vec![Span::raw(" "), switch(name, on)]);
    }
    groups
}

/// The fighting line: health, weapon, frags, clock; or the chat line being typed.
pub(crate) fn draw_combat(
    frame: &mut Frame,
    area: Rect,
    combat: Option<&CombatHud>,
    chat_input: Option<&str>,
) {
    if let Some(text) = chat_input {
        frame.render_widget(Paragraph::new(chat_line(text, area.width)), area);
        return;
    }
    let Some(c) = combat else {
        return;
    };
    let mut groups = vec![status(c)];
    if c.hit {
        groups.push(vec![Span::styled(
            "✕ hit ",
            Style::new()
                .fg(Color::LightMagenta)
                .add_modifier(Modifier::BOLD),
        )]);
    }
    if let (true, Some(secs)) = (c.alive, c.protected_secs) {
        groups.push(vec![Span::styled(
            format!("shield {secs:.1}s "),
            Style::new().fg(Color::White).bg(Color::Blue),
        )]);
    }
    let mut weapon = vec![Span::styled(format!("{:<7} ", c.weapon.name()), VALUE)];
    if c.weapon == Weapon::Rail {
        weapon = match c.rail_cooldown_secs {
            Some(secs) => vec![
                Span::styled("rail ", VALUE),
                Span::styled(format!("{secs:.1}s "), Style::new().fg(Color::LightYellow)),
            ],
            None => vec![
                Span::styled("rail ", VALUE),
                Span::styled("ready ", Style::new().fg(Color::LightGreen)),
            ],
        };
    }
    groups.push(weapon);
    groups.push(pair("frags", format!("{}/{} ", c.frags, c.frag_limit)));
    if let Some(t) = c.time_left_secs {
        groups.push(pair("time", format!("{}:{:02} ", t / 60, t % 60)));
    }
    frame.render_widget(Paragraph::new(with_keys(groups, area.width)), area);
}

/// The fighting groups, then the key hints that fit, then `? help`: kept whatever else
/// must give way (it lists every other key), unless the line cannot hold even that.
fn with_keys(groups: Vec<Vec<Span<'static>>>, width: u16) -> Line<'static> {
    const HELP: &str = " ? help";
    // The bar before the hints, and the help hint itself.
    let reserved = 1 + HELP.len();
    if usize::from(width) < reserved {
        return fit(groups, width);
    }
    let width = usize::from(width);
    let mut spans = Vec::new();
    let used = fit_into(&mut spans, groups, width - reserved);
    spans.push(Span::styled("│", LABEL));
    let hints = ["space fire", "1/2 weapon", "t chat", "Tab scores"]
        .map(|hint| vec![Span::styled(format!(" {hint} "), LABEL)]);
    fit_into(&mut spans, hints.into(), width - used - reserved);
    spans.push(Span::styled(HELP, LABEL));
    Line::from(spans)
}

/// Health (flashing when just hurt), or how we died and when we are back.
fn status(c: &CombatHud) -> Vec<Span<'static>> {
    let dead = Style::new()
        .fg(Color::LightRed)
        .add_modifier(Modifier::BOLD);
    if !c.alive {
        let text = match &c.death {
            Some((how, secs)) => format!("DEAD: {how}, back in {secs:.1}s "),
            None => "DEAD, respawning… ".to_owned(),
        };
        return vec![Span::styled(text, dead)];
    }
    let color = match c.health {
        h if h > 60 => Color::LightGreen,
        h if h > 25 => Color::LightYellow,
        _ => Color::LightRed,
    };
    let mut style = Style::new().fg(color).add_modifier(Modifier::BOLD);
    if c.hurt {
        style = Style::new()
            .fg(Color::White)
            .bg(Color::Red)
            .add_modifier(Modifier::BOLD);
    }
    vec![
        Span::styled("HP ", LABEL),
        Span::styled(format!("{:<3}", c.health), style),
        Span::raw(" "),
    ]
}

/// The chat editor: the end of the line when it is longer than the screen, and how
/// many characters are left near the limit.
fn chat_line(text: &str, width: u16) -> Line<'static> {
    const PROMPT: &str = "say: ";
    const HINT: &str = "   Enter send, Esc cancel";
    let typed = text.chars().count();
    let left = MAX_CHAT_CHARS.saturating_sub(typed);
    let counter = if left <= 20 {
        format!("  {left} left")
    } else {
        String::new()
    };
    let hint = if usize::from(width) >= PROMPT.len() + typed + 1 + counter.len() + HINT.len() {
        HINT
    } else {
        ""
    };
    let room = usize::from(width)
        .saturating_sub(PROMPT.len() + 1 + counter.chars().count() + hint.len())
        .max(1);
    let shown: String = if typed > room {
        let tail: String = text.chars().skip(typed - room + 1).collect();
        format!("…{tail}")
    } else {
        text.to_owned()
    };
    let full = Style::new().fg(Color::LightRed);
    Line::from(vec![
        Span::styled(PROMPT, Style::new().fg(Color::LightYellow)),
        Span::raw(format!("{shown}_")),
        Span::styled(counter, if left == 0 { full } else { LABEL }),
        Span::styled(hint, LABEL),
    ])
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

/// The players one a line, for the side panel of a wide terminal; "…" when more
/// players than lines.
pub(crate) fn draw_roster_list(frame: &mut Frame, area: Rect, roster: &[RosterLine]) {
    if area.height == 0 {
        return;
    }
    let rows = usize::from(area.height);
    let mut lines: Vec<Line> = vec![Line::styled("players", LABEL)];
    for r in roster {
        if lines.len() + 1 == rows && roster.len() + 1 > rows {
            lines.push(Line::styled("…", LABEL));
            break;
        }
        let (glyph, color) = if r.local {
            ('@', Color::White)
        } else {
            (player_glyph(r.id), player_color(r.id))
        };
        let bot = if r.bot { " (bot)" } else { "" };
        lines.push(Line::from(vec![
            Span::styled(
                format!("{glyph} "),
                Style::new().fg(color).add_modifier(Modifier::BOLD),
            ),
            Span::styled(format!("{}{bot}", r.name), Style::new().fg(color)),
        ]));
    }
    frame.render_widget(Paragraph::new(lines), area);
}
