//! The lab's clients: how one joins, what drives it, the commands it sends up its
//! link, and the link profiles it is given by name.

use std::net::SocketAddr;
use std::time::Instant;

use anyhow::Context;

use super::{Carried, Lab, MAX_CLIENTS, follow, meters, wire};
use crate::client::driver::Driver;
use crate::client::netcode::rates::RateMeter;
use crate::client::netcode::session::ClientSession;
use crate::client::netcode::tuning::Tuning;
use crate::client::play::app::App;
use crate::client::play::brain::Wander;
use crate::client::play::input::Action;
use crate::client::tap::LinkTotals;
use crate::client::{ClientConfig, CorrectionStyle, Switches};
use crate::net::conditioner::{Conditions, JitterMode};
use crate::net::protocol::{ClientMsg, Welcome};
use crate::net::transport::Traffic;
use crate::server::Server;
use crate::sim::world::{Buttons, Command, PlayerState};
use wire::Lane;

/// What moves a client.
pub(super) enum Drive {
    /// The keys it holds, [`LabClient::held`].
    Keys,
    Wander(Wander),
    /// The script handed to [`Lab::run_with`].
    Script,
}

/// What the lab notes for a scripted client.
#[derive(Default)]
pub(super) struct Log {
    /// Every new snapshot its session took in: (tick, ack seq, the server's state for
    /// its player).
    pub(super) acks: Vec<(u32, u32, PlayerState)>,
    /// Its predicted state right after making each command: (seq, state).
    pub(super) predicted: Vec<(u32, PlayerState)>,
    /// Datagrams from the server it could not decode (dropped, as a client does).
    pub(super) undecodable: u64,
}

/// How one client joins: what `Lab::new` and `Lab::scripted` decide for it.
pub(super) struct Joining {
    pub(super) n: usize,
    pub(super) name: String,
    pub(super) profile: String,
    pub(super) up: Conditions,
    pub(super) down: Conditions,
    pub(super) seeds: (u64, u64),
    pub(super) first: Instant,
    pub(super) drive: Drive,
    /// The client's seed in its config (a recording's start record).
    pub(super) seed: u64,
    pub(super) tuning: Tuning,
    pub(super) correction: CorrectionStyle,
}

/// When a lab client started and with what: a recording's start record.
pub(super) struct Started {
    /// When its session started: its first command, out of phase with the others.
    /// Nothing reaches it before, so a recording's times count from here.
    pub(super) start: Instant,
    /// What it started with.
    pub(super) welcome: Welcome,
    pub(super) config: ClientConfig,
}

/// The newest command seqs a lab client's snapshots acknowledged.
#[derive(Default)]
pub(crate) struct Acks {
    /// The newest command seq the server said it applied (from its last snapshot sent).
    pub(crate) server_ack: u32,
    /// The newest command seq acknowledged by a snapshot its link delivered.
    pub(crate) ack_delivered: u32,
}

/// One client in the lab: a driver, its link, and what moves it.
pub(crate) struct LabClient {
    pub(crate) number: usize,
    pub(crate) profile: String,
    pub(super) addr: SocketAddr,
    /// When and with what it started, for the recordings.
    pub(super) started: Started,
    pub(crate) driver: Driver,
    pub(crate) up: Lane,
    pub(crate) down: Lane,
    pub(super) drive: Drive,
    pub(crate) held: Buttons,
    /// The keys its driver last played, if any.
    pub(super) played: Option<Buttons>,
    /// The newest command seqs acknowledged, as sent and as delivered.
    pub(crate) acks: Acks,
    /// Kept for scripted clients only.
    pub(super) log: Option<Log>,
    /// Its traffic and snapshot rates, for its stats overlay, from what its link
    /// carried (as the interactive client's loop measures its socket's).
    pub(crate) rates: RateMeter,
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
    pub(super) fn traffic(&self) -> Traffic {
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

pub(super) fn client_addr(n: usize) -> SocketAddr {
    SocketAddr::from(([10, 0, 0, n as u8 + 1], 5000))
}

/// The seed of the wandering bot of client `n` (0-based; walkers follow the clients).
pub(super) fn brain_seed(seed: u64, n: usize) -> u64 {
    seed + n as u64
}

/// Joins one client to `server` at `start`.
pub(super) fn join(server: &mut Server, start: Instant, j: Joining) -> anyhow::Result<LabClient> {
    let addr = client_addr(j.n);
    let welcome = server
        .join_in_process(start, addr, &j.name)
        .with_context(|| format!("the server has no room for {}", j.name))?;
    // Its session starts with its first command, as a client's loop does.
    let mut session = ClientSession::new(welcome.clone(), j.first, Switches::default())
        .context("the server's map")?;
    session.set_tuning(j.tuning);
    if j.n >= MAX_CLIENTS {
        // A walker (numbered after the clients): no view shows it, so its session
        // keeps no view's work or figures.
        session.set_unseen();
    }
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
        started: Started {
            start: j.first,
            welcome,
            config,
        },
        driver,
        up: Lane::new(j.up, j.seeds.0),
        down: Lane::new(j.down, j.seeds.1),
        drive: j.drive,
        held: Buttons::empty(),
        played: None,
        acks: Acks::default(),
        log,
        rates: RateMeter::default(),
        bytes: meters::LinkBytes::default(),
        trail: follow::Trail::default(),
    })
}

/// Notes the session's newest word from the server, if it is new.
pub(super) fn note_ack(log: &mut Log, session: &ClientSession) {
    if let (Some(state), Some(tick)) = (session.server_state(), session.latest_tick())
        && log.acks.last().is_none_or(|(t, _, _)| *t != tick)
    {
        log.acks.push((tick, session.server_ack_seq(), state));
    }
}

/// The commands due for one client, sent up its link; a scripted one's are made by
/// `script`.
pub(super) fn commands(
    c: &mut LabClient,
    now: Instant,
    server: &mut Server,
    buf: &mut Vec<u8>,
    script: impl FnMut(&ClientSession, Instant) -> Command,
) {
    let (up, addr, bytes) = (&mut c.up, c.addr, &mut c.bytes);
    // What the link dropped goes to the client's recording once the commands are made.
    let mut dropped = Vec::new();
    let mut send = |msg: ClientMsg| {
        if server.encode_in_process(addr, &msg, buf).is_ok() {
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
        // every step.
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
pub(super) fn ways(profile: &str) -> Option<(Conditions, Conditions)> {
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
pub(super) fn profile_name_each_way(up: &Conditions, down: &Conditions) -> String {
    if up == down {
        profile_name(up)
    } else {
        "custom".to_owned()
    }
}

/// The profile these conditions are (`bad`, `bad:independent`), or "custom".
pub(super) fn profile_name(c: &Conditions) -> String {
    match (c.profile_name(), c.jitter_mode) {
        (Some(p), JitterMode::Ordered) => p.to_owned(),
        (Some(p), mode) => format!("{p}:{}", mode.name()),
        (None, _) => "custom".to_owned(),
    }
}

/// What the lab noted for its scripted clients (see [`Lab::run_with`]).
impl Lab {
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
}
