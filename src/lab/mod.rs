//! The lab: the real [`Server`] and one to four real client sessions in one process,
//! joined by in-memory links that go through the project's link conditioner, all on one
//! virtual clock. It is the network game minus the sockets, so time can stop, run slow
//! or run as fast as the machine allows, and a seeded run repeats exactly.
//!
//! [`Lab`] is the project's one stepper; [`headless`] runs it to a report, [`terminal`]
//! draws it and lets two people at one keyboard play and a teacher stop time, and the
//! integration tests script its clients ([`Lab::scripted`], [`Lab::run_with`]).

mod client;
pub mod compare;
pub mod dials;
mod explain;
mod figures;
pub(crate) mod follow;
pub mod headless;
mod inputs;
pub(crate) mod ladder;
mod meters;
mod motion;
pub mod playback;
pub mod recording;
pub(crate) use crate::record::speed;
mod step;
pub mod terminal;
mod verdicts;
pub(crate) mod view;
mod wire;

use std::time::{Duration, Instant};

use anyhow::bail;

use crate::client::netcode::session::ClientSession;
use crate::client::netcode::tuning::Tuning;
use crate::client::play::brain::Wander;

use crate::client::CorrectionStyle;
use crate::net::conditioner::{Conditions, JitterMode};
use crate::net::protocol::RailShot;
use crate::server::{Server, ServerConfig};
use crate::sim::world::Command;
use client::{
    Drive, Joining, LabClient, brain_seed, join, profile_name, profile_name_each_way, ways,
};
use motion::Motion;

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

/// The lab's clock steps on a grid this fine: the links deliver to the millisecond.
/// It steps only where something is due (see [`Lab::run_with`]).
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
    /// The plain bytes of a message being sealed.
    scratch: Vec<u8>,
    pub(crate) rails: Vec<SeenRail>,
    verdicts: verdicts::Verdicts,
    /// How evenly each client draws the walkers.
    motion: Motion,
    /// Where the whole lab is recorded (`lab --record`), or a replay's checkpoints.
    journal: Option<Box<recording::Journal>>,
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
            scratch: Vec::new(),
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
            let (next, before) = self.next_step(until);
            self.now = next;
            self.step(before, &mut script);
            if self.journal.is_some() {
                recording::after_step(self);
            }
        }
        // Noted after the run, so the checkpoints it made come before it in the file.
        self.note(recording::Input::RunTo, self.now);
    }

    /// Runs until the server has made exactly one more tick.
    pub(crate) fn step_tick(&mut self) {
        let until = self.next_tick;
        self.run_until(until);
    }

    /// Advances every client's frame state (smoothing, fading overlays) to now, noting
    /// which snapshots each draws remote players between (for following one).
    pub(crate) fn frame(&mut self) {
        let now = self.now;
        self.note(recording::Input::Frame, now);
        for c in self.clients.iter_mut().filter(|c| now >= c.started.start) {
            c.driver.frame(now);
            c.trail.frame(c.driver.session(), now);
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
}

#[cfg(test)]
mod tests;
