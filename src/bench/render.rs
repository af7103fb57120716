//! Frame rendering through the real pipeline (view, ratatui, crossterm backend, a
//! buffered writer, synchronized updates) into a byte-counting sink.

use std::io::{BufWriter, Write};
use std::time::{Duration, Instant};

use ratatui::backend::CrosstermBackend;
use ratatui::crossterm::terminal::{BeginSynchronizedUpdate, EndSynchronizedUpdate};
use ratatui::crossterm::{execute, queue};
use ratatui::layout::Rect;
use ratatui::{Terminal, TerminalOptions, Viewport};
use serde::Serialize;

use super::percentile_us;
use crate::net::codec::ByteCounter;
use crate::sim::combat::Weapon;
use crate::sim::map::{MAX_HEIGHT, MAX_WIDTH, Map};
use crate::ui::{
    self, Beam, CELL_COLS, CHROME_ROWS, CombatHud, DrawMode, Hud, LagSlice, RosterLine, Sprite,
    SpriteKind, StatsView, SwitchLights, View,
};

pub struct RenderOptions {
    pub width: u16,
    pub height: u16,
    pub players: u8,
    pub frames: u32,
    pub overlays: bool,
}

#[derive(Debug, Serialize)]
pub struct RenderResult {
    pub width: u16,
    pub height: u16,
    pub players: u8,
    pub frames: u32,
    pub fps: f64,
    pub frame_us_p50: f64,
    pub frame_us_p99: f64,
    pub floor_us_p50: f64,
    pub ratio_to_floor: f64,
    pub bytes_per_frame: f64,
    /// Bytes per frame when nothing changes: only the synchronized-update brackets.
    pub floor_bytes_per_frame: f64,
}

/// An open arena with pillars, as large as the terminal allows.
fn arena_for(width: u16, height: u16) -> anyhow::Result<Map> {
    let w = usize::from(width / CELL_COLS).clamp(5, MAX_WIDTH);
    let h = usize::from(height.saturating_sub(CHROME_ROWS)).clamp(5, MAX_HEIGHT);
    let mut text = String::with_capacity((w + 1) * h);
    for y in 0..h {
        for x in 0..w {
            let border = x == 0 || y == 0 || x == w - 1 || y == h - 1;
            let pillar = x % 6 == 3 && y % 4 == 2;
            text.push(if border || pillar {
                '#'
            } else if x % 13 == 1 && y % 9 == 1 {
                'S'
            } else {
                '.'
            });
        }
        text.push('\n');
    }
    Ok(Map::parse("bench", &text)?)
}

/// Players circling the arena, each at its own phase; `t` in frames.
fn sprites(map: &Map, players: u8, t: u32, overlays: bool) -> Vec<Sprite> {
    let (w, h) = (f64::from(map.width()), f64::from(map.height()));
    let mut out = Vec::new();
    for id in 0..players {
        let phase = f64::from(id) * 0.7 + f64::from(t) * 0.01;
        let r = 0.3 + 0.15 * f64::from(id % 3);
        let at = |p: f64| {
            (
                w / 2.0 + r * w * 0.5 * p.cos(),
                h / 2.0 + r * h * 0.5 * p.sin(),
            )
        };
        let (x, y) = at(phase);
        let kind = if id == 0 {
            SpriteKind::Local
        } else {
            SpriteKind::Remote
        };
        if overlays {
            for k in 1..=3 {
                let (tx, ty) = at(phase - 0.05 * f64::from(k));
                out.push(Sprite::new(
                    id,
                    tx,
                    ty,
                    SpriteKind::Trail {
                        age_secs: 0.05 * k as f32,
                    },
                ));
            }
            let (gx, gy) = at(phase + 0.03);
            let ghost = if id == 0 {
                SpriteKind::LocalGhost
            } else {
                SpriteKind::Ghost
            };
            out.push(Sprite::new(id, gx, gy, ghost));
        }
        out.push(Sprite::new(id, x, y, kind));
    }
    out
}

pub(crate) fn stats(t: u32) -> StatsView {
    let slices = (0..120)
        .map(|i| {
            let k = i + t;
            LagSlice {
                worst: Some(match k % 23 {
                    0 => DrawMode::Held,
                    1..=2 => DrawMode::Extrapolated,
                    _ => DrawMode::Interpolated,
                }),
                snapshots: u16::from(k.is_multiple_of(3)),
                dropped: u16::from(k.is_multiple_of(41)),
                late: 0,
                unlost: 0,
                withheld: 0,
                delay_ms: (70 + (k * 37) % 60) as f32,
                rtt_ms: (140 + (k * 13) % 30) as f32,
                interrupted: false,
                awaited: false,
            }
        })
        .collect();
    StatsView {
        rtt_ms: 150.0 + f64::from(t % 10),
        silent_secs: None,
        jitter_ms: 12.5,
        packets_in: 21.0,
        packets_out: 30.0,
        bytes_in: 1500.0 + f64::from(t % 100),
        bytes_out: 1200.0,
        loss_up_pct: 5.1,
        loss_down_pct: 4.9,
        snapshots_per_sec: 19.5,
        rate_limited: false,
        commands_sent: u64::from(t),
        commands_acked: t.saturating_sub(9),
        pending: 9,
        corrections: 3,
        corrections_per_min: 0.5,
        last_correction_cells: 0.2,
        max_correction_cells: 1.1,
        fire_mispredictions: 1,
        server_decisions: 2,
        recent_corrections: vec!["12.3s 0.25 cells: bot-1 was elsewhere than predicted".into()],
        interp_delay_ms: 130.0,
        buffered: 2,
        frames_extrapolated: u64::from(t / 50),
        frames_held: 0,
        underruns: 1,
        slices,
        dials: Vec::new(),
    }
}

