//! The one-line HUD above the arena and the roster below it.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::ellipsis::{MARK as ELLIPSIS, ellipsize};
use super::{CombatHud, Hud, Role, RosterLine, Theme, player_glyph};
use crate::sim::combat::Weapon;

/// A switch as `+name` (on, green) or `-name` (off, quiet): readable without colour.
fn switch(name: &str, on: bool, t: Theme) -> Span<'static> {
    if on {
        Span::styled(format!("+{name}"), t.style(Role::SwitchOn))
    } else {
        Span::styled(format!("-{name}"), t.style(Role::Label))
    }
}

/// As many whole groups as fit in `width` columns, in order: a line is never cut
/// in the middle of a word. A group that does not fit ends the line, with `…` to say
/// that something was left out.
fn fit(groups: Vec<Vec<Span<'static>>>, width: u16, t: Theme) -> Line<'static> {
    let mut spans = Vec::new();
    fit_into(
        &mut spans,
        groups,
        usize::from(width),
        Some(t.style(Role::Label)),
    );
    Line::from(spans)
}

/// Appends to `spans` as many whole groups as fit in `room` columns, and `…` (after a
/// blank) when some are left out, in `mark`'s style (None: no mark); the width used.
fn fit_into(
    spans: &mut Vec<Span<'static>>,
    groups: Vec<Vec<Span<'static>>>,
    room: usize,
    mark: Option<Style>,
) -> usize {
    let Some(mark_style) = mark else {
        let mut used = 0;
        for group in groups {
            let w: usize = group.iter().map(Span::width).sum();
            if used + w > room {
                break;
            }
            used += w;
            spans.extend(group);
        }
        return used;
    };
    let width = |g: &Vec<Span<'static>>| g.iter().map(Span::width).sum::<usize>();
    if groups.iter().map(width).sum::<usize>() <= room {
        let used = groups.iter().map(width).sum();
        spans.extend(groups.into_iter().flatten());
        return used;
    }
    // Room for the mark, and the blank before it when a group ends without one.
    let mut kept: Vec<Vec<Span<'static>>> = Vec::new();
    let mut used = 0;
    for group in groups {
        let w = width(&group);
        let ends_blank = group.last().is_some_and(|s| s.content.ends_with(' '));
        let mark_width = if ends_blank { 1 } else { 2 };
        if used + w + mark_width > room {
            break;
        }
        used += w;
        kept.push(group);
    }
    let ends_blank = kept
        .last()
        .and_then(|g| g.last())
        .is_none_or(|s| s.content.ends_with(' '));
    let mark = if ends_blank {
        ELLIPSIS.to_owned()
    } else {
        format!(" {ELLIPSIS}")
    };
    spans.extend(kept.into_iter().flatten());
    if used + mark.chars().count() <= room {
        used += mark.chars().count();
        spans.push(Span::styled(mark, mark_style));
    }
    used
}

fn pair(label: &str, value: String, t: Theme) -> Vec<Span<'static>> {
    vec![
        Span::styled(format!("{label} "), t.style(Role::Label)),
        Span::styled(value, t.style(Role::Value)),
    ]
}

pub(crate) fn draw_hud(frame: &mut Frame, area: Rect, hud: &Hud, t: Theme) {
    // The switches matter most to someone watching the netcode: when the line is too
    // narrow, the server tick goes first, then the ghost mode is abbreviated, and only
    // then are trailing groups dropped.
    let tries = [(true, false), (false, false), (false, true)];
    let mut groups = Vec::new();
    for (tick, short) in tries {
        groups = hud_groups(hud, tick, short, t);
        let w: usize = groups.iter().flatten().map(Span::width).sum();
        if w <= usize::from(area.width) {
            break;
        }
    }
    frame.render_widget(Paragraph::new(fit(groups, area.width, t)), area);
}

fn hud_groups(hud: &Hud, with_tick: bool, short: bool, t: Theme) -> Vec<Vec<Span<'static>>> {
    let s = &hud.switches;
    let ghost = match (s.ghost_trail, short) {
        (true, false) => "ghost+trail",
        (true, true) => "gh+tr",
        (false, false) => "ghost",
        (false, true) => "gh",
    };
    let mut groups = vec![
        pair("FPS", format!("{:<5.0} ", hud.fps), t),
        pair(
            "RTT",
            format!(
                "{:.0}ms{} ",
                hud.rtt_ms,
                if hud.rtt_stale { "?" } else { "" }
            ),
            t,
        ),
    ];
    if with_tick {
        groups.push(pair("tick", format!("{} ", hud.server_tick), t));
    }
    groups.extend([
        pair("pend", format!("{} ", hud.pending), t),
        pair("corr", format!("{} ", hud.corrections), t),
        vec![Span::styled("│", t.style(Role::Label))],
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
        groups.push(vec![Span::raw(" "), switch(name, on, t)]);
    }
    groups
}

