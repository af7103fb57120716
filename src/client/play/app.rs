//! The player's side of the client: aim, weapon, the chat editor, the overlays and the
//! simulated network. Keys become [`Action`]s and [`App::handle`] changes this state;
//! what the outside must do (flip a netcode switch in the session, send, change the
//! link, quit) comes back as an [`Effect`]. No I/O and no clock.

use std::time::Instant;

use super::input::{Action, ChatKey};
use crate::client::Switch;
use crate::client::dials::DIALS;
use crate::net::conditioner::Conditions;
use crate::net::protocol::{CHAT_RATE, MAX_CHAT_CHARS};
use crate::sim::combat::{aim_of, aim_vector};
use crate::sim::world::{Buttons, Command};

/// Steps the lag keys move through.
const LAG_STEP_MS: u32 = 25;
const MAX_LAG_MS: u32 = 1000;
const JITTER_STEPS_MS: [u32; 5] = [0, 5, 10, 20, 40];
const LOSS_STEPS_PCT: [f64; 6] = [0.0, 1.0, 2.0, 5.0, 10.0, 20.0];
/// Two keys are never let go in the same instant: when one of a diagonal's keys goes,
/// the aim stays diagonal this long (and for good if the other follows), in whole
/// command ticks at the server's rate (8 at 60 Hz).
const DIAGONAL_GRACE_MS: u32 = 130;

/// [`DIAGONAL_GRACE_MS`] in command ticks at `tick_rate`, rounded up.
fn diagonal_grace_ticks(tick_rate: f64) -> u8 {
    let ticks = (f64::from(DIAGONAL_GRACE_MS) * tick_rate / 1000.0).ceil();
    ticks.clamp(1.0, f64::from(u8::MAX)) as u8
}

/// Which overlays are open.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct Overlays {
    pub(crate) stats: bool,
    pub(crate) help: bool,
    pub(crate) scoreboard: bool,
    /// The rewound hitboxes of rail shots.
    pub(crate) lag_compensation: bool,
}

impl Overlays {
    /// The player is reading (help or the scoreboard open): the commands say so, and
    /// spawn protection lasts past its short cap (see `sim::step::protection_holds`).
    pub(crate) fn reading(&self) -> bool {
        self.help || self.scoreboard
    }
}

/// What an action asks of the world outside the app.
#[derive(Clone, Debug, PartialEq)]
pub enum Effect {
    Quit,
    /// A netcode switch to flip, in the session (which holds the switches).
    Toggle(Switch),
    /// New simulated conditions, the same both ways, for the link.
    Conditions(Conditions),
    /// A chat line to send.
    Chat(String),
    /// Turn the player's dial `dial` (of `client::dials::DIALS`) one step up or down:
    /// the driver does it at the time it happens (`Driver::turn_dial`).
    Turn {
        dial: usize,
        up: bool,
    },
}

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct App {
    conditions: Conditions,
    overlays: Overlays,
    aim: u8,
    /// Command ticks a diagonal aim has been held by only one of its keys.
    diagonal_left: u8,
    weapon: u8,
    /// The chat line being typed, when the editor is open: keys go to it, not the game.
    chat: Option<String>,
    chat_budget: ChatBudget,
    /// A line for the player from the client itself (a chat line not sent), and when.
    #[serde(with = "crate::net::instants")]
    note: Option<(Instant, String)>,
    /// `q` was pressed once: the next `q` (or Esc with nothing open) quits, anything
    /// else plays on. One stray key never ends a match.
    quit_asked: bool,
    /// The player's dial `[` `]` turn: an index into `client::dials::DIALS`.
    dial: u8,
}

/// The client's count of [`CHAT_RATE`], the server's chat rule, so a line the server
/// would drop is never sent silently.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
struct ChatBudget {
    lines: f64,
    #[serde(with = "crate::net::instants")]
    at: Option<Instant>,
}

/// How long a note from the client stays among the chat lines.
const NOTE_SECS: f64 = 4.0;

