//! Re-runs a recording through the same client loop: a fresh session and app, fed the
//! recorded messages, commands, keys and frames at the recorded instants (rebuilt from
//! offsets against a new base instant, so every interval is exactly the recorded one).
//! A recording whose first timed record is a keyframe (a clip the ring saved) starts
//! from the loop that keyframe holds instead of from the welcome.

use std::time::{Duration, Instant};

use std::fs::File;
use std::io::BufReader;
use std::path::Path;

use anyhow::{Context, bail};

use super::format::{Record, Start};
use super::reader::{ReadError, Reader};
use crate::client::Switches;
use crate::client::driver::Driver;
use crate::client::netcode::session::ClientSession;
use crate::client::play::app::App;
use crate::client::shell::headless::{self, Report};
use crate::client::tap::{LinkTotals, LoopKind};
use crate::net::codec;
use crate::net::protocol::ClientMsg;
use crate::sim::world::Command;

pub struct Replayer {
    driver: Driver,
    base: Instant,
    kind: LoopKind,
    /// The time of the newest timed record applied.
    at: Duration,
    /// Commands the re-run's clock made that the recording does not have, or the other
    /// way round: zero when the re-run is exact.
    diverged: u64,
    totals: Option<LinkTotals>,
    size: Option<(u16, u16)>,
    /// What-if: these switches whatever the recording says.
    what_if: Option<Switches>,
    /// Bytes of server messages taken in, and of the client's messages made, so far.
    bytes_in: u64,
    bytes_out: u64,
    /// The input packets the last record made: number, first and last command seq.
    sent: Vec<(u32, u32, u32)>,
    /// The newest dial change applied (a settings record): when, and what it made, in
    /// the dials' own words.
    dialed: Option<(Duration, String)>,
}

impl Replayer {
    /// A session as it started in the recording, its instants counted from `base`.
    pub fn new(start: &Start, base: Instant) -> anyhow::Result<Replayer> {
        Replayer::with_switches(start, base, None)
    }

    /// [`Replayer::new`], drawn with `what_if` switches whatever the recording says:
    /// the same datagrams and commands re-run through the client with other settings.
    pub(crate) fn with_switches(
        start: &Start,
        base: Instant,
        what_if: Option<Switches>,
    ) -> anyhow::Result<Replayer> {
        let mut session = ClientSession::new(start.welcome.clone(), base, start.switches)
            .context("the recording's map cannot be used")?;
        session.set_tuning(start.tuning);
        session.set_correction(start.correction);
        let app = App::new(start.conditions.clone());
        let driver = Driver::new(session, app, base);
        Ok(Replayer::around(
            driver,
            start,
            base,
            Duration::ZERO,
            what_if,
        ))
    }

    /// A session as the keyframe at `at` left it (its instants counted from `base`),
    /// with `what_if` switches if given.
    pub(crate) fn from_keyframe(
        start: &Start,
        base: Instant,
        at: Duration,
        state: &[u8],
        what_if: Option<Switches>,
    ) -> anyhow::Result<Replayer> {
        let driver = Driver::from_keyframe(state, base).context("the recording's keyframe")?;
        Ok(Replayer::around(driver, start, base, at, what_if))
    }

    /// A replayer of `driver`, as it is at `at`.
    fn around(
        driver: Driver,
        start: &Start,
        base: Instant,
        at: Duration,
        what_if: Option<Switches>,
    ) -> Replayer {
        let mut replayer = Replayer {
            driver,
            base,
            kind: start.kind,
            at,
            diverged: 0,
            totals: None,
            size: None,
            what_if,
            bytes_in: 0,
            bytes_out: 0,
            sent: Vec::new(),
            dialed: None,
        };
        replayer.force_what_if();
        replayer
    }

    /// Where a recording whose first record after the start is `first` begins: its
    /// keyframe if it is one, else the welcome.
    pub(crate) fn begin(
        start: &Start,
        first: Option<&Record>,
        base: Instant,
        what_if: Option<Switches>,
    ) -> anyhow::Result<Replayer> {
        match first {
            Some(Record::Keyframe { at, state }) => {
                Replayer::from_keyframe(start, base, *at, state, what_if)
            }
            _ => Replayer::with_switches(start, base, what_if),
        }
    }

    /// The loop's state now as a keyframe, its instants counted from the replay's base
    /// (what `Record::Keyframe` holds).
    pub fn keyframe(&self) -> anyhow::Result<Vec<u8>> {
        Ok(self.driver.keyframe(self.base)?)
    }

    /// Applies one record.
    pub fn apply(&mut self, record: Record) {
        if let Some(at) = record.at() {
            self.at = at;
        }
        let now = self.base + self.at;
        self.sent.clear();
        match record {
            Record::Received {
                msg, wire_bytes, ..
            } => {
                self.bytes_in += u64::from(wire_bytes);
                self.driver.receive(now, *msg, wire_bytes as usize);
            }
            Record::Ticks { commands, .. } => self.ticks(now, &commands),
            Record::Keys { buttons, .. } => {
                let (out, sent) = (&mut self.bytes_out, &mut self.sent);
                self.driver.play(now, buttons, |m| {
                    *out += encoded_len(&m);
                    note_input(sent, &m);
                });
            }
            Record::Frame { .. } => self.driver.frame(now),
            Record::Action(a) => {
                self.driver.handle(a);
                self.force_what_if();
            }
            Record::Chat(k) => {
                self.driver.type_chat(k);
            }
            Record::Size(w, h) => self.size = Some((w, h)),
            // A dial turned mid-run, at the time it was: the same settings from here on.
            Record::Settings { settings, .. } => {
                if let Some(text) = self.driver.set_settings(now, settings) {
                    self.dialed = Some((self.at, text));
                }
            }
            Record::End(t) => self.totals = Some(t),
            // A keyframe only says when it is: the loop it holds is this one already
            // (a replay starts from the first; [`Replayer::begin`]).
            // What the link did to a packet sent is not an input: the timeline reads it.
            Record::Start(_) | Record::Keyframe { .. } | Record::Dropped { .. } => {}
        }
    }

