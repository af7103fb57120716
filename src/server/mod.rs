//! The authoritative server: a state machine fed with decoded messages and clock ticks,
//! producing messages to send and events to report. It owns no socket and reads no
//! clock, so tests drive it directly; [`event_loop`] wires it to UDP.

pub mod bots;
pub mod commands;
pub mod cookie;
pub mod event_loop;
pub mod game;
pub mod rate_limit;

use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::net::protocol::{
    ClientMsg, Cookie, InputCounts, InputPacket, MAGIC, MAX_INFO_NAME_CHARS, MIN_CONNECT_BYTES,
    MIN_DISCOVER_BYTES, PROTOCOL_VERSION, PlayerSnap, RejectReason, RosterEntry, ServerInfo,
    ServerMsg, Snapshot, SnapshotDelta, Welcome, sanitize_name,
};
use crate::net::protocol::{GameEvent, MAX_CHAT_CHARS, sanitize_text};
use crate::net::{codec, delta};
use crate::sim::combat::Weapon;
use crate::sim::map::Map;
use crate::sim::world::{PlayerId, PlayerState, Rules, World};
use bots::{FightBot, Situation};
use commands::CommandQueue;
use cookie::{CookieError, CookieJar};
use game::{Match, MatchConfig};
use rate_limit::RateLimit;

/// Connect requests one address may make: a burst, then a steady trickle. A real client
/// retries every 250 ms for 5 s.
const CONNECT_BURST: f64 = 10.0;
const CONNECTS_PER_SEC: f64 = 5.0;
/// Discovery requests one address may make: a join screen refreshes a few times a second.
const DISCOVER_BURST: f64 = 10.0;
const DISCOVERS_PER_SEC: f64 = 4.0;

/// Snapshots kept as possible baselines: 1.6 s at 20 Hz, longer than any useful ack.
const SNAPSHOT_HISTORY: usize = 32;

const ROSTER_REFRESH_SECS: u32 = 3;
/// Unacknowledged events carried by one snapshot, oldest first.
const EVENTS_PER_SNAPSHOT: usize = 64;
/// Events a client may leave unacknowledged. Events must arrive in order and none may
/// be lost, so a client this far behind cannot catch up: it is dropped instead.
const MAX_PENDING_EVENTS: usize = 1024;
/// Chat lines one client may send: a burst, then one a second.
const CHAT_BURST: f64 = 3.0;
const CHATS_PER_SEC: f64 = 1.0;

/// Adds events to a remote slot's resend queue.
fn push_events(slot: &mut Slot, events: &[GameEvent]) {
    if let Driver::Remote(r) = &mut slot.driver {
        for e in events {
            r.events.push_back((r.next_event, e.clone()));
            r.next_event += 1;
        }
        if r.events.len() > MAX_PENDING_EVENTS {
            // Stop queueing; the tick drops this client (see `drop_silent_clients`).
            r.events.truncate(MAX_PENDING_EVENTS);
            r.overflowed = true;
        }
    }
}

/// Most players one server holds: player ids are one byte.
pub const PLAYER_LIMIT: u16 = 256;

#[derive(Clone, Debug)]
pub struct ServerConfig {
    pub bots: u16,
    pub tick_rate: u16,
    pub snapshot_rate: u16,
    pub max_players: u16,
    pub name: String,
    /// A client not heard from for this long is dropped.
    pub client_timeout: Duration,
    pub seed: u64,
    /// Testing aid: the event loop panics this long after starting.
    pub debug_panic_after: Option<Duration>,
    /// Answer LAN discovery requests.
    pub discoverable: bool,
    /// The protocol version spoken; other values only to test version mismatches.
    pub protocol_version: u16,
    /// 1 (slow, sloppy) to 5 (quick, precise).
    pub bot_skill: u8,
    /// Maps, limits and lag compensation.
    pub game: MatchConfig,
}

impl ServerConfig {
    pub fn new(map: Map) -> ServerConfig {
        ServerConfig {
            bots: 0,
            tick_rate: 60,
            snapshot_rate: 20,
            max_players: 16,
            name: "netarena".to_owned(),
            client_timeout: Duration::from_secs(5),
            seed: 1,
            debug_panic_after: None,
            discoverable: true,
            protocol_version: PROTOCOL_VERSION,
            bot_skill: 2,
            game: MatchConfig::new(map),
        }
    }

