//! The one binding table: every key of every screen (the game and its chat line, the
//! lab, the replay, the server browser), what it does and the words that say so. Each
//! screen's key decoding (`client::play::input::Keys` for the game, [`chat_key`],
//! [`lab_key`], [`replay_code`], [`browser_key`]), its help box, its key hints and the
//! key tables of `README.md`, `docs/PLAYING.md`, `docs/COURSE.md` and `docs/REPLAY.md`
//! are read from here, so a key cannot be
//! bound without being listed, nor listed without being bound. Adding a key is a row
//! here and the code that acts on what it does; `NETARENA_UPDATE_DOCS=1 cargo test --lib
//! ui::keys` then rewrites the docs' tables.
//!
//! The game's keys can be rebound by the config file's `[keys]`
//! (`client::play::input::Bindings`, by each key's `name`); the help and the docs name the
//! defaults. Ctrl-C quits and Ctrl-Z suspends on every screen, whatever is bound.

use KeyCode::{Char, Down, Enter, Esc, F, Left, Right, Tab, Up};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use crate::sim::world::Buttons;

/// Something a game key asks for besides movement. (Serde for a whole lab's
/// recording, `lab::recording`.)
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Action {
    Quit,
    /// Esc: closes what is open (overlays), or quits when nothing is.
    Back,
    /// Turn to face this aim (0..8) without walking.
    Face(u8),
    TogglePrediction,
    ToggleReconciliation,
    ToggleInterpolation,
    ToggleExtrapolation,
    ToggleSmoothing,
    CycleGhosts,
    ToggleStats,
    ToggleHelp,
    LagUp,
    LagDown,
    CycleJitter,
    CycleLoss,
    CycleProfile,
    SelectWeapon(u8),
    ToggleScoreboard,
    OpenChat,
    ToggleLagCompensation,
    /// The next of the player's own dials (`client::dials`) is the one `[` `]` turn.
    NextDial,
    PreviousDial,
    /// Turn the chosen dial one step down.
    DialDown,
    DialUp,
}

/// One key into the chat editor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum ChatKey {
    Char(char),
    Backspace,
    Send,
    Cancel,
}

/// What a game key is bound to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Game {
    /// A button held while the key is (a direction, or fire).
    Hold(Buttons),
    Act(Action),
    /// Save the session kept in memory as a recording (F8).
    Save,
}

/// What a lab key does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Lab {
    /// A held key of this client (0 or 1), read with the game's rules.
    Play(usize),
    /// This client's fire, held as the game's space is.
    Fire(usize),
    /// This client selects this weapon.
    Weapon(usize, u8),
    /// The next client is the one the switch keys act on.
    Choose,
    /// A switch of the chosen client, as the game's key does it.
    Switch(Action),
    /// The next (true) or previous dial (`lab::dials`).
    ChooseDial(bool),
    /// Turn the chosen dial one step up (true) or down.
    Turn(bool),
    /// Follow the chosen client's next command, then its next snapshot, then nothing.
    Follow,
    /// Over the views (when no rows are left under the lanes): the ladder, then the
    /// meters, then nothing.
    Ladder,
    Pause,
    /// One server tick while paused.
    Step,
    /// Slower (false) or faster.
    Speed(bool),
    Help,
    Quit,
}

/// What a key of `netarena learn` does (taken before the lab's keys, which it leaves
/// alone).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Learn {
    /// Start the step's task, or go on to the next step (or lesson).
    Next,
    /// The step before.
    Back,
    /// This step again from its start.
    Repeat,
    /// On to the next lesson.
    Skip,
}

/// What a replay key does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Replay {
    Pause,
    /// One frame forward (true) or back.
    Frame(bool),
    /// One tick forward or back.
    Tick(bool),
    /// Seek by this many seconds.
    Seek(i8),
    /// Faster (true) or slower.
    Speed(bool),
    /// The next (true) or previous correction.
    Correction(bool),
    /// Re-run with the switch this game action flips changed.
    WhatIf(Action),
    AsRecorded,
    Help,
    Quit,
}

/// What a server browser key does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Browser {
    Up,
    Down,
    /// Join the address typed, else the server chosen.
    Join,
    /// Search again.
    Refresh,
    /// A character of the address being typed: every printable key, so a host name
    /// may begin with any letter.
    Type(char),
    Erase,
    /// Leave.
    Quit,
}

