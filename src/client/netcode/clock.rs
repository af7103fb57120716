//! The client's estimate of the server's clock, and of how late snapshots arrive.
//!
//! Each snapshot says which server tick it shows; subtracting the local time it arrived
//! gives one noisy sample of the offset between the clocks (including the one-way delay,
//! which is what interpolation wants: we render relative to the stream as it arrives).
//! Smoothing the samples gives a steady server time; their spread is the jitter that
//! the interpolation delay must cover.

/// Weight of a new offset sample: small, so one late packet barely moves the clock.
const OFFSET_GAIN: f64 = 0.05;
const JITTER_GAIN: f64 = 0.1;
/// A sample this far from the estimate means the server restarted or the link stalled
/// for a long time: start over rather than drift for seconds.
const RESYNC_SECS: f64 = 1.0;

#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct ServerClock {
    offset: Option<f64>,
    jitter: f64,
}

impl ServerClock {
    /// Records that a snapshot from `server_secs` arrived at `local_secs`.
    pub(crate) fn observe(&mut self, local_secs: f64, server_secs: f64) {
        let sample = server_secs - local_secs;
        match self.offset {
            Some(offset) if (sample - offset).abs() < RESYNC_SECS => {
                let dev = sample - offset;
                self.offset = Some(offset + dev * OFFSET_GAIN);
                self.jitter += (dev.abs() - self.jitter) * JITTER_GAIN;
            }
            _ => {
                self.offset = Some(sample);
                self.jitter = 0.0;
            }
        }
    }

    /// How much later than the smoothed clock expects a snapshot from `server_secs`
    /// arrived at `local_secs` (negative: early).
    pub(crate) fn lateness_secs(&self, local_secs: f64, server_secs: f64) -> f64 {
        self.offset.map_or(0.0, |o| o - (server_secs - local_secs))
    }

    /// The server time whose snapshot would be arriving now, as seen through the network
    /// (None before any snapshot): the newest snapshot's time plus the time since it
    /// arrived, smoothed. The server itself is a one-way delay further on.
    pub(crate) fn server_secs(&self, local_secs: f64) -> Option<f64> {
        self.offset.map(|o| local_secs + o)
    }

    /// The estimate of the server's present (None before any snapshot): the newest
    /// snapshot's time, plus half the round trip `rtt_secs` it took to come (article 2:
    /// without shared clocks, half the RTT is the one-way delay's estimate), plus the
    /// time since it arrived.
    pub(crate) fn present_secs(&self, local_secs: f64, rtt_secs: f64) -> Option<f64> {
        self.server_secs(local_secs)
            .map(|s| s + rtt_secs.max(0.0) / 2.0)
    }

    /// Mean absolute deviation of arrival times from the smoothed clock, in seconds.
    pub(crate) fn jitter_secs(&self) -> f64 {
        self.jitter
    }
}

/// Rate segments kept: the interpolation buffer reaches back less than a second, and
/// the tick rate changes at a person's pace.
const SEGMENTS_KEPT: usize = 4;

/// The server's ticks as seconds, across changes of its tick rate: each segment is the
/// tick it starts at, its time in seconds and its rate. With one rate it is `tick /
/// rate`, as before any change; a change starts a segment at its tick, so the seconds
/// run on without a jump and the clock, the interpolation and the render tick stay true
/// on both sides of it.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub(crate) struct Timeline {
    segments: Vec<(u32, f64, f64)>,
}

impl Timeline {
    pub(crate) fn new(tick_rate: f64) -> Timeline {
        Timeline {
            segments: vec![(0, 0.0, tick_rate.max(1.0))],
        }
    }

    /// The server ticks `tick_rate` times a second from `from_tick` on. A change at or
    /// before one already known replaces what followed it.
    pub(crate) fn change(&mut self, from_tick: u32, tick_rate: f64) {
        let secs = self.secs(f64::from(from_tick));
        self.segments.retain(|&(t, ..)| t < from_tick);
        self.segments.push((from_tick, secs, tick_rate.max(1.0)));
        let extra = self.segments.len().saturating_sub(SEGMENTS_KEPT);
        self.segments.drain(..extra);
    }

