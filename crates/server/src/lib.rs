//! The authoritative server: a state machine fed with decoded messages and clock ticks,
//! producing messages to send and events to report. It owns no socket and reads no
//! clock, so tests drive it directly; [`event_loop`] wires it to UDP.
//!
//! [`Server`] coordinates; the work lives in rooms: `intake` (decoding and refusals),
//! `handshake` (connects and discovery answers), `connection` (one client's state and
//! loss window), `delivery` (what its link carries, so what it may be sent), `reliable` (the event queue), `snapshots` (fan-out), `roster` (who
//! plays), [`game`] (the match rules) and `report` (what the owner is told).

#![warn(unreachable_pub)]

pub(crate) mod bots;
pub mod commands;
pub mod config;
mod connection;
pub(crate) mod cookie;
mod delivery;
pub mod event_loop;
pub mod game;
mod handshake;
mod intake;
mod interest;
pub mod on_arrival;
mod outgoing;
pub mod rate_limit;
mod reliable;
mod report;
mod roster;
mod snapshots;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::time::Instant;

use bots::Situation;
use connection::Controller;
use cookie::CookieJar;
use game::Match;
use netarena_net::protocol::{CHAT_RATE, GameEvent, ServerMsg};
use netarena_sim::map::Map;
use netarena_sim::world::{PlayerId, PlayerState, World};
use rate_limit::RateLimit;
use roster::Slot;

pub use commands::{BufferFigures, InputBuffer};
pub use config::{PLAYER_LIMIT, ServerConfig};
pub use intake::Refusals;
pub use on_arrival::ArrivalFigures;
pub use outgoing::SendFailures;
pub use report::{REFUSALS_EVERY, ServerEvent, Standing};

/// The roster is resent this often even unchanged, for lost copies and fresh pings.
const ROSTER_REFRESH_SECS: u32 = 10;