/// One key and what it does; `name` is what the config file's `[keys]` calls it (the
/// game's keys only; empty elsewhere).
#[derive(Debug)]
pub(crate) struct Key<A: 'static> {
    pub(crate) code: KeyCode,
    pub(crate) does: A,
    pub(crate) name: &'static str,
}

/// One line of a screen's help: its keys, and what they do.
#[derive(Debug)]
pub(crate) struct Row<A: 'static> {
    /// The keys as the help box writes them.
    pub(crate) label: &'static str,
    pub(crate) keys: &'static [Key<A>],
    /// What the keys do, in the help box.
    pub(crate) does: &'static str,
    /// What the docs' key tables say (`does` when None); read by the test that
    /// generates them.
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) doc: Option<&'static str>,
    /// Short forms for the combat line or the bottom line, in this order.
    pub(crate) hints: &'static [&'static str],
    /// Whether the help box lists it (rows for Ctrl-C and Ctrl-Z are in the docs only).
    pub(crate) boxed: bool,
}

#[cfg(test)]
impl<A> Row<A> {
    /// What the docs say the row's keys do.
    pub(crate) fn doc_text(&self) -> &'static str {
        self.doc.unwrap_or(self.does)
    }
}

const fn key<A>(code: KeyCode, does: A) -> Key<A> {
    Key {
        code,
        does,
        name: "",
    }
}

const fn named(name: &'static str, code: KeyCode, does: Game) -> Key<Game> {
    Key { code, does, name }
}

/// A row of the help box and the docs, with no hints.
const fn row<A>(
    label: &'static str,
    keys: &'static [Key<A>],
    does: &'static str,
    doc: Option<&'static str>,
) -> Row<A> {
    Row {
        label,
        keys,
        does,
        doc,
        hints: &[],
        boxed: true,
    }
}

const fn hinted<A>(mut r: Row<A>, hints: &'static [&'static str]) -> Row<A> {
    r.hints = hints;
    r
}

/// A row the docs show and the help box does not.
const fn docs_only<A>(label: &'static str, doc: &'static str) -> Row<A> {
    Row {
        label,
        keys: &[],
        does: doc,
        doc: None,
        hints: &[],
        boxed: false,
    }
}

