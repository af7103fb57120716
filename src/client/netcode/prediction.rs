//! Client-side prediction and server reconciliation for the local player.
//!
//! Every command is applied locally the moment it is made and remembered, with the state
//! it produced, in a power-of-two ring indexed by seq. When a snapshot says which seq the
//! server applied last and where that left us, the ring says where we thought we were
//! after that same seq. If the two differ the server wins: we take its state and replay
//! every later command on top. The jump this makes on screen is hidden by a visual error
//! offset that decays over about 100 ms, unless it is too big to hide.

use super::causes::Disagreement;
use crate::sim::map::{CELL, Map};
use crate::sim::step::{Body, Rulebook, Shot, Span, step_span};
use crate::sim::world::{Command, PlayerId, PlayerState};

/// Seqs remembered: 512 commands is 8.5 s at 60 Hz, far longer than any RTT we play at.
pub(crate) const RING: usize = 512;
const MASK: u32 = RING as u32 - 1;
/// Errors larger than this (in sub-cell units) snap instead of sliding: smoothing a
/// teleport would show the player gliding through walls.
const SNAP_DISTANCE: f64 = 2.0 * CELL as f64;
/// Time constant of the visual error decay, in seconds: ~95% gone after 100 ms.
const SMOOTHING_TAU: f64 = 0.033;
/// A correction's paths start this many commands before the acknowledged one...
const PATH_BEFORE: u32 = 6;
/// ...and keep at most this many points each (the newest, at a long round trip).
pub(crate) const PATH_POINTS: usize = 64;

/// Where the local player's commands are stepped: the map, the rules, who the player
/// is and the other players as the newest snapshot has them (they block movement).
/// [`Prediction::push`] and [`Prediction::reconcile`] step through the same one.
#[derive(Clone, Copy)]
pub(crate) struct Stepping<'a> {
    pub(crate) map: &'a Map,
    pub(crate) rules: &'a Rulebook,
    pub(crate) me: PlayerId,
    pub(crate) others: &'a [PlayerState],
    /// After a tick-rate change: the seq from which `rules` hold, and the rules the
    /// server applied the commands before it by.
    pub(crate) earlier: Option<(u32, &'a Rulebook)>,
}

impl Stepping<'_> {
    /// The rules command `seq` is applied by.
    fn rules_for(&self, seq: u32) -> &Rulebook {
        match self.earlier {
            Some((from, old)) if seq < from => old,
            _ => self.rules,
        }
    }
}

/// What [`Prediction::reconcile`] does when the server disagrees with the prediction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Reconcile {
    /// Take the server's word and replay the later commands on it, hiding the jump
    /// behind a visual error that decays (unless it is too big to hide).
    Smooth,
    /// The same, with the jump drawn at once (smoothing off, or a placement: the
    /// server's decision is no misprediction to hide).
    Snap,
    /// Keep the prediction and its history as they are and only measure the correction
    /// that would be made (reconciliation off: the player drifts from the server's).
    MeasureOnly,
    /// The correction-loop bug of the movement-corrections article, for the lab to show
    /// (`ClientSession::set_correction_loop`): take the server's word and drop the
    /// commands in flight from the prediction instead of replaying them. The server
    /// still applies them, so the next snapshot disagrees again while the player moves,
    /// and only standing still ends the corrections.
    Loop,
}

impl Reconcile {
    /// What the switches make of a snapshot that disagrees; `placed`: the server put the
    /// player somewhere (a spawn), which is taken without smoothing: no misprediction.
    /// With prediction off the player is drawn where the server says; the prediction
    /// kept underneath (ready for the switch back on) follows the server unseen, and its
    /// disagreements are no corrections anyone saw.
    pub(crate) fn for_switches(s: crate::client::Switches, placed: bool) -> Reconcile {
        match (placed || !s.prediction, s.reconciliation, s.smoothing) {
            (true, ..) | (false, true, false) => Reconcile::Snap,
            (false, true, true) => Reconcile::Smooth,
            (false, false, _) => Reconcile::MeasureOnly,
        }
    }
}

#[derive(Clone, Copy, Debug, Default, serde::Serialize, serde::Deserialize)]
struct Entry {
    seq: u32,
    cmd: Command,
    body: Body,
}

