//! A recording loaded for viewing: play, pause, step, seek and what-if. Seeking re-runs
//! from the nearest keyframe (a copy of the whole client loop taken every
//! `KEYFRAME_EVERY` of recorded time while the recording is first indexed), so any
//! point is a short re-run away. The same pass writes the timeline: what the netcode did
//! in each command tick.

use std::collections::HashMap;
use std::path::Path;
use std::time::{Duration, Instant};

use super::fates::{Fate, Fates};
use super::format::{Record, Start};
use super::reader::ReadError;
use super::replay::{Replayer, open};
use crate::client::Switches;
use crate::client::netcode::net_stats::SessionStats;
use crate::client::netcode::session::DrawnFrom;
use crate::client::tap::LoopKind;
use crate::net::protocol::ServerMsg;
use crate::ui::timeline::TimelineSlot;

pub(crate) const KEYFRAME_EVERY: Duration = Duration::from_secs(2);

struct Keyframe {
    at: Duration,
    /// The index of the first record not yet applied.
    next: usize,
    replayer: Replayer,
}

pub struct Player {
    start: Start,
    records: Vec<Record>,
    stopped: Option<ReadError>,
    base: Instant,
    what_if: Option<Switches>,
    keyframes: Vec<Keyframe>,
    slots: Vec<TimelineSlot>,
    tick: Duration,
    /// Times a frame was drawn (headless: a command tick), and of each correction.
    frames: Vec<Duration>,
    corrections: Vec<Duration>,
    /// The slot each snapshot tick first arrived in.
    arrivals: HashMap<u32, usize>,
    /// What became of each command, by its number in the session (the count of
    /// commands made with it): the `cmds` row, a column per command.
    commands: CommandMarks,
    /// Runs of commands (first seq, count) the recording's own corrections found lost
    /// by re-simulation. A what-if keeps these: it changes the client, not what reached
    /// the server, and its client (reconciliation off, say) has drifted too far for its
    /// own analysis to tell.
    lost_runs: Vec<(u32, u32)>,
    current: Replayer,
    next: usize,
}

impl Player {
    /// Reads the whole recording at `path`; a cut-short file loads up to its cut.
    pub fn load(path: &Path) -> anyhow::Result<Player> {
        let (start, reader) = open(path)?;
        let mut records = Vec::new();
        let mut stopped = None;
        for r in reader {
            match r {
                Ok(r) => records.push(r),
                Err(e) => {
                    stopped = Some(e);
                    break;
                }
            }
        }
        Player::new(start, records, stopped)
    }

    pub fn new(
        start: Start,
        records: Vec<Record>,
        stopped: Option<ReadError>,
    ) -> anyhow::Result<Player> {
        let base = Instant::now();
        let tick = Duration::from_secs(1) / u32::from(start.welcome.tick_rate.max(1));
        let current = Replayer::begin(&start, records.first(), base, None)?;
        let mut player = Player {
            start,
            records,
            stopped,
            base,
            what_if: None,
            keyframes: Vec::new(),
            slots: Vec::new(),
            tick,
            frames: Vec::new(),
            corrections: Vec::new(),
            arrivals: HashMap::new(),
            commands: CommandMarks::default(),
            lost_runs: Vec::new(),
            current,
            next: 0,
        };
        player.index()?;
        Ok(player)
    }

