//! The lab: the real [`Server`] and one to four real client sessions in one process,
//! joined by in-memory links that go through the project's link conditioner, all on one
//! virtual clock. It is the network game minus the sockets, so time can stop, run slow
//! or run as fast as the machine allows, and a seeded run repeats exactly.
//!
//! [`Lab`] is the project's one stepper; [`headless`] runs it to a report, [`terminal`]
//! draws it and lets two people at one keyboard play and a teacher stop time, and the
//! integration tests script its clients ([`Lab::scripted`], [`Lab::run_with`]).

pub mod compare;
pub mod dials;
mod explain;
mod figures;
pub(crate) mod follow;
pub mod headless;
pub(crate) mod ladder;
mod meters;
mod motion;
pub mod playback;
pub mod recording;
pub(crate) use crate::record::speed;
pub mod terminal;
mod verdicts;
pub(crate) mod view;
mod wire;

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};

use crate::client::driver::Driver;
use crate::client::netcode::rates::RateMeter;
use crate::client::netcode::session::ClientSession;
use crate::client::netcode::tuning::Tuning;
use crate::client::play::app::{App, Effect};
use crate::client::play::brain::Wander;
use crate::client::play::input::Action;
use crate::client::tap::{LinkTotals, LoopKind, Tap, TapEvent};
use crate::client::{ClientConfig, CorrectionStyle, Switches};
use crate::net::codec;
use crate::net::conditioner::{Conditions, JitterMode};
use crate::net::protocol::{ClientMsg, GameEvent, RailShot, ServerMsg, Welcome};
use crate::net::transport::Traffic;
use crate::server::{Server, ServerConfig};
use crate::sim::world::{Buttons, Command, PlayerState};
use motion::Motion;
use wire::Lane;

pub use figures::{Carried, Crossing, Figures, Way};
pub use meters::{DownBytes, UpBytes};
pub use wire::LaneCounts;

/// Clients the lab runs at most (a server view and four client views fill a screen).
pub const MAX_CLIENTS: usize = 4;
/// The tick rates the lab runs at (its flag, its dial, an A/B run's lab B): the
/// server's range up to 128, a rate the lab's clock still steps through exactly.
pub const TICK_RATES: std::ops::RangeInclusive<u16> = 10..=128;
/// A starting snapshot rate above the tick rate taken down to it (a snapshot every
/// tick, as the tick-rate dial does live), and the line that says so; None when it fits.
/// `lab --tick-rate 10` refused to start at the default 20 snapshots a second.
pub fn fit_snapshot_rate(server: &mut ServerConfig) -> Option<String> {
    if server.snapshot_rate <= server.tick_rate {
        return None;
    }
    let asked = std::mem::replace(&mut server.snapshot_rate, server.tick_rate);
    Some(format!(
        "snapshot rate {asked} Hz is above the tick rate: taken down to {} Hz, a snapshot every tick",
        server.tick_rate
    ))
}

/// The lab's clock steps this much at a time: the links deliver to the millisecond.
const STEP: Duration = Duration::from_millis(1);
/// How long a rail shot stays drawn in the server view.
const RAIL_SHOWN: Duration = Duration::from_millis(1500);

/// What the lab is started with.
#[derive(Clone, Debug)]
pub struct LabConfig {
    pub server: ServerConfig,
    /// One profile name per client (see [`Conditions::PROFILES`]).
    pub profiles: Vec<String>,
    /// Players that walk but never shoot, on a clean link, not shown as views.
    pub walkers: u16,
    /// Clients driven by keys (the first ones); the rest are driven by bots.
    pub keyboard: usize,
    /// Every client's own dials at the start (walkers keep the defaults).
    pub tuning: Tuning,
    /// How every client corrects remote players onto a snapshot that disagrees with
    /// where they were drawn.
    pub correction: CorrectionStyle,
}

