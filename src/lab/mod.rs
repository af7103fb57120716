//! The lab: the real [`Server`] and one to four real client sessions in one process,
//! joined by in-memory links that go through the project's link conditioner, all on one
//! virtual clock. It is the network game minus the sockets, so time can stop, run slow
//! or run as fast as the machine allows, and a seeded run repeats exactly.
//!
//! [`Lab`] is the stepper; [`headless`] runs it to a report, [`terminal`] draws it and
//! lets two people at one keyboard play and a teacher stop time.

mod explain;
pub mod headless;
pub(crate) mod speed;
pub mod terminal;
mod view;
mod wire;

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};

use crate::client::driver::Driver;
use crate::client::netcode::session::ClientSession;
use crate::client::play::app::{App, Effect};
use crate::client::play::brain::Wander;
use crate::client::play::input::Action;
use crate::client::tap::{LinkTotals, LoopKind, Tap, TapEvent};
use crate::client::{ClientConfig, Switches};
use crate::net::codec;
use crate::net::conditioner::Conditions;
use crate::net::protocol::{ClientMsg, GameEvent, RailShot, ServerMsg, Welcome};
use crate::server::{Server, ServerConfig};
use crate::sim::world::Buttons;
use wire::Lane;

pub use wire::LaneCounts;

/// Clients the lab runs at most (a server view and four client views fill a screen).
pub const MAX_CLIENTS: usize = 4;
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
            if Conditions::profile(p).is_none() {
                bail!(
                    "unknown network profile {p:?} (expected one of: {})",
                    Conditions::PROFILES.join(", ")
                );
            }
        }
        self.server.validate().map_err(anyhow::Error::msg)?;
        Ok(())
    }
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
    /// None: driven by keys, [`LabClient::held`].
    brain: Option<Wander>,
    pub(crate) held: Buttons,
    /// The keys its driver last played, if any.
    played: Option<Buttons>,
    /// The newest command seq the server said it applied (from its last snapshot sent).
    pub(crate) server_ack: u32,
}

