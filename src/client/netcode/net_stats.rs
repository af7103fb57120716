//! The numbers that show how well the netcode is doing: loss, RTT, snapshot sizes, how
//! frames were drawn, corrections, and the lagometer's record. The session reports what
//! happened; this keeps the running counts and means.

use std::borrow::Cow;
use std::collections::{BTreeMap, VecDeque};
use std::time::Instant;

use serde::Serialize;

use super::causes::Cause;
use super::interpolation::FrameMode;
use super::lagometer::Lagometer;
use super::prediction::CorrectionPath;
use crate::net::protocol::PlayerSnap;
use crate::sim::map::CELL;
use crate::sim::world::PlayerId;

/// Round-trip samples the RTT estimate takes the median of: under half a second of
/// snapshots, so a real change shows within that.
const RTT_WINDOW: usize = 9;

/// Running counts of what the netcode did, for the HUD, overlays and the JSON report.
#[derive(Clone, Debug, Default, Serialize, serde::Deserialize)]
pub struct SessionStats {
    pub commands_sent: u64,
    /// Command slots that made no command: skipped to drain a backlog on the server at
    /// once, or held while the server had not acknowledged a round trip's worth and
    /// more (the link was down; see `client::netcode::outage`).
    pub commands_skipped: u64,
    pub commands_held: u64,
    pub snapshots_received: u64,
    /// Snapshots the server sent that never arrived, counted from gaps in their ticks.
    pub snapshots_lost: u64,
    /// Snapshots the server held back because our link carries no more (not loss).
    pub snapshots_withheld: u64,
    /// Mispredictions of our own movement: the server's position differed.
    pub corrections: u64,
    /// Jumps the server decreed (respawns, a new match, its end, a teleport): not
    /// mispredictions, counted apart.
    pub server_decisions: u64,
    /// Predicted shots the server did not make, or made differently.
    pub fire_mispredictions: u64,
    pub last_correction_cells: f64,
    pub max_correction_cells: f64,
    /// Corrections by what caused them (see `client::netcode::causes`), the server's
    /// decisions (counted apart from `corrections`) under `server_decision`; and the last
    /// cause.
    pub corrections_by_cause: BTreeMap<String, u64>,
    pub last_correction_cause: String,
    pub rtt_ms: f64,
    pub rtt_ms_mean: f64,
    /// Loss measured from sequence numbers: input packets the server never saw, and
    /// snapshots that never arrived, in percent.
    pub loss_up_pct: f64,
    pub loss_down_pct: f64,
    pub frames_interpolated: u64,
    pub frames_extrapolated: u64,
    pub frames_held: u64,
    /// Times the render time ran past the newest snapshot (interpolation ran dry).
    pub underruns: u64,
    pub interp_delay_ms_mean: f64,
    /// Snapshots that could not be decoded (baseline gone, or malformed).
    pub undecodable_snapshots: u64,
    /// Mean size of a snapshot datagram as received, and of the same snapshot (the same
    /// events too) with every player in full, in bytes.
    pub snapshot_bytes_mean: f64,
    pub full_state_bytes_mean: f64,
}

/// What the client has seen of another player, for reports and tests.
#[derive(Clone, Debug, Default, Serialize, serde::Deserialize)]
pub struct RemoteSeen {
    pub id: PlayerId,
    pub name: String,
    /// Total distance travelled between consecutive snapshots, in cells.
    pub distance_cells: f64,
}

/// The counts, and the sums behind their means.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct NetStats {
    pub(crate) stats: SessionStats,
    rtt_sum: f64,
    rtt_samples: u64,
    /// The newest raw samples, whose median is what the estimate follows.
    rtt_window: VecDeque<f64>,
    snapshot_bytes_sum: u64,
    full_state_bytes_sum: u64,
    delay_sum: f64,
    delay_samples: u64,
    last_mode: Option<FrameMode>,
    pub(crate) lagometer: Lagometer,
    pub(crate) remotes: Vec<RemoteSeen>,
    /// The last few corrections and server decisions, newest last: seconds into the
    /// session, size in cells, cause in words.
    pub(crate) recent: VecDeque<(f64, f64, String)>,
    /// The paths of the last few corrections and server decisions, newest last, with
    /// their seconds into the session: what a replay draws over the arena. Not in a
    /// keyframe (its layout stays as it was): a replay started from one draws the
    /// corrections made after it.
    #[serde(skip)]
    pub(crate) paths: VecDeque<(f64, CorrectionPath)>,
    /// The run of commands the last correction found lost by re-simulation (first seq,
    /// count); None when its cause was another.
    #[serde(skip)]
    pub(crate) last_lost: Option<(u32, u32)>,
}