/// The game's keys. The help box has one line a row (each fits its 42 columns).
pub(crate) const GAME: &[Row<Game>] = {
    use Action::*;
    use Game::{Act, Hold, Save};
    &[
        row(
            "WASD / arrows",
            &[
                named("up", Up, Hold(Buttons::UP)),
                named("up", Char('w'), Hold(Buttons::UP)),
                named("down", Down, Hold(Buttons::DOWN)),
                named("down", Char('s'), Hold(Buttons::DOWN)),
                named("left", Left, Hold(Buttons::LEFT)),
                named("left", Char('a'), Hold(Buttons::LEFT)),
                named("right", Right, Hold(Buttons::RIGHT)),
                named("right", Char('d'), Hold(Buttons::RIGHT)),
            ],
            "move; a tap: one cell; you aim as you move",
            Some(
                "move (a tap: one cell; hold to run; diagonals work). You face, and fire, the way you last moved",
            ),
        ),
        row(
            "Shift+dir",
            &[],
            "turn without walking",
            Some("turn without walking (`W` `A` `S` `D`, or Shift and an arrow)"),
        ),
        hinted(
            row(
                "space  1 / 2",
                &[
                    named("fire", Char(' '), Hold(Buttons::FIRE)),
                    named("blaster", Char('1'), Act(SelectWeapon(0))),
                    named("rail", Char('2'), Act(SelectWeapon(1))),
                ],
                "fire; blaster / rail",
                Some("fire (hold to keep firing); select the blaster / the rail"),
            ),
            &["space fire", "1/2 weapon"],
        ),
        hinted(
            row(
                "Tab  t",
                &[
                    named("scoreboard", Tab, Act(ToggleScoreboard)),
                    named("chat", Char('t'), Act(OpenChat)),
                ],
                "scoreboard; chat",
                Some("scoreboard on/off; chat: `Enter` sends, `Esc` cancels"),
            ),
            &["t chat", "Tab scores"],
        ),
        row(
            "Esc  q",
            &[
                named("back", Esc, Act(Back)),
                named("quit", Char('q'), Act(Quit)),
            ],
            "close overlays, else quit (asks once)",
            Some(
                "`Esc` closes the open overlays; with none open, it quits as `q` does (asking once)",
            ),
        ),
        row(
            "p  r",
            &[
                named("prediction", Char('p'), Act(TogglePrediction)),
                named("reconciliation", Char('r'), Act(ToggleReconciliation)),
            ],
            "prediction / reconciliation on/off",
            Some(
                "prediction / reconciliation on/off. Each switch says what it did on the bottom line for 4 s",
            ),
        ),
        row(
            "i  x  m",
            &[
                named("interpolation", Char('i'), Act(ToggleInterpolation)),
                named("extrapolation", Char('x'), Act(ToggleExtrapolation)),
                named("smoothing", Char('m'), Act(ToggleSmoothing)),
            ],
            "interp / extrap / smoothing on/off",
            Some("interpolation / extrapolation / smoothing on/off"),
        ),
        row(
            "g",
            &[named("ghosts", Char('g'), Act(CycleGhosts))],
            "ghosts: off / server / server + trail",
            None,
        ),
        row(
            "v",
            &[named(
                "lag-compensation",
                Char('v'),
                Act(ToggleLagCompensation),
            )],
            "lag compensation marks (HUD lagc)",
            Some(
                "lag-compensation overlay (`lagc` in the HUD): the rewound hitboxes of the last rail shot",
            ),
        ),
        row(
            "n",
            &[named("stats", Char('n'), Act(ToggleStats))],
            "network stats and lagometer",
            None,
        ),
        row(
            "+ - j l c",
            &[
                named("lag-up", Char('+'), Act(LagUp)),
                named("lag-up", Char('='), Act(LagUp)),
                named("lag-down", Char('-'), Act(LagDown)),
                named("lag-down", Char('_'), Act(LagDown)),
                named("jitter", Char('j'), Act(CycleJitter)),
                named("loss", Char('l'), Act(CycleLoss)),
                named("profile", Char('c'), Act(CycleProfile)),
            ],
            "lag +/-25 ms, jitter, loss, profile",
            Some(
                "simulated latency up/down by 25 ms (also `=` / `_`); cycle simulated jitter, loss, network profile",
            ),
        ),
        row(
            "k K [ ]",
            &[
                named("dial-next", Char('k'), Act(NextDial)),
                named("dial-previous", Char('K'), Act(PreviousDial)),
                named("dial-down", Char('['), Act(DialDown)),
                named("dial-up", Char(']'), Act(DialUp)),
            ],
            "choose a dial of yours, turn it down / up",
            None,
        ),
        row(
            "F8",
            &[named("save", F(8), Save)],
            "save the last minute as a recording",
            Some("save the last minute or so to a file for `netarena replay`"),
        ),
        docs_only("Ctrl-C", "quit at once (also while typing a chat line)"),
        docs_only(
            "Ctrl-Z",
            "suspend, as any terminal program (`fg` comes back; Unix only)",
        ),
        hinted(
            row(
                "? / F1",
                &[
                    named("help", Char('?'), Act(ToggleHelp)),
                    named("help", F(1), Act(ToggleHelp)),
                ],
                "this help",
                Some("help: the keys, and what each glyph means"),
            ),
            &["? help"],
        ),
    ]
};

/// The chat editor's keys, while a line is open (`t`); every other character is typed.
/// The chat line shows the hints.
pub(crate) const CHAT: &[Row<ChatKey>] = &[
    hinted(
        row("Enter", &[key(Enter, ChatKey::Send)], "send the line", None),
        &["Enter send"],
    ),
    hinted(
        row("Esc", &[key(Esc, ChatKey::Cancel)], "cancel", None),
        &["Esc cancel"],
    ),
    row(
        "Backspace",
        &[key(KeyCode::Backspace, ChatKey::Backspace)],
        "delete the last character",
        None,
    ),
];

