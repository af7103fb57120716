//! What a frame, the overlays and the reports read from a session. A part of
//! [`ClientSession`'s impl, as `intake` is.

use super::*;

impl ClientSession {
    pub fn map(&self) -> &Map {
        &self.map
    }

    /// The rules the server plays by (for this tick rate).
    pub(crate) fn rules(&self) -> &Rulebook {
        &self.rules
    }

    /// Shots, flights and every player's status, as the events and our own prediction
    /// have them.
    pub fn combat(&self) -> &Combat {
        &self.feed.combat
    }

    /// The kill feed, the chat, the match clock and the results.
    pub fn match_log(&self) -> &MatchLog {
        &self.feed.match_log
    }

    /// The newest snapshot received (by tick), decoded.
    pub(crate) fn latest(&self) -> Option<&Snapshot> {
        self.remotes.latest.as_ref()
    }

    /// The snapshots remote players are interpolated between, oldest first.
    pub(crate) fn buffered(&self) -> impl Iterator<Item = &BufferedSnapshot> {
        self.remotes.buffer.iter()
    }

    /// How many buffered snapshots are still ahead of the tick remote players are
    /// drawn at now.
    pub(crate) fn buffered_ahead(&self, now: Instant) -> usize {
        self.render_tick(now)
            .map_or(0, |t| self.remotes.buffer.ahead_of(t))
    }

    /// Where the prediction draws the local player (sub-cell units): its state plus
    /// what is left of the last correction's visual error. None before the first
    /// snapshot.
    pub(crate) fn predicted_drawn(&self) -> Option<(f64, f64)> {
        self.own.prediction.as_ref().map(Prediction::drawn)
    }

    /// The newest correction of the prediction, and when it was made.
    pub(crate) fn last_correction(&self) -> Option<&(Instant, Correction)> {
        self.own.last_correction.as_ref()
    }

    /// When our newest shot's muzzle flashed, and its aim.
    pub(crate) fn muzzle(&self) -> Option<(Instant, u8)> {
        self.feed.tell.muzzle
    }

    /// Everyone in the game, as the newest roster says.
    pub(crate) fn roster(&self) -> &[RosterEntry] {
        &self.remotes.roster
    }

    pub(crate) fn server_name(&self) -> &str {
        &self.server_name
    }

    pub(crate) fn lagometer(&self) -> &Lagometer {
        &self.net.lagometer
    }

    /// The newest corrections, oldest first: seconds into the session, cells, cause.
    pub(crate) fn recent_corrections(&self) -> impl Iterator<Item = &(f64, f64, String)> {
        self.net.recent.iter()
    }

    pub fn player_id(&self) -> PlayerId {
        self.player_id
    }

    pub(crate) fn last_heard(&self) -> Instant {
        self.last_heard
    }

    pub fn stats(&self) -> &SessionStats {
        &self.net.stats
    }

    pub(crate) fn remotes_seen(&self) -> &[RemoteSeen] {
        &self.net.remotes
    }

    /// The netcode switches in force: the one copy there is.
    pub fn switches(&self) -> Switches {
        self.switches
    }

    /// Highest seq the server has acknowledged.
    pub(crate) fn acked_seq(&self) -> u32 {
        self.own.prediction.as_ref().map_or(0, |p| p.acked_seq())
    }

    pub fn pending_commands(&self) -> u32 {
        self.own.prediction.as_ref().map_or(0, |p| p.pending())
    }

    /// The predicted state of the local player (None until the first snapshot).
    pub fn predicted(&self) -> Option<PlayerState> {
        self.own.prediction.as_ref().map(|p| p.state())
    }

    /// The newest authoritative state of the local player.
    pub fn server_state(&self) -> Option<PlayerState> {
        self.remotes
            .latest
            .as_ref()
            .and_then(|s| find(&s.players, self.player_id))
    }

    /// The command seq the newest snapshot says the server applied last.
    pub fn server_ack_seq(&self) -> u32 {
        self.remotes.latest.as_ref().map_or(0, |s| s.header.ack_seq)
    }

    pub fn latest_tick(&self) -> Option<u32> {
        self.remotes.latest.as_ref().map(|s| s.header.tick)
    }

    /// Newest command seq made.
    pub fn latest_seq(&self) -> u32 {
        self.own.prediction.as_ref().map_or(0, |p| p.latest_seq())
    }

    /// The paths of the last few corrections, newest last, with their seconds into the
    /// session.
    pub(crate) fn correction_paths(
        &self,
    ) -> impl DoubleEndedIterator<Item = &(f64, CorrectionPath)> {
        self.net.paths.iter()
    }

    /// The newest run of commands a correction's re-simulation found lost: first seq,
    /// count.
    pub(crate) fn last_lost_commands(&self) -> Option<(u32, u32)> {
        self.net.last_lost
    }
}