impl LabConfig {
    /// Checks the client count and the profile names.
    pub fn validate(&self) -> anyhow::Result<()> {
        if self.profiles.is_empty() || self.profiles.len() > MAX_CLIENTS {
            bail!(
                "the lab runs 1 to {MAX_CLIENTS} clients, got {}",
                self.profiles.len()
            );
        }
        for p in &self.profiles {
            if ways(p).is_none() {
                bail!(
                    "unknown network profile {p:?} (expected one of: {}, or UP/DOWN such as lan/bad, each maybe with :{} after it)",
                    Conditions::PROFILES.join(", "),
                    JitterMode::NAMES.join(" or :")
                );
            }
        }
        self.server.validate().map_err(anyhow::Error::msg)?;
        Ok(())
    }
}

/// A client a test puts in the lab ([`Lab::scripted`]): its commands come from the
/// script given to [`Lab::run_with`], and the lab logs what it receives and predicts.
#[doc(hidden)]
#[derive(Clone, Debug)]
pub struct ScriptedClient {
    /// Its player's name on the server.
    pub name: String,
    /// Its link, client to server and server to client.
    pub up: Conditions,
    pub down: Conditions,
    /// The seeds of its up and down link conditioners.
    pub seeds: (u64, u64),
    /// Its first command (and its session's start) this long after the lab's start.
    pub first_command: Duration,
}

/// What moves a client.
enum Drive {
    /// The keys it holds, [`LabClient::held`].
    Keys,
    Wander(Wander),
    /// The script handed to [`Lab::run_with`].
    Script,
}

/// What the lab notes for a scripted client.
#[derive(Default)]
struct Log {
    /// Every new snapshot its session took in: (tick, ack seq, the server's state for
    /// its player).
    acks: Vec<(u32, u32, PlayerState)>,
    /// Its predicted state right after making each command: (seq, state).
    predicted: Vec<(u32, PlayerState)>,
    /// Datagrams from the server it could not decode (dropped, as a client does).
    undecodable: u64,
}

/// How one client joins: what `Lab::new` and `Lab::scripted` decide for it.
struct Joining {
    n: usize,
    name: String,
    profile: String,
    up: Conditions,
    down: Conditions,
    seeds: (u64, u64),
    first: Instant,
    drive: Drive,
    /// The client's seed in its config (a recording's start record).
    seed: u64,
    tuning: Tuning,
    correction: CorrectionStyle,
}

/// One client in the lab: a driver, its link, and what moves it.
pub(crate) struct LabClient {
    pub(crate) number: usize,
    pub(crate) profile: String,
    addr: SocketAddr,
    /// When its session started: its first command, out of phase with the others.
    /// Nothing reaches it before, so a recording's times count from here.
    start: Instant,
    /// What it started with, for a recording's start record.
    welcome: Welcome,
    config: ClientConfig,
    pub(crate) driver: Driver,
    pub(crate) up: Lane,
    pub(crate) down: Lane,
    drive: Drive,
    pub(crate) held: Buttons,
    /// The keys its driver last played, if any.
    played: Option<Buttons>,
    /// The newest command seq the server said it applied (from its last snapshot sent).
    pub(crate) server_ack: u32,
    /// Kept for scripted clients only.
    log: Option<Log>,
    /// Its traffic and snapshot rates, for its stats overlay, from what its link
    /// carried (as the interactive client's loop measures its socket's).
    pub(crate) rates: RateMeter,
    /// The newest command seq acknowledged by a snapshot its link delivered.
    ack_delivered: u32,
    /// What its link carried each way, by kind (the meters panel, the report).
    pub(crate) bytes: meters::LinkBytes,
    /// What following one of its commands or snapshots reads (see `follow`).
    pub(crate) trail: follow::Trail,
}

impl LabClient {
    pub(crate) fn is_bot(&self) -> bool {
        !matches!(self.drive, Drive::Keys)
    }