/// The lab's keys: two players at one keyboard, the switches of the chosen client, the
/// clock. The bottom line shows the hints when it has nothing to explain.
pub(crate) const LAB: &[Row<Lab>] = {
    use Action::*;
    use Lab::*;
    &[
        hinted(
            row(
                "WASD space 1 2",
                &[
                    key(Char('w'), Play(0)),
                    key(Char('a'), Play(0)),
                    key(Char('s'), Play(0)),
                    key(Char('d'), Play(0)),
                    key(Char('W'), Play(0)),
                    key(Char('A'), Play(0)),
                    key(Char('S'), Play(0)),
                    key(Char('D'), Play(0)),
                    key(Char(' '), Play(0)),
                    key(Char('1'), Weapon(0, 0)),
                    key(Char('2'), Weapon(0, 1)),
                ],
                "client 1: move, fire, blaster / rail",
                None,
            ),
            &["client 1: WASD space 1/2"],
        ),
        hinted(
            row(
                "arrows Enter 9 0",
                &[
                    key(Up, Play(1)),
                    key(Down, Play(1)),
                    key(Left, Play(1)),
                    key(Right, Play(1)),
                    key(Enter, Fire(1)),
                    key(Char('9'), Weapon(1, 0)),
                    key(Char('0'), Weapon(1, 1)),
                ],
                "client 2: move, fire, blaster / rail",
                None,
            ),
            &["client 2: arrows Enter 9/0"],
        ),
        hinted(
            row(
                "Tab",
                &[key(Tab, Choose)],
                "choose the client the keys below act on",
                Some(
                    "choose the client the switch keys act on (its view has a bold blue frame; yellow with `--theme dark`)",
                ),
            ),
            &["Tab: choose client"],
        ),
        row(
            "p r i x m g v n",
            &[
                key(Char('p'), Switch(TogglePrediction)),
                key(Char('r'), Switch(ToggleReconciliation)),
                key(Char('i'), Switch(ToggleInterpolation)),
                key(Char('x'), Switch(ToggleExtrapolation)),
                key(Char('m'), Switch(ToggleSmoothing)),
                key(Char('g'), Switch(CycleGhosts)),
                key(Char('v'), Switch(ToggleLagCompensation)),
                key(Char('n'), Switch(ToggleStats)),
            ],
            "pred recon interp extrap smooth ghosts lagc stats",
            Some(
                "prediction, reconciliation, interpolation, extrapolation, smoothing, ghosts, lag-compensation boxes, stats: for the chosen client only",
            ),
        ),
        row(
            "+ - j l c",
            &[
                key(Char('+'), Switch(LagUp)),
                key(Char('='), Switch(LagUp)),
                key(Char('-'), Switch(LagDown)),
                key(Char('_'), Switch(LagDown)),
                key(Char('j'), Switch(CycleJitter)),
                key(Char('l'), Switch(CycleLoss)),
                key(Char('c'), Switch(CycleProfile)),
            ],
            "lag +/-25 ms, jitter, loss, profile",
            Some("latency, jitter, loss, profile of the chosen client's link, both ways"),
        ),
        hinted(
            row(
                "k K [ ]",
                &[
                    key(Char('k'), ChooseDial(true)),
                    key(Char('K'), ChooseDial(false)),
                    key(Char('['), Turn(false)),
                    key(Char(']'), Turn(true)),
                ],
                "choose a dial, turn it down / up",
                Some(
                    "choose a dial (snapshot rate, input rate, interpolation delay, redundancy, lag compensation, rewind bound, extrapolation limit, input buffer, correction style, tick rate, jitter mode), turn it down / up: the server's, or the chosen client's; the bottom line says what it makes",
                ),
            ),
            &["k [ ] dials"],
        ),
        row(
            "f L",
            &[key(Char('f'), Follow), key(Char('L'), Ladder)],
            "follow a command / snapshot; over the views: ladder, meters",
            Some(
                "follow the chosen client's next command, then (again) its next snapshot, then nothing: the ladder highlights its arrows and a panel lists its life with times; `L` draws the ladder over the views, again the meters, again nothing (for a screen with no rows under the lanes); both work in a lab replay too",
            ),
        ),
        hinted(
            row(
                "P",
                &[key(Char('P'), Pause)],
                "pause / resume",
                Some("pause and resume everything: server, links, clients"),
            ),
            &["P pause"],
        ),
        hinted(
            row(
                ".",
                &[key(Char('.'), Step)],
                "one tick (paused)",
                Some("while paused, advance exactly one server tick"),
            ),
            &[". tick"],
        ),
        hinted(
            row(
                "< >",
                &[
                    key(Char('<'), Speed(false)),
                    key(Char(','), Speed(false)),
                    key(Char('>'), Speed(true)),
                ],
                "speed",
                Some("speed: 0.1x, 0.25x, 0.5x, 1x, 1.5x, 2x, 4x (shown on the top line)"),
            ),
            &["< > speed"],
        ),
        hinted(
            row(
                "? F1",
                &[key(Char('?'), Help), key(F(1), Help)],
                "this help",
                None,
            ),
            &["? help"],
        ),
        hinted(
            row(
                "q Esc",
                &[key(Char('q'), Lab::Quit), key(Esc, Lab::Quit)],
                "quit",
                Some("quit (so does `Ctrl-C`)"),
            ),
            &["q quit"],
        ),
    ]
};

