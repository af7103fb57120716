//! The messages client and server exchange, and what makes one acceptable.
//!
//! Every datagram is one message. Bytes go through [`super::codec`] only; this module
//! says what the bytes mean and rejects values no honest peer sends.

use serde::{Deserialize, Serialize};

use netarena_sim::combat::{Projectile, Weapon};
use netarena_sim::world::{PlayerId, PlayerState};

mod input;
mod own_body;
mod text;
pub use super::secure::{Freshness, HELLO_BYTES, REPLAY_WINDOW, ReplayWindow};
pub use input::{CommandRun, InputPacket, Invalid, MAX_COMMANDS_PER_INPUT};
pub use own_body::OwnBody;
pub use text::{CHAT_RATE, MAX_CHAT_CHARS, MAX_NAME_CHARS, Rate, sanitize_name, sanitize_text};

/// Bumped on any change to the messages below (6: a bolt's `vx`, `vy` are one
/// sub-step of its flight, not its movement per tick; 8: a snapshot carries the running
/// total of snapshots held back, not the count since the one before, and a rail shot its
/// verdict; 9: [`GameEvent::TickRate`]; 10: the Noise handshake and sealing of
/// `net::secure`; 11: input packets by `net::wire_input`, a snapshot's flags as its
/// kind, [`SnapshotDelta::near`]; 12: snapshots and their events by `net::wire_snapshot`
/// and `net::wire_events`, numbers as LEB128). `Connect` stays variant 0 with `magic` and
/// `version` first, and `Reject` variant 1, so every past and future build can tell a
/// mismatch apart from noise and say it in one line.
pub const PROTOCOL_VERSION: u16 = 12;
/// "NARE": marks a connect request as netarena's, not a stray datagram.
pub const MAGIC: u32 = 0x4E41_5245;

/// Smallest connect request the server answers: a challenge is smaller, so answering
/// spoofed requests can never amplify traffic.
pub const MIN_CONNECT_BYTES: usize = 64;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum ClientMsg {
    Connect {
        magic: u32,
        version: u16,
        name: String,
        /// The server's challenge, echoed; None on the first request.
        cookie: Option<Cookie>,
        /// The first message of the Noise handshake (`-> e`, see `net::secure`): the
        /// same in every repeat of one join.
        hello: [u8; HELLO_BYTES],
        /// Zeros up to [`MIN_CONNECT_BYTES`].
        padding: Vec<u8>,
    },
    /// Input, chat and leave travel only sealed with the session's key (see
    /// `net::secure`); bare, they are refused.
    Input(InputPacket),
    Leave,
    /// "Who is there?", broadcast on the LAN. Padded to [`MIN_DISCOVER_BYTES`] so the
    /// answer is never larger than the question.
    Discover {
        magic: u32,
        version: u16,
        /// Echoed in the answer, to match it and time the round trip.
        nonce: u32,
        padding: Vec<u8>,
    },
    /// A chat line; the server cleans, bounds and rate-limits it.
    Chat(String),
}

/// Smallest discovery request a server answers.
pub const MIN_DISCOVER_BYTES: usize = 96;
/// Longest server or map name in a discovery answer, in characters.
pub const MAX_INFO_NAME_CHARS: usize = 24;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum ServerMsg {
    Welcome(Welcome),
    Reject(RejectReason),
    /// Written and read by `net::wire_snapshot`, never by serde (which refuses it).
    #[serde(
        serialize_with = "super::wire_snapshot::refuse_serde",
        deserialize_with = "super::wire_snapshot::refuse_serde_back"
    )]
    Snapshot(SnapshotDelta),
    /// Who plays, in as many parts as keep each datagram small.
    Roster(RosterPage),
    /// The server is shutting down or has dropped this client.
    Bye(String),
    /// Echo this cookie in a new connect request to prove you receive at your address.
    Challenge(Cookie),
    /// The answer to a discovery request.
    Info(ServerInfo),
    /// A part of the welcome's map: sent with every welcome (see [`super::map_chunks`]).
    MapChunk(MapChunk),
    /// "I know no such session": the answer to a sealed datagram of a session this
    /// server does not have (it restarted, or dropped the client). It echoes the
    /// datagram's session id and the low 16 bits of its counter, and it is smaller than
    /// any sealed datagram.
    NotConnected {
        session: u8,
        seq: [u8; 2],
    },
    /// The answer to a `Leave`: the client is gone and may stop repeating it.
    Left,
    /// The server's half of the handshake (`<- e, ee, s, es` and the session id, see
    /// `net::secure`), to a connect request that echoed a good cookie.
    Accept(Vec<u8>),
}

/// Which map a welcome or a match start means, and how it travels: `chunks` numbered
/// [`MapChunk`]s whose bytes make `len` bytes of text with this `id`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MapInfo {
    /// A checksum of the text: chunks of different maps never mix.
    pub id: u32,
    pub len: u32,
    pub chunks: u16,
}

