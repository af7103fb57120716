//! The lab in a terminal: two people at one keyboard (client 1 on WASD and space,
//! client 2 on the arrows and Enter), per-client switches for the client chosen with
//! Tab, the dials (`k` chooses one, `[` `]` turn it; see `dials`), and the clock: `P`
//! pauses, `.` steps one server tick, `<` `>` change the speed.
//! Real time drives the virtual clock, scaled by the speed, unless paused.
//! With `--compare` a second lab (B, see `compare`) runs beside the first on the same
//! clock, and every key acts on both alike.
#![doc(hidden)] // Public for the binary, tests or fuzz targets: see the crate docs.

use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use ratatui::Frame;
use ratatui::crossterm::event::{KeyCode, KeyEvent};

use super::compare::{self, Setting};
use super::dials::{self, DIALS};
use super::follow::Follow;
use super::headless::{self, Recording};
use super::recording::{Journal, LabStart};
use super::speed::Speed;
use super::view::{self, Controls, Over};
use super::{Lab, LabConfig};
use crate::client::play::input::{Action, Keys};
use crate::client::shell::interactive::Outcome;
use crate::client::shell::terminal::Releases;
use crate::client::shell::{Flow, Modal, Screen, Shell};
use crate::ui;
use crate::ui::keys::{self, Lab as LabKey};

/// How long an explanation stays on the bottom line.
const MESSAGE_SECS: Duration = Duration::from_secs(2);
/// The most virtual time one frame may advance: after a stall, time resumes, it does
/// not race to catch up.
const MAX_FRAME_STEP: Duration = Duration::from_millis(100);

/// The front end's state: the lab, keys held, the clock, and what to explain.
struct Front<'a> {
    lab: &'a mut Lab,
    /// Client 1's keys and client 2's.
    players: [Keys; 2],
    selected: usize,
    /// The dial `[` and `]` turn (an index into `dials::DIALS`).
    dial: usize,
    speed: Speed,
    paused: bool,
    help: bool,
    message: Option<(Instant, String)>,
    theme: ui::Theme,
    /// The real time the virtual clock was last advanced at.
    last: Instant,
    /// Lab B of an A/B run, and the setting it differs in.
    twin: Twin,
    /// A guide riding along (`netarena learn`), if any.
    coach: Option<&'a mut dyn Coach>,
    /// What `f` follows, and what `L` put over the views.
    follow: Option<Follow>,
    over: Over,
}

/// Lab B of an A/B run beside the front end's lab, and the setting it differs in.
pub(crate) type Twin = Option<(Lab, Setting)>;

/// A guide that rides along the lab (`crate::learn`): it sees every key before the lab
/// does, watches the lab after every frame and every key (and may pause it, resume it
/// or build it anew, with or without a lab B beside it), and adds panels and the
/// bottom line's reminder.
pub(crate) trait Coach {
    /// A key, before the lab's own: true when the coach took it.
    fn on_key(&mut self, key: &KeyEvent, lab: &mut Lab, twin: &mut Twin) -> bool;
    /// After time moved or a key acted: `Some(paused)` to pause or resume the clock.
    fn watch(&mut self, lab: &mut Lab, twin: &mut Twin) -> Option<bool>;
    /// Its panels for a screen `width` columns wide.
    fn panels(&self, lab: &Lab, width: u16) -> Vec<ui::lab::Panel>;
    /// The bottom line when nothing is being explained.
    fn reminder(&self) -> String;
}

/// What a terminal lab writes as it goes and when it ends.
#[derive(Default)]
pub struct Writes<'a> {
    /// Client 1's inputs go to the first, client 2's to the second, and so on.
    pub recordings: Vec<Recording>,
    /// The whole lab's recording.
    pub whole: Option<Journal>,
    /// Where the lab's report goes at the end.
    pub report: Option<&'a Path>,
}