    /// Server ticks between two snapshots.
    pub fn snapshot_interval(&self) -> u32 {
        u32::from((self.tick_rate / self.snapshot_rate.max(1)).max(1))
    }
}

/// Something worth a line in the dedicated server's output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ServerEvent {
    Joined {
        id: PlayerId,
        name: String,
        from: Option<SocketAddr>,
    },
    Left {
        id: PlayerId,
        name: String,
        reason: &'static str,
    },
    Frag {
        killer: String,
        victim: String,
        weapon: Weapon,
    },
    /// A match ended: standings lines, best first.
    Results {
        map: String,
        lines: Vec<String>,
        next_map: String,
    },
}

impl fmt::Display for ServerEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ServerEvent::Joined { id, name, from } => match from {
                Some(addr) => write!(f, "join  #{id} {name} from {addr}"),
                None => write!(f, "join  #{id} {name} (bot)"),
            },
            ServerEvent::Left { id, name, reason } => write!(f, "leave #{id} {name} ({reason})"),
            ServerEvent::Frag {
                killer,
                victim,
                weapon,
            } => {
                if killer == victim {
                    write!(f, "frag  {victim} fragged themselves ({})", weapon.name())
                } else {
                    write!(
                        f,
                        "frag  {killer} fragged {victim} with the {}",
                        weapon.name()
                    )
                }
            }
            ServerEvent::Results {
                map,
                lines,
                next_map,
            } => {
                write!(f, "match over on {map}:")?;
                for (i, line) in lines.iter().enumerate() {
                    write!(f, "\n  {}. {line}", i + 1)?;
                }
                write!(f, "\nnext map: {next_map}")
            }
        }
    }
}

/// What the server knows of a remote client beyond its player.
#[derive(Clone, Debug)]
struct Remote {
    addr: SocketAddr,
    last_heard: Instant,
    /// Newest client timestamp seen, and when it arrived, for the RTT echo.
    echo_time_ms: u32,
    echo_received: Instant,
    inputs_received: u32,
    input_high: u32,
    /// Bit k set: packet `input_high - k` has been received.
    input_window: u64,
    /// Newest snapshot the client says it has: the baseline for its next delta.
    acked_tick: Option<u32>,
    /// Game events not yet acknowledged, by seq; resent with every snapshot.
    events: VecDeque<(u32, GameEvent)>,
    next_event: u32,
    /// The client's own RTT figure, for the scoreboard.
    rtt_ms: u16,
    /// Its event queue overflowed: it must go.
    overflowed: bool,
}

#[derive(Clone, Debug)]
enum Driver {
    Remote(Remote),
    Bot(Box<FightBot>),
}

#[derive(Clone, Debug)]
struct Slot {
    id: PlayerId,
    name: String,
    queue: CommandQueue,
    driver: Driver,
    /// Seq the bot's next command gets: bots number commands like clients do.
    bot_seq: u32,
}

/// Counters of what the server refused, for logs and tests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Refusals {
    /// Datagrams that did not decode.
    pub malformed: u64,
    /// Decoded, but with values no honest peer sends.
    pub invalid: u64,
    /// Anything but a connect from an address that is not a client.
    pub unknown_sender: u64,
    /// Connect requests over the per-address rate.
    pub rate_limited: u64,
    /// Forged or replayed cookies.
    pub bad_cookie: u64,
}

pub struct Server {
    config: ServerConfig,
    rules: Rules,
    world: World,
    slots: Vec<Slot>,
    by_addr: HashMap<SocketAddr, PlayerId>,
    outbox: Vec<(SocketAddr, ServerMsg)>,
    events: Vec<ServerEvent>,
    roster_dirty: bool,
    refusals: Refusals,
    /// Recent snapshots by tick, shared by every client's delta encoding.
    history: VecDeque<(u32, Arc<[PlayerSnap]>)>,
    cookies: CookieJar,
    connect_limit: RateLimit,
    discover_limit: RateLimit,
    chat_limit: RateLimit,
    game: Match,
    /// The map in play (changes with the rotation), and its place in the rotation.
    map: Map,
    map_index: usize,
    /// When the server first saw time pass: cookie windows count from here.
    epoch: Option<Instant>,
}