/// One numbered part of a map's text.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MapChunk {
    pub map: MapInfo,
    pub index: u16,
    pub data: Vec<u8>,
}

/// One part of the roster; the parts of one `serial` together are the whole roster.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RosterPage {
    pub serial: u16,
    pub part: u8,
    pub parts: u8,
    pub entries: Vec<RosterEntry>,
}

/// What a server tells a LAN looking for games.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerInfo {
    /// The protocol the server speaks: a client of another version cannot join.
    pub version: u16,
    pub nonce: u32,
    pub name: String,
    pub map: String,
    pub players: u16,
    pub max_players: u16,
    /// The first eight bytes of the server's static key, for the browser to show
    /// (`net::secure::short_fingerprint`). Nothing checks it: the handshake proves the
    /// whole key.
    pub key: [u8; 8],
}

/// A server's stateless proof-of-address token: see `server::cookie`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cookie {
    pub window: u32,
    pub nonce: u32,
    pub mac: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Welcome {
    pub player_id: PlayerId,
    pub tick_rate: u16,
    /// Ticks between snapshots, exactly (a rate in Hz would be rounded).
    pub snapshot_interval: u16,
    pub server_tick: u32,
    pub server_name: String,
    pub map_name: String,
    /// The map, which follows in [`ServerMsg::MapChunk`]s (resent with every welcome).
    pub map: MapInfo,
    /// The map's grid text, reassembled from the chunks by the receiver (never on the
    /// wire); the client parses it with the same validator as a file.
    #[serde(skip)]
    pub map_text: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum RejectReason {
    Full { max_players: u16 },
    Version { server: u16 },
}

impl std::fmt::Display for RejectReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RejectReason::Full { max_players } => {
                write!(f, "server is full (at most {max_players} players)")
            }
            RejectReason::Version { server } => write!(
                f,
                "protocol version mismatch: server speaks v{server}, this client v{PROTOCOL_VERSION}"
            ),
        }
    }
}

/// A snapshot as it travels: players as changes against a baseline snapshot the
/// client has acknowledged (see [`super::delta`]), or all in full. Its wire form, with
/// flags for the fields that are usually empty, is in `super::wire_snapshot`.
///
/// The tick, `ack_seq` and the first event's seq travel as their low 16 bits: a
/// snapshot just decoded holds those, and [`SnapshotDelta::widen`] makes them whole.
#[derive(Clone, Debug, PartialEq)]
pub struct SnapshotDelta {
    /// What every snapshot says beside its players, as [`Snapshot`] has it.
    pub header: SnapshotHeader,
    /// Ticks from the baseline to this snapshot; 0: no baseline, every player in `added`.
    pub baseline_age: u8,
    /// Players in the baseline that are gone.
    pub removed: Vec<PlayerId>,
    /// Players not in the baseline, in full.
    pub added: Vec<PlayerSnap>,
    /// Four bits per player present in both, in id order: which fields follow in
    /// `values` (x, y against a prediction from the baseline's velocity; vx, vy).
    pub masks: Vec<u8>,
    pub values: Vec<i32>,
    /// Game events the client has not acknowledged, oldest first, by seq. On the wire
    /// seqs, projectile ids and ticks are differences (see `super::wire_events`).
    pub events: Vec<(u32, GameEvent)>,
    /// The tick, `ack_seq` and the first event's seq travel as their low 8 bits, not
    /// 16: the server knows the receiver has a snapshot less than [`NEAR_TICKS`] older
    /// and fewer than [`NEAR_EVENTS`] events unacknowledged, and a client never has
    /// more than [`MAX_COMMANDS_PER_INPUT`] commands unacknowledged, so it widens all
    /// three right (`super::widen`).
    pub near: bool,
}

/// How close the receiver's newest snapshot must be, in ticks, for a snapshot's tick and
/// acknowledgement to travel in a byte each ([`SnapshotDelta::near`]).
pub const NEAR_TICKS: u32 = 64;
/// Fewer events than this unacknowledged, for [`SnapshotDelta::near`].
pub const NEAR_EVENTS: usize = 128;