    /// What its link carried so far, as a socket counts it: datagrams sent up, and
    /// datagrams delivered down.
    fn traffic(&self) -> Traffic {
        let (up, down) = (self.up.traffic(), self.down.traffic());
        Traffic {
            packets_out: up.sent,
            bytes_out: up.bytes,
            packets_in: down.delivered,
            bytes_in: down.delivered_bytes,
        }
    }

    /// What its link carried, as a client's own link counts it, `seconds` into the lab.
    pub(crate) fn totals(&self, seconds: f64) -> LinkTotals {
        let (up, down) = (self.up.traffic(), self.down.traffic());
        LinkTotals {
            seconds,
            bytes_in: down.bytes,
            bytes_out: up.bytes,
            packets_in: down.delivered,
            packets_out: up.sent,
            malformed_in: 0,
        }
    }
}

/// A rail shot as the server decided it, for the server view.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SeenRail {
    pub(crate) at: Instant,
    pub(crate) shot: RailShot,
}

pub struct Lab {
    server: Server,
    pub(crate) clients: Vec<LabClient>,
    walkers: Vec<LabClient>,
    start: Instant,
    now: Instant,
    tick: Duration,
    next_tick: Instant,
    buf: Vec<u8>,
    pub(crate) rails: Vec<SeenRail>,
    verdicts: verdicts::Verdicts,
    /// How evenly each client draws the walkers.
    motion: Motion,
    /// Where the whole lab is recorded (`lab --record`), or a replay's checkpoints.
    journal: Option<Box<recording::Journal>>,
}

fn client_addr(n: usize) -> SocketAddr {
    SocketAddr::from(([10, 0, 0, n as u8 + 1], 5000))
}

/// The seed of the wandering bot of client `n` (0-based; walkers follow the clients).
fn brain_seed(seed: u64, n: usize) -> u64 {
    seed + n as u64
}

/// Joins one client to `server` at `start`.
fn join(server: &mut Server, start: Instant, j: Joining) -> anyhow::Result<LabClient> {
    let addr = client_addr(j.n);
    let welcome = server
        .join_in_process(start, addr, &j.name)
        .with_context(|| format!("the server has no room for {}", j.name))?;
    // Its session starts with its first command, as a client's loop does.
    let mut session = ClientSession::new(welcome.clone(), j.first, Switches::default())
        .context("the server's map")?;
    session.set_tuning(j.tuning);
    let mut app = App::new(j.up.clone());
    let mut log = None;
    if matches!(j.drive, Drive::Script) {
        log = Some(Log::default());
    } else {
        // The lab shows lag compensation in the shooter's view from the start.
        app.handle(Action::ToggleLagCompensation);
    }
    let mut config = ClientConfig::new(addr, &j.name);
    config.outgoing = j.up.clone();
    config.incoming = j.down.clone();
    config.seed = j.seed;
    config.tuning = j.tuning;
    config.correction = j.correction;
    let mut driver = Driver::new(session, app, j.first);
    driver.set_correction(config.correction);
    Ok(LabClient {
        number: j.n + 1,
        profile: j.profile,
        addr,
        start: j.first,
        welcome,
        config,
        driver,
        up: Lane::new(j.up, j.seeds.0),
        down: Lane::new(j.down, j.seeds.1),
        drive: j.drive,
        held: Buttons::empty(),
        played: None,
        server_ack: 0,
        log,
        rates: RateMeter::default(),
        ack_delivered: 0,
        bytes: meters::LinkBytes::default(),
        trail: follow::Trail::default(),
    })
}