impl Default for ChatBudget {
    fn default() -> ChatBudget {
        ChatBudget {
            lines: CHAT_RATE.burst,
            at: None,
        }
    }
}

impl ChatBudget {
    fn take(&mut self, now: Instant) -> bool {
        let secs = self
            .at
            .map_or(0.0, |t| now.saturating_duration_since(t).as_secs_f64());
        self.lines = CHAT_RATE.refill(self.lines, secs);
        self.at = Some(now);
        let ok = self.lines >= 1.0;
        if ok {
            self.lines -= 1.0;
        }
        ok
    }
}

/// The step after `current` in `steps` (wrapping), or the first.
fn next_step<T: PartialOrd + Copy>(steps: &[T], current: T) -> T {
    steps
        .iter()
        .copied()
        .find(|s| *s > current)
        .unwrap_or(steps[0])
}

impl App {
    /// Starts with these simulated conditions on the link.
    pub fn new(conditions: Conditions) -> App {
        App {
            conditions,
            overlays: Overlays::default(),
            aim: 0,
            diagonal_left: 0,
            weapon: 0,
            chat: None,
            chat_budget: ChatBudget::default(),
            note: None,
            quit_asked: false,
            dial: 0,
        }
    }

    pub(crate) fn conditions(&self) -> &Conditions {
        &self.conditions
    }

    pub(crate) fn overlays(&self) -> Overlays {
        self.overlays
    }

    /// The chat line being typed, when the editor is open.
    pub(crate) fn chat_input(&self) -> Option<&str> {
        self.chat.as_deref()
    }

    pub(crate) fn chatting(&self) -> bool {
        self.chat.is_some()
    }

    /// The buttons that count at all: none while the chat editor has the keys.
    pub(crate) fn held(&self, keys: Buttons) -> Buttons {
        if self.chatting() {
            Buttons::empty()
        } else {
            keys
        }
    }

    /// The command for `buttons` held: you aim where you last moved (or turned), a
    /// diagonal kept through the uneven release of its two keys; it says whether `?`
    /// help or the scoreboard is open.
    pub(crate) fn command(&mut self, buttons: Buttons, tick_rate: f64) -> Command {
        let (dx, dy) = buttons.direction();
        let (ax, ay) = aim_vector(self.aim);
        let half_of_diagonal = ax != 0 && ay != 0 && ((dx, dy) == (ax, 0) || (dx, dy) == (0, ay));
        if half_of_diagonal && self.diagonal_left < diagonal_grace_ticks(tick_rate) {
            self.diagonal_left += 1;
        } else if let Some(a) = aim_of(dx, dy) {
            self.aim = a;
            self.diagonal_left = 0;
        }
        // Telling the server the player is reading keeps its spawn protection past the
        // short cap (see `sim::step::protection_holds`).
        let mut buttons = buttons;
        buttons.set(Buttons::READING, self.overlays.reading());
        Command {
            buttons,
            weapon: self.weapon,
            aim: self.aim,
        }
    }

    pub fn handle(&mut self, action: Action) -> Option<Effect> {
        let asked = std::mem::take(&mut self.quit_asked);
        match action {
            Action::Quit => return self.ask_quit(asked),
            Action::Back => return self.back(asked),
            Action::Face(aim) => {
                self.aim = aim % 8;
                self.diagonal_left = 0;
            }
            Action::TogglePrediction
            | Action::ToggleReconciliation
            | Action::ToggleInterpolation
            | Action::ToggleExtrapolation
            | Action::ToggleSmoothing
            | Action::CycleGhosts => return Switch::of(action).map(Effect::Toggle),
            Action::ToggleStats => self.overlays.stats = !self.overlays.stats,
            Action::ToggleHelp => self.overlays.help = !self.overlays.help,
            Action::ToggleScoreboard => self.overlays.scoreboard = !self.overlays.scoreboard,
            Action::ToggleLagCompensation => {
                self.overlays.lag_compensation = !self.overlays.lag_compensation;
            }
            Action::SelectWeapon(w) => self.weapon = w,
            Action::OpenChat => self.chat = Some(String::new()),
            Action::LagUp
            | Action::LagDown
            | Action::CycleJitter
            | Action::CycleLoss
            | Action::CycleProfile => return self.network(action),
            // From `dial()`, which is in range whatever a keyframe held.
            Action::NextDial => self.dial = ((self.dial() + 1) % DIALS.len()) as u8,
            Action::PreviousDial => {
                self.dial = ((self.dial() + DIALS.len() - 1) % DIALS.len()) as u8;
            }
            Action::DialDown | Action::DialUp => {
                return Some(Effect::Turn {
                    dial: self.dial(),
                    up: action == Action::DialUp,
                });
            }
        }
        None
    }

