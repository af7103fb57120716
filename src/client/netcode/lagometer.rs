//! A scrolling record of the last few seconds of netcode, in fixed time slices: how each
//! frame was drawn (interpolated, extrapolated, held), which snapshots arrived and how
//! late, which were lost, and the RTT. The stats overlay draws it as a lagometer.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use super::interpolation::FrameMode;

/// Width of one slice (one column of the graph).
pub(crate) const SLICE: Duration = Duration::from_millis(50);
/// Slices kept: 6 s, more than the widest overlay shows.
pub(crate) const SLICES: usize = 120;
/// How long after the server last held a snapshot back the link counts as rate limited.
const LIMITED_WINDOW: Duration = Duration::from_secs(2);
/// Slices of that window with snapshots held back, for the link to count as thin.
const LIMITED_SLICES: usize = 3;

#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub(crate) struct Slice {
    /// The worst way any frame in this slice was drawn (None: no frame).
    pub(crate) worst: Option<FrameMode>,
    pub(crate) snapshots: u16,
    /// Snapshots found missing (by tick gaps) when a later one arrived in this slice.
    pub(crate) dropped: u16,
    /// Snapshots that arrived in this slice after a newer one (out of order): each was
    /// counted in a `dropped` when the newer one came, and was not lost after all. Not
    /// in a keyframe (its layout stays as it was): a replay started from one counts the
    /// late snapshots from there.
    #[serde(skip)]
    pub(crate) late: u16,
    /// Snapshots counted in a `dropped` that were not lost after all: the late ones, and
    /// the ones the server had held back before them (only a late snapshot says so). Not
    /// in a keyframe, as `late`.
    #[serde(skip)]
    pub(crate) unlost: u16,
    /// Snapshots the server said it held back (the link's rate) before one that
    /// arrived in this slice: Quake 3's yellow bar for suppressed snapshots.
    pub(crate) withheld: u16,
    /// Largest estimated one-way delay of a snapshot in this slice, in ms.
    pub(crate) delay_ms: f32,
    /// RTT estimate at the end of the slice, in ms.
    pub(crate) rtt_ms: f32,
    /// The link was interrupted (no snapshot for a while, see `client::netcode::outage`)
    /// when a frame in this slice was drawn.
    pub(crate) interrupted: bool,
}

fn severity(s: FrameMode) -> u8 {
    match s {
        FrameMode::Interpolated => 0,
        FrameMode::Extrapolated => 1,
        FrameMode::Held => 2,
    }
}

#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct Lagometer {
    #[serde(with = "crate::net::instants")]
    start: Option<Instant>,
    /// Index of the newest slice since `start`.
    newest: u64,
    slices: VecDeque<Slice>,
}

impl Lagometer {
    fn current(&mut self, now: Instant) -> &mut Slice {
        let start = *self.start.get_or_insert(now);
        let index = (now.saturating_duration_since(start).as_nanos() / SLICE.as_nanos()) as u64;
        if self.slices.is_empty() {
            self.newest = index;
            self.slices.push_back(Slice::default());
        }
        // After a long pause (a suspended laptop, a stopped process) only the last
        // window's worth of empty slices can show: skip to it instead of stepping
        // through every slice of the gap.
        if index > self.newest + SLICES as u64 {
            self.newest = index - SLICES as u64;
        }
        while self.newest < index {
            self.newest += 1;
            let rtt_ms = self.slices.back().map_or(0.0, |s| s.rtt_ms);
            self.slices.push_back(Slice {
                rtt_ms,
                ..Slice::default()
            });
            if self.slices.len() > SLICES {
                self.slices.pop_front();
            }
        }
        self.slices.back_mut().expect("at least one slice")
    }

    pub(crate) fn frame(&mut self, now: Instant, mode: FrameMode) {
        let slice = self.current(now);
        if slice.worst.is_none_or(|w| severity(mode) > severity(w)) {
            slice.worst = Some(mode);
        }
    }