/// The keys `netarena learn` adds to the lab's (`q` quits there too, keeping progress).
pub(crate) const LEARN: &[Row<Learn>] = {
    use KeyCode::{End, Home, PageDown, PageUp};
    use Learn::*;
    &[
        hinted(
            row(
                "o PageDown",
                &[key(Char('o'), Next), key(PageDown, Next)],
                "lesson: go on (start the task, next step)",
                Some("go on: start the step's task, or the next step once it is checked"),
            ),
            &["o go on"],
        ),
        hinted(
            row(
                "b PageUp",
                &[key(Char('b'), Back), key(PageUp, Back)],
                "lesson: the step before",
                Some("the step before"),
            ),
            &["b back"],
        ),
        hinted(
            row(
                "e Home",
                &[key(Char('e'), Repeat), key(Home, Repeat)],
                "lesson: this step again",
                Some("this step again, from the same start"),
            ),
            &["e again"],
        ),
        hinted(
            row(
                "End",
                &[key(End, Skip)],
                "lesson: skip to the next",
                Some("skip to the next lesson"),
            ),
            &["End skip"],
        ),
    ]
};

/// The replay's keys. The combat line shows the hints that fit, the help key's last.
pub(crate) const REPLAY: &[Row<Replay>] = {
    use Replay::*;
    &[
        hinted(
            row("Space", &[key(Char(' '), Pause)], "pause / play", None),
            &["space pause"],
        ),
        hinted(
            row(
                ". ,",
                &[key(Char('.'), Frame(true)), key(Char(','), Frame(false))],
                "one frame forward / back",
                None,
            ),
            &[". , frame"],
        ),
        row(
            "] [",
            &[key(Char(']'), Tick(true)), key(Char('['), Tick(false))],
            "one tick forward / back",
            None,
        ),
        hinted(
            row(
                "→ ←",
                &[key(Right, Seek(1)), key(Left, Seek(-1))],
                "1 s forward / back",
                None,
            ),
            &["←→ seek"],
        ),
        row(
            "↑ ↓",
            &[key(Up, Seek(10)), key(Down, Seek(-10))],
            "10 s forward / back",
            None,
        ),
        hinted(
            row(
                "+ -",
                &[
                    key(Char('+'), Speed(true)),
                    key(Char('='), Speed(true)),
                    key(Char('-'), Speed(false)),
                ],
                "faster / slower (0.1x to 4x)",
                None,
            ),
            &["+- speed"],
        ),
        hinted(
            row(
                "c C",
                &[
                    key(Char('c'), Correction(true)),
                    key(Char('C'), Correction(false)),
                ],
                "next / previous correction",
                Some(
                    "next / previous correction (when there is none that way, playback goes on as it was)",
                ),
            ),
            &["c fix"],
        ),
        hinted(
            row(
                "p r i x m g",
                &[
                    key(Char('p'), WhatIf(Action::TogglePrediction)),
                    key(Char('r'), WhatIf(Action::ToggleReconciliation)),
                    key(Char('i'), WhatIf(Action::ToggleInterpolation)),
                    key(Char('x'), WhatIf(Action::ToggleExtrapolation)),
                    key(Char('m'), WhatIf(Action::ToggleSmoothing)),
                    key(Char('g'), WhatIf(Action::CycleGhosts)),
                ],
                "what-if: pred recon interp extrap smooth ghosts",
                Some(
                    "what-if: pred recon interp extrap smooth ghosts (prediction, reconciliation, interpolation, extrapolation, smoothing, ghosts)",
                ),
            ),
            &["p r i x m g what-if"],
        ),
        row(
            "0",
            &[key(Char('0'), AsRecorded)],
            "switches as recorded",
            None,
        ),
        hinted(
            row("?", &[key(Char('?'), Help)], "this help", None),
            &["? keys"],
        ),
        hinted(
            row(
                "q Esc",
                &[key(Char('q'), Quit), key(Esc, Quit)],
                "quit (Esc closes this help first)",
                Some("quit (Esc closes this help first); Ctrl-C quits too"),
            ),
            &["q quit"],
        ),
    ]
};

