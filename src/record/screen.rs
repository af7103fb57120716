//! `netarena replay FILE` in the terminal: the arena and HUD as the player saw them,
//! frame by frame, with the timeline strip under them.
//!
//! Keys: Space pause/resume; `.` `,` one frame forward/back; `]` `[` one tick
//! forward/back; Right/Left ±1 s; Up/Down ±10 s; `+` `-` speed (0.1x to 4x); `c` `C`
//! next/previous correction; what-if `p` `r` `i` `x` `m` `g` (prediction,
//! reconciliation, interpolation, extrapolation, smoothing, ghosts), `0` as recorded;
//! `q` quits.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::Context;
use ratatui::Frame;
use ratatui::crossterm::event::{self, Event, KeyCode, KeyModifiers};
use ratatui::layout::Rect;

use super::player::Player;
use crate::client::Switches;
use crate::client::session::{ClientSession, DrawnFrom};
use crate::client::terminal::{self, Releases, Tui};
use crate::sim::map::CELL;
use crate::ui;
use crate::ui::timeline::{
    AT_SNAPSHOT_LEGEND, CorrectionPaths, LEGEND, PATHS_LEGEND, TIMELINE_ROWS, TimelineView,
    draw_correction_paths, draw_timeline,
};

const SPEEDS: [f64; 7] = [0.1, 0.25, 0.5, 1.0, 1.5, 2.0, 4.0];
/// A correction's paths stay drawn this long after it (replay time).
const PATHS_SHOWN: Duration = Duration::from_secs(2);

/// The viewer's own state besides the player.
struct Viewer {
    paused: bool,
    speed: usize,
    /// Wall time and replay time when play last (re)started.
    anchor: (Instant, Duration),
    message: String,
}

impl Viewer {
    /// Playing from where `player` stands (a clip's keyframe, not time 0) from `now`.
    fn new(player: &Player, now: Instant, message: String) -> Viewer {
        Viewer {
            paused: false,
            speed: 3,
            anchor: (now, player.at()),
            message,
        }
    }

    /// Plays on from the replay time `player` stands at now (after a seek or a re-run).
    fn restart(&mut self, player: &Player) {
        self.anchor = (Instant::now(), player.at());
    }

    fn replay_time(&self, now: Instant) -> Duration {
        if self.paused {
            return self.anchor.1;
        }
        self.anchor.1
            + now
                .duration_since(self.anchor.0)
                .mul_f64(SPEEDS[self.speed])
    }
}

pub fn run(path: &Path, stop: &AtomicBool) -> anyhow::Result<()> {
    let loaded = Instant::now();
    let mut player = Player::load(path)?;
    let message = match player.stopped() {
        Some(e) => format!("{e}: replaying up to there"),
        None => format!("loaded in {} ms", loaded.elapsed().as_millis()),
    };
    let mut viewer = Viewer::new(&player, Instant::now(), message);
    let (mut tui, _enhanced, _guard) = terminal::enter().context("cannot set up the terminal")?;
    while !stop.load(Ordering::Relaxed) {
        play(&mut player, &mut viewer, Instant::now());
        draw(&mut tui, &player, &viewer)?;
        if event::poll(Duration::from_millis(15))? {
            let key = match terminal::next_event(&mut tui, Releases::Drop)? {
                Some(Event::Key(key)) => key,
                // A resize, or the resume after Ctrl-Z: go on from where the replay
                // stood, not from where the wall clock has moved it.
                Some(Event::Resize(..)) => {
                    viewer.anchor = (Instant::now(), player.at());
                    continue;
                }
                _ => continue,
            };
            if key.code == KeyCode::Char('q')
                || key.code == KeyCode::Esc
                || (key.modifiers.contains(KeyModifiers::CONTROL) && key.code == KeyCode::Char('c'))
            {
                break;
            }
            on_key(&mut player, &mut viewer, key.code)?;
        }
    }
    Ok(())
}

/// Applies the records up to the replay time at `now`; pauses at the end.
fn play(player: &mut Player, v: &mut Viewer, now: Instant) {
    if v.paused {
        return;
    }
    let t = v.replay_time(now).min(player.duration());
    player.advance_to(t);
    if t >= player.duration() {
        v.paused = true;
        v.anchor = (now, t);
    }
}

