//! What a lesson watches while the learner tries something: client 1's and the server's
//! figures from the moment what was asked was set up, so a judge can say what it caused.
//!
//! A [`Watch`] is the step's log: what was seen at each look, and the figures of the
//! last one. Every check of a lesson is a pure function of it (or of a [`Setup`], the
//! dials and switches it was made under), so a test can feed a check a crafted watch:
//! the learner who does the wrong thing, the run that misbehaves.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use crate::client::Switches;
use crate::client::netcode::net_stats::SessionStats;
use crate::lab::Lab;
use crate::lab::dials::{DIALS, Value};
use crate::net::protocol::RailShot;
use crate::sim::map::CELL;
use crate::sim::world::{Buttons, PlayerId};

/// Numbers a lesson keeps from one step to a later one (a measure under one setting,
/// to set beside another's).
#[derive(Clone, Debug, Default)]
pub(crate) struct Memo(BTreeMap<&'static str, f64>);

impl Memo {
    pub(crate) fn keep(&mut self, name: &'static str, v: f64) {
        self.0.insert(name, v);
    }

    pub(crate) fn get(&self, name: &'static str) -> Option<f64> {
        self.0.get(name).copied()
    }
}

/// A drawing that moves this much more than the truth between two looks jumped.
const JUMP_CELLS: f64 = 0.5;

/// What client 1 is set up with: its (or the server's) dials and its switches.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Setup {
    /// In the order of [`DIALS`].
    dials: Vec<Value>,
    pub(crate) switches: Switches,
}

impl Setup {
    pub(crate) fn of(lab: &Lab) -> Setup {
        Setup {
            dials: (0..DIALS.len())
                .map(|d| lab.dial(d, 0).unwrap_or_default())
                .collect(),
            switches: lab.session(0).switches(),
        }
    }

    /// Dial `name` (of [`DIALS`]).
    pub(crate) fn dial(&self, name: &str) -> Value {
        DIALS
            .iter()
            .position(|d| d.name == name)
            .and_then(|d| self.dials.get(d).copied())
            .unwrap_or_default()
    }

    /// This setup with dial `name` at `v`: for a test's crafted setups.
    #[cfg(test)]
    pub(crate) fn with(mut self, name: &str, v: Value) -> Setup {
        let d = DIALS
            .iter()
            .position(|d| d.name == name)
            .expect("a dial of that name");
        if self.dials.len() <= d {
            self.dials.resize(DIALS.len(), 0);
        }
        self.dials[d] = v;
        self
    }
}

/// Client 1 (the learner's) and the server, watched from `since`.
#[derive(Clone, Debug)]
pub(crate) struct Watch {
    pub(crate) since: Instant,
    pub(crate) now: Instant,
    /// Client 1's counters when the watch began.
    pub(crate) stats: SessionStats,
    pub(crate) tick: u32,
    /// Its input packets sent and dropped on the way up, when the watch began.
    pub(crate) up: (u64, u64),
    /// Client 1's commands the server never received (its lane's `lost`), then.
    lost_commands: u64,
    pub(crate) max_pending: u32,
    /// Cells between where client 1 predicts itself and where the server last said.
    pub(crate) max_gap: f64,
    /// Cells the server moved client 1's player.
    pub(crate) moved: f64,
    last_pos: Option<(i32, i32)>,
    /// Since when the server has not moved client 1's player, and its corrections then.
    pub(crate) still_since: Option<(Instant, u64)>,
    /// When the learner first held a key, and when client 1's own `@` was first drawn
    /// somewhere else after that.
    pub(crate) key_at: Option<Instant>,
    drawn_from: Option<(f64, f64)>,
    pub(crate) drawn_moved_at: Option<Instant>,
    /// Client 1's rail shots as the server decided them.
    pub(crate) rails: Vec<RailShot>,
    /// Client 1's own shots at the start; when it first predicted a new one, and when
    /// the server first had a bolt of client 1's in flight.
    shots_before: usize,
    pub(crate) fired_at: Option<Instant>,
    pub(crate) born_at: Option<Instant>,
    /// Server ticks that applied no command of client 1's, one, two or more.
    pub(crate) applied: [u64; 3],
    /// Client 1's commands those ticks applied, in all.
    pub(crate) applied_commands: u64,
    /// Cells between where client 1 draws the walker and where the server has it.
    pub(crate) walker_gap: f64,
    /// Times the walker's drawing jumped: moved half a cell or more unlike the truth
    /// between two looks.
    pub(crate) walker_jumps: u64,
    last_walker: Option<((f64, f64), (f64, f64))>,
    /// Server ticks watched, for `applied`.
    seen_tick: u32,
    /// At the last look: client 1's setup and counters, its input packets sent and
    /// dropped, its commands lost, the server's tick.
    pub(crate) setup: Setup,
    pub(crate) latest: SessionStats,
    pub(crate) up_now: (u64, u64),
    pub(crate) lost_now: u64,
    pub(crate) tick_now: u32,
    /// Client 1's RTT (ms), snapshot period (ms), interpolation delay (ms); the
    /// server's tick rate.
    pub(crate) rtt_ms: f64,
    pub(crate) period_ms: f64,
    pub(crate) interp_ms: f64,
    pub(crate) tick_rate: u16,
    /// How unevenly client 1 draws the walker (`remote_motion_cv`), once measured.
    pub(crate) motion_cv: Option<f64>,
    /// Client 1's commands the server's input buffer pushed out, in all, and the depth
    /// (ticks) it holds them to now.
    pub(crate) buffer_dropped: u64,
    pub(crate) buffer_ticks: u32,
    /// `buffer_dropped` when the watch began.
    pub(crate) buffer_dropped_before: u64,
    /// Client 1's commands waiting in the server's queue now.
    pub(crate) buffer_queued: usize,
    /// The jitter client 1 measures (mean deviation of the snapshots' delays), ms.
    pub(crate) jitter_ms: f64,
    /// The tick the server's newest bolt of client 1's was born at, and the depth of
    /// the input buffer when it was.
    pub(crate) bolt_born: Option<u32>,
    pub(crate) born_buffer_ticks: u32,
}

