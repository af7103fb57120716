//! What both test binaries share (`tests/integration/`, `tests/terminal/`): the real
//! binary as a process, the relays, the tmux helper and the timing retry, each in its
//! own file; and here a deterministic stepper: one server and one client session in
//! this process, joined by link conditioners on simulated time. No sockets, no sleeps:
//! every run is the same.

#![allow(dead_code)]

pub mod bottleneck;
pub mod process;
pub mod relay;
pub mod retry;
pub mod tmux;

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use netarena::client::Switches;
use netarena::client::driver::command_ticks;
use netarena::client::netcode::cadence::CommandClock;
use netarena::client::netcode::session::ClientSession;
use netarena::client::play::app::{App, Effect};
use netarena::client::play::input::Action;
use netarena::net::codec;
use netarena::net::conditioner::{Conditioner, Conditions};
use netarena::server::{Server, ServerConfig};
use netarena::sim::map::Map;
use netarena::sim::world::{Buttons, Command, PlayerState};

pub const CLIENT: &str = "10.0.0.2:5000";

pub struct Stepper {
    pub server: Server,
    pub client: ClientSession,
    /// The player's side: switches toggled through [`Stepper::handle`] as keys would.
    pub app: App,
    pub now: Instant,
    up: Conditioner,
    down: Conditioner,
    step: Duration,
    next_server_tick: Instant,
    commands: CommandClock,
    tick: Duration,
    buf: Vec<u8>,
    /// Every new snapshot the client decoded: (tick, ack_seq, the server's state for us).
    pub acks: Vec<(u32, u32, PlayerState)>,
    /// The client's predicted state right after making each seq.
    pub predicted: Vec<(u32, PlayerState)>,
}

fn addr(s: &str) -> SocketAddr {
    s.parse().unwrap()
}

impl Stepper {
    /// Connects one client through `up` (client to server) and `down` conditions.
    pub fn new(map: Map, bots: u16, up: Conditions, down: Conditions) -> Stepper {
        let mut config = ServerConfig::new(map);
        config.bots = bots;
        Stepper::with_config(config, up, down)
    }

    pub fn with_config(config: ServerConfig, up: Conditions, down: Conditions) -> Stepper {
        let tick = Duration::from_secs(1) / u32::from(config.tick_rate);
        let mut server = Server::new(config);
        let now = Instant::now();
        let welcome = server
            .join_in_process(now, addr(CLIENT), "stepper")
            .expect("welcomed");
        let client = ClientSession::new(welcome, now, Switches::default()).unwrap();
        Stepper {
            server,
            client,
            app: App::new(Conditions::default()),
            now,
            up: Conditioner::new(up, 11),
            down: Conditioner::new(down, 12),
            step: Duration::from_millis(1),
            next_server_tick: now + tick,
            // Out of phase with the server, as a real client would be.
            commands: CommandClock::new(tick, now + tick / 3),
            tick,
            buf: Vec::new(),
            acks: Vec::new(),
            predicted: Vec::new(),
        }
    }

    /// Runs for `duration` of simulated time, the client moving as `keys` says.
    pub fn run(&mut self, duration: Duration, mut keys: impl FnMut(&ClientSession) -> Buttons) {
        self.run_commands(duration, |c, _| Command::moving(keys(c)));
    }

    /// Runs for `duration` of simulated time, the client sending what `make` says.
    pub fn run_commands(
        &mut self,
        duration: Duration,
        mut make: impl FnMut(&ClientSession, Instant) -> Command,
    ) {
        let end = self.now + duration;
        while self.now < end {
            self.now += self.step;
            let now = self.now;
            // Client to server.
            let server = &mut self.server;
            self.up.drain_due(now, |from, bytes| {
                server.receive(now, from, bytes);
            });
            while now >= self.next_server_tick {
                self.server.tick(self.next_server_tick);
                self.next_server_tick += self.tick;
            }
            for (to, msg) in self.server.take_outbox().collect::<Vec<_>>() {
                codec::encode_server(&msg, &mut self.buf).unwrap();
                self.down.push(now, to, &self.buf);
            }
            // Server to client.
            let client = &mut self.client;
            let acks = &mut self.acks;
            self.down.drain_due(now, |_, bytes| {
                let msg = codec::decode_server(bytes).expect("server bytes decode");
                client.on_message(now, msg, bytes.len());
                // What the client now holds as the newest word from the server.
                if let (Some(state), Some(tick)) = (client.server_state(), client.latest_tick())
                    && acks.last().is_none_or(|(t, _, _)| *t != tick)
                {
                    acks.push((tick, client.server_ack_seq(), state));
                }
            });
            let (predicted, up, buf) = (&mut self.predicted, &mut self.up, &mut self.buf);
            command_ticks(
                &mut self.client,
                &mut self.commands,
                now,
                &mut make,
                |client, sent| {
                    if let Some(state) = client.predicted() {
                        predicted.push((client.latest_seq(), state));
                    }
                    if let Some(msg) = sent {
                        codec::encode_in_process(addr(CLIENT), &msg, buf).unwrap();
                        // The address a conditioner carries is just a label: the sender.
                        up.push(now, addr(CLIENT), buf);
                    }
                    client.frame(now);
                },
            );
        }
    }

    /// A player's key, as the terminal client would take it: switch changes reach the
    /// session at once.
    pub fn handle(&mut self, action: Action) {
        if let Some(Effect::Toggle(which)) = self.app.handle(action) {
            self.client
                .set_switches(self.client.switches().toggled(which));
        }
    }

    /// Changes the simulated network in both directions, from now on.
    pub fn set_conditions(&mut self, up: Conditions, down: Conditions) {
        self.up.set_conditions(up);
        self.down.set_conditions(down);
    }

    /// The prediction the client made for `seq`.
    pub fn predicted_at(&self, seq: u32) -> Option<PlayerState> {
        self.predicted
            .iter()
            .find(|(s, _)| *s == seq)
            .map(|(_, p)| *p)
    }
}

/// One-way conditions of a fixed latency and jitter.
pub fn lag(latency_ms: u32, jitter_ms: u32, loss_pct: f64) -> Conditions {
    Conditions {
        latency_ms,
        jitter_ms,
        loss_pct,
        ..Conditions::default()
    }
}