impl Lab {
    /// Starts the server and joins every client, at virtual time `start`.
    pub fn new(config: &LabConfig, start: Instant) -> anyhow::Result<Lab> {
        config.validate()?;
        let seed = config.server.seed;
        let tick = Duration::from_secs(1) / u32::from(config.server.tick_rate);
        let mut server = Server::new(config.server.clone());
        let joining = |n: usize, name: String, profile: &str, drive: Drive, tuning: Tuning| {
            let (up, down) = ways(profile).unwrap_or_default();
            let link_seed = seed.wrapping_mul(31).wrapping_add(n as u64 * 2);
            Joining {
                n,
                name,
                profile: profile.to_owned(),
                up,
                down,
                seeds: (link_seed, link_seed + 1),
                // Each client's commands out of phase with the server and with each
                // other.
                first: start + tick * (n as u32 % 4 + 1) / 5,
                drive,
                seed: brain_seed(seed, n),
                tuning,
                correction: config.correction,
            }
        };
        let mut clients = Vec::new();
        for (n, profile) in config.profiles.iter().enumerate() {
            let drive = if n >= config.keyboard {
                Drive::Wander(Wander::new(brain_seed(seed, n)))
            } else {
                Drive::Keys
            };
            let j = joining(n, format!("client{}", n + 1), profile, drive, config.tuning);
            clients.push(join(&mut server, start, j)?);
        }
        let mut walkers = Vec::new();
        for w in 0..usize::from(config.walkers) {
            let n = MAX_CLIENTS + w;
            let drive = Drive::Wander(Wander::new(brain_seed(seed, n)));
            let j = joining(
                n,
                format!("walker{}", w + 1),
                "off",
                drive,
                Tuning::default(),
            );
            walkers.push(join(&mut server, start, j)?);
        }
        Ok(Lab::around(server, clients, walkers, start, tick))
    }

    /// A lab of `clients` scripted by a test, on a server started with `config`: each
    /// client's commands come from the script given to [`Lab::run_with`]. The config is
    /// not checked against the command line's bounds: a test may run a 3 s match.
    #[doc(hidden)]
    pub fn scripted(
        config: ServerConfig,
        clients: &[ScriptedClient],
        start: Instant,
    ) -> anyhow::Result<Lab> {
        if clients.is_empty() || clients.len() > MAX_CLIENTS {
            bail!(
                "the lab runs 1 to {MAX_CLIENTS} clients, got {}",
                clients.len()
            );
        }
        let tick = Duration::from_secs(1) / u32::from(config.tick_rate);
        let seed = config.seed;
        let mut server = Server::new(config);
        let mut joined = Vec::new();
        for (n, c) in clients.iter().enumerate() {
            let j = Joining {
                n,
                name: c.name.clone(),
                profile: profile_name(&c.up),
                up: c.up.clone(),
                down: c.down.clone(),
                seeds: c.seeds,
                first: start + c.first_command,
                drive: Drive::Script,
                seed: brain_seed(seed, n),
                tuning: Tuning::default(),
                correction: CorrectionStyle::default(),
            };
            joined.push(join(&mut server, start, j)?);
        }
        Ok(Lab::around(server, joined, Vec::new(), start, tick))
    }

    fn around(
        server: Server,
        clients: Vec<LabClient>,
        walkers: Vec<LabClient>,
        start: Instant,
        tick: Duration,
    ) -> Lab {
        let ids = walkers.iter().map(|w| w.driver.session().player_id());
        let motion = Motion::new(ids, clients.len());
        Lab {
            motion,
            server,
            clients,
            walkers,
            start,
            now: start,
            tick,
            next_tick: start + tick,
            buf: Vec::new(),
            rails: Vec::new(),
            journal: None,
            verdicts: verdicts::Verdicts::default(),
        }
    }

    pub fn now(&self) -> Instant {
        self.now
    }

    /// Virtual time since the lab started.
    pub fn elapsed(&self) -> Duration {
        self.now - self.start
    }

    pub fn server(&self) -> &Server {
        &self.server
    }

    /// The server, for a test to act on it (teleport, kill, join another player).
    #[doc(hidden)]
    pub fn server_mut(&mut self) -> &mut Server {
        &mut self.server
    }

    pub(crate) fn client_count(&self) -> usize {
        self.clients.len()
    }

    /// The session of client `n` (0-based), for tests and reports.
    pub fn session(&self, n: usize) -> &ClientSession {
        self.clients[n].driver.session()
    }