    /// Whether the rate changed after tick `after` and by tick `upto`. (The first
    /// segment, from tick 0, is no change: no tick is before it. Once old segments are
    /// let go, the first kept one is a change like the others.)
    pub(crate) fn changed_within(&self, after: u32, upto: u32) -> bool {
        self.segments.iter().any(|&(t, ..)| after < t && t <= upto)
    }

    /// The server's time at `tick` (fractional ticks too), in seconds.
    pub(crate) fn secs(&self, tick: f64) -> f64 {
        let (from, at, rate) = self.segment(|&(t, ..)| f64::from(t) <= tick);
        at + (tick - f64::from(from)) / rate
    }

    /// The server's tick at `secs` (fractional).
    pub(crate) fn tick_at(&self, secs: f64) -> f64 {
        let (from, at, rate) = self.segment(|&(_, s, _)| s <= secs);
        f64::from(from) + (secs - at) * rate
    }

    /// The newest segment `starts_by` holds for, or the oldest.
    fn segment(&self, starts_by: impl Fn(&(u32, f64, f64)) -> bool) -> (u32, f64, f64) {
        let first = self.segments[0];
        self.segments
            .iter()
            .rev()
            .find(|s| starts_by(s))
            .copied()
            .unwrap_or(first)
    }
}

/// The chance, per snapshot, of a run of losses the interpolation delay does not bridge.
const UNBRIDGED: f64 = 0.01;
/// Weight of each snapshot slot (received or lost) in the recent loss rate: about the
/// last 30 slots, 1.5 s at 20 snapshots a second.
const LOSS_GAIN: f64 = 1.0 / 32.0;

/// How far in the past to draw remote players: one snapshot period, plus as many as a
/// run of losses at `loss` (the recent rate, 0 to 1) lasts but once in a hundred
/// snapshots (at least one, so one lost snapshot still leaves a pair to interpolate
/// between), plus a margin for jitter. At 30% loss that is 4.8 periods, not 2.
pub(crate) fn interp_delay_target(snapshot_period_secs: f64, jitter_secs: f64, loss: f64) -> f64 {
    let loss = loss.clamp(0.0, 0.9);
    let runs = if loss <= UNBRIDGED {
        1.0
    } else {
        (UNBRIDGED.ln() / loss.ln()).max(1.0)
    };
    (1.0 + runs) * snapshot_period_secs + 3.0 * jitter_secs
}

/// Losses counted from one gap: a longer one is an outage, which no delay bridges.
const MAX_RUN_COUNTED: u32 = 8;

/// The recent share of snapshots lost: a moving average over the snapshot slots, so it
/// rises with loss and falls back when the link heals.
#[derive(Clone, Copy, Debug, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct RecentLoss {
    rate: f64,
}

impl RecentLoss {
    /// A snapshot arrived, `dropped` missing before it.
    pub(crate) fn observe(&mut self, dropped: u32) {
        // A long gap (an outage) counts as at most a window's worth of losses.
        for _ in 0..dropped.min(MAX_RUN_COUNTED) {
            self.rate += (1.0 - self.rate) * LOSS_GAIN;
        }
        self.rate -= self.rate * LOSS_GAIN;
    }