/// The server browser's keys; its help line is the hints.
pub(crate) const BROWSER: &[Row<Browser>] = {
    use Browser::*;
    &[
        hinted(
            row(
                "↑ ↓",
                &[
                    key(KeyCode::Up, Browser::Up),
                    key(KeyCode::Down, Browser::Down),
                ],
                "choose a server",
                None,
            ),
            &["↑↓ choose"],
        ),
        hinted(
            row(
                "Enter",
                &[key(Enter, Join)],
                "join the address typed, else the server chosen",
                None,
            ),
            &["Enter join"],
        ),
        hinted(
            row("F5", &[key(F(5), Refresh)], "search again", None),
            &["F5 refresh"],
        ),
        hinted(
            row(
                "Backspace",
                &[key(KeyCode::Backspace, Erase)],
                "erase; every letter, digit and sign types an address, HOST[:PORT]",
                None,
            ),
            &["type HOST[:PORT]"],
        ),
        hinted(row("Esc", &[key(Esc, Quit)], "leave", None), &["Esc quit"]),
    ]
};

/// Which screen a table is for (in the docs).
#[cfg(test)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Context {
    Game,
    Chat,
    Lab,
    Learn,
    Replay,
    Browser,
}

#[cfg(test)]
impl Context {
    pub(crate) const ALL: [Context; 6] = [
        Context::Game,
        Context::Chat,
        Context::Lab,
        Context::Learn,
        Context::Replay,
        Context::Browser,
    ];

    /// Each row's label and docs text.
    fn rows(self) -> Vec<(&'static str, &'static str)> {
        fn pairs<A>(rows: &[Row<A>]) -> Vec<(&'static str, &'static str)> {
            rows.iter().map(|r| (r.label, r.doc_text())).collect()
        }
        match self {
            Context::Game => pairs(GAME),
            Context::Chat => pairs(CHAT),
            Context::Lab => pairs(LAB),
            Context::Learn => pairs(LEARN),
            Context::Replay => pairs(REPLAY),
            Context::Browser => pairs(BROWSER),
        }
    }

    /// The name of the docs' markers: `<!-- keys:game -->` ... `<!-- /keys -->`.
    pub(crate) fn marker(self) -> &'static str {
        match self {
            Context::Game => "game",
            Context::Chat => "chat",
            Context::Lab => "lab",
            Context::Learn => "learn",
            Context::Replay => "replay",
            Context::Browser => "browser",
        }
    }
}

/// The names the config file's `[keys]` rebinds the game's keys by, in the table's
/// order, each once.
pub(crate) fn game_names() -> impl Iterator<Item = &'static str> {
    let mut seen: Vec<&str> = Vec::new();
    GAME.iter().flat_map(|r| r.keys).filter_map(move |k| {
        let new = !k.name.is_empty() && !seen.contains(&k.name);
        seen.push(k.name);
        new.then_some(k.name)
    })
}

/// The first key of `table` bound to `code`, with what it does.
fn find<A: Copy>(table: &'static [Row<A>], code: KeyCode) -> Option<A> {
    table
        .iter()
        .flat_map(|r| r.keys)
        .find(|k| k.code == code)
        .map(|k| k.does)
}

