//! The player's side of the client: aim, weapon, the chat editor, the overlays, the
//! netcode switches and the simulated network. Keys become [`Action`]s and
//! [`App::handle`] changes this state; what the outside must do (send, change the
//! link, quit) comes back as an [`Effect`]. No I/O and no clock.

use super::Switches;
use super::input::{Action, ChatKey};
use crate::net::conditioner::Conditions;
use crate::net::protocol::MAX_CHAT_CHARS;
use crate::sim::combat::aim_of;
use crate::sim::world::{Buttons, Command};

/// Steps the lag keys move through.
const LAG_STEP_MS: u32 = 25;
const MAX_LAG_MS: u32 = 1000;
const JITTER_STEPS_MS: [u32; 5] = [0, 5, 10, 20, 40];
const LOSS_STEPS_PCT: [f64; 6] = [0.0, 1.0, 2.0, 5.0, 10.0, 20.0];

/// Which overlays are open.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Overlays {
    pub(crate) stats: bool,
    pub(crate) help: bool,
    pub(crate) scoreboard: bool,
    /// The rewound hitboxes of rail shots.
    pub(crate) lag_compensation: bool,
}

/// What an action asks of the world outside the app.
#[derive(Clone, Debug, PartialEq)]
pub enum Effect {
    Quit,
    /// New netcode switches, for the session.
    Switches(Switches),
    /// New simulated conditions, the same both ways, for the link.
    Conditions(Conditions),
    /// A chat line to send.
    Chat(String),
}

#[derive(Clone, Debug)]
pub struct App {
    switches: Switches,
    conditions: Conditions,
    overlays: Overlays,
    aim: u8,
    weapon: u8,
    /// The chat line being typed, when the editor is open: keys go to it, not the game.
    chat: Option<String>,
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
    /// Starts with these switches, and these simulated conditions on the link.
    pub fn new(switches: Switches, conditions: Conditions) -> App {
        App {
            switches: switches.normalized(),
            conditions,
            overlays: Overlays::default(),
            aim: 0,
            weapon: 0,
            chat: None,
        }
    }

    pub(crate) fn switches(&self) -> Switches {
        self.switches
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

    /// The command for `buttons` held: you aim where you last moved.
    pub(crate) fn command(&mut self, buttons: Buttons) -> Command {
        let (dx, dy) = buttons.direction();
        if let Some(a) = aim_of(dx, dy) {
            self.aim = a;
        }
        Command {
            buttons,
            weapon: self.weapon,
            aim: self.aim,
        }
    }

    pub fn handle(&mut self, action: Action) -> Option<Effect> {
        let s = &mut self.switches;
        let before = *s;
        match action {
            Action::Quit => return Some(Effect::Quit),
            Action::TogglePrediction => *s = s.with_prediction(!s.prediction),
            Action::ToggleReconciliation => {
                s.reconciliation = !s.reconciliation;
                *s = s.normalized();
            }
            Action::ToggleInterpolation => s.interpolation = !s.interpolation,
            Action::ToggleExtrapolation => s.extrapolation = !s.extrapolation,
            Action::ToggleSmoothing => s.smoothing = !s.smoothing,
            Action::CycleGhosts => s.ghosts = s.ghosts.next(),
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
        }
        (self.switches != before).then_some(Effect::Switches(self.switches))
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
mod tests {
    use super::*;

    fn app() -> App {
        App::new(Switches::default(), Conditions::default())
    }

    #[test]
    fn reconciliation_follows_prediction() {
        let mut a = app();
        let off = a.handle(Action::TogglePrediction);
        let s = a.switches();
        assert_eq!(off, Some(Effect::Switches(s)));
        assert!(!s.prediction && !s.reconciliation);
        // Without prediction there is nothing to reconcile: the key does nothing.
        assert_eq!(a.handle(Action::ToggleReconciliation), None);
        assert!(!a.switches().reconciliation);
        a.handle(Action::TogglePrediction);
        assert!(a.switches().prediction && a.switches().reconciliation);
        a.handle(Action::ToggleReconciliation);
        assert!(a.switches().prediction && !a.switches().reconciliation);
    }

    #[test]
    fn overlays_weapon_and_aim_stay_in_the_app() {
        let mut a = app();
        assert_eq!(a.handle(Action::ToggleScoreboard), None);
        assert_eq!(a.handle(Action::ToggleStats), None);
        assert!(a.overlays().scoreboard && a.overlays().stats && !a.overlays().help);
        assert_eq!(a.handle(Action::SelectWeapon(1)), None);
        let cmd = a.command(Buttons::LEFT);
        assert_eq!((cmd.weapon, cmd.aim), (1, aim_of(-1, 0).unwrap()));
        // Standing still keeps the aim; firing fires that way.
        let cmd = a.command(Buttons::FIRE);
        assert_eq!(cmd.aim, aim_of(-1, 0).unwrap());
        assert_eq!(a.handle(Action::Quit), Some(Effect::Quit));
    }

    #[test]
    fn network_keys_step_and_wrap() {
        let mut a = app();
        let Some(Effect::Conditions(c)) = a.handle(Action::LagUp) else {
            panic!("lag changes the link");
        };
        assert_eq!(c.latency_ms, LAG_STEP_MS);
        assert_eq!(
            a.handle(Action::LagDown),
            Some(Effect::Conditions(Conditions::default()))
        );
        assert_eq!(a.handle(Action::LagDown), None, "already at zero");
        for want in [1.0, 2.0, 5.0, 10.0, 20.0, 0.0] {
            a.handle(Action::CycleLoss);
            assert_eq!(a.conditions().loss_pct, want);
        }
    }

    #[test]
    fn chat_editor_takes_the_keys_and_sends_on_enter() {
        let mut a = app();
        assert_eq!(a.type_chat(ChatKey::Char('x')), None, "closed: ignored");
        a.handle(Action::OpenChat);
        assert_eq!(
            a.held(Buttons::UP),
            Buttons::empty(),
            "no moving while typing"
        );
        for c in "hi!".chars() {
            a.type_chat(ChatKey::Char(c));
        }
        a.type_chat(ChatKey::Char('\u{7}'));
        a.type_chat(ChatKey::Backspace);
        assert_eq!(a.chat_input(), Some("hi"));
        assert_eq!(a.type_chat(ChatKey::Send), Some(Effect::Chat("hi".into())));
        assert!(!a.chatting());
        a.handle(Action::OpenChat);
        a.type_chat(ChatKey::Char(' '));
        assert_eq!(a.type_chat(ChatKey::Send), None, "blank lines are not sent");
        a.handle(Action::OpenChat);
        a.type_chat(ChatKey::Char('x'));
        a.type_chat(ChatKey::Cancel);
        assert_eq!(a.chat_input(), None);
        assert_eq!(a.held(Buttons::UP), Buttons::UP);
    }
}
