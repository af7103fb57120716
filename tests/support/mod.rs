//! What both test binaries share (`tests/integration/`, `tests/terminal/`): the real
//! binary as a process, the relays, the tmux helper and the timing retry, each in its
//! own file; and here [`Solo`], the lab ([`netarena::lab::Lab`], the one stepper) with
//! one scripted client: the real server and one client session in this process, joined
//! by link conditioners on simulated time. No sockets, no sleeps: every run is the same.

#![allow(dead_code)]

pub mod bottleneck;
pub mod process;
pub mod relay;
pub mod retry;
pub mod scatter;
pub mod tmux;

use std::time::{Duration, Instant};

use netarena::client::netcode::session::ClientSession;
use netarena::lab::{Lab, ScriptedClient};
use netarena::net::conditioner::Conditions;
use netarena::server::{Server, ServerConfig};
use netarena::sim::map::Map;
use netarena::sim::world::{Buttons, Command, PlayerState};

/// A test that cannot run here (it needs root, a raw socket, network namespaces):
/// under `CI=true` that fails it (panics with `why`); anywhere else it is skipped,
/// saying why on stderr, and the caller returns.
pub fn cannot_run(why: &str) {
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("cannot run under CI=true: {why}");
    }
    eprintln!("skipped: {why}");
}

/// The scripted client's name on the server.
pub const NAME: &str = "stepper";

/// The lab with one scripted client: what the integration tests step.
pub struct Solo {
    pub lab: Lab,
}

impl Solo {
    /// Connects one client through `up` (client to server) and `down` conditions.
    pub fn new(map: Map, bots: u16, up: Conditions, down: Conditions) -> Solo {
        let mut config = ServerConfig::new(map);
        config.bots = bots;
        // The queue these tests' figures were taken with (the default is the adaptive
        // buffer, whose depth outlasts a lag spike and a loss burst for longer).
        config.input_buffer = netarena::server::InputBuffer::Credit;
        Solo::with_config(config, up, down)
    }

    pub fn with_config(config: ServerConfig, up: Conditions, down: Conditions) -> Solo {
        let tick = Duration::from_secs(1) / u32::from(config.tick_rate);
        let client = ScriptedClient {
            name: NAME.to_owned(),
            up,
            down,
            seeds: (11, 12),
            // Out of phase with the server, as a real client would be.
            first_command: tick / 3,
        };
        let lab = Lab::scripted(config, &[client], Instant::now()).expect("the lab starts");
        Solo { lab }
    }

    pub fn client(&self) -> &ClientSession {
        self.lab.session(0)
    }

    pub fn server(&self) -> &Server {
        self.lab.server()
    }

    pub fn server_mut(&mut self) -> &mut Server {
        self.lab.server_mut()
    }

    pub fn now(&self) -> Instant {
        self.lab.now()
    }

    /// Runs for `duration` of simulated time (rounded up to the lab's millisecond),
    /// the client moving as `keys` says.
    pub fn run(&mut self, duration: Duration, mut keys: impl FnMut(&ClientSession) -> Buttons) {
        self.run_commands(duration, |c, _| Command::moving(keys(c)));
    }

    /// Runs for `duration` of simulated time (rounded up to the lab's millisecond),
    /// the client sending what `make` says.
    pub fn run_commands(
        &mut self,
        duration: Duration,
        mut make: impl FnMut(&ClientSession, Instant) -> Command,
    ) {
        let ms = duration.as_nanos().div_ceil(1_000_000) as u64;
        let until = self.lab.now() + Duration::from_millis(ms);
        self.lab.run_with(until, |_, c, now| make(c, now));
        assert_eq!(self.lab.undecodable(0), 0, "every server datagram decodes");
    }

    /// Changes the simulated network in both directions, from now on.
    pub fn set_conditions(&mut self, up: Conditions, down: Conditions) {
        self.lab.set_link(0, up, down);
    }

    /// Every new snapshot the client decoded: (tick, ack seq, the server's state for us).
    pub fn acks(&self) -> &[(u32, u32, PlayerState)] {
        self.lab.acks(0)
    }

    /// The prediction the client made for `seq`.
    pub fn predicted_at(&self, seq: u32) -> Option<PlayerState> {
        self.lab.predicted_at(0, seq)
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

/// The client ends of sessions with an in-process server, for tests that join through
/// the handshake and the server's encoder themselves (not with
/// [`Server::join_in_process`]): each address's handshake, then its session.
#[derive(Default)]
pub struct Keyring {
    handshakes:
        std::collections::HashMap<std::net::SocketAddr, netarena::net::secure::ClientHandshake>,
    sessions: std::collections::HashMap<std::net::SocketAddr, (u8, netarena::net::secure::Session)>,
}

impl Keyring {
    /// The hello `addr` puts in its connect requests (the same for one join).
    pub fn hello(&mut self, addr: std::net::SocketAddr) -> [u8; 32] {
        self.handshakes.entry(addr).or_default().hello()
    }

    /// Decodes a datagram the server sent to `to` as that client does: the handshake's
    /// answer finishes its handshake; a session's message must open under its key.
    pub fn open(
        &mut self,
        to: std::net::SocketAddr,
        bytes: &[u8],
    ) -> Result<netarena::net::protocol::ServerMsg, netarena::net::codec::CodecError> {
        use netarena::net::protocol::ServerMsg;
        let session = self.sessions.get_mut(&to).map(|(_, s)| s);
        let msg = netarena::net::codec::open_server(session, bytes, &mut Vec::new())?;
        if let ServerMsg::Accept(answer) = &msg
            && !self.sessions.contains_key(&to)
            && let Some(done) = self
                .handshakes
                .get_mut(&to)
                .and_then(|h| h.finish(answer).ok())
        {
            self.sessions.insert(to, (done.id, done.session));
        }
        Ok(msg)
    }

    /// Whether `addr` has a session.
    pub fn joined(&self, addr: std::net::SocketAddr) -> bool {
        self.sessions.contains_key(&addr)
    }

    /// Forgets `addr`'s handshake and session: its next join starts a new one.
    pub fn forget(&mut self, addr: std::net::SocketAddr) {
        self.handshakes.remove(&addr);
        self.sessions.remove(&addr);
    }

    /// Seals a session message of the client at `from` into `buf`.
    pub fn seal(
        &mut self,
        from: std::net::SocketAddr,
        msg: &netarena::net::protocol::ClientMsg,
        buf: &mut Vec<u8>,
    ) {
        let (id, session) = self.sessions.get_mut(&from).expect("a joined session");
        netarena::net::codec::seal_client(msg, session, *id, buf, &mut Vec::new())
            .expect("a session message");
    }
}
