//! The one-line HUD above the arena and the roster below it.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::{Hud, RosterLine, player_color, player_glyph};

const LABEL: Style = Style::new().fg(Color::DarkGray);
const VALUE: Style = Style::new().fg(Color::White);

fn switch(name: &'static str, on: bool) -> Span<'static> {
    if on {
        Span::styled(name, Style::new().fg(Color::LightGreen))
    } else {
        Span::styled(
            name,
            Style::new()
                .fg(Color::DarkGray)
                .add_modifier(Modifier::CROSSED_OUT),
        )
    }
}

pub fn draw_hud(frame: &mut Frame, area: Rect, hud: &Hud) {
    let s = &hud.switches;
    let mut spans = vec![
        Span::styled("FPS ", LABEL),
        Span::styled(format!("{:<5.0}", hud.fps), VALUE),
        Span::styled(" RTT ", LABEL),
        Span::styled(format!("{:>3.0}ms", hud.rtt_ms), VALUE),
        Span::styled(" tick ", LABEL),
        Span::styled(hud.server_tick.to_string(), VALUE),
        Span::styled(" pend ", LABEL),
        Span::styled(format!("{:<2}", hud.pending), VALUE),
        Span::styled(" corr ", LABEL),
        Span::styled(hud.corrections.to_string(), VALUE),
        Span::raw("  "),
        switch("pred", s.prediction),
        Span::raw(" "),
        switch("recon", s.reconciliation),
        Span::raw(" "),
        switch("interp", s.interpolation),
        Span::raw(" "),
        switch("extra", s.extrapolation),
        Span::raw(" "),
        switch("smooth", s.smoothing),
        Span::raw(" "),
        switch(s.ghosts.label(), s.ghosts.server()),
    ];
    spans.push(Span::styled("  net ", LABEL));
    spans.push(Span::styled(
        hud.conditions.clone(),
        Style::new().fg(Color::LightYellow),
    ));
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

pub fn draw_roster(frame: &mut Frame, area: Rect, roster: &[RosterLine]) {
    let mut spans = Vec::with_capacity(roster.len() * 2);
    for r in roster {
        let (glyph, color) = if r.local {
            ('@', Color::White)
        } else {
            (player_glyph(r.id), player_color(r.id))
        };
        spans.push(Span::styled(
            format!("{glyph} "),
            Style::new().fg(color).add_modifier(Modifier::BOLD),
        ));
        let name = if r.bot {
            format!("{} ", r.name)
        } else {
            format!("{}  ", r.name)
        };
        spans.push(Span::styled(name, Style::new().fg(color)));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}