/// Runs the lab in this terminal until `q` or `stop`. Client 1's inputs are recorded
/// by the first of `writes.recordings`, client 2's by the second, and so on; at the end each
/// recording is finished and, with `report`, the lab's report is written there. With
/// `compare`, lab B runs beside it (and the report is the A/B one).
pub fn run(
    config: &LabConfig,
    fps_cap: Option<u32>,
    theme: ui::Theme,
    stop: &AtomicBool,
    writes: Writes,
    compare: Option<&Setting>,
) -> anyhow::Result<Outcome> {
    run_with(config, fps_cap, theme, stop, writes, compare, None)
}

/// [`run`] with a guide riding along (`netarena learn`), which may build the lab anew.
pub(crate) fn run_coached(
    config: &LabConfig,
    fps_cap: Option<u32>,
    theme: ui::Theme,
    stop: &AtomicBool,
    coach: &mut dyn Coach,
) -> anyhow::Result<Outcome> {
    run_with(
        config,
        fps_cap,
        theme,
        stop,
        Writes::default(),
        None,
        Some(coach),
    )
}

fn run_with(
    config: &LabConfig,
    fps_cap: Option<u32>,
    theme: ui::Theme,
    stop: &AtomicBool,
    writes: Writes,
    compare: Option<&Setting>,
    coach: Option<&mut dyn Coach>,
) -> anyhow::Result<Outcome> {
    let Writes {
        recordings,
        whole,
        report,
    } = writes;
    let start = Instant::now();
    let (mut lab, twin) = match compare {
        Some(setting) => {
            let (a, b) = compare::pair(config, setting, start)?;
            (a, Some((b, setting.clone())))
        }
        None => (Lab::new(config, start)?, None),
    };
    let mut shell = Shell::enter(stop, fps_cap)?;
    let size = shell.size()?;
    let names: Vec<String> = recordings.iter().map(|r| r.name.clone()).collect();
    for (n, r) in recordings.into_iter().enumerate() {
        lab.record(n, r.tap, Some(size))?;
    }
    if let Some(journal) = whole {
        lab.record_lab(journal, &LabStart::of(config, Some(size), names.clone()))?;
    }
    let enhanced = shell.enhanced();
    let mut front = Front {
        lab: &mut lab,
        players: [Keys::new(enhanced), Keys::new(enhanced)],
        selected: 0,
        dial: 0,
        speed: Speed::default(),
        paused: false,
        help: false,
        message: None,
        theme,
        last: Instant::now(),
        twin,
        // Reborrowed for as long as the lab is.
        coach: match coach {
            Some(c) => Some(c),
            None => None,
        },
        follow: None,
        over: Over::Nothing,
    };
    let outcome = shell.run(&mut front);
    let Front { twin, .. } = front;
    drop(shell);
    let recorded = lab.finish_recordings();
    let ended = match &outcome {
        Ok(Outcome::Quit) => "quit".to_owned(),
        Ok(_) => "stopped by a signal".to_owned(),
        Err(e) => format!("{e:#}"),
    };
    let mut end = headless::ended_report(&lab, config.server.seed, &ended);
    for (c, name) in end.clients.iter_mut().zip(names) {
        c.recording = Some(name);
    }
    let whole = lab.finish_lab_recording(&ended, &end);
    if let Some(path) = report {
        match &twin {
            Some((b, setting)) => {
                let inputs = compare::Inputs {
                    seed: config.server.seed,
                    // The same keys reached both labs.
                    commands: Vec::new(),
                };
                let r =
                    compare::compare_report(&lab, b, setting, config.server.seed, inputs, &ended);
                compare::write(path, &r)?;
            }
            None => headless::write(path, &end)?,
        }
    }
    // A recording that stopped is an error, though the lab went on.
    outcome.and_then(|o| recorded.and(whole).map(|()| o))
}