    /// Marks the slice at `now` as drawn while the link was interrupted.
    pub(crate) fn interrupted(&mut self, now: Instant) {
        self.current(now).interrupted = true;
    }

    pub(crate) fn snapshot(
        &mut self,
        now: Instant,
        delay_ms: f64,
        dropped_before: u32,
        withheld_before: u32,
        rtt_ms: f64,
    ) {
        let slice = self.current(now);
        slice.snapshots += 1;
        let short = |n: u32| u16::try_from(n).unwrap_or(u16::MAX);
        slice.dropped = slice.dropped.saturating_add(short(dropped_before));
        slice.withheld = slice.withheld.saturating_add(short(withheld_before));
        slice.delay_ms = slice.delay_ms.max(delay_ms as f32);
        slice.rtt_ms = rtt_ms as f32;
    }

    /// A snapshot arrived at `now` after a newer one: late, and not lost after all.
    /// (The snapshots held back before it were never counted lost: the newer one's
    /// running total said so.)
    pub(crate) fn late(&mut self, now: Instant) {
        let slice = self.current(now);
        slice.late = slice.late.saturating_add(1);
        slice.unlost = slice.unlost.saturating_add(1);
    }

    /// Whether the server held snapshots back for our link again and again in the last
    /// two seconds (an odd one after a spike of lag is not a thin link): the link is
    /// thin, and the stats say "rate limited".
    pub(crate) fn rate_limited(&self) -> bool {
        let window = (LIMITED_WINDOW.as_millis() / SLICE.as_millis()) as usize;
        self.recent(window).filter(|s| s.withheld > 0).count() >= LIMITED_SLICES
    }

    /// The newest `n` slices, oldest first (fewer at the start of a session).
    pub(crate) fn recent(&self, n: usize) -> impl Iterator<Item = &Slice> {
        self.slices.iter().skip(self.slices.len().saturating_sub(n))
    }
}

