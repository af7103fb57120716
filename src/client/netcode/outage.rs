//! Outage recovery: what the client does when the server stops answering for a while
//! (a Wi-Fi hiccup) and when it comes back.
//!
//! Without these rules a 1.5 s outage left ~60 of our commands queued on the server
//! (it applies one a tick, so they were a second late for 20 s), and past 64 commands in
//! flight we predicted commands no input packet could carry any more, which the server
//! then skipped: a snap back of many cells. Three rules:
//!
//! - **Never run far ahead of the server.** A command is only made while the commands
//!   the server has not acknowledged stay under [`ahead_limit`]: a round trip's worth
//!   plus [`AHEAD_SLACK_SECS`] of slack (and never more than one input packet carries,
//!   unless acks themselves come further apart: see the function).
//!   When snapshots stop, the player stops a moment later, on both sides alike, instead
//!   of walking on in a prediction the server will never see.
//! - **Resynchronise at once.** When a snapshot says the server holds more than
//!   [`resync_above`] of our commands, the next `queued` command slots are skipped
//!   ([`Resync`]): the backlog is gone one round trip later, where slowing the command
//!   clock by 5% took ~3 commands a second. Skipped slots make no command, so the
//!   prediction and the server agree on every step.
//! - **Say so.** Once no snapshot has come for [`interrupted_after`], the view shows
//!   "connection interrupted" with the seconds since the last one.

/// Slack beyond a round trip before commands stop: long enough that loss and jitter on
/// a working link never reach it (four snapshots lost in a row at 20 Hz), short enough
/// that an outage leaves at most this much backlog on the server.
pub(crate) const AHEAD_SLACK_SECS: f64 = 0.25;
/// A server queue longer than this is a backlog to skip, not jitter to drain slowly: 6
/// commands, or 100 ms of them at a tick rate above 60 Hz ([`resync_above`]).
pub(crate) const RESYNC_ABOVE: u8 = 6;
/// Seconds of commands a queue holds before it counts as a backlog, past 60 Hz.
const RESYNC_ABOVE_SECS: f64 = 0.1;

/// The queue above which commands are a backlog at `tick_rate`: at 128 Hz 6 commands
/// are 47 ms, which a jittery link's bursts leave on the server by themselves (skipping
/// them froze the own player 0.2-0.7 s of 20 at a snapshot a second).
pub(crate) fn resync_above(tick_rate: f64) -> u8 {
    let commands = (RESYNC_ABOVE_SECS * tick_rate).ceil().clamp(0.0, 255.0) as u8;
    commands.max(RESYNC_ABOVE)
}
/// The queue length a resync aims for: none waiting, as on a clean link (aiming for one
/// left a command, 17 ms, of input delay for good after every outage).
const RESYNC_TO: u8 = 0;
/// Seconds without a snapshot before the connection counts as interrupted: at least
/// this, and at least four snapshot periods.
const INTERRUPTED_MIN_SECS: f64 = 0.3;

/// The most commands that may wait unacknowledged: a round trip of them (and twice the
/// jitter), plus the slack (or two snapshot periods, when that is longer: two lost
/// snapshots), plus a snapshot period (acks come once a snapshot). At most `cap`, what
/// one input packet carries, so every command an outage strands can still reach the
/// server; but never less than three snapshot periods, so that acks coming once a
/// period do not hold commands back on a working link (and at most [`MOST_AHEAD`]).
///
/// With the cap over the whole, at 1 snapshot a second and 128 ticks a second (128
/// commands between two acks, 64 allowed) the own player stood still, every slot
/// held, 9-10 s of 20.
pub(crate) fn ahead_limit(
    rtt_secs: f64,
    jitter_secs: f64,
    snapshot_period: f64,
    tick_rate: f64,
    cap: u32,
) -> u32 {
    let period = snapshot_period.max(0.0);
    let slack = AHEAD_SLACK_SECS.max(2.0 * period);
    let secs = rtt_secs.max(0.0) + 2.0 * jitter_secs.max(0.0) + slack + period;
    let commands = |secs: f64| (secs * tick_rate).ceil().clamp(0.0, f64::from(MOST_AHEAD)) as u32;
    let cap = cap.max(commands(3.0 * period)).min(MOST_AHEAD);
    commands(secs).clamp(1, cap)
}

/// The most commands ahead of the server, whatever the rates: all but 64 of the
/// prediction's ring, so every one has its saved move.
pub(crate) const MOST_AHEAD: u32 = super::prediction::RING as u32 - 64;

