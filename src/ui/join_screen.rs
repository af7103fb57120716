//! The server browser shown by `netarena join` without an address.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Cell, Paragraph, Row, Table, TableState, Wrap};

/// One server that answered, as the browser lists it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ServerLine {
    pub(crate) name: String,
    pub(crate) map: String,
    pub(crate) players: u16,
    pub(crate) max_players: u16,
    pub(crate) version: u16,
    pub(crate) compatible: bool,
    pub(crate) ping_ms: f64,
    /// The fingerprint of the server's key.
    pub(crate) key: String,
}

/// Everything the server browser shows.
pub(crate) struct JoinView<'a> {
    pub(crate) servers: &'a [ServerLine],
    pub(crate) selected: usize,
    /// An address being typed, if any.
    pub(crate) typed: &'a str,
    pub(crate) searching: bool,
    pub(crate) error: Option<&'a str>,
    /// What is asked: "ports 7777-7781 on this machine and the LAN".
    pub(crate) asked: &'a str,
}

use super::{Role, Theme};

// The browser comes before any game and draws in the theme that reads everywhere.
const DIM: Style = Theme::Auto.style(Role::Label);

pub(crate) fn draw_join(frame: &mut Frame, view: &JoinView) {
    let [title, list, address, help, error] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(3),
        Constraint::Length(1),
        Constraint::Length(1),
        Constraint::Length(1),
    ])
    .areas(frame.area());

    let status = match view.servers.len() {
        _ if view.searching => "  searching…".to_owned(),
        0 => "  none found yet".to_owned(),
        1 => "  1 found (kept up to date)".to_owned(),
        n => format!("  {n} found (kept up to date)"),
    };
    frame.render_widget(
        Paragraph::new(Line::from(vec![
            Span::styled("netarena", Style::new().add_modifier(Modifier::BOLD)),
            Span::raw(" — games on your network"),
            Span::styled(status, DIM),
        ])),
        title,
    );

    draw_list(frame, list, view);

    let cursor = if view.typed.is_empty() { "" } else { "_" };
    frame.render_widget(
        Paragraph::new(Line::from(vec![
            Span::styled("address: ", DIM),
            Span::raw(format!("{}{cursor}", view.typed)),
        ])),
        address,
    );
    frame.render_widget(
        Paragraph::new(super::keys::hints(super::keys::BROWSER).join("  ")).style(DIM),
        help,
    );
    if let Some(e) = view.error {
        frame.render_widget(Paragraph::new(e).style(Theme::Auto.style(Role::Bad)), error);
    }
}

/// The servers that answered, or what to do while there are none.
fn draw_list(frame: &mut Frame, list: ratatui::layout::Rect, view: &JoinView) {
    let block = Block::default().borders(Borders::ALL).border_style(DIM);
    if view.servers.is_empty() {
        let text = if view.searching {
            format!(
                "Searching {}… (start a server with `netarena host`)",
                view.asked
            )
        } else {
            format!(
                "No servers found on {}. A server on another port: \
                 `netarena join --discovery-port PORT`, or type its address. \
                 Press r to search again.",
                view.asked
            )
        };
        frame.render_widget(
            Paragraph::new(text)
                .style(DIM)
                .wrap(Wrap { trim: true })
                .block(block),
            list,
        );
    } else {
        // Borders, the highlight mark, the other columns and the gaps between them.
        let name_w = usize::from(list.width.saturating_sub(2 + 2 + 11 + 7 + 7 + 9 + 16 + 5)).max(4);
        let rows = view.servers.iter().map(|s| {
            let style = if s.compatible { Style::new() } else { DIM };
            let version = if s.compatible {
                Span::styled("ok", Theme::Auto.style(Role::Good))
            } else {
                Span::styled(
                    format!("v{} incompatible", s.version),
                    Theme::Auto.style(Role::Bad),
                )
            };
            Row::new(vec![
                Cell::from(ellipsize(&s.name, name_w)),
                Cell::from(ellipsize(&s.map, 11)),
                Cell::from(format!("{}/{}", s.players, s.max_players)),
                Cell::from(if s.ping_ms < 10.0 {
                    format!("{:.1} ms", s.ping_ms)
                } else {
                    format!("{:.0} ms", s.ping_ms)
                }),
                // The key's first two groups: enough to tell servers apart at a glance.
                Cell::from(s.key.chars().take(9).collect::<String>()),
                Cell::from(Line::from(version)),
            ])
            .style(style)
        });
        let table = Table::new(
            rows,
            [
                Constraint::Min(12),
                Constraint::Length(11),
                Constraint::Length(7),
                Constraint::Length(7),
                Constraint::Length(9),
                Constraint::Length(16),
            ],
        )
        .header(Row::new(["server", "map", "players", "ping", "key", "version"]).style(DIM))
        .row_highlight_style(Style::new().add_modifier(Modifier::REVERSED))
        .highlight_symbol("> ")
        .block(block);
        let mut state = TableState::default().with_selected(Some(view.selected));
        frame.render_stateful_widget(table, list, &mut state);
    }
}

/// `text` cut to `width` characters, the cut shown by a trailing "…".
pub(crate) fn ellipsize(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_owned();
    }
    let mut cut: String = text.chars().take(width.saturating_sub(1)).collect();
    cut.push('…');
    cut
}
