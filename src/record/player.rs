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
        // Each command made, and the slot it was made in.
        let mut made: Vec<(u32, usize)> = Vec::new();
        self.keyframes.push(Keyframe {
            at: r.at(),
            next: 0,
            replayer: r.fork(),
        });
        let mut before = r.session().stats().clone();
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
            mark(&mut self.slots, slot, &before, after);
            if let Record::Received { msg, .. } = record
                && let ServerMsg::Snapshot(d) = msg.as_ref()
            {
                let inputs = d.inputs.map(|i| (i.received, i.high));
                fates.snapshot(d.ack_seq, d.queued, inputs);
                self.arrivals.entry(d.tick).or_insert(slot);
            }
            let new = after.commands_sent.saturating_sub(before.commands_sent) as u32;
            let latest = r.session().latest_seq();
            made.extend((latest.saturating_sub(new) + 1..=latest).map(|seq| (seq, slot)));
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
        for (seq, slot) in made {
            let s = &mut self.slots[slot];
            match fates.fate(seq) {
                Fate::Recovered => s.recovered = s.recovered.saturating_add(1),
                Fate::Unsure => s.unsure = s.unsure.saturating_add(1),
                Fate::Lost => s.commands_lost = s.commands_lost.saturating_add(1),
                Fate::Delivered | Fate::Pending => {}
            }
        }
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

    /// `columns` timeline slots with the replay time among them, and its index; the
    /// snapshots the frame at the replay time is interpolated between are marked.
    pub(crate) fn timeline(&self, columns: usize) -> (Vec<TimelineSlot>, usize) {
        let now = self.slot_of(self.at());
        let first = now.saturating_sub(columns / 2);
        let mut slots: Vec<TimelineSlot> = (first..first + columns)
            .map(|i| self.slots.get(i).copied().unwrap_or_default())
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

fn slot_of(at: Duration, tick: Duration) -> usize {
    (at.as_nanos() / tick.as_nanos().max(1)) as usize
}

/// Marks in slot `i` what changed in the counts from `before` to `after`.
fn mark(slots: &mut Vec<TimelineSlot>, i: usize, before: &SessionStats, after: &SessionStats) {
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
    s.held |= after.frames_held > before.frames_held;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::conditioner::Conditions;
    use crate::net::delta;
    use crate::net::protocol::{InputCounts, PlayerSnap, Snapshot, Welcome};
    use crate::sim::map::Map;
    use crate::sim::world::{Command, PlayerState};

    fn start() -> Start {
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
        // Seqs 4 and 5 were made in ticks 3 and 4; nothing else was recovered or lost.
        let fated: Vec<(usize, u8, u8, u8)> = player
            .slots
            .iter()
            .enumerate()
            .filter(|(_, s)| s.recovered + s.unsure + s.commands_lost > 0)
            .map(|(i, s)| (i, s.recovered, s.unsure, s.commands_lost))
            .collect();
        assert_eq!(fated, [(3, 1, 0, 0), (4, 1, 0, 0)]);

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