/// Seconds without a new snapshot after which the link counts as interrupted.
pub(crate) fn interrupted_after(snapshot_period: f64) -> f64 {
    (4.0 * snapshot_period).max(INTERRUPTED_MIN_SECS)
}

/// Command slots to skip, so a backlog on the server drains in one round trip.
#[derive(Clone, Copy, Debug, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct Resync {
    /// Slots left to skip.
    skip: u32,
    /// The newest seq made when the last skip was decided: snapshots that acknowledge
    /// less were sent before the skip could show, so they decide nothing.
    mark: u32,
}

impl Resync {
    /// One new snapshot: the server held `queued` of our commands after applying
    /// `ack_seq`; `latest_seq` is the newest we made. The server cannot hold more than
    /// we made after `ack_seq`, so no more are skipped whatever it says.
    pub(crate) fn on_snapshot(&mut self, queued: u8, above: u8, ack_seq: u32, latest_seq: u32) {
        if queued > above && ack_seq >= self.mark {
            let held = latest_seq.saturating_sub(ack_seq);
            self.skip = u32::from(queued - RESYNC_TO).min(held);
            self.mark = latest_seq;
        }
    }

    /// Whether this command slot is skipped.
    pub(crate) fn take_skip(&mut self) -> bool {
        let skip = self.skip > 0;
        self.skip = self.skip.saturating_sub(1);
        skip
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_limit_is_a_round_trip_and_some_slack_at_most_one_packet() {
        // Loopback at 60 Hz, 20 snapshots a second: 0.3 s of commands.
        assert_eq!(ahead_limit(0.001, 0.0, 0.05, 60.0, 64), 19);
        // 200 ms: 30 commands; with 20 ms of jitter, 33.
        assert_eq!(ahead_limit(0.2, 0.0, 0.05, 60.0, 64), 30);
        assert_eq!(ahead_limit(0.2, 0.02, 0.05, 60.0, 64), 33);
        // A second's round trip would allow 78: one packet carries 64.
        assert_eq!(ahead_limit(1.0, 0.0, 0.05, 60.0, 64), 64);
        assert_eq!(ahead_limit(-1.0, -1.0, 0.0, 0.0, 64), 1);
        // A snapshot a second at 128 Hz: 128 commands between two acks, and a lost
        // snapshot makes it 256; the cap was 64, so most slots were held. Three periods
        // now, at most all but 64 of the ring whatever the rates.
        assert_eq!(ahead_limit(0.3, 0.0, 1.0, 128.0, 64), 384);
        assert_eq!(ahead_limit(0.0, 0.0, 1.0, 128.0, 64), 384);
        assert_eq!(ahead_limit(0.3, 0.0, 1.0, 240.0, 64), MOST_AHEAD);
    }

    #[test]
    fn a_backlog_is_100_ms_of_commands_at_least_6() {
        assert_eq!(resync_above(30.0), 6);
        assert_eq!(resync_above(60.0), 6);
        assert_eq!(resync_above(128.0), 13);
        let mut r = Resync::default();
        r.on_snapshot(10, resync_above(128.0), 100, 120);
        assert!(!r.take_skip(), "47 ms of commands at 128 Hz is jitter");
    }

    #[test]
    fn a_backlog_is_skipped_once_per_round_trip() {
        let mut r = Resync::default();
        // A jitter-sized queue is left to the slow drain.
        r.on_snapshot(RESYNC_ABOVE, RESYNC_ABOVE, 100, 110);
        assert!(!r.take_skip());
        // A server claiming more of ours than we made after its ack gets no more skipped.
        r.on_snapshot(200, RESYNC_ABOVE, 100, 105);
        assert_eq!((0..300).filter(|_| r.take_skip()).count(), 5);
        let mut r = Resync::default();
        // 20 queued: 20 slots skipped.
        r.on_snapshot(20, RESYNC_ABOVE, 100, 130);
        // The next snapshots were sent before the skip could show: no second skip.
        r.on_snapshot(19, RESYNC_ABOVE, 105, 131);
        r.on_snapshot(18, RESYNC_ABOVE, 129, 131);
        assert_eq!((0..40).filter(|_| r.take_skip()).count(), 20);
        // One that acknowledges the mark shows the result: still long, skip again.
        r.on_snapshot(9, RESYNC_ABOVE, 130, 140);
        assert_eq!((0..40).filter(|_| r.take_skip()).count(), 9);
    }

    #[test]
    fn interrupted_after_four_snapshots_or_300_ms() {
        assert_eq!(interrupted_after(0.05), 0.3);
        assert_eq!(interrupted_after(0.2), 0.8);
    }
}