    /// One pass over the whole recording: keyframes, timeline, frames, corrections.
    fn index(&mut self) -> anyhow::Result<()> {
        // A clip the ring saved starts at its keyframe, not at the welcome.
        let mut r = Replayer::begin(&self.start, self.records.first(), self.base, self.what_if)?;
        self.keyframes.clear();
        self.slots.clear();
        self.frames.clear();
        self.corrections.clear();
        self.arrivals.clear();
        let mut fates = Fates::default();
        if self.what_if.is_none() {
            self.lost_runs.clear();
        }
        // Each command made: its seq, if predicted (None with prediction off).
        let mut made: Vec<Option<u32>> = Vec::new();
        self.keyframes.push(Keyframe {
            at: r.at(),
            next: 0,
            replayer: r.fork(),
        });
        let mut before = r.session().stats().clone();
        self.commands = CommandMarks::from(before.commands_sent);
        let at_snapshot = {
            let s = r.session().switches();
            !(s.interpolation || s.extrapolation)
        };
        let mut acked_before = 0;
        let frame_kind = self.frame_kind();
        for (i, record) in self.records.iter().enumerate() {
            let is_frame = frame_kind(record);
            // What the session widens a snapshot's counters against as it takes it in.
            let known = r.session().known();
            r.apply(record.clone());
            for &(number, first, last) in r.sent() {
                fates.sent(number, first, last);
            }
            if let Record::Dropped { packet, .. } = record {
                fates.dropped(*packet);
            }
            let Some(at) = record.at() else { continue };
            let after = r.session().stats();
            let slot = slot_of(at, self.tick);
            mark(&mut self.slots, slot, &before, after, at_snapshot);
            if let Record::Received { msg, .. } = record
                && let ServerMsg::Snapshot(d) = msg.as_ref()
            {
                // Recorded as it came: the tick and acknowledgement in their low 16
                // bits, or 8 in a near snapshot.
                let mut wide = d.clone();
                wide.widen(&known);
                let inputs = wide.header.inputs.map(|i| (i.received, i.high));
                fates.snapshot(wide.header.ack_seq, wide.header.queued, inputs);
                self.arrivals.entry(wide.header.tick).or_insert(slot);
            }
            let new = after.commands_sent.saturating_sub(before.commands_sent) as u32;
            let latest = r.session().latest_seq();
            let seqs = latest.saturating_sub(new) + 1..=latest;
            made.extend(seqs.map(|seq| (seq > 0).then_some(seq)));
            made.resize(made.len() + new.saturating_sub(latest) as usize, None);
            let acked = r.session().acked_seq();
            if acked > acked_before {
                self.slots[slot].acked = true;
                acked_before = acked;
            }
            if is_frame {
                self.frames.push(at);
            }
            if after.corrections > before.corrections {
                self.corrections.push(at);
                if self.what_if.is_none()
                    && let Some(run) = r.session().last_lost_commands()
                {
                    self.lost_runs.push(run);
                }
            }
            before = after.clone();
            let last = self.keyframes.last().map_or(Duration::ZERO, |k| k.at);
            if at >= last + KEYFRAME_EVERY {
                self.keyframes.push(Keyframe {
                    at,
                    next: i + 1,
                    replayer: r.fork(),
                });
            }
        }
        for &(first, count) in &self.lost_runs {
            fates.lost_by_resimulation(first, count);
        }
        let fates = made
            .into_iter()
            .map(|seq| seq.map_or(Fate::Pending, |s| fates.fate(s)));
        self.commands.fates.extend(fates);
        self.current = self.keyframes[0].replayer.fork();
        self.next = 0;
        Ok(())
    }

    fn frame_kind(&self) -> fn(&Record) -> bool {
        match self.start.kind {
            LoopKind::Headless => |r| matches!(r, Record::Ticks { .. }),
            LoopKind::Interactive => |r| matches!(r, Record::Frame { .. }),
        }
    }

    fn slot_of(&self, at: Duration) -> usize {
        slot_of(at, self.tick)
    }

    /// Re-runs the recording with `what_if` switches (None: as recorded), and comes
    /// back to the same time.
    pub fn set_what_if(&mut self, what_if: Option<Switches>) -> anyhow::Result<()> {
        let at = self.at();
        self.what_if = what_if;
        self.index()?;
        self.seek(at);
        Ok(())
    }

    pub fn what_if(&self) -> Option<Switches> {
        self.what_if
    }

    /// The switches in force now.
    pub fn switches(&self) -> Switches {
        self.current.session().switches()
    }

    /// Replay time: the newest recorded instant applied.
    pub fn at(&self) -> Duration {
        self.current.at()
    }

    /// The time of the last record.
    pub fn duration(&self) -> Duration {
        self.records
            .iter()
            .rev()
            .find_map(Record::at)
            .unwrap_or_default()
    }

    pub fn tick(&self) -> Duration {
        self.tick
    }

    pub fn stopped(&self) -> Option<&ReadError> {
        self.stopped.as_ref()
    }

    pub fn replayer(&self) -> &Replayer {
        &self.current
    }

    pub fn corrections(&self) -> &[Duration] {
        &self.corrections
    }

    /// Applies records up to and including time `t`.
    pub fn advance_to(&mut self, t: Duration) {
        while let Some(r) = self.records.get(self.next) {
            if r.at().is_some_and(|at| at > t) {
                break;
            }
            self.current.apply(r.clone());
            self.next += 1;
        }
    }

    /// Goes to time `t`, from the nearest keyframe at or before it.
    pub fn seek(&mut self, t: Duration) {
        let k = self
            .keyframes
            .partition_point(|k| k.at <= t)
            .saturating_sub(1);
        let key = &self.keyframes[k];
        if !(self.at() <= t && self.next >= key.next) {
            self.current = key.replayer.fork();
            self.next = key.next;
        }
        self.advance_to(t);
    }

    /// One frame forward (or back).
    pub fn step_frame(&mut self, forward: bool) {
        let at = self.at();
        let target = if forward {
            self.frames.iter().find(|&&f| f > at).copied()
        } else {
            self.frames.iter().rev().find(|&&f| f < at).copied()
        };
        if let Some(t) = target {
            self.seek(t);
        }
    }

    /// The next (or previous) correction, if there is one.
    pub(crate) fn jump_correction(&mut self, forward: bool) -> bool {
        let at = self.at();
        let target = if forward {
            self.corrections.iter().find(|&&c| c > at).copied()
        } else {
            self.corrections.iter().rev().find(|&&c| c < at).copied()
        };
        target.map(|t| self.seek(t)).is_some()
    }

