//! The one palette: every colour and attribute the screens use, by theme and by what
//! the thing drawn is (its [`Role`]). Draw code asks for a role and never names a colour.
//!
//! The rule every theme keeps: no fixed white, black or grey text on the terminal's own
//! background. The local player and the HUD's values are in the terminal's default
//! foreground (or reverse video), which reads on black and on white alike. Glyphs and
//! attributes (bold, dim, reverse, underline) alone tell everything apart, so `mono` and
//! a terminal under `NO_COLOR` (crossterm then sends no colour at all) lose nothing
//! but colour.

use ratatui::style::{Color, Modifier, Style};

use crate::sim::world::PlayerId;

/// Which palette to draw with.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Theme {
    /// Colours that read on a dark and on a light background alike.
    #[default]
    Auto,
    /// Brighter colours, for a dark background.
    Dark,
    /// Deeper colours (no yellow or cyan text), for a light background.
    Light,
    /// No colour at all: glyphs and attributes only.
    Mono,
}

/// What a styled thing is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Role {
    /// Labels, key hints, borders: there but quiet.
    Label,
    /// Numbers and names the labels name.
    Value,
    /// A section's title inside an overlay.
    Heading,
    /// A key in the help box.
    Key,
    Wall,
    Floor,
    /// The local player's `@`, in the arena and the roster.
    Local,
    /// The local player's `@` just after being hurt.
    LocalHurt,
    /// `o`, the local player where the server has it.
    LocalGhost,
    /// A player under spawn protection.
    Protected,
    /// The facing arrow beside a player.
    Aim,
    /// `x`: where the prediction had us before a correction.
    Predicted,
    /// `+`: where the correction put us.
    Corrected,
    /// The muzzle flash of our own shot.
    Muzzle,
    /// `▢`: where the server tested a rail hit.
    TestedBox,
    /// `◆`: where the target really was.
    PresentBox,
    /// A netcode switch that is on (`+pred`); off ones are labels.
    SwitchOn,
    /// Health high, the rail ready, a server that answers.
    Good,
    /// Health middling, the rail cooling down.
    Warn,
    /// Health low, dead, errors, a lost datagram.
    Bad,
    /// `✕ hit`.
    Hit,
    /// The spawn shield on the combat line.
    Shield,
    Feed,
    Chat,
    /// The simulated network conditions.
    Net,
    /// The lab pane the keys act on.
    Selected,
    /// The lab's clock while paused.
    Paused,
    /// The line explaining the last switch change.
    Message,
    /// The lagometer's top row: frames interpolated, extrapolated, held.
    LagInterp,
    LagExtrap,
    LagHeld,
    /// The lagometer's snapshot-delay bars.
    LagBar,
    /// The RTT sparkline.
    Spark,
    /// Commands going up a lab lane; snapshots coming down.
    Up,
    Down,
}

const fn fg(c: Color) -> Style {
    Style::new().fg(c)
}

const PLAIN: Style = Style::new();
const BOLD: Style = Style::new().add_modifier(Modifier::BOLD);
const DIM: Style = Style::new().add_modifier(Modifier::DIM);

/// White on a colour: fixed both ways, so it reads whatever the terminal's background.
const fn on(bg: Color) -> Style {
    Style::new().fg(Color::White).bg(bg)
}