fn on_key(player: &mut Player, v: &mut Viewer, code: KeyCode) -> anyhow::Result<()> {
    let now = Instant::now();
    let at = player.at();
    let secs = |s: u64| Duration::from_secs(s);
    let mut pause = true;
    match code {
        KeyCode::Char(' ') => {
            v.paused = !v.paused;
            v.anchor = (now, at);
            return Ok(());
        }
        KeyCode::Char('.') => player.step_frame(true),
        KeyCode::Char(',') => player.step_frame(false),
        KeyCode::Char(']') => player.seek(at + player.tick()),
        KeyCode::Char('[') => player.seek(at.saturating_sub(player.tick())),
        KeyCode::Right | KeyCode::Left | KeyCode::Up | KeyCode::Down => {
            let t = match code {
                KeyCode::Right => at + secs(1),
                KeyCode::Left => at.saturating_sub(secs(1)),
                KeyCode::Up => at + secs(10),
                _ => at.saturating_sub(secs(10)),
            };
            let started = Instant::now();
            player.seek(t.min(player.duration()));
            v.message = format!("seek took {:.1} ms", started.elapsed().as_secs_f64() * 1e3);
            pause = v.paused;
        }
        KeyCode::Char('+' | '=') => {
            v.speed = (v.speed + 1).min(SPEEDS.len() - 1);
            pause = v.paused;
        }
        KeyCode::Char('-') => {
            v.speed = v.speed.saturating_sub(1);
            pause = v.paused;
        }
        KeyCode::Char('c') | KeyCode::Char('C') => {
            if !player.jump_correction(code == KeyCode::Char('c')) {
                // Nothing found: nothing moved, so playback goes on as it was.
                v.message = "no more corrections that way".into();
                pause = v.paused;
            }
        }
        KeyCode::Char(c) => return what_if(player, v, c),
        _ => return Ok(()),
    }
    v.paused = pause;
    v.anchor = (now, player.at());
    Ok(())
}

/// A what-if key: re-runs the recording with one switch changed.
fn what_if(player: &mut Player, v: &mut Viewer, key: char) -> anyhow::Result<()> {
    let mut s = player.switches();
    match key {
        'p' => s = s.with_prediction(!s.prediction),
        'r' => s.reconciliation = !s.reconciliation && s.prediction,
        'i' => s.interpolation = !s.interpolation,
        'x' => s.extrapolation = !s.extrapolation,
        'm' => s.smoothing = !s.smoothing,
        'g' => s.ghosts = s.ghosts.next(),
        '0' => {
            player.set_what_if(None)?;
            v.message = "switches as recorded".into();
            v.restart(player);
            return Ok(());
        }
        _ => return Ok(()),
    }
    let started = Instant::now();
    player.set_what_if(Some(s))?;
    v.message = format!("re-simulated in {} ms", started.elapsed().as_millis());
    v.restart(player);
    Ok(())
}

fn draw(tui: &mut Tui, player: &Player, v: &Viewer) -> anyhow::Result<()> {
    tui.draw(|f| render(f, player, v))?;
    Ok(())
}

/// The arena and HUD as recorded (the FPS the recorded one at the replay time), and
/// the timeline strip under them.
fn render(f: &mut Frame, player: &Player, v: &Viewer) {
    let replayer = player.replayer();
    let view = replayer
        .driver()
        .replay_view(replayer.instant(), player.recorded_fps());
    let paths = correction_paths(player);
    let area = f.area();
    let rows = TIMELINE_ROWS.min(area.height);
    let top = Rect::new(area.x, area.y, area.width, area.height - rows);
    ui::draw_in(f, top, &view);
    if let Some(p) = &paths {
        draw_correction_paths(f.buffer_mut(), top, &view, p);
    }
    let strip = Rect::new(area.x, top.bottom(), area.width, rows);
    let (slots, cursor) = player.timeline(TimelineView::columns(area.width));
    let timeline = TimelineView {
        slots,
        cursor,
        status: status(player, v),
        caption: caption(player.drawn_from(), player.tick()),
        legend: legend(paths.is_some(), player.switches()).into(),
    };
    draw_timeline(f.buffer_mut(), strip, &timeline);
}

/// The legend line: the correction paths' marks while they show, the `draw` row's
/// glyphs while remote players stand at their newest snapshot, else the usual.
fn legend(paths: bool, s: Switches) -> &'static str {
    if paths {
        PATHS_LEGEND
    } else if !(s.interpolation || s.extrapolation) {
        AT_SNAPSHOT_LEGEND
    } else {
        LEGEND
    }
}

/// The paths of the newest correction (or server decision) at most [`PATHS_SHOWN`]
/// before the replay time, in cells.
pub(crate) fn correction_paths(player: &Player) -> Option<CorrectionPaths> {
    paths_near(player.replayer().session(), player.at())
}