impl Server {
    pub fn new(config: ServerConfig) -> Server {
        let mut server = Server {
            rules: Rules::for_tick_rate(config.tick_rate),
            world: World::default(),
            slots: Vec::new(),
            by_addr: HashMap::new(),
            outbox: Vec::new(),
            events: Vec::new(),
            roster_dirty: false,
            refusals: Refusals::default(),
            history: VecDeque::new(),
            cookies: CookieJar::default(),
            connect_limit: RateLimit::new(CONNECTS_PER_SEC, CONNECT_BURST),
            discover_limit: RateLimit::new(DISCOVERS_PER_SEC, DISCOVER_BURST),
            chat_limit: RateLimit::new(CHATS_PER_SEC, CHAT_BURST),
            game: Match::new(
                config.game.clone(),
                config.tick_rate,
                config.snapshot_interval(),
            ),
            map: config.game.maps[0].clone(),
            map_index: 0,
            epoch: None,
            config,
        };
        for n in 0..server.config.bots {
            let seed = server
                .config
                .seed
                .wrapping_mul(0x9E37_79B9)
                .wrapping_add(u64::from(n));
            let name = format!("bot-{}", n + 1);
            let bot = FightBot::new(seed, server.config.bot_skill);
            if server
                .add_player(name, Driver::Bot(Box::new(bot)))
                .is_none()
            {
                break;
            }
        }
        server
    }

    pub fn config(&self) -> &ServerConfig {
        &self.config
    }

    pub fn world(&self) -> &World {
        &self.world
    }

    pub fn refusals(&self) -> Refusals {
        self.refusals
    }

    pub fn player_count(&self) -> usize {
        self.slots.len()
    }

    pub fn is_connected(&self, addr: SocketAddr) -> bool {
        self.by_addr.contains_key(&addr)
    }

    /// Moves a player by decree (tests, and later respawns): the next snapshot tells its
    /// client, whose prediction must then correct once.
    pub fn teleport(&mut self, id: PlayerId, state: PlayerState) {
        if self.world.get(id).is_some() {
            self.world.put(id, state);
        }
    }