/// The short hints of `table`, in order.
pub(crate) fn hints<A>(table: &'static [Row<A>]) -> Vec<&'static str> {
    table.iter().flat_map(|r| r.hints.iter().copied()).collect()
}

/// The rows the help box lists: label and words.
pub(crate) fn help_lines<A>(
    table: &'static [Row<A>],
) -> impl Iterator<Item = (&'static str, &'static str)> {
    table.iter().filter(|r| r.boxed).map(|r| (r.label, r.does))
}

fn ctrl_c(ev: &KeyEvent) -> bool {
    ev.modifiers.contains(KeyModifiers::CONTROL) && ev.code == KeyCode::Char('c')
}

/// A key for the chat editor, if it means anything there.
pub(crate) fn chat_key(ev: &KeyEvent) -> Option<ChatKey> {
    if ev.kind == KeyEventKind::Release {
        return None;
    }
    find(CHAT, ev.code).or(match ev.code {
        KeyCode::Char(c) => Some(ChatKey::Char(c)),
        _ => None,
    })
}

/// What a key does in the lab. Releases count only for the players' held keys; Ctrl-C
/// quits, any other Ctrl key does nothing.
pub(crate) fn lab_key(ev: &KeyEvent) -> Option<Lab> {
    if ev.modifiers.contains(KeyModifiers::CONTROL) {
        return ctrl_c(ev).then_some(Lab::Quit);
    }
    let does = find(LAB, ev.code)?;
    let held = matches!(does, Lab::Play(_) | Lab::Fire(_));
    (held || ev.kind != KeyEventKind::Release).then_some(does)
}

/// What a key does in `netarena learn`, before the lab's keys; releases do nothing.
pub(crate) fn learn_key(ev: &KeyEvent) -> Option<Learn> {
    if ev.kind == KeyEventKind::Release || ev.modifiers.contains(KeyModifiers::CONTROL) {
        return None;
    }
    find(LEARN, ev.code)
}

/// What a key code does in the replay, `help_open` while its help box is open: then
/// `Esc` closes the box (a second `Help`) rather than quit, as its row says.
pub(crate) fn replay_code(code: KeyCode, help_open: bool) -> Option<Replay> {
    match find(REPLAY, code)? {
        Replay::Quit if help_open && code == Esc => Some(Replay::Help),
        does => Some(does),
    }
}

/// What a key does in the server browser: its table's keys (none of them a character),
/// and every printable character typed into the address, whatever it begins with.
/// Ctrl-C quits; any other Ctrl key does nothing.
pub(crate) fn browser_key(ev: &KeyEvent) -> Option<Browser> {
    if ctrl_c(ev) {
        return Some(Browser::Quit);
    }
    if ev.kind == KeyEventKind::Release || ev.modifiers.contains(KeyModifiers::CONTROL) {
        return None;
    }
    match (find(BROWSER, ev.code), ev.code) {
        (Some(does), _) => Some(does),
        (None, KeyCode::Char(c)) if !c.is_control() => Some(Browser::Type(c)),
        (None, _) => None,
    }
}

/// The docs' key table for `context`: a Markdown table, one row of the binding table a
/// line (labels in code spans).
#[cfg(test)]
pub(crate) fn doc_table(context: Context) -> String {
    let mut out = String::from("| Key | Action |\n|-----|--------|\n");
    for (label, doc) in context.rows() {
        let keys = label
            .split_whitespace()
            .map(|k| match k {
                // Words that stand for several keys, and the separator, are prose.
                "/" | "arrows" | "space" | "Shift+dir" => k.to_owned(),
                k => format!("`{k}`"),
            })
            .collect::<Vec<_>>()
            .join(" ");
        out.push_str(&format!("| {keys} | {doc} |\n"));
    }
    out
}

/// `text` with every marked part (`<!-- keys:NAME -->` to `<!-- /keys -->`, NAME a
/// context's table, or `names` for the game's `[keys]` names) regenerated from the
/// binding table.
#[cfg(test)]
pub(crate) fn with_doc_tables(text: &str) -> String {
    let mut parts: Vec<(&str, String)> = Context::ALL
        .iter()
        .map(|c| (c.marker(), format!("\n{}", doc_table(*c))))
        .collect();
    let names: Vec<String> = game_names().map(|n| format!("`{n}`")).collect();
    parts.push(("names", names.join(", ")));
    let mut out = text.to_owned();
    for (marker, fresh) in parts {
        let open = format!("<!-- keys:{marker} -->");
        let close = "<!-- /keys -->";
        let mut from = 0;
        while let Some(start) = out[from..].find(&open).map(|i| from + i + open.len()) {
            let Some(end) = out[start..].find(close).map(|i| start + i) else {
                break;
            };
            out.replace_range(start..end, &fresh);
            from = start + fresh.len() + close.len();
        }
    }
    out
}

#[cfg(test)]
mod tests;
