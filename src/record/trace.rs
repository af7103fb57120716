//! `replay FILE --export trace`: a recording as Chrome trace event JSON (the "Trace
//! Event Format": `{"traceEvents": [...]}`), which Perfetto (ui.perfetto.dev) and
//! chrome://tracing open.
//!
//! One process per client (pid = its number, a thread of the same number named after
//! it) and one for the server (pid 0). On a client's track: a complete event (`X`) per
//! command, from when it was made to the snapshot that acknowledged it; one per
//! snapshot, from when the server sent it (a single client's recording knows only its
//! arrival) to when the client drew past its tick; instants (`i`) for each correction,
//! with its cause, for each snapshot the client counted lost and, in a lab recording,
//! each datagram its link dropped; counters (`C`) for the round trip, the
//! interpolation delay, the commands not yet acknowledged and the bytes in and out. On
//! the server's: an instant per server decision a client heard of (a rail shot with its
//! verdict, a bolt's hit, a kill), at its tick in a lab recording, at its arrival in a
//! single client's. Times are microseconds of the recording (`ts`).
//!
//! The recording is re-run to make it: the lab's with its own checkpoints, a client's
//! through the replay.

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::replay::{Replayer, open};
use crate::client::netcode::session::ClientSession;
use crate::net::protocol::{GameEvent, RailVerdict, ServerMsg};

/// Counters are sampled at most this often per client.
const COUNTER_EVERY: f64 = 50_000.0;
/// The server's track.
pub(crate) const SERVER: u32 = 0;