/// Something that happened in the match, delivered reliably: repeated in every
/// snapshot until the client acknowledges it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum GameEvent {
    /// A player's combat state changed (spawned, hurt, died, scored, switched weapon).
    Status(PlayerStatus),
    /// A blaster projectile was fired; the client flies it from here itself.
    Shot(Projectile),
    /// A projectile ended (wall, player, or old age); `tick` is the first snapshot tick
    /// without it.
    ShotEnd {
        id: u16,
        tick: u32,
        hit: Option<PlayerId>,
    },
    Rail(RailShot),
    Kill {
        killer: PlayerId,
        victim: PlayerId,
        weapon: Weapon,
    },
    Chat {
        from: PlayerId,
        text: String,
    },
    /// A match begins (also sent to each client that joins mid-match).
    MatchStart {
        map_name: String,
        /// The new map when the map changes, whose [`GameEvent::MapChunk`]s came just
        /// before; None when it is the map the client already has (from its welcome).
        map: Option<MapInfo>,
        started_tick: u32,
        frag_limit: u16,
        time_limit_secs: u32,
    },
    MatchEnd {
        winner: Option<PlayerId>,
        standings: Vec<PlayerStatus>,
        next_map: String,
    },
    /// A part of the next map's text, ahead of the [`GameEvent::MatchStart`] naming it.
    MapChunk(MapChunk),
    /// The server ticks `tick_rate` times a second from tick `from_tick` on, a snapshot
    /// every `snapshot_interval` ticks (the lab's tick-rate dial). The receiver's own
    /// commands from `from_seq` on are applied by the new rate's rules (each client is
    /// told its own seq), the ones before by the old rate's.
    TickRate {
        tick_rate: u16,
        snapshot_interval: u16,
        from_tick: u32,
        from_seq: u32,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayerStatus {
    pub id: PlayerId,
    pub health: i16,
    pub alive: bool,
    pub frags: i16,
    pub deaths: u16,
    pub weapon: Weapon,
    /// Spawn protection: invulnerable until it first moves or fires (or a cap passes).
    pub protected: bool,
}

/// A target a rail shot missed: who, where the server tested it, where it was at the
/// shot's tick.
pub type NearMiss = (PlayerId, (i32, i32), (i32, i32));

/// What the server's lag compensation made of a rail shot.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum RailVerdict {
    Hit,
    /// A miss where the shooter saw the targets (or in the present, compensation off).
    #[default]
    Miss,
    /// A miss because the shooter's view was further back than the server rewinds:
    /// the targets were tested where they were at the shot's tick.
    PastBound,
}

/// A rail shot as the server decided it, with what the lag compensation overlay draws
/// and its verdict: how far back the shooter's view was against the bound, what was
/// tested, and for a miss the target nearest the beam.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RailShot {
    /// The shot's id, as `netarena_sim::step::shot_id` names it on both sides.
    pub id: u16,
    pub shooter: PlayerId,
    pub tick: u32,
    pub from: (i32, i32),
    pub to: (i32, i32),
    pub hit: Option<PlayerId>,
    /// How many ticks the targets were rewound (0: not compensated).
    pub rewound_ticks: u16,
    /// The victim where the server tested it (rewound), and where it really was.
    pub tested_at: Option<(i32, i32)>,
    pub present_at: Option<(i32, i32)>,
    /// Ticks from the world the shooter saw to the shot's tick: the rewind it asked
    /// for, granted or not (the shooter's latency and interpolation delay).
    pub wanted_ticks: u16,
    /// The most the server rewinds, in ticks, when it fired (0: compensation off).
    pub bound_ticks: u16,
    /// For a miss, the target nearest the beam: where it was tested, and where it was
    /// at the shot's tick.
    pub nearest: Option<NearMiss>,
    pub verdict: RailVerdict,
}

/// Input packets received from a client, and the highest `packet_seq` among them: the
/// client's measure of loss on its way up.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct InputCounts {
    pub received: u32,
    pub high: u32,
}

/// What a snapshot says beside its players, the same in a [`Snapshot`] and the
/// [`SnapshotDelta`] it travels as.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SnapshotHeader {
    pub tick: u32,
    /// Last command seq the server applied for this client (0: none yet).
    pub ack_seq: u32,
    /// The newest `client_time_ms` received from this client...
    pub echo_time_ms: u32,
    /// ...and how long the server held it before this reply, so RTT excludes that wait.
    pub echo_hold_ms: u16,
    /// Sent now and then, not every time: loss statistics need no more.
    pub inputs: Option<InputCounts>,
    /// Commands of this client waiting in the server's queue: the client slows its
    /// command clock a little while this backlog is large, so it drains.
    pub queued: u8,
    /// The depth the server's jitter buffer for this client fills to (0: the credit
    /// queue, no buffer): the client's command clock aims at `queued` near it.
    pub buffer_depth: u8,
    /// The receiving client's own rule state after `ack_seq`.
    pub me: OwnBody,
    /// Snapshots due for this client that the server held back in all, up to this one:
    /// its link carries no more (`server/delivery.rs`). Not loss. A running total, so
    /// any later snapshot tells the whole count when one saying it is lost.
    pub withheld_total: u32,
}

/// The authoritative world at one server tick, as one client should see it: what a
/// [`SnapshotDelta`] decodes to.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Snapshot {
    pub header: SnapshotHeader,
    pub players: Vec<PlayerSnap>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct PlayerSnap {
    pub id: PlayerId,
    pub state: PlayerState,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RosterEntry {
    pub id: PlayerId,
    pub name: String,
    pub bot: bool,
    pub ping_ms: u16,
}
