//! The lab in a terminal: two people at one keyboard (client 1 on WASD and space,
//! client 2 on the arrows and Enter), per-client switches for the client chosen with
//! Tab, and the clock: `P` pauses, `.` steps one server tick, `<` `>` change the speed.
//! Real time drives the virtual clock, scaled by the speed, unless paused.
#![doc(hidden)] // Public for the binary, tests or fuzz targets: see the crate docs.

use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use ratatui::Frame;
use ratatui::crossterm::event::{self, KeyCode, KeyEvent, KeyModifiers};

use super::headless::{self, Recording};
use super::view::{self, Controls};
use super::{Lab, LabConfig};
use crate::client::input::{Action, Keys};
use crate::client::interactive::Outcome;
use crate::client::shell::{Flow, Modal, Screen, Shell};
use crate::client::terminal::Releases;
use crate::ui;

/// The speeds `<` and `>` step through.
const SPEEDS: [f64; 6] = [0.1, 0.25, 0.5, 1.0, 1.5, 2.0];
/// How long an explanation stays on the bottom line.
const MESSAGE_SECS: Duration = Duration::from_secs(2);
/// The most virtual time one frame may advance: after a stall, time resumes, it does
/// not race to catch up.
const MAX_FRAME_STEP: Duration = Duration::from_millis(100);
/// What the bottom line says when there is nothing to explain.
const REMINDER: &str = " client 1: WASD space 1/2 · client 2: arrows Enter 9/0 · Tab: choose client · P pause · . tick · < > speed · ? help · q quit";

/// The front end's state: the lab, keys held, the clock, and what to explain.
struct Front<'a> {
    lab: &'a mut Lab,
    /// Client 1's keys and client 2's.
    players: [Keys; 2],
    /// Maps the switch keys to actions for the selected client.
    switch_keys: Keys,
    selected: usize,
    speed: usize,
    paused: bool,
    help: bool,
    message: Option<(Instant, String)>,
    theme: ui::Theme,
    /// The real time the virtual clock was last advanced at.
    last: Instant,
}

/// Runs the lab in this terminal until `q` or `stop`. Client 1's inputs are recorded
/// by the first of `recordings`, client 2's by the second, and so on; at the end each
/// recording is finished and, with `report`, the lab's report is written there.
pub fn run(
    config: &LabConfig,
    fps_cap: Option<u32>,
    theme: ui::Theme,
    stop: &AtomicBool,
    recordings: Vec<Recording>,
    report: Option<&Path>,
) -> anyhow::Result<Outcome> {
    let mut lab = Lab::new(config, Instant::now())?;
    let mut shell = Shell::enter(stop, fps_cap)?;
    let size = shell.size()?;
    for (n, r) in recordings.into_iter().enumerate() {
        lab.record(n, r.tap, Some(size))?;
    }
    let enhanced = shell.enhanced();
    let mut front = Front {
        lab: &mut lab,
        players: [Keys::new(enhanced), Keys::new(enhanced)],
        switch_keys: Keys::new(enhanced),
        selected: 0,
        speed: 3,
        paused: false,
        help: false,
        message: None,
        theme,
        last: Instant::now(),
    };
    let outcome = shell.run(&mut front);
    drop(shell);
    let recorded = lab.finish_recordings();
    if let Some(path) = report {
        let ended = match &outcome {
            Ok(Outcome::Quit) => "quit".to_owned(),
            Ok(_) => "stopped by a signal".to_owned(),
            Err(e) => format!("{e:#}"),
        };
        headless::write(
            path,
            &headless::ended_report(&lab, config.server.seed, &ended),
        )?;
    }
    // A recording that stopped is an error, though the lab went on.
    outcome.and_then(|o| recorded.map(|()| o))
}