/// Corrections the stats overlay lists.
const RECENT: usize = 3;
/// Correction paths kept (each at most 2 × `PATH_POINTS` positions).
const PATHS: usize = 8;

impl NetStats {
    pub(crate) fn undecodable(&mut self) {
        self.stats.undecodable_snapshots += 1;
    }

    /// A new snapshot arrived, `wire` bytes as sent, `full` bytes had it been sent whole.
    pub(crate) fn snapshot_size(&mut self, wire: usize, full: usize) {
        self.snapshot_bytes_sum += wire as u64;
        self.full_state_bytes_sum += full as u64;
        let n = self.stats.snapshots_received.max(1) as f64;
        self.stats.snapshot_bytes_mean = self.snapshot_bytes_sum as f64 / n;
        self.stats.full_state_bytes_mean = self.full_state_bytes_sum as f64 / n;
    }

    /// A snapshot arrived after a newer one: it was counted lost, wrongly.
    pub(crate) fn late_snapshot(&mut self) {
        let s = &mut self.stats;
        s.snapshots_received += 1;
        s.snapshots_lost = s.snapshots_lost.saturating_sub(1);
    }

    /// The newest snapshot arrived, `dropped` missing before it.
    pub(crate) fn new_snapshot(&mut self, dropped: u32) {
        let s = &mut self.stats;
        s.snapshots_received += 1;
        s.snapshots_lost += u64::from(dropped);
        let expected = s.snapshots_received + s.snapshots_lost;
        s.loss_down_pct = 100.0 * s.snapshots_lost as f64 / expected as f64;
    }

    /// The server held `n` snapshots back before the newest (its rate limit).
    pub(crate) fn withheld(&mut self, n: u32) {
        self.stats.snapshots_withheld += u64::from(n);
    }

    /// The server saw `received` of our input packets up to number `high`.
    pub(crate) fn inputs_seen(&mut self, received: u32, high: u32) {
        if high > 0 {
            let seen = f64::from(received.min(high));
            self.stats.loss_up_pct = 100.0 * (1.0 - seen / f64::from(high));
        }
    }

    pub(crate) fn interp_delay(&mut self, secs: f64) {
        self.delay_sum += secs;
        self.delay_samples += 1;
        self.stats.interp_delay_ms_mean = 1000.0 * self.delay_sum / self.delay_samples as f64;
    }

    /// One round trip measured. The estimate follows the median of the last
    /// [`RTT_WINDOW`] samples, smoothed as TCP does (1/8 of each new one): a reordered
    /// datagram that overtook others (its echo came back by a shorter way) reads short,
    /// and 5% of such packets made one sample in five short, the mean 10% low.
    pub(crate) fn rtt(&mut self, sample: f64) {
        if self.rtt_window.len() == RTT_WINDOW {
            self.rtt_window.pop_front();
        }
        self.rtt_window.push_back(sample);
        let mut sorted: Vec<f64> = self.rtt_window.iter().copied().collect();
        sorted.sort_by(f64::total_cmp);
        let ms = sorted[sorted.len() / 2];
        let s = &mut self.stats;
        s.rtt_ms = if self.rtt_samples == 0 {
            ms
        } else {
            s.rtt_ms + (ms - s.rtt_ms) * 0.125
        };
        self.rtt_sum += ms;
        self.rtt_samples += 1;
        s.rtt_ms_mean = self.rtt_sum / self.rtt_samples as f64;
    }

    pub(crate) fn correction(&mut self, at_secs: f64, cells: f64, cause: &Cause) {
        self.remember(at_secs, cells, cause);
        self.last_lost = match *cause {
            Cause::CommandsLost(count, first) => Some((first, count)),
            _ => None,
        };
        let s = &mut self.stats;
        s.corrections += 1;
        *s.corrections_by_cause
            .entry(cause.key().into())
            .or_default() += 1;
        s.last_correction_cause = cause.to_string();
        s.last_correction_cells = cells;
        s.max_correction_cells = s.max_correction_cells.max(cells);
    }

    /// A jump the server decreed: listed with the corrections' causes, but counted
    /// apart from them (it is no misprediction).
    pub(crate) fn server_decision(&mut self, at_secs: f64, cells: f64, cause: &Cause) {
        self.remember(at_secs, cells, cause);
        let s = &mut self.stats;
        s.server_decisions += 1;
        *s.corrections_by_cause
            .entry(cause.key().into())
            .or_default() += 1;
        s.last_correction_cause = cause.to_string();
    }