/// The fighting line: health, weapon, frags, clock; or the chat line being typed.
/// The combat line, then `keys` (hints, the last kept whatever else gives way).
pub(crate) fn draw_combat(
    frame: &mut Frame,
    area: Rect,
    combat: Option<&CombatHud>,
    chat_input: Option<&super::ChatInput>,
    keys: &[&str],
    t: Theme,
) {
    if let Some(text) = chat_input {
        frame.render_widget(Paragraph::new(chat_line(text, area.width, t)), area);
        return;
    }
    let Some(c) = combat else {
        return;
    };
    // What comes first (health, or how we died) has all the room the help hint leaves.
    let room = usize::from(area.width).saturating_sub(help_room(keys));
    let mut groups = vec![status(c, t, room)];
    if c.hit {
        groups.push(vec![Span::styled("✕ hit ", t.style(Role::Hit))]);
    }
    if let (true, Some(secs)) = (c.alive, c.protected_secs) {
        groups.push(vec![Span::styled(
            format!("shield {secs:.1}s "),
            t.style(Role::Shield),
        )]);
    }
    let value = t.style(Role::Value);
    let mut weapon = vec![Span::styled(format!("{:<7} ", c.weapon.name()), value)];
    if c.weapon == Weapon::Rail {
        weapon = match c.rail_cooldown_secs {
            Some(secs) => vec![
                Span::styled("rail ", value),
                Span::styled(format!("{secs:.1}s "), t.style(Role::Warn)),
            ],
            None => vec![
                Span::styled("rail ", value),
                Span::styled("ready ", t.style(Role::Good)),
            ],
        };
    }
    groups.push(weapon);
    groups.push(pair("frags", format!("{}/{} ", c.frags, c.frag_limit), t));
    if let Some(left) = c.time_left_secs {
        groups.push(pair("time", format!("{}:{:02} ", left / 60, left % 60), t));
    }
    frame.render_widget(Paragraph::new(with_keys(groups, area.width, keys, t)), area);
}

/// The columns the help hint (the last of `keys`) takes with the bar before it.
fn help_room(keys: &[&str]) -> usize {
    keys.last().map_or(0, |help| 2 + help.chars().count())
}

/// The fighting groups, then the key hints that fit, then the last of `keys` (`? help`):
/// kept whatever else must give way (it lists every other key), unless the line cannot
/// hold even that. Fighting groups left out are marked `…`; hints left out are not (the
/// help lists them, and the mark would cost a hint).
fn with_keys(
    groups: Vec<Vec<Span<'static>>>,
    width: u16,
    keys: &[&str],
    t: Theme,
) -> Line<'static> {
    let (help, hints) = keys.split_last().unwrap_or((&"", &[]));
    let help = format!(" {help}");
    // The bar before the hints, and the help hint itself.
    let reserved = help_room(keys);
    if usize::from(width) < reserved {
        return fit(groups, width, t);
    }
    let width = usize::from(width);
    let mut spans = Vec::new();
    let label = t.style(Role::Label);
    let used = fit_into(&mut spans, groups, width - reserved, Some(label));
    spans.push(Span::styled("│", label));
    let hints = hints
        .iter()
        .map(|hint| vec![Span::styled(format!(" {hint} "), label)]);
    fit_into(&mut spans, hints.collect(), width - used - reserved, None);
    spans.push(Span::styled(help, label));
    Line::from(spans)
}

/// Health (flashing when just hurt), or how we died and when we are back, in `room`
/// columns: when how we died does not fit, the notice says only when we are back (at
/// 48 columns the whole notice was left out).
fn status(c: &CombatHud, t: Theme, room: usize) -> Vec<Span<'static>> {
    let dead = t.style(Role::Bad).add_modifier(Modifier::BOLD);
    if !c.alive {
        let text = match &c.death {
            Some((how, secs)) => {
                let long = format!("DEAD: {how}, back in {secs:.1}s ");
                if long.chars().count() <= room {
                    long
                } else {
                    format!("DEAD, back in {secs:.1}s ")
                }
            }
            None => "DEAD, respawning… ".to_owned(),
        };
        let text = if text.chars().count() <= room {
            text
        } else {
            ellipsize(text.trim_end(), room)
        };
        return vec![Span::styled(text, dead)];
    }
    let role = match c.health {
        h if h > 60 => Role::Good,
        h if h > 25 => Role::Warn,
        _ => Role::Bad,
    };
    let mut style = t.style(role).add_modifier(Modifier::BOLD);
    if c.hurt {
        style = t.style(Role::LocalHurt);
    }
    vec![
        Span::styled("HP ", t.style(Role::Label)),
        Span::styled(format!("{:<3}", c.health), style),
        Span::raw(" "),
    ]
}