    /// Runs the lab until virtual time `until`.
    pub fn run_until(&mut self, until: Instant) {
        self.run_with(until, |_, _, _| Command::default());
    }

    /// Runs the lab until virtual time `until`, `script` making each command of the
    /// scripted client `n` (0-based) from its session at the time it is made.
    #[doc(hidden)]
    pub fn run_with(
        &mut self,
        until: Instant,
        mut script: impl FnMut(usize, &ClientSession, Instant) -> Command,
    ) {
        while self.now < until {
            self.now = (self.now + STEP).min(until);
            self.step(&mut script);
            if self.journal.is_some() {
                recording::after_step(self);
            }
        }
        // Noted after the run, so the checkpoints it made come before it in the file.
        self.note(recording::Input::RunTo, self.now);
    }

    /// Notes an input for the whole lab's recording, at `at` (the input hook: every
    /// input the lab takes passes here; nothing without `--record`).
    fn note(&mut self, input: recording::Input, at: Instant) {
        if let Some(j) = &mut self.journal {
            j.input(at.saturating_duration_since(self.start), input);
        }
    }

    /// Records the whole lab to `journal` from its start, which must not have run yet:
    /// its start (`LabStart`), then every input and a checkpoint each second.
    pub fn record_lab(
        &mut self,
        mut journal: recording::Journal,
        start: &recording::LabStart,
    ) -> anyhow::Result<()> {
        if self.now > self.start {
            bail!("the lab ran before its recording started");
        }
        journal.start(start);
        self.journal = Some(Box::new(journal));
        Ok(())
    }

    /// Ends the whole lab's recording, if any, with how the lab ended and its report.
    pub(crate) fn finish_lab_recording(
        &mut self,
        ended: &str,
        report: &headless::LabReport,
    ) -> anyhow::Result<()> {
        if self.journal.is_none() {
            return Ok(());
        }
        recording::final_check(self);
        let json = serde_json::to_string(report)?;
        self.journal
            .take()
            .map_or(Ok(()), |mut j| j.end(ended, &json))
    }

    /// Every new snapshot scripted client `n` took in: (tick, ack seq, the server's
    /// state for its player), oldest first. Empty for other clients.
    #[doc(hidden)]
    pub fn acks(&self, n: usize) -> &[(u32, u32, PlayerState)] {
        self.clients[n].log.as_ref().map_or(&[], |l| &l.acks)
    }

    /// The state scripted client `n` predicted right after making command `seq`.
    #[doc(hidden)]
    pub fn predicted_at(&self, n: usize, seq: u32) -> Option<PlayerState> {
        let log = self.clients[n].log.as_ref()?;
        log.predicted
            .iter()
            .find(|(s, _)| *s == seq)
            .map(|(_, p)| *p)
    }

    /// Datagrams from the server scripted client `n` could not decode: none, unless
    /// the server or the codec is wrong.
    #[doc(hidden)]
    pub fn undecodable(&self, n: usize) -> u64 {
        self.clients[n].log.as_ref().map_or(0, |l| l.undecodable)
    }

    /// New conditions for client `n`'s link, each way, from now on.
    #[doc(hidden)]
    pub fn set_link(&mut self, n: usize, up: Conditions, down: Conditions) {
        let input = recording::Input::Link {
            client: n as u8,
            up: up.clone(),
            down: down.clone(),
        };
        self.note(input, self.now);
        let c = &mut self.clients[n];
        c.profile = profile_name_each_way(&up, &down);
        c.up.set_conditions(up);
        c.down.set_conditions(down);
    }

    /// Runs until the server has made exactly one more tick.
    pub(crate) fn step_tick(&mut self) {
        let until = self.next_tick;
        self.run_until(until);
    }