    /// Which snapshots the frame at the replay time draws remote players from.
    pub(crate) fn drawn_from(&self) -> Option<DrawnFrom> {
        let r = &self.current;
        r.session().drawn_from(r.instant())
    }

    /// Frames recorded over the last second of recording time before the replay time
    /// (over the part of it the recording has, at its start), per second.
    pub(crate) fn recorded_fps(&self) -> f64 {
        let at = self.at();
        let start = self.keyframes.first().map_or(Duration::ZERO, |k| k.at);
        let window = (at - start.min(at)).min(Duration::from_secs(1));
        if window < self.tick {
            return 0.0;
        }
        let from = self.frames.partition_point(|&f| f <= at - window);
        let to = self.frames.partition_point(|&f| f <= at);
        (to - from) as f64 / window.as_secs_f64()
    }

    /// `columns` timeline slots with the replay time among them, and its index; the
    /// snapshots the frame at the replay time is interpolated between are marked. The
    /// `cmds` marks go a command a column, the newest command at the replay time in
    /// the cursor's column (the other rows are command ticks of recording time: a
    /// command made late is still in its own column).
    pub(crate) fn timeline(&self, columns: usize) -> (Vec<TimelineSlot>, usize) {
        let now = self.slot_of(self.at());
        let first = now.saturating_sub(columns / 2);
        let newest = self.current.session().stats().commands_sent;
        let mut slots: Vec<TimelineSlot> = (first..first + columns)
            .map(|i| {
                let mut s = self.slots.get(i).copied().unwrap_or_default();
                let number = (newest + i as u64).checked_sub(now as u64);
                self.commands.mark(&mut s, number);
                s
            })
            .collect();
        if let Some(DrawnFrom::Between { from, to, .. }) = self.drawn_from() {
            let at = |tick: u32| self.arrivals.get(&tick)?.checked_sub(first);
            if let Some(s) = at(from).and_then(|i| slots.get_mut(i)) {
                s.interp_from = true;
            }
            if let Some(s) = at(to).and_then(|i| slots.get_mut(i)) {
                s.interp_to = true;
            }
        }
        (slots, now - first)
    }
}

/// The fate of each command made in the recording, by number.
#[derive(Default)]
struct CommandMarks {
    /// Commands made before the recording (or clip) starts.
    before: u64,
    fates: Vec<Fate>,
}

impl CommandMarks {
    fn from(before: u64) -> CommandMarks {
        CommandMarks {
            before,
            fates: Vec::new(),
        }
    }

    /// Puts command `number` (1 for the session's first), if the recording made it,
    /// in `slot`'s command marks.
    fn mark(&self, s: &mut TimelineSlot, number: Option<u64>) {
        let fate = number
            .and_then(|n| n.checked_sub(self.before + 1))
            .and_then(|i| self.fates.get(usize::try_from(i).ok()?));
        s.commands = u8::from(fate.is_some());
        s.recovered = u8::from(fate == Some(&Fate::Recovered));
        s.unsure = u8::from(fate == Some(&Fate::Unsure));
        s.commands_lost = u8::from(fate == Some(&Fate::Lost));
    }
}

fn slot_of(at: Duration, tick: Duration) -> usize {
    (at.as_nanos() / tick.as_nanos().max(1)) as usize
}

/// Marks in slot `i` what changed in the counts from `before` to `after`.
/// With interpolation and extrapolation off, a held frame is one drawn at the newest
/// snapshot (`at_snapshot`), not one where interpolation ran dry.
fn mark(
    slots: &mut Vec<TimelineSlot>,
    i: usize,
    before: &SessionStats,
    after: &SessionStats,
    at_snapshot: bool,
) {
    if slots.len() <= i {
        slots.resize(i + 1, TimelineSlot::default());
    }
    let grew = |a: u64, b: u64| u8::try_from(b.saturating_sub(a)).unwrap_or(u8::MAX);
    let s = &mut slots[i];
    s.commands = s
        .commands
        .saturating_add(grew(before.commands_sent, after.commands_sent));
    s.snapshots = s
        .snapshots
        .saturating_add(grew(before.snapshots_received, after.snapshots_received));
    s.snapshots_lost = s
        .snapshots_lost
        .saturating_add(grew(before.snapshots_lost, after.snapshots_lost));
    s.snapshots_late = s
        .snapshots_late
        .saturating_add(grew(after.snapshots_lost, before.snapshots_lost));
    s.corrections = s
        .corrections
        .saturating_add(grew(before.corrections, after.corrections));
    s.extrapolated |= after.frames_extrapolated > before.frames_extrapolated;
    let held = after.frames_held > before.frames_held;
    s.held |= held && !at_snapshot;
    s.at_snapshot |= held && at_snapshot;
}

#[cfg(test)]
#[path = "player_tests.rs"]
pub(super) mod tests;