    fn force_what_if(&mut self) {
        if let Some(s) = self.what_if {
            self.driver.set_switches(s);
        }
    }

    /// An independent copy (a keyframe).
    pub(crate) fn fork(&self) -> Replayer {
        Replayer {
            driver: self.driver.fork(),
            sent: Vec::new(),
            dialed: self.dialed.clone(),
            ..*self
        }
    }

    pub(crate) fn driver(&self) -> &Driver {
        &self.driver
    }

    fn ticks(&mut self, now: Instant, commands: &[Command]) {
        let mut recorded = commands.iter();
        let mut missing = 0;
        let headless = self.kind == LoopKind::Headless;
        let (out, sent) = (&mut self.bytes_out, &mut self.sent);
        self.driver.run_ticks(
            now,
            |_, _| {
                recorded.next().copied().unwrap_or_else(|| {
                    missing += 1;
                    Command::default()
                })
            },
            |session, msg| {
                *out += msg.as_ref().map_or(0, encoded_len);
                if let Some(m) = &msg {
                    note_input(sent, m);
                }
                if headless {
                    // As the headless loop does: one frame per command tick.
                    session.frame(now);
                }
            },
        );
        self.diverged += missing + recorded.len() as u64;
    }

    /// The newest dial change the recording made so far: when, and what it made.
    pub(crate) fn dialed(&self) -> Option<(Duration, &str)> {
        self.dialed.as_ref().map(|(at, text)| (*at, text.as_str()))
    }

    /// The input packets the last record applied made: number, first and last seq.
    pub(crate) fn sent(&self) -> &[(u32, u32, u32)] {
        &self.sent
    }

    pub fn session(&self) -> &ClientSession {
        self.driver.session()
    }

    /// Replay time: the newest recorded instant applied.
    pub fn at(&self) -> Duration {
        self.at
    }

    pub fn instant(&self) -> Instant {
        self.base + self.at
    }

    /// Bytes of server messages taken in, and of client messages made, so far.
    pub fn bytes(&self) -> (u64, u64) {
        (self.bytes_in, self.bytes_out)
    }

    pub fn diverged(&self) -> u64 {
        self.diverged
    }

    pub fn totals(&self) -> Option<LinkTotals> {
        self.totals
    }

    pub fn size(&self) -> Option<(u16, u16)> {
        self.size
    }

    /// The headless report, as the live session wrote it; without an end record the
    /// link's counts are zero and `seconds` is the replay time.
    pub fn report(&self) -> Report {
        let totals = self.totals.unwrap_or(LinkTotals {
            seconds: self.at.as_secs_f64(),
            ..LinkTotals::default()
        });
        // How the live session ended is not recorded; the re-run says what it saw.
        let ended = if self.totals.is_some() {
            "replayed to the end of the recording"
        } else {
            "replayed up to where the recording was cut short"
        };
        headless::report(self.session(), totals, ended.to_owned())
    }
}

fn note_input(sent: &mut Vec<(u32, u32, u32)>, msg: &ClientMsg) {
    if let ClientMsg::Input(p) = msg {
        let first = (p.last_seq + 1).saturating_sub(p.command_count() as u32);
        sent.push((p.packet_seq, first, p.last_seq));
    }
}

/// The bytes `msg` took on the wire: sealed, as the link sends it (a seal's size does
/// not depend on the session or the counter).
fn encoded_len(msg: &ClientMsg) -> u64 {
    codec::sealed_client_len(msg) as u64
}

/// A recording re-run without a terminal.
pub struct HeadlessReplay {
    pub report: Report,
    /// Why the recording stopped early, when it did (a cut-short file replays up to
    /// where it ends).
    pub stopped: Option<ReadError>,
    pub diverged: u64,
}

/// Opens a recording and reads its start record.
pub fn open(path: &Path) -> anyhow::Result<(Start, Reader<BufReader<File>>)> {
    let file = File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let mut reader = Reader::new(BufReader::new(file))
        .with_context(|| format!("cannot replay {}", path.display()))?;
    match reader.next_record() {
        Ok(Some(Record::Start(start))) => Ok((*start, reader)),
        Ok(_) => bail!(
            "cannot replay {}: it does not begin with a start record",
            path.display()
        ),
        Err(e) => Err(e).with_context(|| format!("cannot replay {}", path.display())),
    }
}

/// Re-runs the whole recording at `path`.
pub fn replay_headless(path: &Path) -> anyhow::Result<HeadlessReplay> {
    let (start, mut reader) = open(path)?;
    let (first, mut stopped) = match reader.next_record() {
        Ok(first) => (first, None),
        Err(e) => (None, Some(e)),
    };
    let mut replayer = Replayer::begin(&start, first.as_ref(), Instant::now(), None)?;
    let more = first.is_some();
    if let Some(r) = first {
        replayer.apply(r);
    }
    for record in reader.take_while(|_| more) {
        match record {
            Ok(r) => replayer.apply(r),
            Err(e) => {
                stopped = Some(e);
                break;
            }
        }
    }
    Ok(HeadlessReplay {
        report: replayer.report(),
        stopped,
        diverged: replayer.diverged(),
    })
}