impl LabClient {
    pub(crate) fn is_bot(&self) -> bool {
        self.brain.is_some()
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
}

fn client_addr(n: usize) -> SocketAddr {
    SocketAddr::from(([10, 0, 0, n as u8 + 1], 5000))
}

/// The seed of the wandering bot of client `n` (0-based; walkers follow the clients).
fn brain_seed(seed: u64, n: usize) -> u64 {
    seed + n as u64
}

impl Lab {
    /// Starts the server and joins every client, at virtual time `start`.
    pub fn new(config: &LabConfig, start: Instant) -> anyhow::Result<Lab> {
        config.validate()?;
        let seed = config.server.seed;
        let tick = Duration::from_secs(1) / u32::from(config.server.tick_rate);
        let mut server = Server::new(config.server.clone());
        let mut join = |n: usize, name: String, profile: &str, brain: Option<Wander>| {
            let addr = client_addr(n);
            let welcome = server
                .join_in_process(start, addr, &name)
                .with_context(|| format!("the server has no room for {name}"))?;
            // Each client's commands out of phase with the server and with each other;
            // its session starts with its first command, as a client's loop does.
            let first = start + tick * (n as u32 % 4 + 1) / 5;
            let session = ClientSession::new(welcome.clone(), first, Switches::default())
                .context("the server's map")?;
            let conditions = Conditions::profile(profile).unwrap_or_default();
            let mut app = App::new(conditions.clone());
            // The lab shows lag compensation in the shooter's view from the start.
            app.handle(Action::ToggleLagCompensation);
            let link_seed = seed.wrapping_mul(31).wrapping_add(n as u64 * 2);
            let mut config = ClientConfig::new(addr, &name);
            config.outgoing = conditions.clone();
            config.incoming = conditions.clone();
            config.seed = brain_seed(seed, n);
            anyhow::Ok(LabClient {
                number: n + 1,
                profile: profile.to_owned(),
                addr,
                start: first,
                welcome,
                config,
                driver: Driver::new(session, app, first),
                up: Lane::new(conditions.clone(), link_seed),
                down: Lane::new(conditions, link_seed + 1),
                brain,
                held: Buttons::empty(),
                played: None,
                server_ack: 0,
            })
        };
        let mut clients = Vec::new();
        for (n, profile) in config.profiles.iter().enumerate() {
            let brain = (n >= config.keyboard).then(|| Wander::new(brain_seed(seed, n)));
            clients.push(join(n, format!("client{}", n + 1), profile, brain)?);
        }
        let mut walkers = Vec::new();
        for w in 0..usize::from(config.walkers) {
            let n = MAX_CLIENTS + w;
            let brain = Some(Wander::new(brain_seed(seed, n)));
            walkers.push(join(n, format!("walker{}", w + 1), "off", brain)?);
        }
        Ok(Lab {
            server,
            clients,
            walkers,
            start,
            now: start,
            tick,
            next_tick: start + tick,
            buf: Vec::new(),
            rails: Vec::new(),
        })
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

    pub(crate) fn client_count(&self) -> usize {
        self.clients.len()
    }

    /// The session of client `n` (0-based), for tests and reports.
    pub fn session(&self, n: usize) -> &ClientSession {
        self.clients[n].driver.session()
    }

    /// Runs the lab until virtual time `until`.
    pub fn run_until(&mut self, until: Instant) {
        while self.now < until {
            self.now = (self.now + STEP).min(until);
            self.step();
        }
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
        if let Some(c) = self.clients.get_mut(n) {
            c.held = keys;
        }
    }

    /// A key's action for client `n`: switches reach its session, new conditions its
    /// link, both ways. What is left (quit, chat) comes back.
    /// Ignored before the client's session started (its first few milliseconds).
    pub(crate) fn act(&mut self, n: usize, action: Action) -> Option<Effect> {
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

    /// Advances every client's frame state (smoothing, fading overlays) to now.
    pub(crate) fn frame(&mut self) {
        let now = self.now;
        for c in self.clients.iter_mut().filter(|c| now >= c.start) {
            c.driver.frame(now);
        }
    }

    /// One millisecond of the lab: links deliver, the server ticks and sends, clients
    /// take in what arrived and make the commands due.
    fn step(&mut self) {
        let now = self.now;
        let server = &mut self.server;
        for c in self.clients.iter_mut().chain(&mut self.walkers) {
            c.up.drain(now, |from, bytes| server.receive(now, from, bytes));
        }
        while now >= self.next_tick {
            self.server.tick(self.next_tick);
            self.next_tick += self.tick;
        }
        self.send_outbox(now);
        for c in self.clients.iter_mut().chain(&mut self.walkers) {
            if now < c.start {
                // Not started yet: what arrived waits on the link.
                continue;
            }
            let driver = &mut c.driver;
            c.down.drain(now, |_, bytes| {
                if let Ok(msg) = codec::decode_server(bytes) {
                    driver.receive(now, msg, bytes.len());
                }
            });
            commands(c, now, &mut self.buf);
        }
        self.rails.retain(|r| now < r.at + RAIL_SHOWN);
    }

    /// Puts what the server sent on the links down, noting acks and rail shots.
    fn send_outbox(&mut self, now: Instant) {
        let out: Vec<(SocketAddr, ServerMsg)> = self.server.take_outbox().collect();
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
                    }
                }
            }
            if codec::encode_server(&msg, &mut self.buf).is_ok() {
                c.down.push(now, to, &self.buf, wire::down_glyph(&msg));
            }
        }
    }
}

/// The commands due for one client, sent up its link.
fn commands(c: &mut LabClient, now: Instant, buf: &mut Vec<u8>) {
    let (up, addr) = (&mut c.up, c.addr);
    // What the link dropped goes to the client's recording once the commands are made.
    let mut dropped = Vec::new();
    let mut send = |msg: ClientMsg| {
        if codec::encode_in_process(addr, &msg, buf).is_ok()
            && up.push(now, addr, buf, wire::up_glyph(&msg))
        {
            dropped.push(msg);
        }
    };
    match &mut c.brain {
        Some(brain) => c.driver.run_ticks(
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
        None if c.played != Some(c.held) || now >= c.driver.next_command() => {
            c.played = Some(c.held);
            c.driver.play(now, c.held, send);
        }
        None => {}
    }
    for msg in &dropped {
        c.driver.link_dropped(now, msg);
    }
}

/// The profile these conditions are, or "custom".
fn profile_name(c: &Conditions) -> String {
    Conditions::PROFILES
        .iter()
        .find(|p| Conditions::profile(p).as_ref() == Some(c))
        .map_or_else(|| "custom".to_owned(), |p| (*p).to_owned())
}

#[cfg(test)]
mod tests;
