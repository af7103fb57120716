//! `netarena replay FILE` in the terminal: the arena and HUD as the player saw them,
//! frame by frame, with the timeline strip under them.
//!
//! Replay's keys are defined once, in `BINDINGS` (the binding table's, with its rule that
//! Esc closes the `?` box before it quits): the key handler (`control::on_key`, the
//! one a lab's recording is played with too), the `?` help box and the hints on the
//! combat line all read that table. Ctrl-C quits too (the shell's,
//! as in every screen).
#![doc(hidden)] // Public for the binary, tests or fuzz targets: see the crate docs.

use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph};

use super::control::{MESSAGE_SHOWN, Playing, Shown, Viewer};
use super::keys::{BINDINGS, hints};
use super::player::Player;
use crate::client::Switches;
use crate::client::netcode::session::{ClientSession, DrawnFrom};
use crate::client::shell::Shell;
use crate::client::shell::interactive::Outcome;
use crate::sim::map::CELL;
use crate::ui::timeline::{
    AT_SNAPSHOT_LEGEND, CorrectionPaths, LEGEND, PATHS_LEGEND, TIMELINE_ROWS, TimelineView,
    draw_correction_paths, draw_timeline,
};
use crate::ui::{self, Theme};

/// A rail shot's verdict stays on the status line this long.
const VERDICT_SHOWN: Duration = Duration::from_secs(3);
/// A correction's paths stay drawn this long after it (replay time).
const PATHS_SHOWN: Duration = Duration::from_secs(2);

/// Shows the recording at `path` until `q`, Ctrl-C or a signal.
pub fn run(path: &Path, theme: Theme, stop: &AtomicBool) -> anyhow::Result<Outcome> {
    let loaded = Instant::now();
    let player = Player::load(path)?;
    let message = format!("loaded in {} ms", loaded.elapsed().as_millis());
    let mut viewer = Viewer::new(&player, Instant::now(), message);
    viewer.theme = theme;
    let mut shell = Shell::enter(stop, None)?;
    shell.run(&mut Playing(Replay { player, viewer }))
}

/// A client's replay as the one replay screen shows it.
struct Replay {
    player: Player,
    viewer: Viewer,
}

impl Shown for Replay {
    type Replay = Player;

    fn parts(&mut self) -> (&mut Player, &mut Viewer) {
        (&mut self.player, &mut self.viewer)
    }

    fn viewer(&self) -> &Viewer {
        &self.viewer
    }

    fn draw(&self, frame: &mut Frame, _fps: f64) {
        render(frame, &self.player, &self.viewer);
    }
}

/// The arena and HUD as recorded (the FPS the recorded one at the replay time), and
/// the timeline strip under them.
fn render(f: &mut Frame, player: &Player, v: &Viewer) {
    let replayer = player.replayer();
    let mut view = replayer
        .driver()
        .replay_view(replayer.instant(), player.recorded_fps());
    view.theme = v.theme;
    view.explanation = dial_change(replayer.dialed(), player.at());
    let paths = correction_paths(player);
    let area = f.area();
    let rows = TIMELINE_ROWS.min(area.height);
    let top = Rect::new(area.x, area.y, area.width, area.height - rows);
    ui::draw_in_keyed(f, top, &view, &hints());
    if let Some(p) = &paths {
        draw_correction_paths(f.buffer_mut(), top, &view, p);
    }
    if v.help {
        draw_help(f, top);
    }
    let strip = Rect::new(area.x, top.bottom(), area.width, rows);
    let (slots, cursor) = player.timeline(TimelineView::columns(area.width));
    let timeline = TimelineView {
        slots,
        cursor,
        status: status(player, v, usize::from(area.width)),
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
    } else if !s.remotes_sampled() {
        AT_SNAPSHOT_LEGEND
    } else {
        LEGEND
    }
}