/// For each of `slices` (oldest first), whether it had no snapshot yet none was due:
/// snapshots `period` apart fall in 50 ms slices unevenly (at 20 Hz two may land in one
/// slice and none in the next), and such a slice is no gap. A slice counts as a gap
/// (none arrived when one was due) once it starts a whole period after the end of the
/// slice the last snapshot arrived in. Before the first arrival nothing is awaited.
pub(crate) fn awaited(slices: &[Slice], period: Duration) -> Vec<bool> {
    let mut since: Option<u32> = None;
    slices
        .iter()
        .map(|s| {
            if s.snapshots > 0 || s.dropped > 0 {
                since = Some(0);
                return false;
            }
            match since.as_mut() {
                Some(k) => {
                    *k += 1;
                    SLICE * (*k - 1) < period
                }
                None => false,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// At 20 Hz with 50 ms slices, jitter of a millisecond puts two snapshots in one
    /// slice and none in the next: that slice was drawn as a gap ("no snapshot
    /// arrived") on a clean link. Only a slice past a whole period is one.
    #[test]
    fn a_slice_between_on_time_snapshots_is_no_gap() {
        let t0 = Instant::now();
        let mut l = Lagometer::default();
        l.frame(t0, FrameMode::Interpolated);
        // Arrivals at 49, 100, 149: slice 1 (50-99) gets none, slice 2 gets two.
        for ms in [49, 100, 149] {
            l.snapshot(t0 + Duration::from_millis(ms), 40.0, 0, 0, 80.0);
        }
        // Then none for 300 ms: a snapshot is due by 200 ms.
        l.frame(t0 + Duration::from_millis(449), FrameMode::Held);
        let s: Vec<Slice> = l.recent(100).copied().collect();
        let counts: Vec<u16> = s.iter().map(|x| x.snapshots).collect();
        assert_eq!(counts, [1, 0, 2, 0, 0, 0, 0, 0, 0]);
        let period = Duration::from_millis(50);
        assert_eq!(
            awaited(&s, period),
            [false, true, false, true, false, false, false, false, false]
        );
        // At 10 Hz a slice with none between two arrivals is awaited too, and so is the
        // next; the one after is overdue.
        let period = Duration::from_millis(100);
        assert_eq!(
            awaited(&s, period),
            [false, true, false, true, true, false, false, false, false]
        );
    }

    #[test]
    fn slices_scroll_and_keep_the_worst_frame() {
        let t0 = Instant::now();
        let mut l = Lagometer::default();
        l.frame(t0, FrameMode::Interpolated);
        l.frame(t0 + Duration::from_millis(10), FrameMode::Held);
        l.frame(t0 + Duration::from_millis(20), FrameMode::Extrapolated);
        l.snapshot(t0 + Duration::from_millis(120), 55.0, 1, 2, 100.0);
        let s: Vec<Slice> = l.recent(10).copied().collect();
        assert_eq!(s.len(), 3);
        assert_eq!(s[0].worst, Some(FrameMode::Held));
        assert_eq!(s[1].worst, None);
        assert_eq!((s[2].snapshots, s[2].dropped, s[2].withheld), (1, 1, 2));
        assert_eq!(s[2].delay_ms, 55.0);
        for i in 0..500 {
            l.frame(t0 + SLICE * i, FrameMode::Interpolated);
        }
        assert_eq!(l.recent(1000).count(), SLICES);
    }

    /// A snapshot that comes after a newer one is late, in the slice it came in.
    #[test]
    fn a_late_snapshot_is_counted_where_it_came() {
        let t0 = Instant::now();
        let mut l = Lagometer::default();
        l.snapshot(t0, 40.0, 0, 0, 80.0);
        l.snapshot(t0 + SLICE, 40.0, 1, 0, 80.0);
        l.late(t0 + SLICE * 2);
        let s: Vec<Slice> = l.recent(10).copied().collect();
        let late: Vec<u16> = s.iter().map(|x| x.late).collect();
        assert_eq!(late, [0, 0, 1]);
        // It was counted missing, and was not lost.
        assert_eq!((s[2].unlost, s[2].withheld), (1, 0));
        assert_eq!(s[2].snapshots, 0, "not an in-order arrival");
    }

    /// One snapshot held back after a spike of lag is not a thin link; the server
    /// holding them back again and again is, until two quiet seconds pass.
    #[test]
    fn rate_limited_means_held_back_again_and_again() {
        let t0 = Instant::now();
        let mut l = Lagometer::default();
        l.snapshot(t0, 40.0, 0, 1, 100.0);
        assert!(!l.rate_limited());
        for i in 1..3 {
            l.snapshot(t0 + SLICE * i * 2, 40.0, 0, 1, 100.0);
        }
        assert!(l.rate_limited());
        l.frame(t0 + SLICE * 4 + LIMITED_WINDOW, FrameMode::Interpolated);
        assert!(!l.rate_limited());
    }

    /// A day-long pause (a suspended laptop) costs one window of empty slices, not a
    /// step for every 50 ms of it, and keeps the last RTT.
    #[test]
    fn a_long_pause_skips_to_the_last_window() {
        let t0 = Instant::now();
        let mut l = Lagometer::default();
        l.snapshot(t0, 40.0, 0, 0, 123.0);
        let later = t0 + Duration::from_secs(86_400);
        l.frame(later, FrameMode::Held);
        let s: Vec<Slice> = l.recent(1000).copied().collect();
        assert_eq!(s.len(), SLICES);
        assert_eq!(s.last().unwrap().worst, Some(FrameMode::Held));
        assert!(
            s[..SLICES - 1]
                .iter()
                .all(|x| x.worst.is_none() && x.snapshots == 0)
        );
        assert_eq!(l.newest, (86_400_000 / SLICE.as_millis()) as u64);
        assert_eq!(s.last().unwrap().rtt_ms, 123.0);
    }
}