/// One disagreement with the server, as measured when it was found.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub(crate) struct Correction {
    /// Where the prediction had the player now, before the replay (sub-cell units).
    pub(crate) predicted: PlayerState,
    /// Where the replay from the server's state put the player now.
    pub(crate) corrected: PlayerState,
    /// Distance between the two, in cells.
    pub(crate) cells: f64,
    /// The server changed the player's phase (death, the end of a match): a decision
    /// only it could make, not a misprediction.
    pub(crate) decreed: bool,
}

/// The local player's positions around one correction, oldest first, one per command
/// (sub-cell units): as predicted, and as the server's state with our later commands
/// replayed on it gives them. Both end at the newest command.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct CorrectionPath {
    /// The seq of `predicted[0]`, and of `server[0]` (the acknowledged command).
    pub(crate) predicted_from: u32,
    pub(crate) server_from: u32,
    pub(crate) predicted: Vec<(i32, i32)>,
    pub(crate) server: Vec<(i32, i32)>,
}

impl CorrectionPath {
    /// Keeps the newest [`PATH_POINTS`] of a server path that starts at `ack_seq`.
    fn newest(mut self, ack_seq: u32) -> CorrectionPath {
        let extra = self.server.len().saturating_sub(PATH_POINTS);
        self.server.drain(..extra);
        self.server_from = ack_seq + extra as u32;
        self
    }
}

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub(crate) struct Prediction {
    #[serde(deserialize_with = "exactly::<_, _, RING>")]
    ring: Vec<Entry>,
    latest_seq: u32,
    acked_seq: u32,
    body: Body,
    /// Visual offset (sub-cell units) added to the drawn position after a correction.
    error: (f64, f64),
    /// The paths of the last correction `reconcile` found, until taken (at once).
    #[serde(skip)]
    path: Option<CorrectionPath>,
    /// Each command's span beside the ring (0: a fixed tick; the lab's variable-rate
    /// client, `FrameClock`, makes others). Not kept in a keyframe, as the lab's
    /// variable rate is not: empty then, every span read as 0.
    #[serde(skip)]
    spans: Vec<u8>,
}

impl Prediction {
    /// Starts from the server's word for `acked_seq` (0 before any command).
    pub(crate) fn new(body: Body, acked_seq: u32) -> Prediction {
        let mut p = Prediction {
            ring: vec![Entry::default(); RING],
            latest_seq: acked_seq,
            acked_seq,
            body,
            error: (0.0, 0.0),
            path: None,
            spans: vec![0; RING],
        };
        p.ring[(acked_seq & MASK) as usize] = Entry {
            seq: acked_seq,
            cmd: Command::default(),
            body,
        };
        p
    }

    pub(crate) fn state(&self) -> PlayerState {
        self.body.state
    }

    pub(crate) fn latest_seq(&self) -> u32 {
        self.latest_seq
    }

    pub(crate) fn acked_seq(&self) -> u32 {
        self.acked_seq
    }

    /// What a correction's cause analysis needs, before `reconcile` rewrites the history
    /// for `ack_seq` (None when that history is gone or was never made).
    pub(crate) fn disagreement(&self, ack_seq: u32) -> Option<Disagreement> {
        let entry = |seq: u32| Some(self.ring[(seq & MASK) as usize]).filter(|e| e.seq == seq);
        if ack_seq <= self.acked_seq || ack_seq > self.latest_seq {
            return None;
        }
        let agreed = entry(self.acked_seq)?.body.state;
        let commands = (self.acked_seq + 1..=ack_seq)
            .map(|seq| entry(seq).map(|e| e.cmd))
            .collect::<Option<Vec<_>>>()?;
        let predicted = entry(ack_seq)?.body.state;
        let spans = (self.acked_seq + 1..=ack_seq)
            .map(|seq| self.span(seq))
            .collect();
        Some(Disagreement {
            agreed,
            commands,
            spans,
            predicted,
            first_seq: self.acked_seq + 1,
            server_agreed: None,
        })
    }

    /// Commands made but not yet acknowledged by the server.
    pub(crate) fn pending(&self) -> u32 {
        self.latest_seq - self.acked_seq
    }