    pub(crate) fn rate(&self) -> f64 {
        self.rate
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steady_arrivals_give_a_steady_clock_and_no_jitter() {
        let mut c = ServerClock::default();
        for i in 0..100 {
            let server = f64::from(i) * 0.05;
            c.observe(10.0 + server + 0.03, server);
        }
        let now = c.server_secs(20.0).unwrap();
        assert!((now - (20.0 - 10.03)).abs() < 1e-9);
        assert!(c.jitter_secs() < 1e-9);
    }

    #[test]
    fn jittery_arrivals_measure_jitter() {
        let mut c = ServerClock::default();
        for i in 0..400 {
            let server = f64::from(i) * 0.05;
            let late = if i % 2 == 0 { 0.0 } else { 0.02 };
            c.observe(server + 0.05 + late, server);
        }
        assert!(
            (c.jitter_secs() - 0.01).abs() < 0.003,
            "{}",
            c.jitter_secs()
        );
        let delay = interp_delay_target(0.05, c.jitter_secs(), 0.0);
        assert!(delay > 0.1 && delay < 0.15);
    }

    /// The delay stayed at two snapshot periods whatever the loss: at 30% a run of two
    /// or more lost snapshots (one in eleven) ran interpolation dry.
    #[test]
    fn the_delay_grows_with_loss_and_shrinks_when_the_link_heals() {
        assert_eq!(interp_delay_target(0.05, 0.0, 0.0), 0.1);
        assert_eq!(interp_delay_target(0.05, 0.0, 0.01), 0.1);
        let at = |loss| interp_delay_target(0.05, 0.0, loss);
        assert!((at(0.3) - 0.05 * (1.0 + 3.825)).abs() < 1e-3, "{}", at(0.3));
        assert!(at(0.05) > 0.1 && at(0.05) < 0.13, "{}", at(0.05));
        // The recent rate: 30% lost, then a clean link.
        let mut loss = RecentLoss::default();
        for i in 0..200 {
            loss.observe(u32::from(i % 7 < 2 && i % 2 == 0));
        }
        assert!((0.1..0.3).contains(&loss.rate()), "{}", loss.rate());
        for _ in 0..100 {
            loss.observe(0);
        }
        assert!(loss.rate() < 0.01, "{}", loss.rate());
        // An outage's long gap counts as a few losses, not as a lossy link.
        let mut outage = RecentLoss::default();
        outage.observe(30);
        assert!(outage.rate() < 0.25, "{}", outage.rate());
    }

    #[test]
    fn a_big_jump_resyncs() {
        let mut c = ServerClock::default();
        c.observe(1.0, 100.0);
        c.observe(1.05, 5.0);
        assert!((c.server_secs(1.05).unwrap() - 5.0).abs() < 1e-9);
    }

    /// Across a tick-rate change the server's seconds run on without a jump: 300 ticks
    /// at 60 Hz then 150 at 30 Hz are 10 s, and back.
    #[test]
    fn the_timeline_keeps_the_seconds_across_a_rate_change() {
        let mut t = Timeline::new(60.0);
        assert_eq!(t.secs(300.0), 5.0);
        t.change(300, 30.0);
        assert!((t.secs(450.0) - 10.0).abs() < 1e-12);
        assert!(
            (t.secs(150.0) - 2.5).abs() < 1e-12,
            "before the change: 60 Hz"
        );
        assert!((t.tick_at(10.0) - 450.0).abs() < 1e-9);
        assert!((t.tick_at(2.5) - 150.0).abs() < 1e-9);
        assert!(t.changed_within(299, 300) && t.changed_within(200, 400));
        assert!(!t.changed_within(300, 400) && !t.changed_within(0, 299));
        t.change(450, 128.0);
        assert!((t.secs(1090.0) - 15.0).abs() < 1e-12);
        assert!((t.tick_at(15.0) - 1090.0).abs() < 1e-9);
        // Past the segments kept, the oldest kept is a change all the same.
        t.change(2000, 60.0);
        t.change(3000, 30.0);
        assert!(t.changed_within(299, 300), "the oldest change kept");
        assert!(t.changed_within(2999, 3000));
    }

    /// The present is the snapshots' stream plus half the round trip (article 2).
    #[test]
    fn the_present_is_half_a_round_trip_past_the_stream() {
        let mut c = ServerClock::default();
        assert_eq!(c.present_secs(1.0, 0.3), None);
        c.observe(1.15, 1.0);
        let stream = c.server_secs(2.0).unwrap();
        assert!((c.present_secs(2.0, 0.3).unwrap() - (stream + 0.15)).abs() < 1e-12);
    }
}