    pub fn take_outbox(&mut self) -> std::vec::Drain<'_, (SocketAddr, ServerMsg)> {
        self.outbox.drain(..)
    }

    pub fn take_events(&mut self) -> std::vec::Drain<'_, ServerEvent> {
        self.events.drain(..)
    }

    fn add_player(&mut self, name: String, driver: Driver) -> Option<PlayerId> {
        let limit = self.config.max_players.min(PLAYER_LIMIT);
        if self.slots.len() >= usize::from(limit) {
            return None;
        }
        let id = (0..=u8::MAX).find(|id| self.slots.iter().all(|s| s.id != *id))?;
        let from = match &driver {
            Driver::Remote(r) => Some(r.addr),
            Driver::Bot(_) => None,
        };
        let spawn = self.world.spawn_point(&self.map, id);
        self.world.put(id, spawn);
        let status = self.game.join(id, self.world.tick);
        self.broadcast(vec![status]);
        self.events.push(ServerEvent::Joined {
            id,
            name: name.clone(),
            from,
        });
        let at = self.slots.partition_point(|s| s.id < id);
        self.slots.insert(
            at,
            Slot {
                id,
                name,
                queue: CommandQueue::default(),
                driver,
                bot_seq: 0,
            },
        );
        if let Some(addr) = from {
            self.by_addr.insert(addr, id);
            // Bring the newcomer up to date: the match, and everyone's standing.
            let mut intro = vec![self.game.start_event(false)];
            intro.extend(self.game.statuses().into_iter().map(GameEvent::Status));
            if let Some(slot) = self.slots.iter_mut().find(|s| s.id == id) {
                push_events(slot, &intro);
            }
        }
        self.roster_dirty = true;
        Some(id)
    }

    fn remove_player(&mut self, id: PlayerId, reason: &'static str) {
        let Some(at) = self.slots.iter().position(|s| s.id == id) else {
            return;
        };
        let slot = self.slots.remove(at);
        if let Driver::Remote(r) = &slot.driver {
            self.by_addr.remove(&r.addr);
        }
        self.world.remove(id);
        self.game.leave(id);
        self.events.push(ServerEvent::Left {
            id,
            name: slot.name,
            reason,
        });
        self.roster_dirty = true;
    }

    fn info(&self, nonce: u32) -> ServerInfo {
        let short = |s: &str| s.chars().take(MAX_INFO_NAME_CHARS).collect::<String>();
        ServerInfo {
            version: self.config.protocol_version,
            nonce,
            name: short(&self.config.name),
            map: short(self.map.name()),
            players: self.slots.len() as u16,
            max_players: self.config.max_players,
        }
    }

    fn welcome(&self, id: PlayerId) -> ServerMsg {
        ServerMsg::Welcome(Welcome {
            player_id: id,
            tick_rate: self.config.tick_rate,
            // The rate snapshots really go out at: the tick rate divided by a whole
            // number of ticks, which may be above the rate asked for.
            snapshot_rate: self.config.tick_rate / self.config.snapshot_interval() as u16,
            server_tick: self.world.tick,
            server_name: self.config.name.clone(),
            map_name: self.map.name().to_owned(),
            map_text: self.map.text().to_owned(),
        })
    }

    /// Takes one datagram from `from`: decodes it (bounded), and handles it or counts
    /// why not. Nothing a datagram holds can make this panic.
    pub fn receive(&mut self, now: Instant, from: SocketAddr, bytes: &[u8]) {
        self.epoch.get_or_insert(now);
        match codec::decode_client(bytes) {
            Ok(msg) => self.handle(now, from, msg, bytes.len()),
            Err(e) => match codec::peek_connect(bytes) {
                // Another version's connect may not decode as ours; answer it anyway.
                Some((MAGIC, version)) if version != self.config.protocol_version => {
                    if self.connect_limit.allow(from, now) {
                        self.reply_unproven(
                            from,
                            bytes.len(),
                            ServerMsg::Reject(RejectReason::Version {
                                server: self.config.protocol_version,
                            }),
                        );
                    }
                }
                _ => {
                    tracing::debug!("dropped datagram from {from}: {e}");
                    self.refusals.malformed += 1;
                }
            },
        }
    }

    fn handle(&mut self, now: Instant, from: SocketAddr, msg: ClientMsg, wire_len: usize) {
        match msg {
            ClientMsg::Connect {
                magic,
                version,
                name,
                cookie,
                padding: _,
            } => {
                if magic != MAGIC {
                    self.refusals.invalid += 1;
                } else if !self.connect_limit.allow(from, now) {
                    self.refusals.rate_limited += 1;
                } else if version != self.config.protocol_version {
                    let reject = RejectReason::Version {
                        server: self.config.protocol_version,
                    };
                    self.reply_unproven(from, wire_len, ServerMsg::Reject(reject));
                } else if wire_len < MIN_CONNECT_BYTES {
                    self.refusals.invalid += 1;
                } else {
                    self.on_connect(now, from, &name, cookie, wire_len);
                }
            }
            ClientMsg::Discover {
                magic,
                version: _,
                nonce,
                padding: _,
            } => {
                // Answered whatever the asker's version: telling it ours is the point.
                if magic != MAGIC || !self.config.discoverable {
                    self.refusals.invalid += 1;
                } else if !self.discover_limit.allow(from, now) {
                    self.refusals.rate_limited += 1;
                } else if wire_len < MIN_DISCOVER_BYTES {
                    self.refusals.invalid += 1;
                } else {
                    let info = ServerMsg::Info(self.info(nonce));
                    self.reply_unproven(from, wire_len, info);
                }
            }
            ClientMsg::Input(input) => self.on_input(now, from, input),
            ClientMsg::Chat(text) => {
                let Some(&id) = self.by_addr.get(&from) else {
                    self.refusals.unknown_sender += 1;
                    return;
                };
                if !self.chat_limit.allow(from, now) {
                    self.refusals.rate_limited += 1;
                    return;
                }
                let text = sanitize_text(&text, MAX_CHAT_CHARS);
                if !text.is_empty() {
                    self.broadcast(vec![GameEvent::Chat { from: id, text }]);
                }
            }
            ClientMsg::Leave => {
                if let Some(&id) = self.by_addr.get(&from) {
                    self.remove_player(id, "left");
                } else {
                    self.refusals.unknown_sender += 1;
                }
            }
        }
    }

    /// Sends `msg` to an address that has not proved it receives there, only if the
    /// reply is no larger than the request: no amplification for spoofed sources.
    fn reply_unproven(&mut self, to: SocketAddr, request_len: usize, msg: ServerMsg) {
        if codec::encoded_len_server(&msg) <= request_len {
            self.outbox.push((to, msg));
        } else {
            self.refusals.invalid += 1;
        }
    }

    fn cookie_window(&self, now: Instant) -> u32 {
        let since = self
            .epoch
            .map_or(0, |e| now.saturating_duration_since(e).as_secs());
        (since / cookie::WINDOW_SECS) as u32
    }

    fn on_connect(
        &mut self,
        now: Instant,
        from: SocketAddr,
        name: &str,
        cookie: Option<Cookie>,
        wire_len: usize,
    ) {
        // A repeated connect means our welcome was lost: send it again.
        if let Some(&id) = self.by_addr.get(&from) {
            self.outbox.push((from, self.welcome(id)));
            return;
        }
        let window = self.cookie_window(now);
        let Some(cookie) = cookie else {
            let challenge = ServerMsg::Challenge(self.cookies.issue(from, window));
            self.reply_unproven(from, wire_len, challenge);
            return;
        };
        match self.cookies.redeem(from, cookie, window) {
            Ok(()) => {}
            Err(CookieError::Expired) => {
                // A slow client, most likely: let it try again with a fresh one.
                let challenge = ServerMsg::Challenge(self.cookies.issue(from, window));
                self.reply_unproven(from, wire_len, challenge);
                return;
            }
            Err(e) => {
                tracing::debug!("refused connect from {from}: {e}");
                self.refusals.bad_cookie += 1;
                return;
            }
        }
        let remote = Remote {
            addr: from,
            last_heard: now,
            echo_time_ms: 0,
            echo_received: now,
            inputs_received: 0,
            input_high: 0,
            input_window: 0,
            acked_tick: None,
            events: VecDeque::new(),
            next_event: 1,
            rtt_ms: 0,
            overflowed: false,
        };
        match self.add_player(sanitize_name(name), Driver::Remote(remote)) {
            Some(id) => self.outbox.push((from, self.welcome(id))),
            None => self.outbox.push((
                from,
                ServerMsg::Reject(RejectReason::Full {
                    max_players: self.config.max_players,
                }),
            )),
        }
    }

    fn on_input(&mut self, now: Instant, from: SocketAddr, input: InputPacket) {
        let Some(&id) = self.by_addr.get(&from) else {
            self.refusals.unknown_sender += 1;
            return;
        };
        if input.validate().is_err() {
            self.refusals.invalid += 1;
            return;
        }
        let Some(slot) = self.slots.iter_mut().find(|s| s.id == id) else {
            return;
        };
        if let Driver::Remote(r) = &mut slot.driver {
            r.last_heard = now;
            // Only a tick we have actually sent can be a baseline; anything else is a
            // confused or lying client, and it gets full snapshots.
            if input.ack_tick <= self.world.tick && r.acked_tick.is_none_or(|t| input.ack_tick > t)
            {
                r.acked_tick = Some(input.ack_tick);
            }
            // Count each packet once, late ones too (a 64-packet window of seqs seen),
            // so reordering is not taken for loss nor duplication for recovery. Only the
            // newest packet's timestamp is echoed.
            let seq = input.packet_seq;
            if seq > r.input_high {
                let shift = seq - r.input_high;
                r.input_window = if shift >= 64 {
                    0
                } else {
                    r.input_window << shift
                };
                r.input_window |= 1;
                r.input_high = seq;
                r.inputs_received += 1;
                r.echo_time_ms = input.client_time_ms;
                r.echo_received = now;
            } else if r.input_high - seq < 64 && r.input_window & (1 << (r.input_high - seq)) == 0 {
                r.input_window |= 1 << (r.input_high - seq);
                r.inputs_received += 1;
            }
            r.rtt_ms = input.rtt_ms;
            // Events up to the ack have arrived: stop resending them.
            let ack = input.event_ack.min(r.next_event.saturating_sub(1));
            while r.events.front().is_some_and(|(seq, _)| *seq <= ack) {
                r.events.pop_front();
            }
        }
        // A view in the future is a lie; one further back than the history is simply
        // not compensated (the match decides).
        let view = input.view_tick.min(self.world.tick);
        for (seq, cmd) in input.commands() {
            slot.queue.offer(seq, cmd.sanitized(), view);
        }
    }

    /// Advances the world by one tick at time `now`.
    pub fn tick(&mut self, now: Instant) {
        self.epoch.get_or_insert(now);
        self.drop_silent_clients(now);
        let tick = self.world.tick;
        if tick == 0 {
            self.game.start(tick);
        }
        let mut events = Vec::new();
        let game = &mut self.game;
        for slot in &mut self.slots {
            if let Driver::Bot(brain) = &mut slot.driver
                && let Some(state) = self.world.get(slot.id)
            {
                let situation = Situation {
                    me: slot.id,
                    state,
                    world: &self.world,
                    map: &self.map,
                    tick,
                    tick_rate: u32::from(self.config.tick_rate),
                    alive: &|id| game.is_alive(id),
                };
                let cmd = brain.next(&situation);
                slot.bot_seq += 1;
                slot.queue.offer(slot.bot_seq, cmd, tick);
            }
            for (_, cmd, view) in slot.queue.take_for_tick() {
                // Commands keep being taken (and acknowledged) while dead or between
                // matches; they just do nothing.
                if !game.is_alive(slot.id) || game.in_results() {
                    continue;
                }
                self.world.apply(&self.map, &self.rules, slot.id, cmd);
                game.command(slot.id, cmd, view, tick, &self.world, &mut events);
            }
        }
        game.step(tick, &mut self.world, &mut events);
        if game.map_index() != self.map_index {
            self.map_index = game.map_index();
            self.map = game.map().clone();
        }
        self.report(&events);
        self.broadcast(events);
        self.world.tick += 1;

        // The roster goes out on every change, and every few seconds in case that copy
        // was lost (and to refresh the pings on the scoreboard).
        let every = u32::from(self.config.tick_rate) * ROSTER_REFRESH_SECS;
        if self.roster_dirty || self.world.tick.is_multiple_of(every) {
            self.roster_dirty = false;
            self.broadcast_roster();
        }
        if self
            .world
            .tick
            .is_multiple_of(self.config.snapshot_interval())
        {
            self.send_snapshots(now);
        }
    }

    /// Turns game events into lines for the dedicated server's output.
    fn report(&mut self, events: &[GameEvent]) {
        let name = |id: PlayerId| {
            self.slots
                .iter()
                .find(|s| s.id == id)
                .map_or_else(|| format!("#{id}"), |s| s.name.clone())
        };
        let mut lines = Vec::new();
        for e in events {
            match e {
                GameEvent::Kill {
                    killer,
                    victim,
                    weapon,
                } => lines.push(ServerEvent::Frag {
                    killer: name(*killer),
                    victim: name(*victim),
                    weapon: *weapon,
                }),
                GameEvent::MatchEnd {
                    standings,
                    next_map,
                    ..
                } if !standings.is_empty() => lines.push(ServerEvent::Results {
                    map: self.map.name().to_owned(),
                    lines: standings
                        .iter()
                        .map(|p| {
                            format!(
                                "{:<16} {:>3} frags {:>3} deaths",
                                name(p.id),
                                p.frags,
                                p.deaths
                            )
                        })
                        .collect(),
                    next_map: next_map.clone(),
                }),
                _ => {}
            }
        }
        self.events.extend(lines);
    }

    /// Queues events for every remote client, to be resent until acknowledged.
    fn broadcast(&mut self, events: Vec<GameEvent>) {
        if events.is_empty() {
            return;
        }
        for slot in &mut self.slots {
            push_events(slot, &events);
        }
    }

    /// Drops clients that went silent, and clients too far behind on game events.
    fn drop_silent_clients(&mut self, now: Instant) {
        let timeout = self.config.client_timeout;
        let gone: Vec<(PlayerId, SocketAddr, &'static str)> = self
            .slots
            .iter()
            .filter_map(|s| match &s.driver {
                Driver::Remote(r) if r.overflowed => Some((s.id, r.addr, "too far behind")),
                Driver::Remote(r) if now.saturating_duration_since(r.last_heard) > timeout => {
                    Some((s.id, r.addr, "timed out"))
                }
                _ => None,
            })
            .collect();
        for (id, addr, reason) in gone {
            self.outbox.push((addr, ServerMsg::Bye(reason.to_owned())));
            self.remove_player(id, reason);
        }
    }

    /// The match, for tests and tools.
    pub fn game(&self) -> &Match {
        &self.game
    }

    fn remotes(&self) -> impl Iterator<Item = (&Slot, &Remote)> {
        self.slots.iter().filter_map(|s| match &s.driver {
            Driver::Remote(r) => Some((s, r)),
            Driver::Bot(_) => None,
        })
    }

    fn broadcast_roster(&mut self) {
        let roster: Vec<RosterEntry> = self
            .slots
            .iter()
            .map(|s| RosterEntry {
                id: s.id,
                name: s.name.clone(),
                bot: matches!(s.driver, Driver::Bot(_)),
                ping_ms: match &s.driver {
                    Driver::Remote(r) => r.rtt_ms,
                    Driver::Bot(_) => 0,
                },
            })
            .collect();
        let addrs: Vec<SocketAddr> = self.remotes().map(|(_, r)| r.addr).collect();
        for addr in addrs {
            self.outbox.push((addr, ServerMsg::Roster(roster.clone())));
        }
    }

    fn send_snapshots(&mut self, now: Instant) {
        let tick = self.world.tick;
        let snapshot = Snapshot {
            tick,
            ack_seq: 0,
            echo_time_ms: 0,
            echo_hold_ms: 0,
            inputs: None,
            queued: 0,
            players: self
                .world
                .players()
                .iter()
                .map(|&(id, state)| PlayerSnap { id, state })
                .collect(),
        };
        // Loss counts go out with one snapshot in ten: enough for a statistic.
        let with_inputs = (tick / self.config.snapshot_interval()).is_multiple_of(10);
        // Clients that acknowledged the same baseline get the same body: encode it once.
        let mut bodies: HashMap<Option<u32>, SnapshotDelta> = HashMap::new();
        let mut out = Vec::new();
        for (slot, r) in self.remotes() {
            let base = r
                .acked_tick
                .and_then(|t| self.history.iter().find(|(h, _)| *h == t));
            let body = bodies
                .entry(base.map(|(t, _)| *t))
                .or_insert_with(|| delta::encode(&snapshot, base.map(|(t, p)| (*t, &p[..]))));
            let hold = now.saturating_duration_since(r.echo_received).as_millis();
            let mut msg = body.clone();
            msg.ack_seq = slot.queue.last_applied();
            msg.echo_time_ms = r.echo_time_ms;
            msg.echo_hold_ms = u16::try_from(hold).unwrap_or(u16::MAX);
            msg.inputs = with_inputs.then_some(InputCounts {
                received: r.inputs_received,
                high: r.input_high,
            });
            msg.events = r.events.iter().take(EVENTS_PER_SNAPSHOT).cloned().collect();
            msg.queued = u8::try_from(slot.queue.len()).unwrap_or(u8::MAX);
            out.push((r.addr, ServerMsg::Snapshot(msg)));
        }
        self.outbox.extend(out);
        self.history.push_back((tick, snapshot.players.into()));
        if self.history.len() > SNAPSHOT_HISTORY {
            self.history.pop_front();
        }
    }

    /// Joins from `addr` the way a client does (request, challenge, request with the
    /// cookie), for benchmarks and tests that drive a server without sockets. Messages
    /// for other addresses stay in the outbox.
    pub fn join_in_process(
        &mut self,
        now: Instant,
        addr: SocketAddr,
        name: &str,
    ) -> Option<Welcome> {
        let mut buf = Vec::new();
        let mut cookie = None;
        for _ in 0..2 {
            codec::connect_request(name, cookie, &mut buf).ok()?;
            self.receive(now, addr, &buf);
            let mut kept = Vec::new();
            for (to, msg) in self.outbox.drain(..) {
                match msg {
                    ServerMsg::Challenge(c) if to == addr => cookie = Some(c),
                    ServerMsg::Welcome(w) if to == addr => return Some(w),
                    other => kept.push((to, other)),
                }
            }
            self.outbox = kept;
        }
        None
    }

    /// Says goodbye to every client; the caller sends the outbox one last time.
    pub fn shutdown(&mut self, reason: &str) {
        let addrs: Vec<SocketAddr> = self.remotes().map(|(_, r)| r.addr).collect();
        for addr in addrs {
            self.outbox.push((addr, ServerMsg::Bye(reason.to_owned())));
        }
    }
}