/// The paths of `session`'s newest correction at most [`PATHS_SHOWN`] before `at`.
fn paths_near(session: &ClientSession, at: Duration) -> Option<CorrectionPaths> {
    let now = at.as_secs_f64();
    let (_, path) = session
        .correction_paths()
        .rev()
        .find(|(at, _)| *at <= now + 1e-9 && now - at <= PATHS_SHOWN.as_secs_f64())?;
    let cells = |points: &[(i32, i32)]| {
        let c = f64::from(CELL);
        points
            .iter()
            .map(|&(x, y)| (f64::from(x) / c, f64::from(y) / c))
            .collect()
    };
    Some(CorrectionPaths {
        predicted: cells(&path.predicted),
        server: cells(&path.server),
    })
}

/// What the frame at the replay time draws remote players from, in words.
pub(crate) fn caption(drawn: Option<DrawnFrom>, tick: Duration) -> String {
    match drawn {
        Some(DrawnFrom::Between { from, to, f }) => {
            format!("interp {from}→{to} ({:.0}%)", f * 100.0)
        }
        Some(DrawnFrom::Past { newest, ticks }) => {
            let ms = ticks * tick.as_secs_f64() * 1000.0;
            format!("{ms:.0} ms past snapshot {newest}")
        }
        Some(DrawnFrom::Newest(t)) => format!("at snapshot {t}"),
        None => "no snapshot yet".into(),
    }
}

fn status(player: &Player, v: &Viewer) -> String {
    let state = if v.paused { "paused" } else { "playing" };
    let what_if = match player.what_if() {
        Some(s) => format!(" | what-if (re-simulated): {}", describe(s)),
        None => String::new(),
    };
    let stats = player.replayer().session().stats();
    // Corrections so far of all, and the last one's size and cause.
    let last = if stats.corrections > 0 {
        format!(
            ": {:.2} cells, {}",
            stats.last_correction_cells, stats.last_correction_cause
        )
    } else {
        String::new()
    };
    format!(
        " {state} {}x  {} / {}  fix {}/{}{last}{what_if} | {}",
        SPEEDS[v.speed],
        clock(player.at()),
        clock(player.duration()),
        stats.corrections,
        player.corrections().len(),
        v.message
    )
}

fn describe(s: Switches) -> String {
    let on = |b: bool| if b { "on" } else { "off" };
    format!(
        "pred {} recon {} interp {} extrap {} smooth {}",
        on(s.prediction),
        on(s.reconciliation),
        on(s.interpolation),
        on(s.extrapolation),
        on(s.smoothing)
    )
}

