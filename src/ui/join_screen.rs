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
    /// Where it answered from, as `join` takes it: two servers of one name differ here.
    pub(crate) address: String,
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

use super::ellipsis::ellipsize;
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
    let fit = |text: &str| ellipsize(text, usize::from(help.width));
    frame.render_widget(
        Paragraph::new(fit(&super::keys::hints(super::keys::BROWSER).join("  "))).style(DIM),
        help,
    );
    if let Some(e) = view.error {
        frame.render_widget(
            Paragraph::new(fit(e)).style(Theme::Auto.style(Role::Bad)),
            error,
        );
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
                 Press F5 to search again.",
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
        // The address column is as wide as the longest address (a name may be cut,
        // the address that tells two servers of one name apart is not, up to 24).
        let address_w = view
            .servers
            .iter()
            .map(|s| s.address.chars().count())
            .max()
            .unwrap_or(0)
            .clamp(7, 24);
        // The last column is the key's fingerprint for a server that can be joined (the
        // whole of it where the list is wide, else its first two groups, enough to tell
        // servers apart at a glance), and the version it speaks for one that cannot.
        let key_w: usize = if list.width >= 100 { 19 } else { 16 };
        // Borders, the highlight mark, the other columns and the gaps between them.
        let others = 2 + 2 + address_w + 11 + 7 + 7 + key_w + 5;
        let name_w = usize::from(list.width).saturating_sub(others).max(4);
        let rows = view.servers.iter().map(|s| {
            let style = if s.compatible { Style::new() } else { DIM };
            let key = if s.compatible {
                let groups = if key_w >= 19 { 4 } else { 2 };
                Span::raw(s.key.split('-').take(groups).collect::<Vec<_>>().join("-"))
            } else {
                Span::styled(
                    format!("v{} incompatible", s.version),
                    Theme::Auto.style(Role::Bad),
                )
            };
            Row::new(vec![
                Cell::from(ellipsize(&s.name, name_w)),
                Cell::from(ellipsize(&s.address, address_w)),
                Cell::from(ellipsize(&s.map, 11)),
                Cell::from(format!("{}/{}", s.players, s.max_players)),
                Cell::from(if s.ping_ms < 10.0 {
                    format!("{:.1} ms", s.ping_ms)
                } else {
                    format!("{:.0} ms", s.ping_ms)
                }),
                Cell::from(Line::from(key)),
            ])
            .style(style)
        });
        let table = Table::new(
            rows,
            [
                Constraint::Min(4),
                Constraint::Length(address_w as u16),
                Constraint::Length(11),
                Constraint::Length(7),
                Constraint::Length(7),
                Constraint::Length(key_w as u16),
            ],
        )
        .header(Row::new(["server", "address", "map", "players", "ping", "key"]).style(DIM))
        .row_highlight_style(Style::new().add_modifier(Modifier::REVERSED))
        .highlight_symbol("> ")
        .block(block);
        let mut state = TableState::default().with_selected(Some(view.selected));
        frame.render_stateful_widget(table, list, &mut state);
    }
}

#[cfg(test)]
mod tests {
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;

    use super::*;

    fn screen(width: u16, view: &JoinView) -> Vec<String> {
        let mut terminal = Terminal::new(TestBackend::new(width, 10)).unwrap();
        terminal.draw(|f| draw_join(f, view)).unwrap();
        let buf = terminal.backend().buffer();
        (0..buf.area.height)
            .map(|y| (0..width).map(|x| buf[(x, y)].symbol()).collect())
            .collect()
    }

    /// Issue 30: two servers with the default name looked the same, the browser showed
    /// no address. Each row shows where its server answered from, whole, and its key's
    /// fingerprint (two groups at 80 columns, all four at 100), or for a server of
    /// another version that it cannot be joined.
    #[test]
    fn each_server_shows_its_address() {
        let server = |address: &str| ServerLine {
            name: "netarena".into(),
            address: address.into(),
            map: "arena".into(),
            players: 1,
            max_players: 16,
            version: 9,
            compatible: true,
            ping_ms: 0.4,
            key: "3f9a-1c07-88e2-05bd".into(),
        };
        let mut future = server("192.168.100.202:7777");
        future.name = "future".into();
        future.version = 99;
        future.compatible = false;
        let servers = [
            server("192.168.100.201:7777"),
            server("127.0.0.1:7778"),
            future,
        ];
        let view = JoinView {
            servers: &servers,
            selected: 0,
            typed: "",
            searching: false,
            error: None,
            asked: "ports 7777-7781 on this machine and the LAN",
        };
        for width in [80, 100] {
            let rows = screen(width, &view);
            let row = |address: &str| {
                rows.iter()
                    .find(|r| r.contains(address))
                    .unwrap_or_else(|| panic!("{address} at {width}:\n{}", rows.join("\n")))
                    .clone()
            };
            let key = if width >= 100 {
                "3f9a-1c07-88e2-05bd"
            } else {
                "3f9a-1c07"
            };
            for address in ["192.168.100.201:7777", "127.0.0.1:7778"] {
                let row = row(address);
                assert!(row.contains("netarena") && row.contains(key), "{row}");
            }
            assert!(row("192.168.100.202:7777").contains("v99 incompatible"));
            assert!(rows[2].contains("address"), "{}", rows[2]);
        }
    }
}