    /// Hands every input of client `n` (0-based) to `tap` (a recorder) from the start of
    /// its session, which must not have begun: call it before running the lab. With
    /// `size`, the terminal's size is recorded too.
    pub fn record(
        &mut self,
        n: usize,
        mut tap: Box<dyn Tap>,
        size: Option<(u16, u16)>,
    ) -> anyhow::Result<()> {
        let Some(c) = self.clients.get_mut(n) else {
            bail!("the lab has no client {}", n + 1);
        };
        if self.now > c.start {
            bail!("client {} started before its recording", c.number);
        }
        let kind = if c.is_bot() {
            LoopKind::Headless
        } else {
            LoopKind::Interactive
        };
        tap.start(c.start, kind, &c.welcome, &c.config);
        // What the lab set before the session started, at the start: it shows lag
        // compensation (see `Lab::new`).
        tap.event(c.start, TapEvent::Action(Action::ToggleLagCompensation));
        if let Some((w, h)) = size {
            tap.event(c.start, TapEvent::Size(w, h));
        }
        c.driver.set_tap(tap);
        Ok(())
    }

    /// A new terminal size, for the recordings.
    pub(crate) fn note_size(&mut self, w: u16, h: u16) {
        self.note(recording::Input::Size(w, h), self.now);
        for c in &mut self.clients {
            c.driver.note_size(w, h);
        }
    }

    /// Ends every recording with its link's totals, the ones the report gives; an
    /// error, after all are ended, if one of them stopped on the way.
    pub(crate) fn finish_recordings(&mut self) -> anyhow::Result<()> {
        let seconds = self.elapsed().as_secs_f64();
        let mut failed = None;
        for c in &mut self.clients {
            let totals = c.totals(seconds);
            if let Some(tap) = c.driver.tap_mut() {
                tap.finish(totals);
            }
            failed = failed.or(c.driver.tap_failure());
        }
        failed.map_or(Ok(()), |why| Err(anyhow::anyhow!(why)))
    }

    /// Sets the keys client `n` (0-based) holds; ignored for bot-driven clients.
    pub fn hold(&mut self, n: usize, keys: Buttons) {
        if self.clients.get(n).is_some_and(|c| c.held != keys) {
            let input = recording::Input::Hold {
                client: n as u8,
                buttons: keys,
            };
            self.note(input, self.now);
        }
        if let Some(c) = self.clients.get_mut(n) {
            c.held = keys;
        }
    }

    /// A key's action for client `n`: switches reach its session, new conditions its
    /// link, both ways. What is left (quit, chat) comes back.
    /// Ignored before the client's session started (its first few milliseconds).
    pub(crate) fn act(&mut self, n: usize, action: Action) -> Option<Effect> {
        self.note(recording::act(n, action), self.now);
        let c = self.clients.get_mut(n)?;
        if self.now < c.start {
            return None;
        }
        match c.driver.handle(action)? {
            Effect::Conditions(cond) => {
                c.profile = profile_name(&cond);
                c.up.set_conditions(cond.clone());
                c.down.set_conditions(cond);
                None
            }
            other => Some(other),
        }
    }

    /// Advances every client's frame state (smoothing, fading overlays) to now, noting
    /// which snapshots each draws remote players between (for following one).
    pub(crate) fn frame(&mut self) {
        let now = self.now;
        self.note(recording::Input::Frame, now);
        for c in self.clients.iter_mut().filter(|c| now >= c.start) {
            c.driver.frame(now);
            c.trail.frame(c.driver.session(), now);
        }
    }

