//! The whole lab recorded (`lab --record FILE`): not one client's inputs but the lab's
//! start and every input the lab took, at its virtual time, so a replay runs the same
//! deterministic lab again and shows all of it (server view, every client view, lanes,
//! panels) through the lab's own front end.
//!
//! The lab is deterministic on its one clock, so what is stored is small: the start
//! (the server's settings and map, the profiles, walkers, dials, terminal size), then
//! each input as it happened (keys held, a key's action, a dial turned, new link
//! conditions, a frame drawn, a new terminal size, and how far the clock ran). To say
//! whether a re-run is the same run, the file also holds, each second of lab time, a
//! checkpoint: the server's tick, a hash of its world and standings, a hash of each
//! client session's counts, and the wire log (every datagram each link carried: when
//! it was sent, when it arrived or that it was dropped, its size), written 5 s after
//! the second it covers so nothing in it is still in flight. The replay recomputes
//! each checkpoint and names the first that differs. The end holds the lab's report.
//!
//! The file is the one recording format (`record::file`), its records
//! [`LabRecord`]s under the `NALAB` header; docs/RECORDING.md ("The whole lab (NALAB)")
//! describes it for readers. The re-run is [`LabReplay`].
#![doc(hidden)] // Public for the binary, tests or fuzz targets: see the crate docs.

use std::fs::File;
use std::io::BufWriter;
use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::Context;
use serde::{Deserialize, Serialize};

use super::{Lab, LabConfig};
use crate::client::CorrectionStyle;
use crate::client::netcode::tuning::Tuning;
use crate::client::play::input::Action;
use crate::net::codec;
use crate::net::codec::nanos;
use crate::net::conditioner::Conditions;
use crate::record::file::{Entry, FrameWriter, LAB_MAGIC};
use crate::server::{InputBuffer, ServerConfig};
use crate::sim::map::Map;
use crate::sim::world::Buttons;

mod read;
mod replay;
mod trace;
pub use read::{LabFile, is_lab_recording, parse, read};
pub use replay::LabReplay;
pub use trace::export_trace;
/// How often a checkpoint is taken, in lab time.
const CHECK_EVERY: Duration = Duration::from_secs(1);
/// A checkpoint's wire log covers datagrams sent this long before it and earlier: a
/// link holds none that long, so every one has arrived or been dropped.
const SETTLED: Duration = Duration::from_secs(5);
/// No record is longer (the codec's saved-state bound).
const MAX_RECORD: usize = 4 << 20;

/// What the lab started with: enough to start the same lab again.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LabStart {
    pub map_name: String,
    pub map_text: String,
    pub seed: u64,
    pub bots: u16,
    pub bot_skill: u8,
    /// `credit`, `adaptive` or a depth in ticks.
    pub input_buffer: String,
    pub tick_rate: u16,
    pub snapshot_rate: u16,
    pub max_players: u16,
    pub frag_limit: u16,
    pub time_limit_secs: u32,
    pub results_secs: u32,
    pub lag_compensation: bool,
    pub max_rewind_ms: u32,
    pub profiles: Vec<String>,
    pub walkers: u16,
    pub keyboard: u8,
    pub tuning: Tuning,
    pub correction: CorrectionStyle,
    /// The terminal's size, for a live lab.
    pub size: Option<(u16, u16)>,
    /// Each client's own recording, for the report.
    pub client_files: Vec<String>,
}

impl LabStart {
    pub fn of(config: &LabConfig, size: Option<(u16, u16)>, client_files: Vec<String>) -> Self {
        let s = &config.server;
        let map = s.game.maps.first();
        LabStart {
            map_name: map.map_or_else(String::new, |m| m.name().to_owned()),
            map_text: map.map_or_else(String::new, |m| m.text().to_owned()),
            seed: s.seed,
            bots: s.bots,
            bot_skill: s.bot_skill,
            input_buffer: s.input_buffer.to_string(),
            tick_rate: s.tick_rate,
            snapshot_rate: s.snapshot_rate,
            max_players: s.max_players,
            frag_limit: s.game.frag_limit,
            time_limit_secs: s.game.time_limit_secs,
            results_secs: s.game.results_secs,
            lag_compensation: s.game.lag_compensation,
            max_rewind_ms: s.game.max_rewind_ms,
            profiles: config.profiles.clone(),
            walkers: config.walkers,
            keyboard: u8::try_from(config.keyboard).unwrap_or(u8::MAX),
            tuning: config.tuning,
            correction: config.correction,
            size,
            client_files,
        }
    }