/// The table: for each role, its style in the themes `[auto, dark, light, mono]`.
const fn row(role: Role) -> [Style; 4] {
    use Color::*;
    let b = Modifier::BOLD;
    match role {
        Role::Label | Role::Floor | Role::LocalGhost => [DIM; 4],
        Role::Value => [PLAIN; 4],
        Role::Heading => [
            BOLD,
            fg(LightCyan),
            fg(Blue).add_modifier(b),
            BOLD.add_modifier(Modifier::UNDERLINED),
        ],
        Role::Key => [
            BOLD,
            fg(LightYellow).add_modifier(b),
            fg(Blue).add_modifier(b),
            BOLD,
        ],
        Role::Selected => [
            fg(LightBlue).add_modifier(b),
            fg(LightYellow).add_modifier(b),
            fg(Blue).add_modifier(b),
            BOLD,
        ],
        Role::Wall => [
            fg(Gray).bg(DarkGray),
            fg(Gray).bg(DarkGray),
            fg(DarkGray).bg(Gray),
            PLAIN,
        ],
        Role::Local => [BOLD.add_modifier(Modifier::REVERSED); 4],
        Role::LocalHurt => [
            on(Red).add_modifier(b),
            on(Red).add_modifier(b),
            on(Red).add_modifier(b),
            BOLD.add_modifier(Modifier::UNDERLINED),
        ],
        Role::Protected => [
            on(Blue).add_modifier(b).add_modifier(Modifier::UNDERLINED),
            on(Blue).add_modifier(b).add_modifier(Modifier::UNDERLINED),
            on(Blue).add_modifier(b).add_modifier(Modifier::UNDERLINED),
            BOLD.add_modifier(Modifier::UNDERLINED),
        ],
        Role::Aim => [PLAIN; 4],
        Role::Predicted => [
            fg(Red).add_modifier(b),
            fg(LightRed).add_modifier(b),
            fg(Red).add_modifier(b),
            BOLD,
        ],
        Role::Corrected | Role::SwitchOn => [
            fg(Green).add_modifier(b),
            fg(LightGreen).add_modifier(b),
            fg(Green).add_modifier(b),
            BOLD,
        ],
        Role::Muzzle => [
            BOLD,
            fg(LightYellow).add_modifier(b),
            fg(Red).add_modifier(b),
            BOLD,
        ],
        Role::TestedBox | Role::Hit => [
            fg(Magenta).add_modifier(b),
            fg(LightMagenta).add_modifier(b),
            fg(Magenta).add_modifier(b),
            BOLD,
        ],
        Role::PresentBox => [fg(LightBlue), fg(LightCyan), fg(Blue), PLAIN],
        Role::Good | Role::LagInterp | Role::Up => [fg(Green), fg(LightGreen), fg(Green), PLAIN],
        Role::Warn | Role::LagExtrap => [fg(Magenta), fg(LightYellow), fg(Magenta), PLAIN],
        Role::Bad | Role::Feed | Role::LagHeld => [fg(Red), fg(LightRed), fg(Red), PLAIN],
        Role::Shield => [
            on(Blue),
            on(Blue),
            on(Blue),
            Style::new().add_modifier(Modifier::REVERSED),
        ],
        Role::Chat | Role::Down | Role::LagBar => [fg(LightBlue), fg(LightCyan), fg(Blue), PLAIN],
        Role::Net => [BOLD, fg(LightYellow), BOLD, BOLD],
        Role::Paused => [
            fg(Black).bg(LightYellow),
            fg(Black).bg(LightYellow),
            fg(Black).bg(LightYellow),
            Style::new().add_modifier(Modifier::REVERSED),
        ],
        Role::Message => [BOLD, fg(LightCyan), fg(Blue), BOLD],
        Role::Spark => [fg(Magenta), fg(LightMagenta), fg(Magenta), PLAIN],
    }
}

/// Player colours in the order ids get them; the letter tells players apart in any case.
const AUTO_PLAYERS: &[Color] = &[
    Color::Red,
    Color::Green,
    Color::LightBlue,
    Color::Magenta,
    Color::LightRed,
    Color::LightMagenta,
];
const DARK_PLAYERS: &[Color] = &[
    Color::LightRed,
    Color::LightGreen,
    Color::LightYellow,
    Color::LightBlue,
    Color::LightMagenta,
    Color::LightCyan,
    Color::Red,
    Color::Green,
    Color::Yellow,
    Color::Magenta,
    Color::Cyan,
];
const LIGHT_PLAYERS: &[Color] = &[
    Color::Red,
    Color::Blue,
    Color::Magenta,
    Color::Green,
    Color::LightRed,
    Color::LightBlue,
    Color::LightMagenta,
];

impl Theme {
    /// How `role` is drawn in this theme.
    pub(crate) const fn style(self, role: Role) -> Style {
        row(role)[self as usize]
    }

    /// Player `id`'s colour (none in `mono`).
    pub(crate) fn player(self, id: PlayerId) -> Style {
        let colors = match self {
            Theme::Auto => AUTO_PLAYERS,
            Theme::Dark => DARK_PLAYERS,
            Theme::Light => LIGHT_PLAYERS,
            Theme::Mono => return PLAIN,
        };
        fg(colors[usize::from(id) % colors.len()])
    }
}

/// The rule the issue asked for, checked on a drawn frame: in every theme no cell has a
/// fixed white, black or grey foreground over the terminal's own background; `auto`
/// keeps to colours that read on black and on white; `light` has no yellow, cyan or
/// light green text; `mono` has no colour at all.
#[cfg(test)]
pub(crate) fn assert_readable(buf: &ratatui::buffer::Buffer, theme: Theme, what: &str) {
    use Color::*;
    for y in 0..buf.area.height {
        for x in 0..buf.area.width {
            let cell = &buf[(buf.area.x + x, buf.area.y + y)];
            let at = format!("{what} ({theme:?}): {:?} at {x},{y}", cell.symbol());
            if theme == Theme::Mono {
                assert_eq!((cell.fg, cell.bg), (Reset, Reset), "colour in mono: {at}");
                continue;
            }
            if cell.bg != Reset {
                continue;
            }
            assert!(
                !matches!(cell.fg, White | Black | Gray | DarkGray),
                "fixed {:?} text on the default background: {at}",
                cell.fg
            );
            let ok = match theme {
                Theme::Auto => matches!(
                    cell.fg,
                    Reset | Red | Green | LightBlue | Magenta | LightRed | LightMagenta
                ),
                Theme::Light => !matches!(
                    cell.fg,
                    Yellow | LightYellow | LightGreen | Cyan | LightCyan
                ),
                Theme::Dark => cell.fg != Blue,
                Theme::Mono => true,
            };
            assert!(ok, "{:?} does not read in this theme: {at}", cell.fg);
        }
    }
}