    /// The player's dial the keys turn (an index into `client::dials::DIALS`).
    pub(crate) fn dial(&self) -> usize {
        usize::from(self.dial) % DIALS.len()
    }

    /// Whether a finished chat line may go at `now` by the server's rate; if not, a
    /// note says so.
    pub(crate) fn may_send_chat(&mut self, now: Instant) -> bool {
        let ok = self.chat_budget.take(now);
        if !ok {
            self.note = Some((
                now,
                "(not sent: chat allows 3 lines at once, then 1 a second)".into(),
            ));
        }
        ok
    }

    /// The client's own note for the chat lines, while fresh.
    pub(crate) fn note(&self, now: Instant) -> Option<&str> {
        self.note
            .as_ref()
            .filter(|(at, _)| now.saturating_duration_since(*at).as_secs_f64() < NOTE_SECS)
            .map(|(_, text)| text.as_str())
    }

    /// Esc: closes the open overlays, or (asking first) quits when none is open.
    fn back(&mut self, asked: bool) -> Option<Effect> {
        let open = self.overlays;
        self.overlays = Overlays::default();
        if open == Overlays::default() {
            self.ask_quit(asked)
        } else {
            None
        }
    }

    /// Quits if already asked, else asks.
    fn ask_quit(&mut self, asked: bool) -> Option<Effect> {
        self.quit_asked = !asked;
        asked.then_some(Effect::Quit)
    }

    /// Whether a quit waits for confirmation (the view says so).
    pub(crate) fn quit_asked(&self) -> bool {
        self.quit_asked
    }

    /// The aim the next command carries.
    #[cfg(test)]
    pub(crate) fn aim(&self) -> u8 {
        self.aim
    }

    /// The lag, jitter, loss and profile keys.
    fn network(&mut self, action: Action) -> Option<Effect> {
        let c = &mut self.conditions;
        let before = c.clone();
        match action {
            Action::LagUp => c.latency_ms = (c.latency_ms + LAG_STEP_MS).min(MAX_LAG_MS),
            Action::LagDown => c.latency_ms = c.latency_ms.saturating_sub(LAG_STEP_MS),
            Action::CycleJitter => c.jitter_ms = next_step(&JITTER_STEPS_MS, c.jitter_ms),
            Action::CycleLoss => c.loss_pct = next_step(&LOSS_STEPS_PCT, c.loss_pct),
            Action::CycleProfile => *c = c.next_profile().1,
            _ => {}
        }
        (*c != before).then(|| Effect::Conditions(c.clone()))
    }

    /// One key into the chat editor (when open). Returns the line to send on Enter.
    pub(crate) fn type_chat(&mut self, key: ChatKey) -> Option<Effect> {
        let text = self.chat.as_mut()?;
        match key {
            ChatKey::Cancel => self.chat = None,
            ChatKey::Send => {
                let line = self.chat.take().unwrap_or_default();
                return (!line.trim().is_empty()).then_some(Effect::Chat(line));
            }
            ChatKey::Backspace => {
                text.pop();
            }
            ChatKey::Char(c) if !c.is_control() && text.chars().count() < MAX_CHAT_CHARS => {
                text.push(c)
            }
            ChatKey::Char(_) => {}
        }
        None
    }
}

#[cfg(test)]
mod tests;