impl Screen for Front<'_> {
    fn releases(&self) -> Releases {
        Releases::Keep
    }

    fn on_key(&mut self, key: &KeyEvent, now: Instant) -> anyhow::Result<Flow> {
        if let Some(coach) = self.coach.as_deref_mut() {
            let took = coach.on_key(key, self.lab, &mut self.twin);
            if let Some(paused) = coach.watch(self.lab, &mut self.twin) {
                self.paused = paused;
            }
            if took {
                return Ok(Flow::Go);
            }
        }
        let quit = on_key(self, *key, now);
        if let Some(paused) = self
            .coach
            .as_deref_mut()
            .and_then(|c| c.watch(self.lab, &mut self.twin))
        {
            self.paused = paused;
        }
        Ok(if quit { Flow::Quit } else { Flow::Go })
    }

    fn on_resize(&mut self, w: u16, h: u16, _now: Instant) {
        self.lab.note_size(w, h);
        // Also after a suspend, when releases of held keys went unseen.
        self.players.iter_mut().for_each(Keys::release_all);
    }

    /// The held keys, then the virtual clock, scaled by the speed, unless paused.
    fn on_tick(&mut self, real: Instant, _modal: &mut Modal<'_>) -> anyhow::Result<Flow> {
        for (n, keys) in self.players.iter_mut().enumerate() {
            let held = keys.buttons(real);
            self.lab.hold(n, held);
            if let Some((b, _)) = &mut self.twin {
                b.hold(n, held);
            }
        }
        if !self.paused {
            let step = (real - self.last)
                .min(MAX_FRAME_STEP)
                .mul_f64(self.speed.factor());
            let until = self.lab.now() + step;
            match &mut self.twin {
                Some((b, _)) => compare::run_until(self.lab, b, until),
                None => self.lab.run_until(until),
            }
        }
        self.last = real;
        if let Some(paused) = self
            .coach
            .as_deref_mut()
            .and_then(|c| c.watch(self.lab, &mut self.twin))
        {
            self.paused = paused;
        }
        Ok(Flow::Go)
    }

    fn draw(&mut self, frame: &mut Frame, real: Instant, fps: f64) {
        self.lab.frame();
        // The bottom line, when there is nothing to explain, reminds of the keys.
        let reminder;
        let message = match &self.message {
            Some((at, text)) if real < *at + MESSAGE_SECS => text.as_str(),
            _ => {
                reminder = match &self.coach {
                    Some(coach) => coach.reminder(),
                    None => format!(" {}", keys::hints(keys::LAB).join(" · ")),
                };
                reminder.as_str()
            }
        };
        let controls = Controls {
            selected: self.selected,
            speed: self.speed.factor(),
            paused: self.paused,
            fps,
            message,
            help: self.help,
            theme: self.theme,
            follow: self.follow,
            over: self.over,
        };
        let mut view = match &mut self.twin {
            Some((b, setting)) => {
                b.frame();
                match self.coach {
                    Some(_) => compare::clients_view(self.lab, b, setting, &controls),
                    None => compare::view(self.lab, b, setting, &controls),
                }
            }
            None => view::build(self.lab, &controls),
        };
        if let Some(coach) = &self.coach {
            view.panels
                .splice(0..0, coach.panels(self.lab, frame.area().width));
        }
        ui::lab::draw(frame, &view);
    }

    fn in_motion(&self, _now: Instant) -> bool {
        !self.paused
    }
}