/// Client 1's player id.
pub(crate) fn me(lab: &Lab) -> PlayerId {
    lab.session(0).player_id()
}

/// The walker's id: the server's other player.
pub(crate) fn walker(lab: &Lab) -> Option<PlayerId> {
    let me = me(lab);
    lab.server()
        .world()
        .players()
        .iter()
        .map(|(id, _)| *id)
        .find(|id| *id != me)
}

/// Where the server has player `id`, in cells.
pub(crate) fn server_cell(lab: &Lab, id: PlayerId) -> Option<(f64, f64)> {
    let s = lab.server().world().get(id)?;
    Some((
        f64::from(s.x) / f64::from(CELL),
        f64::from(s.y) / f64::from(CELL),
    ))
}

/// Where client 1 draws its own player (sub-cell units): its prediction, or with
/// prediction off what the server last said.
fn own_drawn(lab: &Lab) -> Option<(f64, f64)> {
    let s = lab.session(0);
    if s.switches().prediction {
        s.predicted_drawn()
    } else {
        s.server_state().map(|v| (f64::from(v.x), f64::from(v.y)))
    }
}

fn up_counts(lab: &Lab) -> (u64, u64) {
    let c = &lab.clients[0];
    let t = c.up.traffic();
    (t.sent, t.dropped)
}

/// Client 1's commands the server has never received: the `lost` of its lane.
fn lost_commands(lab: &Lab) -> u64 {
    lab.server().input_buffer(me(lab)).map_or(0, |f| f.lost)
}

/// The depth (ticks) the server's input buffer holds client 1's commands to.
fn buffer_ticks(lab: &Lab) -> u32 {
    lab.server().input_buffer(me(lab)).map_or(0, |f| f.target)
}

/// Client 1's commands pushed out of the server's full input buffer.
fn buffer_dropped(lab: &Lab) -> u64 {
    lab.server().input_buffer(me(lab)).map_or(0, |f| f.dropped)
}