    /// The lab's config again; an error for settings this netarena refuses.
    pub fn config(&self) -> anyhow::Result<LabConfig> {
        let map = Map::parse(&format!("{}.txt", self.map_name), &self.map_text)
            .map_err(|e| anyhow::anyhow!("the recorded map: {e}"))?
            .with_name(&self.map_name);
        let mut server = ServerConfig::new(map);
        server.name = "lab".to_owned();
        server.seed = self.seed;
        server.bots = self.bots;
        server.bot_skill = self.bot_skill;
        server.input_buffer = self
            .input_buffer
            .parse::<InputBuffer>()
            .map_err(anyhow::Error::msg)?;
        server.tick_rate = self.tick_rate;
        server.snapshot_rate = self.snapshot_rate;
        server.max_players = self.max_players;
        server.game.frag_limit = self.frag_limit;
        server.game.time_limit_secs = self.time_limit_secs;
        server.game.results_secs = self.results_secs;
        server.game.lag_compensation = self.lag_compensation;
        server.game.max_rewind_ms = self.max_rewind_ms;
        let config = LabConfig {
            server,
            profiles: self.profiles.clone(),
            walkers: self.walkers,
            keyboard: usize::from(self.keyboard),
            tuning: self.tuning,
            correction: self.correction,
        };
        config.validate()?;
        Ok(config)
    }
}

/// One input the lab took. Its time is the lab's clock when it came, except
/// [`Input::RunTo`]'s, which is the time the clock ran to.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Input {
    /// The clock ran (`Lab::run_until`) to the record's time.
    RunTo,
    /// Client `client` (0-based) now holds `buttons`.
    Hold { client: u8, buttons: Buttons },
    /// A key's action for a client.
    Act { client: u8, action: Action },
    /// Dial `dial` (of `dials::DIALS`) set to `value`, for `client` where it is a
    /// client's.
    Dial { dial: u8, client: u8, value: u32 },
    /// New conditions for a client's link.
    Link {
        client: u8,
        up: Conditions,
        down: Conditions,
    },
    /// A frame drawn (smoothing and fading overlays advance then).
    Frame,
    /// A new terminal size.
    Size(u16, u16),
}

/// One datagram a link carried, in a checkpoint's wire log.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WireLine {
    /// Client `lane / 2` (0-based; walkers after the clients), up when even.
    pub lane: u8,
    /// Nanoseconds of lab time.
    pub sent: u64,
    /// When it arrived (nanoseconds of lab time), if it did (and had, at the end).
    pub arrived: Option<u64>,
    pub dropped: bool,
    pub bytes: u32,
}

/// The lab as it stood at one time, for a replay to hold itself against.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Check {
    /// Nanoseconds of lab time.
    pub at: u64,
    pub tick: u32,
    /// The server's world and standings, hashed.
    pub world: u64,
    /// Each client's session (its counts, newest seq and ack, predicted state), hashed.
    pub clients: Vec<u64>,
    /// Every datagram sent since the last checkpoint's wire log up to 5 s ago
    /// (at the end: every one left).
    pub wire: Vec<WireLine>,
}

/// One record of a lab recording.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum LabRecord {
    Start(Box<LabStart>),
    Input {
        at: u64,
        input: Input,
    },
    Check(Check),
    /// How the lab ended and its report, as JSON.
    End {
        ended: String,
        report: String,
    },
}

impl Entry for LabRecord {
    const MAGIC: [u8; 6] = LAB_MAGIC;

    fn max_payload(kind: u8) -> Option<usize> {
        (kind < 4).then_some(MAX_RECORD)
    }
}

/// What a lab's inputs and checkpoints go to: a file, or (in a replay) memory.
pub struct Journal {
    out: Option<FrameWriter<BufWriter<File>, LabRecord>>,
    /// Checkpoints made, in a replay.
    pub(crate) made: Vec<Check>,
    next_check: Duration,
    /// The wire log so far covers datagrams sent before this.
    wire_from: Duration,
    failure: Option<String>,
}

impl Journal {
    /// A journal writing to `path`, created now.
    pub fn create(path: &Path) -> anyhow::Result<Journal> {
        let file = File::create(path)
            .with_context(|| format!("cannot create the recording {}", path.display()))?;
        Ok(Journal {
            out: Some(FrameWriter::new(BufWriter::new(file))?),
            ..Journal::in_memory()
        })
    }

    /// A replay's journal: checkpoints kept, inputs not noted.
    pub(crate) fn in_memory() -> Journal {
        Journal {
            out: None,
            made: Vec::new(),
            next_check: CHECK_EVERY,
            wire_from: Duration::ZERO,
            failure: None,
        }
    }

    fn write(&mut self, record: &LabRecord) {
        let Some(out) = &mut self.out else { return };
        if self.failure.is_some() {
            return;
        }
        if let Err(e) = out.put(record) {
            self.failure = Some(format!("the lab recording stopped: {e}"));
        }
    }