    /// The newest `limit` unacknowledged commands, oldest first: the redundant window
    /// every input packet carries.
    pub(crate) fn unacked(&self, limit: usize) -> impl Iterator<Item = (u32, Command)> + '_ {
        let first = (self.acked_seq + 1).max(self.latest_seq.saturating_sub(limit as u32 - 1));
        (first..=self.latest_seq).map(|seq| (seq, self.ring[(seq & MASK) as usize].cmd))
    }

    /// [`Prediction::unacked`] with each command's span.
    pub(crate) fn unacked_timed(
        &self,
        limit: usize,
    ) -> impl Iterator<Item = (u32, Command, u8)> + '_ {
        self.unacked(limit)
            .map(|(seq, cmd)| (seq, cmd, self.span(seq)))
    }

    /// Command `seq`'s span (0: a fixed tick, or no longer remembered).
    fn span(&self, seq: u32) -> u8 {
        self.spans.get((seq & MASK) as usize).copied().unwrap_or(0)
    }

    /// How long command `seq` lasts and the one before it did.
    fn span_pair(&self, seq: u32) -> Span {
        Span {
            this: self.span(seq),
            before: self.span(seq.wrapping_sub(1)),
        }
    }

    /// [`Prediction::newest`] with its span.
    pub(crate) fn newest_timed(&self) -> Option<(u32, Command, u8)> {
        self.newest().map(|(seq, cmd)| (seq, cmd, self.span(seq)))
    }

    /// The newest command made, acknowledged or not (None before any).
    pub(crate) fn newest(&self) -> Option<(u32, Command)> {
        let entry = self.ring[(self.latest_seq & MASK) as usize];
        (self.latest_seq > 0 && entry.seq == self.latest_seq).then_some((entry.seq, entry.cmd))
    }

    /// Notes that the server has applied commands up to `ack_seq` without a state to
    /// compare (our player is dead and out of the world), so they stop being resent.
    pub(crate) fn acknowledge(&mut self, ack_seq: u32) {
        if ack_seq > self.acked_seq && ack_seq <= self.latest_seq {
            self.acked_seq = ack_seq;
        }
    }

    /// Makes the next command: applies it at once through the rulebook and remembers
    /// it. Returns its seq and the shot it fires, if any.
    #[cfg(test)]
    pub(crate) fn push(&mut self, at: &Stepping<'_>, cmd: Command) -> (u32, Option<Shot>) {
        self.push_span(at, cmd, 0)
    }

    /// [`Prediction::push`] for a command lasting `span` sub-ticks (0: a fixed tick).
    pub(crate) fn push_span(
        &mut self,
        at: &Stepping<'_>,
        cmd: Command,
        span: u8,
    ) -> (u32, Option<Shot>) {
        self.latest_seq += 1;
        if self.spans.len() != RING {
            self.spans = vec![0; RING];
        }
        self.spans[(self.latest_seq & MASK) as usize] = span;
        if self.latest_seq - self.acked_seq >= RING as u32 {
            // The server has not acknowledged anything for a whole ring: keep the ring's
            // oldest entry meaningful by treating it as acknowledged.
            self.acked_seq = self.latest_seq - RING as u32 + 1;
        }
        let seq = self.latest_seq;
        let timed = (cmd, self.span_pair(seq));
        let shot = step_span(
            at.map,
            at.rules_for(seq),
            at.me,
            &mut self.body,
            seq,
            timed,
            at.others,
        );
        self.ring[(self.latest_seq & MASK) as usize] = Entry {
            seq: self.latest_seq,
            cmd,
            body: self.body,
        };
        (self.latest_seq, shot)
    }

    /// Checks the server's word after `ack_seq` against the prediction for that seq.
    /// On a difference, unless `how` is [`Reconcile::MeasureOnly`], takes the server's
    /// body and replays the later commands through the rulebook. Returns the correction
    /// made (or, measuring only, the one that would have been made). Spawn protection
    /// ended by the server's cap is taken over silently: it moves nothing.
    pub(crate) fn reconcile(
        &mut self,
        at: &Stepping<'_>,
        ack_seq: u32,
        server: Body,
        how: Reconcile,
    ) -> Option<Correction> {
        self.reconcile_or_replay(at, ack_seq, server, how, false)
    }

    /// Steps every command not yet acknowledged again from the acknowledged body, by
    /// the rules `at` gives each seq (the server changed its tick rate: what was
    /// predicted by the old rate's rules is applied by the new one's), rewriting the
    /// history so the next snapshot compares against it. Returns the correction this
    /// makes to where the player is now, if it moves it at all.
    pub(crate) fn replay_pending(
        &mut self,
        at: &Stepping<'_>,
        how: Reconcile,
    ) -> Option<Correction> {
        let acked = self.ring[(self.acked_seq & MASK) as usize];
        if acked.seq != self.acked_seq || self.latest_seq == self.acked_seq {
            return None;
        }
        let c = self.reconcile_or_replay(at, self.acked_seq, acked.body, how, true)?;
        (c.predicted != c.corrected).then_some(c)
    }

    fn reconcile_or_replay(
        &mut self,
        at: &Stepping<'_>,
        ack_seq: u32,
        server: Body,
        how: Reconcile,
        replay: bool,
    ) -> Option<Correction> {
        let correct = how != Reconcile::MeasureOnly;
        // An older snapshot than one already used (reordering), or an ack of a command
        // we never made (a confused or hostile server): nothing to learn.
        if ack_seq < self.acked_seq || ack_seq > self.latest_seq {
            return None;
        }
        self.acked_seq = ack_seq;
        let entry = self.ring[(ack_seq & MASK) as usize];
        let mut predicted_then = entry.body;
        // The wire says how long until ready from `ack_seq` on, so a weapon ready
        // earlier reads as ready at `ack_seq`: the same for every later command.
        predicted_then.ready_at = predicted_then.ready_at.max(ack_seq);
        predicted_then.protected = server.protected;
        let agrees = entry.seq == ack_seq && predicted_then == server && !replay;
        if agrees && entry.body.protected == server.protected {
            return None;
        }
        let predicted = self.body.state;
        let mut path = (!agrees).then(|| self.path_before(ack_seq));
        // Replay the later commands from the server's body. With reconciliation on,
        // the history is rewritten as we go, so the next snapshot compares against what
        // we now believe; off, the prediction and its history stand, and reconciliation
        // switched back on corrects from the next snapshot.
        let mut replayed = server;
        if correct || agrees {
            self.ring[(ack_seq & MASK) as usize].body = server;
        }
        for seq in ack_seq..=self.latest_seq {
            let span = self.span_pair(seq);
            let e = &mut self.ring[(seq & MASK) as usize];
            // The loop bug replays nothing: the commands in flight are as if unmade.
            if seq > ack_seq && (how != Reconcile::Loop || agrees) {
                let _ = step_span(
                    at.map,
                    at.rules_for(seq),
                    at.me,
                    &mut replayed,
                    seq,
                    (e.cmd, span),
                    at.others,
                );
            }
            if (correct || agrees) && seq > ack_seq {
                e.body = replayed;
            }
            if let Some(p) = &mut path {
                p.server.push((replayed.state.x, replayed.state.y));
            }
        }
        self.path = path.map(|p| p.newest(ack_seq));
        if agrees {
            self.body = replayed;
            return None;
        }
        let dx = f64::from(predicted.x - replayed.state.x);
        let dy = f64::from(predicted.y - replayed.state.y);
        let correction = Correction {
            predicted,
            corrected: replayed.state,
            cells: dx.hypot(dy) / f64::from(CELL),
            decreed: entry.body.phase != server.phase,
        };
        if !correct {
            return Some(correction);
        }
        self.body = replayed;
        let error = (self.error.0 + dx, self.error.1 + dy);
        self.error = if how == Reconcile::Smooth && error.0.hypot(error.1) <= SNAP_DISTANCE {
            error
        } else {
            (0.0, 0.0)
        };
        Some(correction)
    }

    /// The predicted positions from [`PATH_BEFORE`] commands before `ack_seq` to the
    /// newest (at most [`PATH_POINTS`]), before `reconcile` rewrites them.
    fn path_before(&self, ack_seq: u32) -> CorrectionPath {
        let first = ack_seq
            .saturating_sub(PATH_BEFORE)
            .max(self.latest_seq.saturating_sub(PATH_POINTS as u32 - 1));
        let mut path = CorrectionPath {
            predicted_from: first,
            ..CorrectionPath::default()
        };
        for seq in first..=self.latest_seq {
            let e = &self.ring[(seq & MASK) as usize];
            if e.seq == seq {
                path.predicted.push((e.body.state.x, e.body.state.y));
            } else {
                path.predicted.clear(); // older than the ring remembers: start after it
                path.predicted_from = seq + 1;
            }
        }
        path
    }

    /// The paths of the last correction found, once.
    pub(crate) fn take_path(&mut self) -> Option<CorrectionPath> {
        self.path.take()
    }

    /// Lets the visual error decay by `dt` seconds.
    pub(crate) fn decay(&mut self, dt: f64) {
        let k = (-dt / SMOOTHING_TAU).exp();
        self.error = (self.error.0 * k, self.error.1 * k);
    }

    /// Where to draw the local player, in sub-cell units: the prediction plus what is
    /// left of the last correction's visual error.
    pub(crate) fn drawn(&self) -> (f64, f64) {
        (
            f64::from(self.body.state.x) + self.error.0,
            f64::from(self.body.state.y) + self.error.1,
        )
    }
}