fn frame_view<'a>(map: &'a Map, opts: &RenderOptions, t: u32) -> View<'a> {
    let roster = (0..opts.players)
        .map(|id| RosterLine {
            id,
            name: format!("player-{id}"),
            local: id == 0,
            bot: id != 0,
        })
        .collect();
    let (w, h) = (f64::from(map.width()), f64::from(map.height()));
    let beams = if opts.overlays {
        vec![Beam {
            id: 1,
            from: (2.5, h / 2.0),
            to: (w - 2.5, h / 2.0),
            fading: t.is_multiple_of(2),
        }]
    } else {
        Vec::new()
    };
    View {
        map,
        focus: None,
        protected: Vec::new(),
        sprites: sprites(map, opts.players, t, opts.overlays),
        beams,
        combat: Some(CombatHud {
            health: 100 - (t % 100) as i16,
            alive: true,
            weapon: Weapon::Blaster,
            frags: 3,
            frag_limit: 20,
            time_left_secs: Some(300 - t / 60 % 300),
            hurt: false,
            hit: false,
            death: None,
            rail_cooldown_secs: None,
            protected_secs: None,
        }),
        feed: if opts.overlays {
            vec![
                "player-1 [rail] player-2".into(),
                "player-3 [blaster] player-4".into(),
            ]
        } else {
            Vec::new()
        },
        chat: Vec::new(),
        chat_input: None,
        scoreboard: None,
        results: None,
        hud: Hud {
            fps: 2500.0 + f64::from(t % 7),
            rtt_ms: 150.0,
            rtt_stale: false,
            server_tick: 1000 + t / 16,
            pending: 9,
            corrections: 3,
            switches: SwitchLights {
                prediction: true,
                reconciliation: true,
                interpolation: true,
                smoothing: true,
                ghosts: opts.overlays,
                ghost_trail: opts.overlays,
                ..SwitchLights::default()
            },
            conditions: "75±10ms 2.0% loss".into(),
        },
        roster,
        notice: None,
        stats: opts.overlays.then(|| stats(t)),
        help: false,
        explanation: None,
        theme: crate::ui::Theme::default(),
    }
}

/// Draws `frames` frames with `t` advancing (or frozen at 0 for the floor); returns the
/// per-frame times and the bytes written.
fn run_frames(
    map: &Map,
    opts: &RenderOptions,
    moving: bool,
) -> anyhow::Result<(Vec<Duration>, u64)> {
    // Counts what the terminal would have been sent.
    let sink = ByteCounter::default();
    let counter = sink.clone();
    let backend = CrosstermBackend::new(BufWriter::with_capacity(64 * 1024, sink));
    let viewport = Viewport::Fixed(Rect::new(0, 0, opts.width, opts.height));
    let mut terminal = Terminal::with_options(backend, TerminalOptions { viewport })?;
    let mut times = Vec::with_capacity(opts.frames as usize);
    // One untimed frame: the first draw paints every cell.
    terminal.draw(|f| ui::draw(f, &frame_view(map, opts, 0)))?;
    terminal.backend_mut().flush()?;
    let bytes_before = counter.bytes();
    for i in 1..=opts.frames {
        let t = if moving { i } else { 0 };
        let start = Instant::now();
        let view = frame_view(map, opts, t);
        queue!(terminal.backend_mut(), BeginSynchronizedUpdate)?;
        terminal.draw(|f| ui::draw(f, &view))?;
        execute!(terminal.backend_mut(), EndSynchronizedUpdate)?;
        times.push(start.elapsed());
    }
    terminal.backend_mut().flush()?;
    let bytes = counter.bytes() - bytes_before;
    Ok((times, bytes))
}

pub fn run(opts: &RenderOptions) -> anyhow::Result<RenderResult> {
    let map = arena_for(opts.width, opts.height)?;
    let (mut frames, bytes) = run_frames(&map, opts, true)?;
    let (mut floor, floor_bytes) = run_frames(&map, opts, false)?;
    let total: Duration = frames.iter().sum();
    let p50 = percentile_us(&mut frames, 0.5);
    let floor_p50 = percentile_us(&mut floor, 0.5);
    Ok(RenderResult {
        width: opts.width,
        height: opts.height,
        players: opts.players,
        frames: opts.frames,
        fps: f64::from(opts.frames) / total.as_secs_f64().max(1e-9),
        frame_us_p50: p50,
        frame_us_p99: percentile_us(&mut frames, 0.99),
        floor_us_p50: floor_p50,
        ratio_to_floor: p50 / floor_p50.max(1e-9),
        bytes_per_frame: bytes as f64 / f64::from(opts.frames.max(1)),
        floor_bytes_per_frame: floor_bytes as f64 / f64::from(opts.frames.max(1)),
    })
}