    /// One millisecond of the lab: links deliver, the server ticks and sends, clients
    /// take in what arrived and make the commands due.
    fn step(&mut self, script: &mut impl FnMut(usize, &ClientSession, Instant) -> Command) {
        let now = self.now;
        let server = &mut self.server;
        for c in self.clients.iter_mut().chain(&mut self.walkers) {
            c.up.drain(now, |from, bytes| server.receive(now, from, bytes));
        }
        let mut ticked = false;
        while now >= self.next_tick {
            let tick = self.server.world().tick;
            self.server.tick(self.next_tick);
            for c in &mut self.clients {
                let id = c.driver.session().player_id();
                let applied = self.server.applied_seq(id).unwrap_or(0);
                c.trail.server_ticked(tick, now, applied);
            }
            self.next_tick += self.tick;
            self.motion.server_ticked(self.server.world());
            ticked = true;
        }
        self.send_outbox(now);
        let shown = self.clients.len();
        for (n, c) in self.clients.iter_mut().chain(&mut self.walkers).enumerate() {
            if now < c.start {
                // Not started yet: what arrived waits on the link.
                continue;
            }
            let (driver, log, acked) = (&mut c.driver, &mut c.log, &mut c.ack_delivered);
            let trail = &mut c.trail;
            c.down.drain(now, |_, bytes| {
                match (codec::decode_server(bytes), log.as_mut()) {
                    (Ok(msg), log) => {
                        let mut snapshot = None;
                        if let ServerMsg::Snapshot(s) = &msg {
                            *acked = (*acked).max(s.ack_seq);
                            let session = driver.session();
                            let before = session.last_correction().map(|(at, _)| *at);
                            snapshot = (n < shown).then_some((s.tick, session.acked_seq(), before));
                        }
                        driver.receive(now, msg, bytes.len());
                        if let Some((tick, acked_before, before)) = snapshot {
                            trail.received(tick, now, driver.session(), acked_before, before);
                        }
                        if let Some(log) = log {
                            note_ack(log, driver.session());
                        }
                    }
                    (Err(_), Some(log)) => log.undecodable += 1,
                    (Err(_), None) => {}
                }
            });
            let made = c.driver.session().latest_seq();
            commands(c, now, &mut self.buf, |s, t| script(n, s, t));
            // Only the clients shown can be followed: the walkers keep no trail.
            if n < shown {
                let keys = matches!(c.drive, Drive::Keys).then_some(c.held);
                c.trail.made(made, c.driver.session(), now, keys);
            }
            let traffic = c.traffic();
            c.rates.sample(now, traffic, c.driver.session().stats());
        }
        self.rails.retain(|r| now < r.at + RAIL_SHOWN);
        if ticked {
            let config = self.server.config();
            let rates = (f64::from(config.tick_rate), config.snapshot_interval());
            for (n, c) in self.clients.iter().enumerate() {
                if now >= c.start {
                    self.motion.sample(n, c.driver.session(), now, rates);
                }
            }
        }
    }

    /// Client `n`'s `remote_motion_cv` (see `motion`): how unevenly it drew the
    /// walkers walking straight, None without walkers.
    pub(crate) fn remote_motion_cv(&self, n: usize) -> Option<f64> {
        self.motion.cv(n)
    }

    /// Starts every client's `remote_motion_cv` afresh, for a measure over a window
    /// (a lesson's, after the learner changed something).
    pub(crate) fn restart_motion(&mut self) {
        self.motion.restart();
    }

    /// Puts what the server sent on the links down, noting acks and rail shots.
    fn send_outbox(&mut self, now: Instant) {
        let out: Vec<(SocketAddr, ServerMsg)> = self.server.take_outbox().collect();
        let mut shots = Vec::new();
        for (to, msg) in out {
            let Some(c) = self
                .clients
                .iter_mut()
                .chain(&mut self.walkers)
                .find(|c| c.addr == to)
            else {
                continue;
            };
            if let ServerMsg::Snapshot(s) = &msg {
                c.server_ack = s.ack_seq;
                for (_, e) in &s.events {
                    if let GameEvent::Rail(shot) = e
                        && !self
                            .rails
                            .iter()
                            .any(|r| r.shot.shooter == shot.shooter && r.shot.tick == shot.tick)
                    {
                        self.rails.push(SeenRail {
                            at: now,
                            shot: *shot,
                        });
                        shots.push(*shot);
                    }
                }
            }
            if codec::encode_server(&msg, &mut self.buf).is_ok() {
                c.bytes.down(now, &msg, self.buf.len());
                let carried = Carried::down(&msg);
                c.down
                    .push_carrying(now, to, &self.buf, wire::down_mark(&msg), carried);
            }
        }
        for shot in &shots {
            self.note_verdict(shot);
        }
    }
}

