//! A recording loaded for viewing: play, pause, step, seek and what-if. Seeking re-runs
//! from the nearest keyframe (a copy of the whole client loop taken every
//! [`KEYFRAME_EVERY`] of recorded time while the recording is first indexed), so any
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
use crate::client::net_stats::SessionStats;
use crate::client::session::DrawnFrom;
use crate::client::tap::LoopKind;
use crate::net::protocol::ServerMsg;
use crate::ui::timeline::TimelineSlot;

pub const KEYFRAME_EVERY: Duration = Duration::from_secs(2);

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
                let inputs = d.inputs.map(|i| (i.received, i.high));
                fates.snapshot(d.ack_seq, d.queued, inputs);
                self.arrivals.entry(d.tick).or_insert(slot);
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
                if let Some((first, count)) = r.session().last_lost_commands() {
                    fates.lost_by_resimulation(first, count);
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
    pub fn jump_correction(&mut self, forward: bool) -> bool {
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
pub(super) mod tests {
    use super::*;
    use crate::net::conditioner::Conditions;
    use crate::net::delta;
    use crate::net::protocol::{InputCounts, PlayerSnap, Snapshot, Welcome};
    use crate::sim::map::Map;
    use crate::sim::world::{Command, PlayerState};

    pub(in crate::record) fn start() -> Start {
        let map = Map::builtin("duel").unwrap();
        Start {
            kind: LoopKind::Headless,
            seed: 1,
            input_rate: 30,
            switches: Switches::default(),
            conditions: Conditions::default(),
            welcome: Welcome {
                player_id: 0,
                tick_rate: 60,
                snapshot_interval: 3,
                server_tick: 0,
                server_name: "test".into(),
                map_name: map.name().into(),
                map: crate::net::map_chunks::info(map.text(), 1024),
                map_text: map.text().into(),
            },
        }
    }

    fn snapshot(
        at_ms: u64,
        tick: u32,
        ack_seq: u32,
        queued: u8,
        inputs: Option<(u32, u32)>,
    ) -> Record {
        let (x, y) = Map::builtin("duel").unwrap().spawns()[0];
        let snap = Snapshot {
            tick,
            ack_seq,
            echo_time_ms: 0,
            echo_hold_ms: 0,
            inputs: inputs.map(|(received, high)| InputCounts { received, high }),
            queued,
            me: Default::default(),
            players: vec![PlayerSnap {
                id: 0,
                state: PlayerState::at_cell(x, y),
            }],
        };
        Record::Received {
            at: Duration::from_millis(at_ms),
            wire_bytes: 100,
            msg: Box::new(ServerMsg::Snapshot(delta::encode(&snap, None))),
        }
    }

    /// `ticks` command ticks of a headless session, the k-th made `late(k)` after 0.3 ms
    /// before its time (the end of a 1/60 s slice), and a snapshot every 50 ms acknowledging what was made.
    pub(in crate::record) fn ticks(count: u64, late: impl Fn(u64) -> Duration) -> Vec<Record> {
        let tick = Duration::from_secs(1) / 60;
        let mut records = vec![snapshot(1, 3, 0, 0, None)];
        for k in 0..count {
            records.push(Record::Ticks {
                at: tick * (k as u32 + 1) - Duration::from_micros(300) + late(k),
                commands: vec![Command::default()],
            });
        }
        for j in 1..count / 3 {
            let ack = (3 * j).saturating_sub(3) as u32;
            records.push(snapshot(10 + 50 * j, 3 + 3 * j as u32, ack, 1, None));
        }
        records.sort_by_key(|r| r.at());
        records
    }

    /// A command tick made late now and then (as an interactive loop's are, at its
    /// frames) lands in the next 1/60 s of recording time with that one's own: the
    /// `cmds` row still shows one command a column, none missing, none doubled.
    #[test]
    fn late_command_ticks_still_fill_every_cmds_column_once() {
        let late = |k: u64| Duration::from_micros(if k % 7 == 3 { 600 } else { 0 });
        let mut player = Player::new(start(), ticks(120, late), None).unwrap();
        // The time slots do have a gap and a double.
        let per_slot: Vec<u8> = player.slots[2..100].iter().map(|s| s.commands).collect();
        assert!(
            per_slot.contains(&0) && per_slot.contains(&2),
            "{per_slot:?}"
        );
        for t in [40, 50, 77, 110] {
            player.seek(player.tick() * t);
            let (slots, cursor) = player.timeline(40);
            let cmds: String = slots
                .iter()
                .map(|s| char::from(b'0' + s.commands))
                .collect();
            // Up to the cursor, every column holds one command.
            let seen = &cmds[..=cursor];
            assert_eq!(seen, "1".repeat(cursor + 1), "at tick {t}: {cmds}");
        }
        // The cursor's column is the newest command at the replay time (the 110th, made
        // 0.3 ms before tick 110), the next column the one after it.
        assert_eq!(player.replayer().session().stats().commands_sent, 110);
        let (slots, cursor) = player.timeline(40);
        assert_eq!((slots[cursor].commands, slots[cursor + 1].commands), (1, 1));
        player.seek(player.duration());
        let (slots, cursor) = player.timeline(40);
        assert_eq!((slots[cursor].commands, slots[cursor + 1].commands), (1, 0));
    }

    /// The HUD's FPS in replay: frames recorded over the last second at the cursor (a
    /// headless recording draws one a command tick: 60).
    #[test]
    fn the_recorded_frame_rate_is_the_frames_of_the_last_second() {
        let mut player = Player::new(start(), ticks(120, |_| Duration::ZERO), None).unwrap();
        player.seek(Duration::from_millis(1500));
        assert!((59.0..=61.0).contains(&player.recorded_fps()));
        // Half a second in: the half second there is, per second.
        player.seek(Duration::from_millis(500));
        assert!(
            (player.recorded_fps() - 60.0).abs() <= 2.0,
            "{}",
            player.recorded_fps()
        );
    }

    /// With interpolation off (what-if `i`), frames are drawn at the newest snapshot:
    /// counted held, not interpolated, and marked `at_snapshot` on the strip.
    #[test]
    fn with_interpolation_off_frames_are_at_the_snapshot_not_interpolated() {
        let mut player = Player::new(start(), ticks(120, |_| Duration::ZERO), None).unwrap();
        let on = player.switches();
        player.seek(player.duration());
        assert!(player.replayer().session().stats().frames_interpolated > 60);
        let off = Switches {
            interpolation: false,
            extrapolation: false,
            ..on
        };
        player.set_what_if(Some(off)).unwrap();
        let stats = player.replayer().session().stats();
        assert_eq!(stats.frames_interpolated, 0);
        assert!(stats.frames_held > 60);
        assert!(matches!(player.drawn_from(), Some(DrawnFrom::Newest(_))));
        let (slots, cursor) = player.timeline(40);
        assert!(slots[..=cursor].iter().all(|s| s.at_snapshot && !s.held));
    }

    /// Half a second of a headless session: a command every tick, an input packet every
    /// other one (packet n carries up to seq 2n - 1), a snapshot every 50 ms. The
    /// snapshots' acks and queues show packets 1, 2, 4, 5... arriving; packet 3, the
    /// first to carry seqs 4 and 5, never shows, and the server's count (4 of 5) says
    /// one is missing: 4 and 5 got there in packet 4's copy.
    #[test]
    fn a_known_session_gives_recovered_commands_and_the_interpolated_pair() {
        let mut records = vec![snapshot(1, 3, 0, 0, None)];
        let tick_ns = 1_000_000_000 / 60;
        for k in 0..=28u64 {
            records.push(Record::Ticks {
                at: Duration::from_nanos(2_000_000 + k * tick_ns),
                commands: vec![Command::default()],
            });
        }
        // Per snapshot: ack_seq, queued, and the server's count (received, high).
        let counts = |received, high| Some((received, high));
        let acks = [
            (1, 0, None),
            (2, 1, None),
            (4, 3, None),
            (8, 1, counts(4, 5)),
            (10, 1, None),
            (12, 1, None),
            (14, 1, None),
            (16, 1, None),
            (18, 1, counts(9, 10)),
        ];
        for (j, (ack, queued, inputs)) in acks.into_iter().enumerate() {
            let j = j as u64 + 1;
            records.push(snapshot(10 + 50 * j, 3 + 3 * j as u32, ack, queued, inputs));
        }
        records.sort_by_key(|r| r.at());
        let mut player = Player::new(start(), records, None).unwrap();
        // Seqs 4 and 5 (the 4th and 5th commands) were recovered; nothing else was
        // recovered or lost.
        let fated: Vec<(usize, Fate)> = (player.commands.fates.iter().enumerate())
            .filter(|(_, f)| !matches!(f, Fate::Delivered | Fate::Pending))
            .map(|(i, f)| (i + 1, *f))
            .collect();
        assert_eq!(fated, [(4, Fate::Recovered), (5, Fate::Recovered)]);

        player.seek(player.duration());
        let Some(DrawnFrom::Between { from, to, f }) = player.drawn_from() else {
            panic!("interpolating at the end: {:?}", player.drawn_from());
        };
        assert_eq!(to - from, 3, "two snapshots in a row");
        assert!((0.0..1.0).contains(&f));
        // Snapshot of tick 3j + 3 arrived at 10 + 50j ms: the slot it is marked in.
        let slot = |tick: u32| ((10 + 50 * u64::from(tick / 3 - 1)) * 60 / 1000) as usize;
        let (slots, cursor) = player.timeline(60);
        let first = player.slot_of(player.at()) - cursor;
        let marked = |pick: fn(&TimelineSlot) -> bool| -> Vec<usize> {
            (0..slots.len())
                .filter(|&i| pick(&slots[i]))
                .map(|i| i + first)
                .collect()
        };
        assert_eq!(marked(|s| s.interp_from), [slot(from)]);
        assert_eq!(marked(|s| s.interp_to), [slot(to)]);
    }
}