/// One key, as the binding table's lab rows (`ui::keys::LAB`) say. True when it quits.
fn on_key(front: &mut Front<'_>, key: KeyEvent, real: Instant) -> bool {
    let lab = &mut *front.lab;
    let (client, action) = match keys::lab_key(&key) {
        None => return false,
        Some(LabKey::Quit) => return true,
        Some(LabKey::Play(n)) => {
            front.players[n].handle(&key, real);
            return false;
        }
        Some(LabKey::Fire(n)) => {
            // Fire with the same hold rules as the game's space.
            let fire = KeyEvent::new_with_kind(KeyCode::Char(' '), key.modifiers, key.kind);
            front.players[n].handle(&fire, real);
            return false;
        }
        Some(LabKey::Weapon(n, w)) => (n, Action::SelectWeapon(w)),
        Some(LabKey::Turn(up)) => {
            let text = lab.turn_dial(front.dial, front.selected, up);
            let text_b = front
                .twin
                .as_mut()
                .and_then(|(b, _)| b.turn_dial(front.dial, front.selected, up));
            if let Some(text) = both_said(text, text_b) {
                front.message = Some((real, text));
            }
            return false;
        }
        Some(LabKey::Step) => {
            if front.paused {
                match &mut front.twin {
                    Some((b, _)) => compare::step_tick(lab, b),
                    None => lab.step_tick(),
                }
            }
            return false;
        }
        Some(LabKey::Choose) => {
            front.selected = (front.selected + 1) % lab.client_count();
            let text = format!(" the switch keys now act on client {}", front.selected + 1);
            front.message = Some((real, text));
            return false;
        }
        Some(LabKey::ChooseDial(next)) => {
            let count = DIALS.len();
            front.dial = if next {
                (front.dial + 1) % count
            } else {
                (front.dial + count - 1) % count
            };
            let dial = &DIALS[front.dial];
            let now = lab
                .dial(front.dial, front.selected)
                .map_or_else(String::new, |v| format!(" = {}", dials::show(dial, v)));
            let text = format!(" dial: {}{now} ([ ] turn it)", dial.name);
            front.message = Some((real, text));
            return false;
        }
        Some(LabKey::Follow) => {
            front.follow = Follow::next(front.follow, lab, front.selected);
            front.message = Some((real, Follow::said(front.follow)));
            return false;
        }
        Some(LabKey::Ladder) => {
            front.over = front.over.next();
            return false;
        }
        Some(LabKey::Pause) => {
            front.paused = !front.paused;
            return false;
        }
        Some(LabKey::Speed(false)) => {
            front.speed = front.speed.slower();
            return false;
        }
        Some(LabKey::Speed(true)) => {
            front.speed = front.speed.faster();
            return false;
        }
        Some(LabKey::Help) => {
            front.help = !front.help;
            return false;
        }
        Some(LabKey::Switch(a)) => (front.selected, a),
    };
    lab.act(client, action);
    let text = super::explain::explain(lab, client, action);
    let text_b = front.twin.as_mut().and_then(|(b, _)| {
        b.act(client, action);
        super::explain::explain(b, client, action)
    });
    if let Some(text) = both_said(text, text_b) {
        front.message = Some((real, text));
    }
    false
}

/// What lab A said, and lab B's words too where they differ (an A/B run).
fn both_said(a: Option<String>, b: Option<String>) -> Option<String> {
    match (a, b) {
        (Some(a), Some(b)) if a != b => Some(format!(" A:{a}  B:{b}")),
        (a, b) => a.or(b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `k` chooses the next dial and says its value; `]` and `[` turn it for the chosen
    /// client, each turn explained on the bottom line.
    #[test]
    fn dial_keys_choose_turn_and_explain() {
        let t0 = Instant::now();
        let mut lab = Lab::new(&super::super::tests::config(2, 0, 1), t0).unwrap();
        lab.run_until(t0 + Duration::from_millis(100));
        let mut front = Front {
            lab: &mut lab,
            players: [Keys::new(false), Keys::new(false)],
            selected: 1,
            dial: 0,
            speed: Speed::default(),
            paused: false,
            help: false,
            message: None,
            theme: ui::Theme::Auto,
            last: t0,
            twin: None,
            coach: None,
            follow: None,
            over: Over::Nothing,
        };
        let press = |front: &mut Front<'_>, c: char| {
            assert!(!on_key(front, KeyEvent::from(KeyCode::Char(c)), t0));
            front
                .message
                .as_ref()
                .map(|(_, m)| m.clone())
                .unwrap_or_default()
        };
        assert_eq!(
            press(&mut front, 'k'),
            " dial: input rate = 30/s ([ ] turn it)"
        );
        let up = press(&mut front, ']');
        assert!(up.starts_with(" client 2: input packets 60/s"), "{up}");
        assert_eq!(front.lab.session(1).tuning().input_rate, 60);
        assert_eq!(
            front.lab.session(0).tuning().input_rate,
            30,
            "client 1 untouched"
        );
        press(&mut front, '[');
        let down = press(&mut front, '[');
        assert!(down.contains("input packets 20/s"), "{down}");
        assert!(down.contains("one every 3 ticks = 50 ms"), "{down}");
        assert_eq!(
            press(&mut front, 'K'),
            " dial: snapshot rate = 20 Hz ([ ] turn it)"
        );
    }
}