impl Screen for Front<'_> {
    fn releases(&self) -> Releases {
        Releases::Keep
    }

    fn on_key(&mut self, key: &KeyEvent, now: Instant) -> anyhow::Result<Flow> {
        Ok(if on_key(self, *key, now) {
            Flow::Quit
        } else {
            Flow::Go
        })
    }

    fn on_resize(&mut self, w: u16, h: u16, _now: Instant) {
        self.lab.note_size(w, h);
        // Also after a suspend, when releases of held keys went unseen.
        self.players.iter_mut().for_each(Keys::release_all);
    }

    /// The held keys, then the virtual clock, scaled by the speed, unless paused.
    fn on_tick(&mut self, real: Instant, _modal: &mut Modal<'_>) -> anyhow::Result<Flow> {
        for (n, keys) in self.players.iter_mut().enumerate() {
            self.lab.hold(n, keys.buttons(real));
        }
        if !self.paused {
            let step = (real - self.last)
                .min(MAX_FRAME_STEP)
                .mul_f64(SPEEDS[self.speed]);
            let until = self.lab.now() + step;
            self.lab.run_until(until);
        }
        self.last = real;
        Ok(Flow::Go)
    }

    fn draw(&mut self, frame: &mut Frame, real: Instant, fps: f64) {
        self.lab.frame();
        let message = match &self.message {
            Some((at, text)) if real < *at + MESSAGE_SECS => text.as_str(),
            _ => REMINDER,
        };
        let controls = Controls {
            selected: self.selected,
            speed: SPEEDS[self.speed],
            paused: self.paused,
            fps,
            message,
            help: self.help,
            theme: self.theme,
        };
        let view = view::build(self.lab, &controls);
        ui::lab::draw(frame, &view);
    }

    fn in_motion(&self, _now: Instant) -> bool {
        !self.paused
    }
}

/// One key. True when it quits.
fn on_key(front: &mut Front<'_>, key: KeyEvent, real: Instant) -> bool {
    let lab = &mut *front.lab;
    // Ctrl-C is the shell's; no other Ctrl key means anything here.
    if key.modifiers.contains(KeyModifiers::CONTROL) {
        return false;
    }
    match key.code {
        KeyCode::Char('w' | 'a' | 's' | 'd' | 'W' | 'A' | 'S' | 'D' | ' ') => {
            front.players[0].handle(&key, real);
            return false;
        }
        KeyCode::Up | KeyCode::Down | KeyCode::Left | KeyCode::Right => {
            front.players[1].handle(&key, real);
            return false;
        }
        KeyCode::Enter => {
            // Client 2 fires with Enter: the same hold rules as space.
            let fire = KeyEvent::new_with_kind(KeyCode::Char(' '), key.modifiers, key.kind);
            front.players[1].handle(&fire, real);
            return false;
        }
        _ => {}
    }
    if key.kind == event::KeyEventKind::Release {
        return false;
    }
    let weapon = |n: usize, w: u8| (n, Action::SelectWeapon(w));
    let (client, action) = match key.code {
        KeyCode::Char('q') | KeyCode::Esc => return true,
        KeyCode::Char('1') => weapon(0, 0),
        KeyCode::Char('2') => weapon(0, 1),
        KeyCode::Char('9') => weapon(1, 0),
        KeyCode::Char('0') => weapon(1, 1),
        KeyCode::Tab => {
            front.selected = (front.selected + 1) % lab.client_count();
            let text = format!(" the switch keys now act on client {}", front.selected + 1);
            front.message = Some((real, text));
            return false;
        }
        KeyCode::Char('P') => {
            front.paused = !front.paused;
            return false;
        }
        KeyCode::Char('.') => {
            if front.paused {
                lab.step_tick();
            }
            return false;
        }
        KeyCode::Char('<' | ',') => {
            front.speed = front.speed.saturating_sub(1);
            return false;
        }
        KeyCode::Char('>') => {
            front.speed = (front.speed + 1).min(SPEEDS.len() - 1);
            return false;
        }
        KeyCode::Char('?') | KeyCode::F(1) => {
            front.help = !front.help;
            return false;
        }
        _ => match front.switch_keys.handle(&key, real) {
            Some(a) => (front.selected, a),
            None => return false,
        },
    };
    if matches!(action, Action::Quit | Action::OpenChat | Action::ToggleHelp) {
        return action == Action::Quit;
    }
    lab.act(client, action);
    if let Some(text) = super::explain::explain(lab, client, action) {
        front.message = Some((real, text));
    }
    false
}