/// Notes the session's newest word from the server, if it is new.
fn note_ack(log: &mut Log, session: &ClientSession) {
    if let (Some(state), Some(tick)) = (session.server_state(), session.latest_tick())
        && log.acks.last().is_none_or(|(t, _, _)| *t != tick)
    {
        log.acks.push((tick, session.server_ack_seq(), state));
    }
}

/// The commands due for one client, sent up its link; a scripted one's are made by
/// `script`.
fn commands(
    c: &mut LabClient,
    now: Instant,
    buf: &mut Vec<u8>,
    script: impl FnMut(&ClientSession, Instant) -> Command,
) {
    let (up, addr, bytes) = (&mut c.up, c.addr, &mut c.bytes);
    // What the link dropped goes to the client's recording once the commands are made.
    let mut dropped = Vec::new();
    let mut send = |msg: ClientMsg| {
        if codec::encode_in_process(addr, &msg, buf).is_ok() {
            bytes.up(now, &msg, buf.len());
            if up.push_carrying(now, addr, buf, wire::up_mark(&msg), Carried::up(&msg)) {
                dropped.push(msg);
            }
        }
    };
    match &mut c.drive {
        Drive::Wander(brain) => c.driver.run_ticks(
            now,
            |session, _| match session.predicted() {
                Some(me) => brain.next(&me),
                None => Default::default(),
            },
            |session, msg| {
                msg.into_iter().for_each(&mut send);
                // One frame per command, as the headless client does.
                session.frame(now);
            },
        ),
        // Only when it can change something, new keys or a command due: otherwise `play`
        // does nothing but note the keys, and a recording would hold a keys record for
        // every millisecond.
        Drive::Keys if c.played != Some(c.held) || now >= c.driver.next_command() => {
            c.played = Some(c.held);
            c.driver.play(now, c.held, send);
        }
        Drive::Keys => {}
        Drive::Script => {
            let log = &mut c.log;
            c.driver.run_ticks(now, script, |session, msg| {
                if let (Some(log), Some(state)) = (log.as_mut(), session.predicted()) {
                    log.predicted.push((session.latest_seq(), state));
                }
                msg.into_iter().for_each(&mut send);
                session.frame(now);
            });
        }
    }
    for msg in &dropped {
        c.driver.link_dropped(now, msg);
    }
}

/// A profile's conditions each way: a name for both, or `UP/DOWN` (`lan/bad`), each
/// name optionally with its jitter mode after a colon (`bad:independent`).
fn ways(profile: &str) -> Option<(Conditions, Conditions)> {
    let one = |name: &str| match name.split_once(':') {
        Some((name, mode)) => {
            Some(Conditions::profile(name)?.with_jitter_mode(JitterMode::parse(mode)?))
        }
        None => Conditions::profile(name),
    };
    match profile.split_once('/') {
        Some((up, down)) => Some((one(up)?, one(down)?)),
        None => one(profile).map(|c| (c.clone(), c)),
    }
}

/// The profile of a link with these conditions each way: one name when both agree.
fn profile_name_each_way(up: &Conditions, down: &Conditions) -> String {
    if up == down {
        profile_name(up)
    } else {
        "custom".to_owned()
    }
}

/// The profile these conditions are (`bad`, `bad:independent`), or "custom".
fn profile_name(c: &Conditions) -> String {
    match (c.profile_name(), c.jitter_mode) {
        (Some(p), JitterMode::Ordered) => p.to_owned(),
        (Some(p), mode) => format!("{p}:{}", mode.name()),
        (None, _) => "custom".to_owned(),
    }
}

#[cfg(test)]
mod tests;