pub struct Server {
    config: ServerConfig,
    world: World,
    slots: Vec<Slot>,
    /// Players by the address their session is at now. A sealed datagram names its
    /// session by the player's id.
    by_addr: HashMap<SocketAddr, PlayerId>,
    /// The sessions (and addresses) of players removed since the outbox last went out,
    /// by id: their goodbyes in the outbox still go sealed. Their ids are not given out
    /// again until then.
    departed: HashMap<PlayerId, (SocketAddr, netarena_net::secure::Session)>,
    /// The client end of each session joined with [`Server::join_in_process`], by
    /// its address: tests, the lab and benchmarks seal and open with it as a client
    /// does (`handshake.rs`).
    in_process: HashMap<SocketAddr, (PlayerId, netarena_net::secure::Session)>,
    /// Sessions whose player left a moment ago: their repeated `Leave`s are answered
    /// again, not taken for a stranger's.
    left: intake::RecentlyLeft,
    /// What to send: the address, the message, and for a session's message the
    /// session it was queued for (`outgoing.rs`).
    outbox: Vec<(SocketAddr, ServerMsg, Option<PlayerId>)>,
    events: Vec<ServerEvent>,
    roster_dirty: bool,
    roster_serial: u16,
    refusals: Refusals,
    /// Game events of variable-rate commands applied between ticks, sent with the next.
    arrived_events: Vec<GameEvent>,
    send_failures: SendFailures,
    refusal_report: report::RefusalReport,
    history: snapshots::History,
    cookies: CookieJar,
    challenge_limit: RateLimit,
    connect_limit: RateLimit,
    discover_limit: RateLimit,
    chat_limit: RateLimit,
    /// Answers to sealed datagrams of sessions we do not have.
    not_connected_limit: RateLimit,
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
            world: World::default(),
            slots: Vec::new(),
            by_addr: HashMap::new(),
            departed: HashMap::new(),
            in_process: HashMap::new(),
            left: intake::RecentlyLeft::default(),
            outbox: Vec::new(),
            events: Vec::new(),
            roster_dirty: false,
            roster_serial: 0,
            refusals: Refusals::default(),
            arrived_events: Vec::new(),
            send_failures: SendFailures::default(),
            refusal_report: report::RefusalReport::default(),
            history: snapshots::History::default(),
            cookies: CookieJar::default(),
            challenge_limit: RateLimit::per_host(
                handshake::CHALLENGES_PER_SEC,
                handshake::CHALLENGE_BURST,
            ),
            connect_limit: RateLimit::per_socket(
                handshake::CONNECTS_PER_SEC,
                handshake::CONNECT_BURST,
            ),
            discover_limit: RateLimit::per_host(
                handshake::DISCOVERS_PER_SEC,
                handshake::DISCOVER_BURST,
            ),
            chat_limit: RateLimit::per_socket(CHAT_RATE.per_sec, CHAT_RATE.burst),
            not_connected_limit: RateLimit::per_host(
                intake::NOT_CONNECTED_PER_SEC,
                intake::NOT_CONNECTED_BURST,
            ),
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
        server.fill_bots();
        server
    }

    pub fn config(&self) -> &ServerConfig {
        &self.config
    }

    pub fn world(&self) -> &World {
        &self.world
    }

    /// Live settings (the lab's dials): snapshots a second (within the tick rate),
    /// lag compensation and its rewind bound (within their bounds), from the next
    /// tick on. The tick rate is [`Server::set_tick_rate`].
    pub fn retune(&mut self, snapshot_rate: u16, lag_compensation: bool, max_rewind_ms: u32) {
        let rewinds = &config::MAX_REWINDS_MS;
        self.config.snapshot_rate = snapshot_rate.clamp(1, self.config.tick_rate);
        self.config.game.lag_compensation = lag_compensation;
        self.config.game.max_rewind_ms = max_rewind_ms.clamp(*rewinds.start(), *rewinds.end());
        let (rewind, interval) = (
            self.config.game.max_rewind_ms,
            self.config.snapshot_interval(),
        );
        self.game.retune(lag_compensation, rewind, interval);
    }

    /// Ticks `tick_rate` times a second (within [`config::TICK_RATES`]) from the next
    /// tick on (the lab's tick-rate dial; the caller runs the ticks that often). The
    /// snapshot rate in Hz stays as asked where the new rate allows it (a snapshot every
    /// `tick_rate / snapshot_rate` ticks, rounded down: at 30 Hz, 20 Hz snapshots come
    /// every tick, 30 a second); above the new rate it is lowered to it, and stays
    /// there when the rate rises again (the snapshot-rate dial raises it); the match converts what it counts in ticks (see
    /// `Match::set_tick_rate`); and every client is told, with the tick the rate starts
    /// at, as a reliable event: its prediction, command clock and clock sync follow.
    pub fn set_tick_rate(&mut self, tick_rate: u16) {
        let rates = &config::TICK_RATES;
        let rate = tick_rate.clamp(*rates.start(), *rates.end());
        if rate == self.config.tick_rate {
            return;
        }
        self.config.tick_rate = rate;
        self.config.snapshot_rate = self.config.snapshot_rate.clamp(1, rate);
        let (tick, interval) = (self.world.tick, self.config.snapshot_interval());
        self.game.set_tick_rate(rate, interval, tick);
        for slot in &mut self.slots {
            let from_seq = slot.queue.last_applied().wrapping_add(1);
            slot.push_events(&[GameEvent::TickRate {
                tick_rate: rate,
                snapshot_interval: u16::try_from(interval).unwrap_or(u16::MAX),
                from_tick: tick,
                from_seq,
            }]);
        }
    }

    /// Server ticks between two snapshots.
    pub fn snapshot_interval(&self) -> u32 {
        self.config.snapshot_interval()
    }

    /// The match, for tests and tools.
    pub fn game(&self) -> &Match {
        &self.game
    }

    pub fn refusals(&self) -> Refusals {
        self.refusals
    }

    /// How clients' commands are applied from the next tick on, for every client now
    /// and later (a dial: the lab's run stays exact, as the change is made at a tick).
    /// Bots keep the credit queue: their commands are made on the tick that applies
    /// them.
    pub fn set_input_buffer(&mut self, mode: InputBuffer) {
        self.config.input_buffer = mode;
        for slot in &mut self.slots {
            if matches!(slot.controller, Controller::Remote(_)) {
                slot.queue.set_mode(mode);
            }
        }
    }

    /// Player `id`'s input buffer as it stands (None: no such player).
    pub fn input_buffer(&self, id: PlayerId) -> Option<BufferFigures> {
        let slot = self.slots.iter().find(|s| s.id == id)?;
        Some(slot.queue.figures())
    }

    /// The newest command seq of player `id` the server has applied (None: no such
    /// player): read after each tick, it says on which tick each command was applied.
    pub fn applied_seq(&self, id: PlayerId) -> Option<u32> {
        let slot = self.slots.iter().find(|s| s.id == id)?;
        Some(slot.queue.last_applied())
    }

    pub fn player_count(&self) -> usize {
        self.slots.len()
    }

    /// Moves a player by decree (tests): the next snapshot tells its client, whose
    /// prediction then takes the server's word as a server decision, not a misprediction.
    pub fn teleport(&mut self, id: PlayerId, state: PlayerState) {
        self.game.place(id, state, &mut self.world);
    }

    /// Kills a player by decree, as a fatal hit would (tests): it respawns as after any
    /// death, and its client learns both from the server's word.
    pub fn kill(&mut self, id: PlayerId) {
        let mut events = Vec::new();
        self.game.kill(id, self.world.tick, &mut events);
        self.broadcast(events);
    }

    pub fn take_outbox(&mut self) -> impl Iterator<Item = (SocketAddr, ServerMsg)> + '_ {
        self.outbox.drain(..).map(|(to, msg, _)| (to, msg))
    }

    pub fn take_events(&mut self) -> std::vec::Drain<'_, ServerEvent> {
        self.events.drain(..)
    }

    /// Advances the world by one tick at time `now`.
    pub fn tick(&mut self, now: Instant) {
        self.epoch.get_or_insert(now);
        // A caller that takes the outbox itself has sent it, goodbyes and all, once it is
        // empty (`send_outbox` clears `departed` itself).
        if self.outbox.is_empty() {
            self.departed.clear();
        }
        self.drop_silent_clients(now);
        self.report_refusals(now);
        let tick = self.world.tick;
        if tick == 0 {
            self.game.start(tick);
        }
        let events = self.play_commands(now, tick);
        if self.game.map_index() != self.map_index {
            self.map_index = self.game.map_index();
            self.map = self.game.map().clone();
        }
        let reports = report::from_game_events(&events, self.map.name(), |id| self.name_of(id));
        self.events.extend(reports);
        self.broadcast(events);
        self.world.tick += 1;

        // The roster goes out on every change, and every few seconds in case that copy
        // was lost (and to refresh the pings on the scoreboard). The refresh reaches one
        // group of clients at a time, spread over the period as snapshots are: a crowd's
        // whole roster on one tick was its slowest tick.
        let every = u32::from(self.config.tick_rate) * ROSTER_REFRESH_SECS;
        if self.roster_dirty {
            self.roster_dirty = false;
            self.send_roster(|_| true);
        } else {
            let phase = self.world.tick % every;
            let groups = 256 / snapshots::TURN_GROUP;
            self.send_roster(|id| {
                (u32::from(id) / snapshots::TURN_GROUP) * every / groups == phase
            });
        }
        // Each client's snapshots come every interval, on ticks of its own.
        self.send_join_bursts(now);
        self.send_snapshots(now);
    }

    /// Bots choose, every queued command due this tick is applied, and the match steps:
    /// the game events of the tick.
    fn play_commands(&mut self, now: Instant, tick: u32) -> Vec<GameEvent> {
        // What variable-rate commands did as they arrived goes out with this tick's.
        let mut events = std::mem::take(&mut self.arrived_events);
        let rate = self.config.tick_rate;
        let game = &mut self.game;
        // Scores for the bots, once a tick (none: nobody to ask).
        let scores = if self
            .slots
            .iter()
            .any(|s| matches!(s.controller, Controller::Bot(_)))
        {
            game.scores()
        } else {
            Vec::new()
        };
        for slot in &mut self.slots {
            if let Controller::Bot(brain) = &mut slot.controller
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
                    vulnerable: &|id| game.is_vulnerable(id, tick),
                    scores: &scores,
                };
                let cmd = brain.next(&situation);
                slot.bot_seq += 1;
                slot.queue.offer(slot.bot_seq, cmd, tick);
            }
            // Variable-rate commands the budget could not pay for on arrival, those
            // older than the fixed-tick ones queued, before them.
            if !slot.arrival.is_empty() {
                let before = slot.queue.first_waiting();
                for (seq, cmd, span, view) in slot.arrival.take(now, rate, false, before) {
                    let (world, id) = (&mut self.world, slot.id);
                    game.command_span(id, seq, (cmd, span), view, tick, world, &mut events);
                    slot.queue.applied_elsewhere(seq);
                }
            }
            let mut fixed = 0;
            for (seq, cmd, view) in slot.queue.take_for_tick() {
                // Commands keep being taken (and acknowledged) while dead or between
                // matches; the rulebook makes them do nothing.
                game.command(slot.id, seq, cmd, view, tick, &mut self.world, &mut events);
                fixed += 1;
            }
            slot.arrival.end_tick(fixed);
        }
        game.step(tick, &mut self.world, &mut events);
        events
    }

    /// Says goodbye to every client; the caller sends the outbox one last time.
    pub(crate) fn shutdown(&mut self, reason: &str) {
        let addrs: Vec<SocketAddr> = self.remotes().map(|(_, c)| c.addr).collect();
        for addr in addrs {
            self.queue(addr, ServerMsg::Bye(reason.to_owned()));
        }
    }
}
