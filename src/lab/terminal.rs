//! The lab in a terminal: two people at one keyboard (client 1 on WASD and space,
//! client 2 on the arrows and Enter), per-client switches for the client chosen with
//! Tab, and the clock: `P` pauses, `.` steps one server tick, `<` `>` change the speed.
//! Real time drives the virtual clock, scaled by the speed, unless paused.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::Context;
use ratatui::crossterm::event::{self, Event, KeyCode, KeyEvent};
use ratatui::crossterm::terminal::{BeginSynchronizedUpdate, EndSynchronizedUpdate};
use ratatui::crossterm::{execute, queue};

use super::headless::{self, Recording};
use super::view::{self, Controls};
use super::{Lab, LabConfig};
use crate::client::input::{Action, Keys};
use crate::client::interactive::Outcome;
use crate::client::terminal::{self, Releases, Tui};
use crate::ui;
use crate::ui::keys::{self, Lab as LabKey};

/// The speeds `<` and `>` step through.
const SPEEDS: [f64; 6] = [0.1, 0.25, 0.5, 1.0, 1.5, 2.0];
/// How long an explanation stays on the bottom line.
const MESSAGE_SECS: Duration = Duration::from_secs(2);
/// The most virtual time one frame may advance: after a stall, time resumes, it does
/// not race to catch up.
const MAX_FRAME_STEP: Duration = Duration::from_millis(100);

/// The front end's state: keys held, the clock, and what to explain.
struct Front {
    /// Client 1's keys and client 2's.
    players: [Keys; 2],
    selected: usize,
    speed: usize,
    paused: bool,
    help: bool,
    message: Option<(Instant, String)>,
    fps: Fps,
    theme: ui::Theme,
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
    let (mut tui, enhanced, _guard) = terminal::enter().context("cannot set up the terminal")?;
    let size = tui.size()?;
    for (n, r) in recordings.into_iter().enumerate() {
        lab.record(n, r.tap, Some((size.width, size.height)))?;
    }
    let front = Front {
        players: [Keys::new(enhanced), Keys::new(enhanced)],
        selected: 0,
        speed: 3,
        paused: false,
        help: false,
        message: None,
        fps: Fps::default(),
        theme,
    };
    let outcome = play(&mut tui, &mut lab, front, fps_cap, stop);
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

/// The loop: keys, the clock, frames.
fn play(
    tui: &mut Tui,
    lab: &mut Lab,
    mut front: Front,
    fps_cap: Option<u32>,
    stop: &AtomicBool,
) -> anyhow::Result<Outcome> {
    let period = fps_cap.map(|f| Duration::from_secs(1) / f.max(1));
    let mut last = Instant::now();
    let mut next_frame = last;
    loop {
        if stop.load(Ordering::Relaxed) {
            return Ok(Outcome::Stopped);
        }
        let real = Instant::now();
        if read_keys(tui, lab, &mut front, real)? {
            return Ok(Outcome::Quit);
        }
        for (n, keys) in front.players.iter_mut().enumerate() {
            lab.hold(n, keys.buttons(real));
        }
        if !front.paused {
            let step = (real - last)
                .min(MAX_FRAME_STEP)
                .mul_f64(SPEEDS[front.speed]);
            let until = lab.now() + step;
            lab.run_until(until);
        }
        last = real;
        // With a cap, a frame is drawn only when one is due; keys wake the loop between.
        if let Some(period) = period {
            if real < next_frame {
                event::poll(next_frame - real)?;
                continue;
            }
            next_frame = (next_frame + period).max(real);
        }
        lab.frame();
        draw(tui, lab, &mut front, real)?;
    }
}

fn draw(tui: &mut Tui, lab: &Lab, front: &mut Front, real: Instant) -> anyhow::Result<()> {
    // The bottom line, when there is nothing to explain, reminds of the keys.
    let reminder;
    let message = match &front.message {
        Some((at, text)) if real < *at + MESSAGE_SECS => text.as_str(),
        _ => {
            reminder = format!(" {}", keys::hints(keys::LAB).join(" · "));
            reminder.as_str()
        }
    };
    let controls = Controls {
        selected: front.selected,
        speed: SPEEDS[front.speed],
        paused: front.paused,
        fps: front.fps.value,
        message,
        help: front.help,
        theme: front.theme,
    };
    let view = view::build(lab, &controls);
    if !terminal::may_draw() {
        std::thread::park();
    }
    queue!(tui.backend_mut(), BeginSynchronizedUpdate)?;
    tui.draw(|f| ui::lab::draw(f, &view))?;
    execute!(tui.backend_mut(), EndSynchronizedUpdate)?;
    front.fps.frame(real);
    Ok(())
}

/// Every pending terminal event. True when the user quit.
fn read_keys(
    tui: &mut Tui,
    lab: &mut Lab,
    front: &mut Front,
    real: Instant,
) -> anyhow::Result<bool> {
    while let Some(ev) = terminal::next_event(tui, Releases::Keep)? {
        match ev {
            Event::Key(key) if on_key(lab, front, key, real) => return Ok(true),
            Event::Resize(w, h) => {
                tui.autoresize()?;
                lab.note_size(w, h);
                // Also after a suspend, when releases of held keys went unseen.
                front.players.iter_mut().for_each(Keys::release_all);
            }
            _ => {}
        }
    }
    Ok(false)
}

/// One key, as the binding table's lab rows (`ui::keys::LAB`) say. True when it quits.
fn on_key(lab: &mut Lab, front: &mut Front, key: KeyEvent, real: Instant) -> bool {
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
        Some(LabKey::Choose) => {
            front.selected = (front.selected + 1) % lab.client_count();
            let text = format!(" the switch keys now act on client {}", front.selected + 1);
            front.message = Some((real, text));
            return false;
        }
        Some(LabKey::Pause) => {
            front.paused = !front.paused;
            return false;
        }
        Some(LabKey::Step) => {
            if front.paused {
                lab.step_tick();
            }
            return false;
        }
        Some(LabKey::Speed(false)) => {
            front.speed = front.speed.saturating_sub(1);
            return false;
        }
        Some(LabKey::Speed(true)) => {
            front.speed = (front.speed + 1).min(SPEEDS.len() - 1);
            return false;
        }
        Some(LabKey::Help) => {
            front.help = !front.help;
            return false;
        }
        Some(LabKey::Switch(a)) => (front.selected, a),
    };
    lab.act(client, action);
    if let Some(text) = super::explain::explain(lab, client, action) {
        front.message = Some((real, text));
    }
    false
}

/// Frames per second over the last half second.
#[derive(Default)]
struct Fps {
    window_start: Option<Instant>,
    frames: u32,
    value: f64,
}

impl Fps {
    fn frame(&mut self, now: Instant) {
        let start = *self.window_start.get_or_insert(now);
        self.frames += 1;
        let elapsed = now.duration_since(start).as_secs_f64();
        if elapsed >= 0.5 {
            self.value = f64::from(self.frames) / elapsed;
            self.frames = 0;
            self.window_start = Some(now);
        }
    }
}