/// A `deserialize_with` for a table the code indexes by a mask: exactly `N` entries, or
/// the keyframe is refused (a shorter one would make an index panic later).
pub(in crate::client) fn exactly<'de, D, T, const N: usize>(d: D) -> Result<Vec<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: serde::Deserialize<'de>,
{
    let v = <Vec<T> as serde::Deserialize>::deserialize(d)?;
    if v.len() != N {
        return Err(serde::de::Error::custom(format!(
            "a table of {} entries where {N} belong",
            v.len()
        )));
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::combat::Weapon;
    use crate::sim::step::Phase;
    use crate::sim::world::{Buttons, move_player};

    /// The local player 0 alone on `map`.
    fn at<'a>(map: &'a Map, rules: &'a Rulebook) -> Stepping<'a> {
        Stepping {
            map,
            rules,
            me: 0,
            others: &[],
            earlier: None,
        }
    }

    fn setup() -> (Map, Rulebook) {
        let map = Map::parse("t", "########\n#S.....#\n#......#\n#......#\n########").unwrap();
        (map, Rulebook::for_tick_rate(60))
    }

    /// The server's word after command `ack`, as a snapshot carries it.
    fn said(state: PlayerState, ack: u32) -> Body {
        Body {
            state,
            phase: Phase::Playing,
            weapon: Weapon::Blaster,
            ready_at: ack,
            protected: false,
        }
    }

    fn right() -> Command {
        Command::moving(Buttons::RIGHT)
    }

    #[test]
    fn agreeing_server_causes_no_correction() {
        let (map, rules) = setup();
        let start = PlayerState::at_cell(1, 1);
        let mut p = Prediction::new(said(start, 0), 0);
        let mut server = start;
        for _ in 0..10 {
            p.push(&at(&map, &rules), right());
        }
        for seq in 1..=4 {
            server = move_player(&map, &rules.movement, server, right(), &[]);
            let _ = seq;
        }
        assert_eq!(
            p.reconcile(&at(&map, &rules), 4, said(server, 4), Reconcile::Smooth),
            None
        );
        assert_eq!(p.pending(), 6);
        assert_eq!(
            p.unacked(64).map(|(s, _)| s).collect::<Vec<_>>(),
            (5..=10).collect::<Vec<_>>()
        );
    }

    #[test]
    fn disagreement_replays_from_the_server_state() {
        let (map, rules) = setup();
        let start = PlayerState::at_cell(1, 1);
        let mut p = Prediction::new(said(start, 0), 0);
        for _ in 0..6 {
            p.push(&at(&map, &rules), right());
        }
        // The server teleported us down a row before applying seq 3.
        let mut server = start;
        for _ in 0..2 {
            server = move_player(&map, &rules.movement, server, right(), &[]);
        }
        server.y += CELL;
        server = move_player(&map, &rules.movement, server, right(), &[]);
        let c = p
            .reconcile(&at(&map, &rules), 3, said(server, 3), Reconcile::Smooth)
            .expect("a correction");
        assert!((c.cells - 1.0).abs() < 1e-9);
        let mut expect = server;
        for _ in 0..3 {
            expect = move_player(&map, &rules.movement, expect, right(), &[]);
        }
        assert_eq!(p.state(), expect);
        // The drawn position starts where we were and decays towards the truth.
        assert!((p.drawn().1 - f64::from(expect.y - CELL)).abs() < 1e-9);
        p.decay(0.1);
        assert!((p.drawn().1 - f64::from(expect.y)).abs() < 0.05 * f64::from(CELL));
        // The same snapshot again is not a second correction.
        assert_eq!(
            p.reconcile(&at(&map, &rules), 3, said(server, 3), Reconcile::Smooth),
            None
        );
    }

    #[test]
    fn a_correction_keeps_the_predicted_path_and_the_servers() {
        let (map, rules) = setup();
        let start = PlayerState::at_cell(1, 1);
        let mut p = Prediction::new(said(start, 0), 0);
        for _ in 0..10 {
            p.push(&at(&map, &rules), right());
        }
        let predicted: Vec<(i32, i32)> = (0..=10)
            .scan(start, |s, i| {
                if i > 0 {
                    *s = move_player(&map, &rules.movement, *s, right(), &[]);
                }
                Some((s.x, s.y))
            })
            .collect();
        // The server moved us a row down before it applied seq 8.
        let mut server = PlayerState::at_cell(1, 2);
        server.x = predicted[8].0;
        let c = p.reconcile(&at(&map, &rules), 8, said(server, 8), Reconcile::Smooth);
        assert!(c.is_some_and(|c| c.cells > 0.9));
        let path = p.take_path().expect("the paths of the correction");
        assert_eq!(p.take_path(), None, "taken once");
        // Predicted: from 6 before the ack (seq 2) to the newest (10), as predicted.
        assert_eq!(path.predicted_from, 2);
        assert_eq!(path.predicted, predicted[2..].to_vec());
        // The server's: its state at seq 8, then seqs 9 and 10 replayed on it.
        assert_eq!(path.server_from, 8);
        let replayed: Vec<(i32, i32)> = (8..=10).map(|i| (predicted[i].0, server.y)).collect();
        assert_eq!(path.server, replayed);
        assert_ne!(path.server.last(), path.predicted.last());
        // Agreement leaves no path.
        p.push(&at(&map, &rules), right());
        let now = p.state();
        assert_eq!(
            p.reconcile(&at(&map, &rules), 11, said(now, 11), Reconcile::Smooth),
            None
        );
        assert_eq!(p.take_path(), None);
    }

    #[test]
    fn large_errors_snap() {
        let (map, rules) = setup();
        let mut p = Prediction::new(said(PlayerState::at_cell(1, 1), 0), 0);
        p.push(&at(&map, &rules), right());
        let far = PlayerState::at_cell(6, 2);
        assert!(
            p.reconcile(&at(&map, &rules), 1, said(far, 1), Reconcile::Smooth)
                .is_some()
        );
        assert_eq!(p.drawn(), (f64::from(far.x), f64::from(far.y)));
    }

    #[test]
    fn reconciliation_off_keeps_the_prediction() {
        let (map, rules) = setup();
        let mut p = Prediction::new(said(PlayerState::at_cell(1, 1), 0), 0);
        p.push(&at(&map, &rules), right());
        p.push(&at(&map, &rules), right());
        let before = p.state();
        let far = PlayerState::at_cell(6, 2);
        assert!(
            p.reconcile(&at(&map, &rules), 1, said(far, 1), Reconcile::MeasureOnly)
                .is_some()
        );
        assert_eq!(p.state(), before);
    }

    #[test]
    fn stale_and_impossible_acks_are_ignored() {
        let (map, rules) = setup();
        let mut p = Prediction::new(said(PlayerState::at_cell(1, 1), 0), 0);
        for _ in 0..3 {
            p.push(&at(&map, &rules), right());
        }
        let s = p.state();
        assert_eq!(
            p.reconcile(
                &at(&map, &rules),
                99,
                said(PlayerState::default(), 99),
                Reconcile::Smooth
            ),
            None
        );
        assert!(
            p.reconcile(&at(&map, &rules), 3, said(s, 3), Reconcile::Smooth)
                .is_none()
        );
        assert_eq!(
            p.reconcile(
                &at(&map, &rules),
                2,
                said(PlayerState::default(), 2),
                Reconcile::Smooth
            ),
            None
        );
        assert_eq!(p.state(), s);
    }
}

#[cfg(test)]
mod exactly_tests {
    #[derive(Debug, serde::Deserialize)]
    struct Table(#[serde(deserialize_with = "super::exactly::<_, _, 3>")] Vec<u8>);

    #[test]
    fn a_table_of_the_wrong_length_is_refused() {
        assert_eq!(
            serde_json::from_str::<Table>("[1,2,3]").unwrap().0,
            [1, 2, 3]
        );
        let err = serde_json::from_str::<Table>("[1,2]")
            .unwrap_err()
            .to_string();
        assert!(err.contains("a table of 2 entries where 3 belong"), "{err}");
    }
}