    fn remember(&mut self, at_secs: f64, cells: f64, cause: &Cause) {
        if self.recent.len() == RECENT {
            self.recent.pop_front();
        }
        self.recent.push_back((at_secs, cells, cause.to_string()));
    }

    /// The paths of the correction (or server decision) just counted, at `at_secs`.
    pub(crate) fn correction_path(&mut self, at_secs: f64, path: Option<CorrectionPath>) {
        let Some(path) = path else { return };
        if self.paths.len() == PATHS {
            self.paths.pop_front();
        }
        self.paths.push_back((at_secs, path));
    }

    pub(crate) fn fire_mispredicted(&mut self, count: u32) {
        self.stats.fire_mispredictions += u64::from(count);
    }

    pub(crate) fn command_sent(&mut self) {
        self.stats.commands_sent += 1;
    }

    pub(crate) fn command_skipped(&mut self) {
        self.stats.commands_skipped += 1;
    }

    pub(crate) fn command_held(&mut self) {
        self.stats.commands_held += 1;
    }

    /// Counts how a frame was drawn, and an underrun when interpolation just ran dry.
    /// `sampled` says whether remote players were sampled at the render time at all: a
    /// frame held because interpolation and extrapolation are switched off is no
    /// underrun.
    pub(crate) fn frame(&mut self, now: Instant, mode: FrameMode, sampled: bool) {
        let s = &mut self.stats;
        match mode {
            FrameMode::Interpolated => s.frames_interpolated += 1,
            FrameMode::Extrapolated => s.frames_extrapolated += 1,
            FrameMode::Held => s.frames_held += 1,
        }
        if sampled
            && mode != FrameMode::Interpolated
            && self.last_mode == Some(FrameMode::Interpolated)
        {
            s.underruns += 1;
        }
        self.last_mode = Some(mode);
        self.lagometer.frame(now, mode);
    }

    /// Adds each remote player's motion since the previous snapshot to its distance.
    pub(crate) fn remote_motion<'r>(
        &mut self,
        prev: &[PlayerSnap],
        players: &[PlayerSnap],
        me: PlayerId,
        name_of: impl Fn(PlayerId) -> Cow<'r, str>,
    ) {
        for p in players.iter().filter(|p| p.id != me) {
            // Snapshots list their players by id.
            let Some(before) = prev
                .binary_search_by_key(&p.id, |b| b.id)
                .ok()
                .map(|at| prev[at].state)
            else {
                continue;
            };
            let moved = f64::from(p.state.x - before.x).hypot(f64::from(p.state.y - before.y));
            let cells = moved / f64::from(CELL);
            let name = name_of(p.id);
            match self.remotes.iter_mut().find(|r| r.id == p.id) {
                Some(r) => {
                    r.distance_cells += cells;
                    // Copied only when the roster renamed it.
                    if r.name != name {
                        r.name = name.into_owned();
                    }
                }
                None => self.remotes.push(RemoteSeen {
                    id: p.id,
                    name: name.into_owned(),
                    distance_cells: cells,
                }),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loss_rtt_and_underruns() {
        let mut n = NetStats::default();
        n.new_snapshot(0);
        n.new_snapshot(1);
        n.late_snapshot();
        assert_eq!(n.stats.snapshots_received, 3);
        assert_eq!(n.stats.snapshots_lost, 0);
        n.rtt(100.0);
        n.rtt(180.0);
        assert_eq!(n.stats.rtt_ms, 110.0);
        assert_eq!(n.stats.rtt_ms_mean, 140.0);
        let t = Instant::now();
        n.frame(t, FrameMode::Interpolated, true);
        n.frame(t, FrameMode::Held, true);
        n.frame(t, FrameMode::Held, true);
        assert_eq!((n.stats.frames_held, n.stats.underruns), (2, 1));
    }

    /// Switching interpolation off counted one underrun at the switch: the frames after
    /// it are held by choice, not because the snapshots ran dry.
    #[test]
    fn interpolation_switched_off_is_no_underrun() {
        let mut n = NetStats::default();
        let t = Instant::now();
        n.frame(t, FrameMode::Interpolated, true);
        n.frame(t, FrameMode::Held, false);
        n.frame(t, FrameMode::Held, false);
        n.frame(t, FrameMode::Interpolated, true);
        assert_eq!((n.stats.frames_held, n.stats.underruns), (2, 0));
    }
}