/// The bottom line for a dial turned in the recording at most [`MESSAGE_SHOWN`] before
/// `at` (replay time): the replay turned it at the same moment.
fn dial_change(dialed: Option<(Duration, &str)>, at: Duration) -> Option<String> {
    let (when, text) = dialed?;
    (at.saturating_sub(when) < MESSAGE_SHOWN).then(|| {
        format!(
            "dial turned at {} (recorded, replayed): {text}",
            clock(when)
        )
    })
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

/// The `?` box: every binding of [`BINDINGS`], centred on `area`.
fn draw_help(f: &mut Frame, area: Rect) {
    let label_width = BINDINGS.iter().map(|b| b.label.chars().count()).max();
    let label_width = label_width.unwrap_or(0);
    let lines: Vec<Line> = BINDINGS
        .iter()
        .map(|b| {
            Line::from(vec![
                Span::styled(
                    format!("{:>label_width$}  ", b.label),
                    Style::new().add_modifier(Modifier::BOLD),
                ),
                Span::raw(b.does),
            ])
        })
        .collect();
    let text_width = lines.iter().map(Line::width).max().unwrap_or(0);
    let width = (text_width as u16 + 4).min(area.width);
    let height = (lines.len() as u16 + 2).min(area.height);
    let rect = Rect::new(
        area.x + (area.width - width) / 2,
        area.y + (area.height - height) / 2,
        width,
        height,
    );
    f.render_widget(Clear, rect);
    let block = Block::bordered().title(" replay keys (? to close) ");
    let inner = block.inner(rect);
    f.render_widget(block, rect);
    f.render_widget(
        Paragraph::new(lines),
        inner.inner(ratatui::layout::Margin::new(1, 0)),
    );
}

/// One part of the status line; the higher `drop`, the sooner it gives way.
struct Part {
    text: String,
    drop: u8,
}

/// The status line, at most `width` columns: the parts that fit, in order; when they
/// do not all fit the least important give way first, shortened by whole words (with
/// `…`) or left out, never cut mid-word.
fn status(player: &Player, v: &Viewer, width: usize) -> String {
    let state = if v.paused { "paused" } else { "playing" };
    let stats = player.replayer().session().stats();
    let mut parts = vec![
        Part {
            text: format!(" {state} {}x", v.speed.factor()),
            drop: 0,
        },
        Part {
            text: format!("  {} / {}", clock(player.at()), clock(player.duration())),
            drop: 0,
        },
        // Corrections so far of all, and the last one's size and cause.
        Part {
            text: format!("  fix {}/{}", stats.corrections, player.corrections().len()),
            drop: 2,
        },
    ];
    if stats.corrections > 0 {
        parts.push(Part {
            text: format!(
                ": {:.2} cells, {}",
                stats.last_correction_cells, stats.last_correction_cause
            ),
            drop: 5,
        });
    }
    // The newest rail shot's lag compensation verdict, for a few seconds after it.
    let replayer = player.replayer();
    let session = replayer.session();
    let recent = session.combat().rails.iter().rev().find(|(at, shot)| {
        shot.tick != 0 && replayer.instant().saturating_duration_since(*at) < VERDICT_SHOWN
    });
    if let Some((_, shot)) = recent {
        parts.push(Part {
            text: format!(" | {}", session.rail_verdict(shot, None)),
            drop: 6,
        });
    }
    if let Some(s) = player.what_if() {
        parts.push(Part {
            text: format!(" | what-if {}", describe(s)),
            drop: 1,
        });
    }
    if let Some(e) = player.stopped() {
        parts.push(Part {
            text: format!(" | {e}; replaying up to there"),
            drop: 4,
        });
    }
    if !v.message.is_empty() {
        parts.push(Part {
            text: format!(" | {}", v.message),
            drop: 3,
        });
    }
    fit_parts(parts, width)
}

/// The parts joined, within `width` columns (see [`status`]).
fn fit_parts(mut parts: Vec<Part>, width: usize) -> String {
    let len = |parts: &[Part]| parts.iter().map(|p| p.text.chars().count()).sum::<usize>();
    while len(&parts) > width {
        // The least important, the later of equals.
        let Some(i) = (0..parts.len()).max_by_key(|&i| (parts[i].drop, i)) else {
            break;
        };
        let over = len(&parts) - width;
        match shortened(
            &parts[i].text,
            parts[i].text.chars().count().saturating_sub(over),
        ) {
            Some(short) if parts[i].drop > 0 => parts[i].text = short,
            _ => {
                parts.remove(i);
            }
        }
    }
    parts.into_iter().map(|p| p.text).collect()
}

/// `text`'s first words and `…`, within `room` columns, if at least two words fit.
fn shortened(text: &str, room: usize) -> Option<String> {
    let mut out = String::new();
    let mut words = 0;
    for word in text.split_inclusive(' ') {
        let trimmed = word.trim_end();
        if out.chars().count() + trimmed.chars().count() + 1 > room {
            break;
        }
        out.push_str(word);
        words += usize::from(!trimmed.is_empty() && trimmed != "|");
    }
    let out = out.trim_end();
    (words >= 2).then(|| format!("{out}…"))
}

/// Switches as the HUD writes them: `+` on, `-` off.
fn describe(s: Switches) -> String {
    let on = |b: bool| if b { '+' } else { '-' };
    format!(
        "{}pred {}rec {}int {}ext {}smo",
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
#[path = "screen_tests.rs"]
mod tests;
