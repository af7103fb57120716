//! The session's clocks: the tick and snapshot rates it keeps to, the server clock it
//! reads the server's time from, and when the link counts as interrupted. A part of
//! [`ClientSession`'s impl, as `intake` is.

use super::*;

impl ClientSession {
    pub(crate) fn tick_rate(&self) -> f64 {
        self.timing.tick_rate
    }

    /// The server's time at `tick`, in seconds, across its tick-rate changes: what a
    /// span of ticks lasted is the difference of two of these.
    pub(crate) fn tick_secs(&self, tick: f64) -> f64 {
        self.timing.timeline.secs(tick)
    }

    /// The server ticks `tick_rate` times a second from `from_tick` on, a snapshot every
    /// `interval` ticks, and applies our commands from `from_seq` on by the new rate's
    /// rules (its [`crate::net::protocol::GameEvent::TickRate`]). The rules, the
    /// command and packet rates, the snapshot period and the clock's seconds follow. The
    /// commands made at the old rate and not yet applied are stepped again by the rules
    /// the server applies them by: where that moves the player is a correction, named
    /// for its cause, not a silent jump.
    pub(crate) fn change_tick_rate(
        &mut self,
        now: Instant,
        tick_rate: u16,
        interval: u16,
        from_tick: u32,
        from_seq: u32,
    ) {
        let tick_rate = tick_rate.max(1);
        let before = self.timing.tick_rate.round() as u16;
        if tick_rate == before {
            return;
        }
        let old = std::mem::replace(&mut self.rules, Rulebook::for_tick_rate(tick_rate));
        self.feed
            .combat
            .retime(from_tick, &self.rules.combat, &self.map);
        self.timing.tick_rate = f64::from(tick_rate);
        self.timing
            .timeline
            .change(from_tick, self.timing.tick_rate);
        self.timing.earlier_rules = Some((from_seq, old));
        self.set_snapshot_interval(u32::from(interval));
        self.own
            .pacer
            .set_rate(tick_rate, self.own.tuning.input_rate);
        let (Some(latest), Some(p)) = (&self.remotes.latest, &mut self.own.prediction) else {
            return;
        };
        let others = others_of(&latest.players, self.player_id);
        let s = self.switches;
        let how = Reconcile::for_switches(s, false);
        let at = Stepping {
            map: &self.map,
            rules: &self.rules,
            me: self.player_id,
            others: &others,
            earlier: self.timing.earlier_rules.as_ref().map(|(s, r)| (*s, r)),
        };
        let correction = p.replay_pending(&at, how);
        let path = p.take_path();
        if let (Some(c), true) = (correction, s.prediction) {
            let at = self.local_secs(now);
            let cause = Cause::TickRate(before, tick_rate);
            self.net.correction(at, c.cells, &cause);
            self.net.correction_path(at, path);
            self.own.last_correction = Some((now, c));
        }
    }

    /// The server now sends a snapshot every `interval` ticks (the lab's snapshot-rate
    /// dial: a networked server says so only in its welcome).
    pub fn set_snapshot_interval(&mut self, interval: u32) {
        self.timing.snapshot_interval = interval.max(1);
        self.timing.snapshot_period =
            f64::from(self.timing.snapshot_interval) / self.timing.tick_rate;
    }

    /// Server ticks between two snapshots, as the server sends them.
    pub fn snapshot_interval(&self) -> u32 {
        self.timing.snapshot_interval
    }

    /// Seconds between two snapshots, as the server sends them.
    pub fn snapshot_period(&self) -> f64 {
        self.timing.snapshot_period
    }

    /// The lagometer's history of snapshots and frames.
    /// The time between snapshots the server said it sends, in seconds.
    pub(crate) fn snapshot_period_secs(&self) -> f64 {
        self.timing.snapshot_period
    }

    /// The server's time at `now` by the smoothed clock, in seconds (None before the
    /// first snapshot).
    pub(crate) fn server_secs(&self, now: Instant) -> Option<f64> {
        self.timing.clock.server_secs(self.local_secs(now))
    }

    pub(super) fn local_secs(&self, now: Instant) -> f64 {
        now.saturating_duration_since(self.start).as_secs_f64()
    }

    pub(super) fn local_ms(&self, now: Instant) -> u32 {
        // Wraps after 49 days; RTT arithmetic below wraps with it.
        now.saturating_duration_since(self.start).as_millis() as u32
    }

    /// Makes this client cheat (the lab only): its command clock runs `rate` times
    /// as fast as the server's ticks, so it sends that many commands a tick.
    pub(crate) fn set_clock_rate(&mut self, rate: f64) {
        self.own.clock_rate = rate;
    }

    /// Makes this a variable-rate client at `fps` frames a second from `now` (the lab's
    /// `command rate` dial; None: a fixed tick, one command a tick): one command a
    /// frame, each lasting its frame, applied by the server as it arrives.
    pub(crate) fn set_frame_rate(&mut self, fps: Option<u16>, now: Instant) {
        self.own.frames = fps.map(|fps| FrameClock::new(fps, now));
    }

    /// The variable-rate client's frames a second (None: a fixed tick).
    pub(crate) fn frame_rate(&self) -> Option<u16> {
        self.own.frames.as_ref().map(FrameClock::fps)
    }

    /// A variable-rate client's commands due at `now`, as their spans (None: a
    /// fixed-tick client, whose command clock says when).
    pub(crate) fn take_frames(&mut self, now: Instant) -> Option<Vec<u8>> {
        let tick_rate = self.timing.tick_rate.round() as u16;
        let rate = self.own.clock_rate;
        Some(self.own.frames.as_mut()?.take_due(now, tick_rate, rate))
    }

    /// When a variable-rate client's next command is due (None: a fixed-tick client).
    pub(crate) fn next_frame(&self) -> Option<Instant> {
        self.own.frames.as_ref().map(FrameClock::next_due)
    }

    /// How much longer than a tick to wait before the next command. The server applies
    /// at most one command per tick; commands that piled up there (after a lag spike,
    /// say) would otherwise stay as input delay for good. While its queue for us is
    /// long we make commands 5% slower, which drains it at ~3 commands a second. A
    /// jitter buffer there holds its depth of ours by design; while it runs below half
    /// of it we make commands 5% faster, which refills it.
    pub fn command_period_scale(&self) -> f64 {
        let scale = if self.own.draining {
            1.05
        } else if self.own.hurrying {
            0.95
        } else {
            1.0
        };
        scale / self.own.clock_rate
    }

    /// Seconds since the newest snapshot, once that is long enough to call the link
    /// interrupted (None while snapshots come).
    pub fn interrupted(&self, now: Instant) -> Option<f64> {
        let silent = now
            .saturating_duration_since(self.timing.last_snapshot)
            .as_secs_f64();
        (silent >= outage::interrupted_after(self.timing.snapshot_period)).then_some(silent)
    }

    /// The most commands that may wait unacknowledged (see [`outage`]).
    pub(crate) fn ahead_limit(&self) -> u32 {
        outage::ahead_limit(
            self.net.stats.rtt_ms / 1000.0,
            self.timing.clock.jitter_secs(),
            self.timing.snapshot_period,
            // Commands a second: a variable-rate client makes one a frame.
            self.timing
                .tick_rate
                .max(self.frame_rate().map_or(0.0, f64::from)),
            MAX_COMMANDS_PER_INPUT as u32,
        )
    }

    pub(crate) fn jitter_secs(&self) -> f64 {
        self.timing.clock.jitter_secs()
    }

    /// How far in the past remote players are drawn now.
    pub fn interp_delay_secs(&self) -> f64 {
        self.remotes.interp_delay
    }
}