pub(crate) fn us(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

/// Trace events being gathered.
#[derive(Default)]
pub(crate) struct Events {
    list: Vec<Value>,
    /// Server decisions already on the server's track (several clients hear of each).
    decisions: HashSet<String>,
}

impl Events {
    pub(crate) fn name_track(&mut self, pid: u32, name: &str) {
        for what in ["process_name", "thread_name"] {
            self.list.push(json!({
                "ph": "M", "name": what, "pid": pid, "tid": pid, "ts": 0,
                "args": {"name": name},
            }));
        }
        self.list.push(json!({
            "ph": "M", "name": "process_sort_index", "pid": pid, "tid": pid, "ts": 0,
            "args": {"sort_index": pid},
        }));
    }

    pub(crate) fn span(
        &mut self,
        pid: u32,
        cat: &str,
        name: String,
        from: f64,
        to: f64,
        args: Value,
    ) {
        self.list.push(json!({
            "ph": "X", "cat": cat, "name": name, "pid": pid, "tid": pid,
            "ts": from, "dur": (to - from).max(0.0), "args": args,
        }));
    }

    pub(crate) fn instant(&mut self, pid: u32, cat: &str, name: &str, at: f64, args: Value) {
        self.list.push(json!({
            "ph": "i", "s": "t", "cat": cat, "name": name, "pid": pid, "tid": pid,
            "ts": at, "args": args,
        }));
    }

    pub(crate) fn counter(&mut self, pid: u32, name: &str, at: f64, args: Value) {
        self.list.push(json!({
            "ph": "C", "name": name, "pid": pid, "tid": pid, "ts": at, "args": args,
        }));
    }

    /// The server decisions in `msg` (which `track` heard), on the server's track at
    /// `at`, each once: a client hears each event until it acknowledges it, and every
    /// client hears the same kill.
    pub(crate) fn decisions(
        &mut self,
        track: &mut ClientTrack,
        msg: &ServerMsg,
        at: impl Fn(u32) -> f64,
    ) {
        let ServerMsg::Snapshot(s) = msg else { return };
        for (seq, e) in &s.events {
            if !track.events_seen.insert(*seq) {
                continue;
            }
            let (name, args) = match e {
                GameEvent::Rail(r) => (
                    "rail shot",
                    json!({
                        "shooter": r.shooter, "hit": r.hit, "tick": r.tick,
                        "rewound_ticks": r.rewound_ticks,
                        "verdict": match r.verdict {
                            RailVerdict::Hit => "hit",
                            RailVerdict::Miss => "miss",
                            RailVerdict::PastBound => "miss: past the bound",
                        },
                    }),
                ),
                GameEvent::ShotEnd {
                    id,
                    tick,
                    hit: Some(victim),
                } => (
                    "bolt hit",
                    json!({"shot": id, "victim": victim, "tick": tick}),
                ),
                GameEvent::Kill { killer, victim, .. } => {
                    // The nth kill of this victim by this killer, the same for every
                    // client that hears of it (they hear it in different snapshots).
                    let nth = track.kills.entry((*killer, *victim)).or_insert(0);
                    *nth += 1;
                    (
                        "kill",
                        json!({"killer": killer, "victim": victim, "tick": s.header.tick, "nth": *nth}),
                    )
                }
                _ => continue,
            };
            let key = match e {
                GameEvent::Kill { .. } => {
                    format!("kill {} {}", args["killer"], args["victim"])
                        + &format!(" #{}", args["nth"])
                }
                _ => format!("{name} {args}"),
            };
            if self.decisions.insert(key) {
                let tick = args["tick"].as_u64().unwrap_or(u64::from(s.header.tick));
                let tick = u32::try_from(tick).unwrap_or(s.header.tick);
                self.instant(SERVER, "server", name, at(tick), args);
            }
        }
    }

    pub(crate) fn into_json(self) -> Value {
        json!({ "traceEvents": self.list, "displayTimeUnit": "ms" })
    }
}

/// One client's track: what is open (commands not yet acknowledged, snapshots not yet
/// drawn) and the counts it last saw.
pub(crate) struct ClientTrack {
    pid: u32,
    /// Commands made and not yet acknowledged: seq, made at.
    commands: BTreeMap<u32, f64>,
    last_seq: u32,
    /// Snapshots not yet drawn past: tick, sent (or arrived) at.
    snapshots: VecDeque<(u32, f64)>,
    corrections: u64,
    lost: u64,
    /// The event seqs this client heard, and its count of each killer's kills of each
    /// victim.
    events_seen: HashSet<u32>,
    kills: HashMap<(u8, u8), u32>,
    /// Where the "snapshot lost" instants are in the list, newest last.
    lost_events: Vec<usize>,
    next_counter: f64,
}

impl ClientTrack {
    pub(crate) fn new(pid: u32, name: &str, events: &mut Events) -> ClientTrack {
        events.name_track(pid, name);
        ClientTrack {
            pid,
            commands: BTreeMap::new(),
            last_seq: 0,
            snapshots: VecDeque::new(),
            corrections: 0,
            lost: 0,
            events_seen: HashSet::new(),
            kills: HashMap::new(),
            lost_events: Vec::new(),
            next_counter: 0.0,
        }
    }

    /// A message arrived: a snapshot opens its span (from `sent` if known).
    pub(crate) fn received(&mut self, msg: &ServerMsg, sent: f64) {
        if let ServerMsg::Snapshot(s) = msg {
            self.snapshots.push_back((s.header.tick, sent));
        }
    }

    /// What changed in `session` by `at` (`now` on its clock).
    pub(crate) fn observe(
        &mut self,
        e: &mut Events,
        at: f64,
        session: &ClientSession,
        now: Instant,
        bytes: (u64, u64),
    ) {
        let pid = self.pid;
        for seq in self.last_seq + 1..=session.latest_seq() {
            self.commands.insert(seq, at);
        }
        self.last_seq = self.last_seq.max(session.latest_seq());
        let acked = session.server_ack_seq();
        while let Some((&seq, &made)) = self.commands.first_key_value() {
            if seq > acked {
                break;
            }
            self.commands.pop_first();
            let args = json!({"seq": seq, "acked": true});
            e.span(pid, "command", format!("command #{seq}"), made, at, args);
        }
        let stats = session.stats();
        let new = stats.corrections.saturating_sub(self.corrections);
        if new > 0 {
            let recent: Vec<_> = session.recent_corrections().collect();
            for k in 0..new {
                // The newest `new` corrections, oldest first, where the session kept them.
                let back = usize::try_from(new - k).unwrap_or(usize::MAX);
                let args = recent
                    .len()
                    .checked_sub(back)
                    .and_then(|i| recent.get(i))
                    .map_or(
                        json!({"cause": "unknown"}),
                        |(_, cells, cause)| json!({"cause": cause, "cells": cells}),
                    );
                e.instant(pid, "correction", "correction", at, args);
            }
            self.corrections = stats.corrections;
        }
        for _ in self.lost..stats.snapshots_lost {
            self.lost_events.push(e.list.len());
            e.instant(pid, "loss", "snapshot lost", at, json!({}));
        }
        // A snapshot counted lost that came after all was late: its instant says so.
        for _ in stats.snapshots_lost..self.lost {
            if let Some(ev) = self.lost_events.pop().and_then(|i| e.list.get_mut(i)) {
                ev["name"] = json!("snapshot late");
                ev["args"] = json!({"note": "counted lost, then it arrived"});
            }
        }
        self.lost = stats.snapshots_lost;
        if let Some(drawn) = session.render_tick(now) {
            while let Some(&(tick, from)) = self.snapshots.front() {
                if f64::from(tick) > drawn {
                    break;
                }
                self.snapshots.pop_front();
                let args = json!({"tick": tick, "drawn": true});
                e.span(pid, "snapshot", format!("snapshot {tick}"), from, at, args);
            }
        }
        if at >= self.next_counter {
            self.next_counter = at + COUNTER_EVERY;
            e.counter(pid, "rtt_ms", at, json!({"rtt_ms": stats.rtt_ms}));
            let delay = session.interp_delay_secs() * 1000.0;
            e.counter(
                pid,
                "interp_delay_ms",
                at,
                json!({"interp_delay_ms": delay}),
            );
            let pending = session.pending_commands();
            e.counter(pid, "pending_commands", at, json!({"pending": pending}));
            e.counter(pid, "bytes", at, json!({"in": bytes.0, "out": bytes.1}));
        }
    }

    /// The end: what is still open ends here, marked so.
    pub(crate) fn finish(&mut self, e: &mut Events, at: f64) {
        for (seq, made) in std::mem::take(&mut self.commands) {
            let args = json!({"seq": seq, "acked": false});
            e.span(
                self.pid,
                "command",
                format!("command #{seq}"),
                made,
                at,
                args,
            );
        }
        for (tick, from) in std::mem::take(&mut self.snapshots) {
            let args = json!({"tick": tick, "drawn": false});
            e.span(
                self.pid,
                "snapshot",
                format!("snapshot {tick}"),
                from,
                at,
                args,
            );
        }
    }
}

/// Writes `events` to `out` as trace event JSON, a line.
pub(crate) fn write_trace(events: Events, out: &mut impl Write) -> anyhow::Result<()> {
    serde_json::to_writer(&mut *out, &events.into_json())?;
    writeln!(out)?;
    Ok(())
}

/// A single client's recording, re-run record by record.
pub(crate) fn client_trace(path: &Path) -> anyhow::Result<Events> {
    let (start, mut reader) = open(path)?;
    let first = reader.next_record()?;
    let mut r = Replayer::begin(&start, first.as_ref(), Instant::now(), None)?;
    let mut e = Events::default();
    e.name_track(SERVER, "server (as the client heard it)");
    let mut track = ClientTrack::new(1, "client", &mut e);
    for record in first.into_iter().map(Ok).chain(reader) {
        let record = record?;
        let received = match &record {
            super::format::Record::Received { at, msg, .. } => Some((us(*at), (**msg).clone())),
            _ => None,
        };
        r.apply(record);
        let at = us(r.at());
        if let Some((arrived, msg)) = received {
            track.received(&msg, arrived);
            e.decisions(&mut track, &msg, |_| arrived);
        }
        track.observe(&mut e, at, r.session(), r.instant(), r.bytes());
    }
    track.finish(&mut e, us(r.at()));
    Ok(e)
}