impl Watch {
    pub(crate) fn new(lab: &Lab) -> Watch {
        let s = lab.session(0);
        let now = lab.now();
        Watch {
            since: now,
            now,
            stats: s.stats().clone(),
            tick: lab.server().world().tick,
            up: up_counts(lab),
            lost_commands: lost_commands(lab),
            max_pending: 0,
            max_gap: 0.0,
            moved: 0.0,
            last_pos: None,
            still_since: None,
            key_at: None,
            drawn_from: own_drawn(lab),
            drawn_moved_at: None,
            rails: Vec::new(),
            shots_before: s.combat().own_shots().len(),
            fired_at: None,
            born_at: None,
            applied: [0; 3],
            applied_commands: 0,
            walker_gap: 0.0,
            walker_jumps: 0,
            last_walker: None,
            seen_tick: lab.server().world().tick,
            setup: Setup::of(lab),
            latest: s.stats().clone(),
            up_now: up_counts(lab),
            lost_now: lost_commands(lab),
            tick_now: lab.server().world().tick,
            rtt_ms: lab.figures(0).rtt_ms,
            period_ms: s.snapshot_period() * 1000.0,
            interp_ms: s.interp_delay_secs() * 1000.0,
            tick_rate: lab.server().config().tick_rate,
            motion_cv: lab.remote_motion_cv(0),
            buffer_dropped: buffer_dropped(lab),
            buffer_ticks: buffer_ticks(lab),
            buffer_dropped_before: buffer_dropped(lab),
            buffer_queued: 0,
            jitter_ms: lab.figures(0).jitter_ms,
            bolt_born: None,
            born_buffer_ticks: 0,
        }
    }

    /// A watch of nothing yet, from `since`: for a test to fill in as a run would.
    #[cfg(test)]
    pub(crate) fn blank(since: Instant) -> Watch {
        Watch {
            since,
            now: since,
            stats: SessionStats::default(),
            tick: 0,
            up: (0, 0),
            lost_commands: 0,
            max_pending: 0,
            max_gap: 0.0,
            moved: 0.0,
            last_pos: None,
            still_since: None,
            key_at: None,
            drawn_from: None,
            drawn_moved_at: None,
            rails: Vec::new(),
            shots_before: 0,
            fired_at: None,
            born_at: None,
            applied: [0; 3],
            applied_commands: 0,
            walker_gap: 0.0,
            walker_jumps: 0,
            last_walker: None,
            seen_tick: 0,
            setup: Setup::default(),
            latest: SessionStats::default(),
            up_now: (0, 0),
            lost_now: 0,
            tick_now: 0,
            rtt_ms: 0.0,
            period_ms: 50.0,
            interp_ms: 100.0,
            tick_rate: 60,
            motion_cv: None,
            buffer_dropped: 0,
            buffer_ticks: 0,
            buffer_dropped_before: 0,
            buffer_queued: 0,
            jitter_ms: 0.0,
            bolt_born: None,
            born_buffer_ticks: 0,
        }
    }

    /// How long it has watched.
    pub(crate) fn elapsed(&self) -> Duration {
        self.now.saturating_duration_since(self.since)
    }

    /// Client 1's counters since the watch began.
    pub(crate) fn corrections(&self) -> u64 {
        self.latest.corrections - self.stats.corrections
    }

    pub(crate) fn underruns(&self) -> u64 {
        self.latest.underruns - self.stats.underruns
    }

    pub(crate) fn snapshots(&self) -> u64 {
        self.latest.snapshots_received - self.stats.snapshots_received
    }

    pub(crate) fn commands(&self) -> u64 {
        self.latest.commands_sent - self.stats.commands_sent
    }

    /// Frames that drew the walker guessed forward, and all frames, since the watch
    /// began.
    pub(crate) fn frames_extrapolated(&self) -> (u64, u64) {
        let (l, s) = (&self.latest, &self.stats);
        let guessed = l.frames_extrapolated - s.frames_extrapolated;
        let all =
            guessed + l.frames_interpolated - s.frames_interpolated + l.frames_held - s.frames_held;
        (guessed, all)
    }

    /// Input packets sent and lost on the way up since the watch began.
    pub(crate) fn packets_up(&self) -> (u64, u64) {
        (self.up_now.0 - self.up.0, self.up_now.1 - self.up.1)
    }

    /// Client 1's commands the server never received since the watch began (the growth
    /// of its lane's `lost`).
    pub(crate) fn commands_lost(&self) -> u64 {
        self.lost_now.saturating_sub(self.lost_commands)
    }

    pub(crate) fn ticks(&self) -> u32 {
        self.tick_now - self.tick
    }

    /// Corrections since client 1 stood still, and for how long it has stood (s).
    pub(crate) fn standing(&self) -> Option<(f64, u64)> {
        let (still, at) = self.still_since?;
        Some((
            self.now.saturating_duration_since(still).as_secs_f64(),
            self.latest.corrections - at,
        ))
    }

    /// The server's bolt was born this long (ms) after client 1 fired it.
    pub(crate) fn bolt_wait_ms(&self) -> Option<f64> {
        let (fired, born) = (self.fired_at?, self.born_at?);
        Some(born.saturating_duration_since(fired).as_secs_f64() * 1000.0)
    }