    pub(crate) fn start(&mut self, start: &LabStart) {
        self.write(&LabRecord::Start(Box::new(start.clone())));
    }

    /// Notes `input` at `at` of lab time (nothing in a replay).
    pub(crate) fn input(&mut self, at: Duration, input: Input) {
        if self.out.is_some() {
            self.write(&LabRecord::Input {
                at: nanos(at),
                input,
            });
        }
    }

    fn check(&mut self, check: Check) {
        if self.out.is_some() {
            self.write(&LabRecord::Check(check));
            // A second of lab time at a time reaches the disk.
            if let Some(out) = &mut self.out
                && let Err(e) = out.flush()
            {
                self.failure
                    .get_or_insert(format!("the lab recording stopped: {e}"));
            }
        } else {
            self.made.push(check);
        }
    }

    /// Ends the file with the lab's report; an error if writing stopped on the way.
    pub(crate) fn end(&mut self, ended: &str, report: &str) -> anyhow::Result<()> {
        self.write(&LabRecord::End {
            ended: ended.to_owned(),
            report: report.to_owned(),
        });
        if let Some(out) = &mut self.out
            && let Err(e) = out.flush()
        {
            self.failure
                .get_or_insert(format!("the lab recording stopped: {e}"));
        }
        self.failure
            .take()
            .map_or(Ok(()), |f| Err(anyhow::anyhow!(f)))
    }
}

/// FNV-1a: a hash that is the same on every machine and every build.
fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

fn hash_of<T: Serialize>(value: &T) -> u64 {
    let mut buf = Vec::new();
    match codec::encode_state(value, &mut buf) {
        Ok(()) => fnv(&buf),
        Err(_) => 0,
    }
}

/// The checkpoint of `lab` now, its wire log the datagrams sent from `from` to before
/// `until` (of lab time).
fn checkpoint(lab: &Lab, from: Duration, until: Option<Duration>) -> Check {
    let server = lab.server();
    let world = server.world();
    let world_hash = hash_of(&(world.tick, world.players(), server.game().statuses()));
    let clients = lab
        .clients
        .iter()
        .map(|c| {
            let s = c.driver.session();
            hash_of(&(s.latest_seq(), s.server_ack_seq(), s.predicted(), s.stats()))
        })
        .collect();
    let since = |at: Instant| at.saturating_duration_since(lab.start);
    let mut wire = Vec::new();
    for (n, c) in lab.clients.iter().chain(&lab.walkers).enumerate() {
        for (way, lane) in [&c.up, &c.down].into_iter().enumerate() {
            for x in lane.log() {
                let sent = since(x.sent);
                if sent < from || until.is_some_and(|u| sent >= u) {
                    continue;
                }
                wire.push(WireLine {
                    lane: u8::try_from(n * 2 + way).unwrap_or(u8::MAX),
                    sent: nanos(sent),
                    arrived: x.delivered.map(|d| nanos(since(d))),
                    dropped: x.dropped,
                    bytes: u32::try_from(x.bytes).unwrap_or(u32::MAX),
                });
            }
        }
    }
    Check {
        at: nanos(lab.elapsed()),
        tick: world.tick,
        world: world_hash,
        clients,
        wire,
    }
}

/// After each step of the lab: a checkpoint each second (the lab steps at each).
pub(crate) fn after_step(lab: &mut Lab) {
    let Some(mut journal) = lab.journal.take() else {
        return;
    };
    while lab.elapsed() >= journal.next_check {
        let until = journal.next_check.saturating_sub(SETTLED);
        let check = checkpoint(lab, journal.wire_from, Some(until));
        journal.wire_from = journal.wire_from.max(until);
        journal.next_check += CHECK_EVERY;
        journal.check(check);
    }
    lab.journal = Some(journal);
}

/// When [`after_step`] makes its next checkpoint, as time since the lab's start; None
/// without a journal.
pub(crate) fn next_check(lab: &Lab) -> Option<Duration> {
    lab.journal.as_ref().map(|j| j.next_check)
}

/// The last checkpoint, with every datagram not yet in the wire log.
pub(crate) fn final_check(lab: &mut Lab) {
    let Some(mut journal) = lab.journal.take() else {
        return;
    };
    if journal.wire_from == Duration::MAX {
        // Made already.
        lab.journal = Some(journal);
        return;
    }
    let check = checkpoint(lab, journal.wire_from, None);
    journal.wire_from = Duration::MAX;
    journal.check(check);
    lab.journal = Some(journal);
}

/// Encodes `action` for an [`Input::Act`].
pub(crate) fn act(client: usize, action: Action) -> Input {
    Input::Act {
        client: u8::try_from(client).unwrap_or(u8::MAX),
        action,
    }
}

#[cfg(test)]
mod tests;
