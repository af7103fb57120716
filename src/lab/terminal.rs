//! The lab in a terminal: two people at one keyboard (client 1 on WASD and space,
//! client 2 on the arrows and Enter), per-client switches for the client chosen with
//! Tab, and the clock: `P` pauses, `.` steps one server tick, `<` `>` change the speed.
//! Real time drives the virtual clock, scaled by the speed, unless paused.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::Context;
use ratatui::crossterm::event::{self, Event, KeyCode, KeyEvent, KeyModifiers};
use ratatui::crossterm::terminal::{BeginSynchronizedUpdate, EndSynchronizedUpdate};
use ratatui::crossterm::{execute, queue};

use super::headless::{self, Recording};
use super::speed::Speed;
use super::view::{self, Controls};
use super::{Lab, LabConfig};
use crate::client::input::{Action, Keys};
use crate::client::interactive::Outcome;
use crate::client::terminal::{self, Releases, Tui};
use crate::ui;

/// How long an explanation stays on the bottom line.
const MESSAGE_SECS: Duration = Duration::from_secs(2);
/// The most virtual time one frame may advance: after a stall, time resumes, it does
/// not race to catch up.
const MAX_FRAME_STEP: Duration = Duration::from_millis(100);
/// What the bottom line says when there is nothing to explain.
const REMINDER: &str = " client 1: WASD space 1/2 · client 2: arrows Enter 9/0 · Tab: choose client · P pause · . tick · < > speed · ? help · q quit";

/// The front end's state: keys held, the clock, and what to explain.
struct Front {
    /// Client 1's keys and client 2's.
    players: [Keys; 2],
    /// Maps the switch keys to actions for the selected client.
    switch_keys: Keys,
    selected: usize,
    speed: Speed,
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
        switch_keys: Keys::new(enhanced),
        selected: 0,
        speed: Speed::default(),
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
                .mul_f64(front.speed.factor());
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
    let message = match &front.message {
        Some((at, text)) if real < *at + MESSAGE_SECS => text.as_str(),
        _ => REMINDER,
    };
    let controls = Controls {
        selected: front.selected,
        speed: front.speed.factor(),
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

/// One key. True when it quits.
fn on_key(lab: &mut Lab, front: &mut Front, key: KeyEvent, real: Instant) -> bool {
    if key.modifiers.contains(KeyModifiers::CONTROL) {
        return key.code == KeyCode::Char('c');
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
            front.speed = front.speed.slower();
            return false;
        }
        KeyCode::Char('>') => {
            front.speed = front.speed.faster();
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