    /// Looks at the lab now.
    pub(crate) fn observe(&mut self, lab: &Lab) {
        let now = lab.now();
        self.now = now;
        let s = lab.session(0);
        let me = me(lab);
        self.setup = Setup::of(lab);
        self.latest = s.stats().clone();
        self.up_now = up_counts(lab);
        self.lost_now = lost_commands(lab);
        self.tick_now = lab.server().world().tick;
        self.rtt_ms = lab.figures(0).rtt_ms;
        self.period_ms = s.snapshot_period() * 1000.0;
        self.interp_ms = s.interp_delay_secs() * 1000.0;
        self.tick_rate = lab.server().config().tick_rate;
        self.motion_cv = lab.remote_motion_cv(0);
        self.buffer_dropped = buffer_dropped(lab);
        self.buffer_ticks = buffer_ticks(lab);
        self.buffer_queued = lab.server().input_buffer(me).map_or(0, |f| f.queued);
        self.jitter_ms = lab.figures(0).jitter_ms;
        if let Some(p) = lab
            .server()
            .game()
            .projectiles()
            .iter()
            .rev()
            .find(|p| p.owner == me)
        {
            self.bolt_born = Some(p.born);
        }
        self.max_pending = self.max_pending.max(s.pending_commands());
        if let (Some(p), Some(v)) = (s.predicted(), s.server_state()) {
            let gap = f64::from(p.x - v.x).hypot(f64::from(p.y - v.y)) / f64::from(CELL);
            self.max_gap = self.max_gap.max(gap);
        }
        if let Some(state) = lab.server().world().get(me) {
            let pos = (state.x, state.y);
            match self.last_pos.replace(pos) {
                Some(last) if last != pos => {
                    let d = f64::from(pos.0 - last.0).hypot(f64::from(pos.1 - last.1));
                    self.moved += d / f64::from(CELL);
                    self.still_since = None;
                }
                _ => {
                    if self.still_since.is_none() {
                        self.still_since = Some((now, s.stats().corrections));
                    }
                }
            }
        }
        let held = lab.clients[0].held;
        if self.key_at.is_none() && held != Buttons::empty() {
            self.key_at = Some(now);
            self.drawn_from = own_drawn(lab);
        }
        if self.key_at.is_some() && self.drawn_moved_at.is_none() {
            let drawn = own_drawn(lab);
            if drawn.is_some() && drawn != self.drawn_from {
                self.drawn_moved_at = Some(now);
            }
        }
        for r in &lab.rails {
            let shot = r.shot;
            if shot.shooter == me
                && r.at >= self.since
                && !self.rails.iter().any(|s| s.tick == shot.tick)
            {
                self.rails.push(shot);
            }
        }
        if self.fired_at.is_none() && s.combat().own_shots().len() > self.shots_before {
            self.fired_at = Some(now);
        }
        if self.fired_at.is_some()
            && self.born_at.is_none()
            && lab
                .server()
                .game()
                .projectiles()
                .iter()
                .any(|p| p.owner == me)
        {
            self.born_at = Some(now);
            self.born_buffer_ticks = buffer_ticks(lab);
        }
        let tick = lab.server().world().tick;
        if tick > self.seen_tick
            && let Some(f) = lab.server().input_buffer(me)
        {
            let new = ((tick - self.seen_tick) as usize).min(f.applied.len());
            for &n in &f.applied[f.applied.len() - new..] {
                self.applied[usize::from(n.min(2))] += 1;
                self.applied_commands += u64::from(n);
            }
        }
        self.seen_tick = tick;
        if let Some(w) = walker(lab)
            && let (Some(drawn), Some(truth)) = (s.remote_position(w, now), server_cell(lab, w))
        {
            // Drawn in sub-cell units; the truth in cells.
            let drawn = (drawn.0 / f64::from(CELL), drawn.1 / f64::from(CELL));
            let gap = (drawn.0 - truth.0).hypot(drawn.1 - truth.1);
            self.walker_gap = self.walker_gap.max(gap);
            if let Some((d, t)) = self.last_walker.replace((drawn, truth)) {
                let unlike =
                    (drawn.0 - d.0 - (truth.0 - t.0)).hypot(drawn.1 - d.1 - (truth.1 - t.1));
                if unlike >= JUMP_CELLS {
                    self.walker_jumps += 1;
                }
            }
        }
    }
}