/// The chat editor: the end of the line when it is longer than the screen, and how
/// many characters are left near the limit.
fn chat_line(input: &super::ChatInput, width: u16, t: Theme) -> Line<'static> {
    let (text, left) = (input.text.as_str(), input.left);
    const PROMPT: &str = "say: ";
    let hint_text = format!("   {}", super::keys::hints(super::keys::CHAT).join(", "));
    let hint_text = hint_text.as_str();
    let typed = text.chars().count();
    let counter = if left <= 20 {
        format!("  {left} left")
    } else {
        String::new()
    };
    let hint = if usize::from(width) >= PROMPT.len() + typed + 1 + counter.len() + hint_text.len() {
        hint_text
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
    let label = t.style(Role::Label);
    Line::from(vec![
        Span::styled(PROMPT, t.style(Role::Key)),
        Span::raw(format!("{shown}_")),
        Span::styled(counter, if left == 0 { t.style(Role::Bad) } else { label }),
        Span::styled(hint.to_owned(), label),
    ])
}

/// Players on the left (or, for a few seconds after a switch changes, what it did),
/// the simulated network conditions on the right.
pub(crate) fn draw_roster(
    frame: &mut Frame,
    area: Rect,
    roster: &[RosterLine],
    explanation: Option<&str>,
    conditions: &str,
    t: Theme,
) {
    let label = t.style(Role::Label);
    let net = Line::from(vec![
        Span::styled("net ", label),
        Span::styled(conditions.to_owned(), t.style(Role::Net)),
    ]);
    let net_width = (net.width() as u16).min(area.width);
    let room = usize::from(area.width - net_width).saturating_sub(2);
    let players = Rect::new(area.x, area.y, area.width - net_width, 1);
    let right = Rect::new(area.right() - net_width, area.y, net_width, 1);
    frame.render_widget(Paragraph::new(net), right);
    if let Some(text) = explanation {
        // Cut with `…` only when the screen is narrower than the line.
        let line = Span::styled(ellipsize(text, room), t.style(Role::Message));
        frame.render_widget(Paragraph::new(line), players);
        return;
    }
    let mut spans = Vec::with_capacity(roster.len() * 2);
    let mut used = 0;
    for (i, r) in roster.iter().enumerate() {
        let (glyph, name_style) = name_style(r, t);
        let name = format!("{}  ", r.name);
        let width = 2 + name.chars().count();
        // Whole names only; the last one that fits leaves room for "…" if more follow.
        let more = i + 1 < roster.len();
        if used + width + usize::from(more) > room {
            spans.push(Span::styled(ELLIPSIS, label));
            break;
        }
        used += width;
        spans.extend(glyph);
        spans.push(Span::styled(name, name_style));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), players);
}

/// The players one a line, for the side panel of a wide terminal; "…" when more
/// players than lines.
pub(crate) fn draw_roster_list(frame: &mut Frame, area: Rect, roster: &[RosterLine], t: Theme) {
    if area.height == 0 {
        return;
    }
    let rows = usize::from(area.height);
    let label = t.style(Role::Label);
    let mut lines: Vec<Line> = vec![Line::styled("players", label)];
    for r in roster {
        if lines.len() + 1 == rows && roster.len() + 1 > rows {
            lines.push(Line::styled(ELLIPSIS, label));
            break;
        }
        let (mut spans, style) = name_style(r, t);
        let bot = if r.bot { " (bot)" } else { "" };
        spans.push(Span::styled(format!("{}{bot}", r.name), style));
        lines.push(Line::from(spans));
    }
    frame.render_widget(Paragraph::new(lines), area);
}

/// A player's glyph (and the space after it) as the arena draws it, and the style of
/// its name: ours in the default colour, in bold.
fn name_style(r: &RosterLine, t: Theme) -> (Vec<Span<'static>>, Style) {
    let (glyph, style) = if r.local {
        ('@', t.style(Role::Local))
    } else {
        (
            player_glyph(r.id),
            t.player(r.id).add_modifier(Modifier::BOLD),
        )
    };
    let name = if r.local {
        t.style(Role::Value).add_modifier(Modifier::BOLD)
    } else {
        t.player(r.id)
    };
    (
        vec![Span::styled(glyph.to_string(), style), Span::raw(" ")],
        name,
    )
}
