//! The view model: what one frame shows, built from the session and the player's app
//! state into the UI's plain-data types. Presentation decisions (names in the feed, the
//! scoreboard's order, where arrows go) are made here; the UI only draws.

mod memory;
mod sprites;
mod text;

pub(crate) use memory::Memory;

use std::time::{Duration, Instant};

use super::netcode::interpolation::FrameMode;
use super::netcode::lagometer::{self, Slice};
use super::netcode::rates::Rates;
use super::netcode::session::ClientSession;
use super::play::app::App;
use super::{GhostMode, Switches};
use crate::net::protocol::MAX_CHAT_CHARS;
use crate::ui::{
    ChatInput, DrawMode, Hud, LagSlice, SpriteKind, StatsView, SwitchLights, Theme, View,
};

/// The frame's view of `session`, with `app`'s overlays, the loop's frame rate and
/// (for the stats overlay) its traffic rates.
pub(crate) fn build<'a>(
    session: &'a ClientSession,
    app: &App,
    memory: &Memory,
    now: Instant,
    fps: f64,
    rates: Rates,
) -> View<'a> {
    let s = session;
    let overlays = app.overlays();
    let marks = memory.marks.as_ref().filter(|_| overlays.lag_compensation);
    let (sprites, beams) = sprites::sprites_and_beams(s, now, marks);
    let focus = sprites
        .iter()
        .find(|sp| sp.kind == SpriteKind::Local)
        .or_else(|| sprites.iter().find(|sp| sp.kind == SpriteKind::LocalGhost))
        .map(|sp| (sp.x, sp.y));
    let protected = s
        .combat()
        .statuses
        .keys()
        .copied()
        .filter(|id| memory.protected_for(s, *id, now, false).is_some())
        .collect();
    View {
        map: s.map(),
        focus,
        protected,
        sprites,
        beams,
        combat: text::combat(s, memory, now, overlays.reading()),
        feed: text::feed(s),
        chat: text::chat(s)
            .into_iter()
            .chain(app.note(now).map(str::to_owned))
            .collect(),
        chat_input: app.chat_input().map(|text| ChatInput {
            text: text.to_owned(),
            left: MAX_CHAT_CHARS.saturating_sub(text.chars().count()),
        }),
        scoreboard: overlays.scoreboard.then(|| text::scoreboard(s)),
        results: text::results(s),
        hud: Hud {
            fps,
            rtt_ms: s.stats().rtt_ms,
            rtt_stale: s.interrupted(now).is_some(),
            server_tick: s.latest_tick().unwrap_or(0),
            pending: s.pending_commands(),
            corrections: s.stats().corrections,
            switches: SwitchLights {
                lag_compensation: overlays.lag_compensation,
                ..lights(s.switches())
            },
            conditions: app.conditions().summary(),
        },
        roster: text::roster(s),
        stats: overlays.stats.then(|| StatsView {
            dials: crate::client::dials::lines(s, app.dial()),
            ..stats(s, now, rates)
        }),
        help: overlays.help,
        // The shells set these: the explanation lives as long as they say, the theme
        // is the command line's.
        explanation: None,
        theme: Theme::default(),
        notice: s
            .latest()
            .is_none()
            .then(|| {
                format!(
                    "joined {}; waiting for the first snapshot…",
                    s.server_name()
                )
            })
            .or_else(|| {
                app.quit_asked()
                    .then(|| "quit? q again to quit, any other key plays on".to_owned())
            })
            .or_else(|| {
                s.interrupted(now)
                    .map(|secs| format!("connection interrupted: no snapshot for {secs:.1} s"))
            }),
    }
}

/// Whether the picture may change with time alone (see [`sprites::in_motion`]).
pub(crate) fn in_motion(session: &ClientSession, now: Instant) -> bool {
    sprites::in_motion(session, now)
}

fn lights(s: Switches) -> SwitchLights {
    SwitchLights {
        prediction: s.prediction,
        reconciliation: s.reconciliation,
        interpolation: s.interpolation,
        extrapolation: s.extrapolation,
        smoothing: s.smoothing,
        ghosts: s.ghosts.server(),
        ghost_trail: s.ghosts == GhostMode::Trail,
        lag_compensation: false,
    }
}

/// The numbers for the stats overlay.
pub(crate) fn stats(s: &ClientSession, now: Instant, rates: Rates) -> StatsView {
    let st = s.stats();
    StatsView {
        rtt_ms: st.rtt_ms,
        silent_secs: s.interrupted(now),
        jitter_ms: 1000.0 * s.jitter_secs(),
        packets_in: rates.packets_in,
        packets_out: rates.packets_out,
        bytes_in: rates.bytes_in,
        bytes_out: rates.bytes_out,
        loss_up_pct: st.loss_up_pct,
        loss_down_pct: st.loss_down_pct,
        snapshots_per_sec: rates.snapshots,
        rate_limited: s.lagometer().rate_limited(),
        commands_sent: st.commands_sent,
        commands_acked: s.acked_seq(),
        pending: s.pending_commands(),
        corrections: st.corrections,
        corrections_per_min: rates.corrections_per_min,
        last_correction_cells: st.last_correction_cells,
        max_correction_cells: st.max_correction_cells,
        fire_mispredictions: st.fire_mispredictions,
        server_decisions: st.server_decisions,
        recent_corrections: s
            .recent_corrections()
            .map(|(at, cells, why)| format!("{at:.1}s {cells:.2} cells: {why}"))
            .collect(),
        interp_delay_ms: 1000.0 * s.interp_delay_secs(),
        buffered: s.buffered_ahead(now),
        frames_extrapolated: st.frames_extrapolated,
        frames_held: st.frames_held,
        underruns: st.underruns,
        // The game's view adds the player's dials (`build`).
        dials: Vec::new(),
        slices: {
            let slices: Vec<Slice> = s.lagometer().recent(lagometer::SLICES).copied().collect();
            let period = Duration::from_secs_f64(s.snapshot_period_secs().max(0.0));
            let awaited = lagometer::awaited(&slices, period);
            slices
                .iter()
                .zip(awaited)
                .map(|(sl, awaited)| LagSlice {
                    awaited,
                    ..lag_slice(sl)
                })
                .collect()
        },
    }
}

fn lag_slice(s: &Slice) -> LagSlice {
    LagSlice {
        worst: s.worst.map(|m| match m {
            FrameMode::Interpolated => DrawMode::Interpolated,
            FrameMode::Extrapolated => DrawMode::Extrapolated,
            FrameMode::Held => DrawMode::Held,
        }),
        snapshots: s.snapshots,
        dropped: s.dropped,
        late: s.late,
        unlost: s.unlost,
        withheld: s.withheld,
        delay_ms: s.delay_ms,
        rtt_ms: s.rtt_ms,
        interrupted: s.interrupted,
        awaited: false,
    }
}