fn clock(d: Duration) -> String {
    let ms = d.as_millis();
    format!("{:02}:{:02}.{:03}", ms / 60_000, ms / 1000 % 60, ms % 1000)
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use ratatui::Terminal;
    use ratatui::backend::TestBackend;

    use super::*;
    use crate::client::app::App;
    use crate::client::driver::Driver;
    use crate::net::conditioner::Conditions;
    use crate::net::delta;
    use crate::net::protocol::{PlayerSnap, ServerMsg, Snapshot};
    use crate::sim::map::Map;
    use crate::sim::world::{Buttons, PlayerState};

    fn snapshot(tick: u32, ack_seq: u32, state: PlayerState) -> ServerMsg {
        let snap = Snapshot {
            tick,
            ack_seq,
            players: vec![PlayerSnap { id: 0, state }],
            ..Default::default()
        };
        ServerMsg::Snapshot(delta::encode(&snap, None))
    }

    /// A clip the way F8 saves one: a keyframe taken halfway through 6 s of a headless
    /// session (at about 3 s), then the records after it.
    fn clip() -> Player {
        use super::super::tests::{Live, clip_from_half, read};
        use crate::client::tap::LoopKind;
        let mut live = Live::new(2, LoopKind::Headless);
        live.run(Duration::from_secs(6));
        let (start, records) = read(&live.finish());
        let (start, records) = read(&clip_from_half(&start, &records));
        Player::new(start, records, None).unwrap()
    }

    /// Replaying a clip plays from its keyframe at once: half a second of wall time
    /// later the replay is half a second further on, not standing at the keyframe
    /// until the wall clock has caught up with it.
    #[test]
    fn a_clip_plays_on_from_its_keyframe_at_once() {
        let mut player = clip();
        let from = player.at();
        assert!(from > Duration::from_secs(2), "{from:?}");
        let t0 = Instant::now();
        let mut v = Viewer::new(&player, t0, String::new());
        play(&mut player, &mut v, t0 + Duration::from_millis(500));
        let moved = player.at() - from;
        assert!(moved > Duration::from_millis(450), "{moved:?}");
        // After a what-if re-run and a speed change it plays on from there too.
        what_if(&mut player, &mut v, 'i').unwrap();
        on_key(&mut player, &mut v, KeyCode::Char('+')).unwrap();
        let at = player.at();
        play(
            &mut player,
            &mut v,
            Instant::now() + Duration::from_millis(200),
        );
        assert!(player.at() - at > Duration::from_millis(250), "1.5x");
    }

    /// `c` with no correction that way leaves playback as it was (playing or paused);
    /// one found pauses on it.
    #[test]
    fn a_failed_correction_jump_does_not_pause() {
        let mut player = clip();
        let mut v = Viewer::new(&player, Instant::now(), String::new());
        on_key(&mut player, &mut v, KeyCode::Char('C')).unwrap();
        assert!(!v.paused && v.message.contains("no more corrections"));
        v.paused = true;
        on_key(&mut player, &mut v, KeyCode::Char('C')).unwrap();
        assert!(v.paused);
    }

    /// The replay HUD's FPS is the recorded frame rate (a headless recording: a frame
    /// per command tick, 60), not 0.
    #[test]
    fn the_replay_hud_shows_the_recorded_frame_rate() {
        let mut player = clip();
        player.seek(player.at() + Duration::from_secs(2));
        let v = Viewer::new(&player, Instant::now(), String::new());
        let mut terminal = Terminal::new(TestBackend::new(100, 34)).unwrap();
        terminal.draw(|f| render(f, &player, &v)).unwrap();
        let screen: String = (terminal.backend().buffer().content().iter())
            .map(|c| c.symbol())
            .collect();
        let fps = screen.split("FPS").nth(1).expect("an FPS field");
        let fps: f64 = fps.split_whitespace().next().unwrap().parse().unwrap();
        assert!((59.0..=61.0).contains(&fps), "FPS {fps}");
    }

    /// The server puts us a row lower than we predicted (a push we could not know of):
    /// the replay draws our predicted path and the server's, apart.
    #[test]
    fn a_forced_correction_draws_the_predicted_and_the_servers_path() {
        let t0 = Instant::now();
        let ms = |n: u64| t0 + Duration::from_millis(n);
        let map = Map::builtin("duel").unwrap();
        let (x, y) = map.spawns()[0];
        let spawn = PlayerState::at_cell(x, y);
        let app = App::new(Switches::default(), Conditions::default());
        let mut d = Driver::new(ClientSession::on_duel(0, t0), app, t0);
        d.receive(t0, snapshot(1, 0, spawn), 100);
        for n in 0..=170 {
            d.play(ms(n), Buttons::RIGHT, |_| {});
        }
        assert!(d.session().latest_seq() >= 10);
        let below = PlayerState::at_cell(x, y + 1);
        d.receive(ms(171), snapshot(4, 3, below), 100);
        assert_eq!(d.session().stats().corrections, 1);
        let paths = paths_near(d.session(), Duration::from_millis(171)).expect("paths");
        assert_ne!(paths.predicted, paths.server, "{paths:?}");
        assert!(paths.server.iter().all(|p| p.1 > paths.predicted[0].1));
        assert_eq!(paths_near(d.session(), Duration::from_millis(2200)), None);

        // Drawn once the correction's own flash (an `x` and a `+`) has gone.
        let view = d.replay_view(ms(800), 0.0);
        let draw = |with: Option<&CorrectionPaths>| {
            let mut terminal = Terminal::new(TestBackend::new(100, 30)).unwrap();
            terminal
                .draw(|f| {
                    let area = f.area();
                    ui::draw_in(f, area, &view);
                    if let Some(p) = with {
                        draw_correction_paths(f.buffer_mut(), area, &view, p);
                    }
                })
                .unwrap();
            terminal.backend().buffer().clone()
        };
        let (plain, marked) = (draw(None), draw(Some(&paths)));
        // What the paths added: both marks, and nothing over the player.
        let added: String = plain
            .content()
            .iter()
            .zip(marked.content())
            .filter(|(a, b)| a.symbol() != b.symbol())
            .map(|(_, b)| b.symbol())
            .collect();
        assert!(added.contains('•'), "predicted marks: {added}");
        assert!(added.contains('+'), "server marks: {added}");
        assert!(!added.contains('@') && marked.content().iter().any(|c| c.symbol() == "@"));
    }
}
