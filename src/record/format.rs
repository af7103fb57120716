//! The recording format, version 3 (documented in docs/RECORDING.md): an 8-byte header
//! (`NAREC`, a zero byte, the version as u16 little-endian), then records. A record is a
//! kind byte, its payload length as a LEB128 varint (at most [`MAX_PAYLOAD`], a keyframe
//! at most [`MAX_KEYFRAME_PAYLOAD`]), and the payload. Times are varints: nanoseconds
//! since the previous timed record, but a keyframe's is since the session started, so a
//! file may begin at a keyframe. Only this version is read.

use std::time::Duration;

use crate::client::GhostMode;
use crate::client::input::{Action, ChatKey};
use crate::client::tap::{LinkTotals, LoopKind};
use crate::client::{ClientConfig, Switches};
use crate::net::codec::{MAX_KEYFRAME, MAX_SERVER_DATAGRAM};
use crate::net::conditioner::Conditions;
use crate::net::protocol::{ServerMsg, Welcome};
use crate::sim::world::{Buttons, Command};

pub const MAGIC: [u8; 6] = *b"NAREC\0";
/// 2: a keyframe record, and the server messages inside are protocol version 4's
/// (version 1 held version 3's, so it cannot be read).
pub const VERSION: u16 = 3;
pub const HEADER_LEN: usize = 8;
/// No payload is longer: the largest is a server datagram plus a few varints.
pub const MAX_PAYLOAD: usize = MAX_SERVER_DATAGRAM + 64;
/// No keyframe payload is longer: its time, then the state under the codec's bound.
pub const MAX_KEYFRAME_PAYLOAD: usize = MAX_KEYFRAME + 16;
/// No recorded time is later: a session is shorter than a day, and a replay's per-tick
/// tables are sized by the last time, which a hostile file must not choose freely.
pub const MAX_TIME: Duration = Duration::from_secs(24 * 3600);
/// The most commands one instant can make (the command clock catches up at most 6).
pub const MAX_TICKS: usize = 16;

pub(crate) const START: u8 = 1;
pub(crate) const RECEIVED: u8 = 2;
pub(crate) const TICKS: u8 = 3;
pub(crate) const KEYS: u8 = 4;
pub(crate) const FRAME: u8 = 5;
pub(crate) const ACTION: u8 = 6;
pub(crate) const CHAT: u8 = 7;
pub(crate) const SIZE: u8 = 8;
pub(crate) const END: u8 = 9;
pub(crate) const KEYFRAME: u8 = 10;
pub(crate) const DROPPED: u8 = 11;

/// The most a payload of `kind` may be.
pub(crate) fn max_payload(kind: u8) -> usize {
    if kind == KEYFRAME {
        MAX_KEYFRAME_PAYLOAD
    } else {
        MAX_PAYLOAD
    }
}

/// What the session started with.
#[derive(Clone, Debug, PartialEq)]
pub struct Start {
    pub kind: LoopKind,
    pub seed: u64,
    pub input_rate: u16,
    pub switches: Switches,
    /// The simulated network the player started with, as the HUD shows it.
    pub conditions: Conditions,
    pub welcome: Welcome,
}

impl Start {
    pub(crate) fn of(kind: LoopKind, welcome: &Welcome, config: &ClientConfig) -> Start {
        Start {
            kind,
            seed: config.seed,
            input_rate: config.input_rate,
            switches: config.switches,
            conditions: config.outgoing.clone(),
            welcome: welcome.clone(),
        }
    }
}

/// One record, decoded.
#[derive(Clone, Debug, PartialEq)]
pub enum Record {
    Start(Box<Start>),
    Received {
        at: Duration,
        wire_bytes: u32,
        msg: Box<ServerMsg>,
    },
    Ticks {
        at: Duration,
        commands: Vec<Command>,
    },
    Keys {
        at: Duration,
        buttons: Buttons,
    },
    Frame {
        at: Duration,
    },
    Action(Action),
    Chat(ChatKey),
    Size(u16, u16),
    End(LinkTotals),
    /// The whole client loop `at` this long after the start, after every record before
    /// it (`Driver::keyframe`): a replay may start here.
    Keyframe {
        at: Duration,
        state: Vec<u8>,
    },
    /// The client's simulated link dropped input packet `packet` as it was sent `at`.
    Dropped {
        at: Duration,
        packet: u32,
    },
}

impl Record {
    /// When it happened, for the records that carry a time.
    pub fn at(&self) -> Option<Duration> {
        match self {
            Record::Received { at, .. }
            | Record::Ticks { at, .. }
            | Record::Keys { at, .. }
            | Record::Frame { at }
            | Record::Keyframe { at, .. }
            | Record::Dropped { at, .. } => Some(*at),
            _ => None,
        }
    }
}

pub(crate) fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

pub(crate) fn nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

pub(crate) fn switches_bits(s: Switches) -> [u8; 2] {
    let bits = u8::from(s.prediction)
        | u8::from(s.reconciliation) << 1
        | u8::from(s.interpolation) << 2
        | u8::from(s.extrapolation) << 3
        | u8::from(s.smoothing) << 4;
    let ghosts = match s.ghosts {
        GhostMode::Off => 0,
        GhostMode::Server => 1,
        GhostMode::Trail => 2,
    };
    [bits, ghosts]
}

pub(crate) fn switches_from(bits: u8, ghosts: u8) -> Option<Switches> {
    let ghosts = match ghosts {
        0 => GhostMode::Off,
        1 => GhostMode::Server,
        2 => GhostMode::Trail,
        _ => return None,
    };
    (bits < 32).then_some(Switches {
        prediction: bits & 1 != 0,
        reconciliation: bits & 2 != 0,
        interpolation: bits & 4 != 0,
        extrapolation: bits & 8 != 0,
        smoothing: bits & 16 != 0,
        ghosts,
    })
}

/// The actions in the order of their codes; a new action goes at the end.
const ACTIONS: [Action; 17] = [
    Action::Quit,
    Action::TogglePrediction,
    Action::ToggleReconciliation,
    Action::ToggleInterpolation,
    Action::ToggleExtrapolation,
    Action::ToggleSmoothing,
    Action::CycleGhosts,
    Action::ToggleStats,
    Action::ToggleHelp,
    Action::LagUp,
    Action::LagDown,
    Action::CycleJitter,
    Action::CycleLoss,
    Action::CycleProfile,
    Action::ToggleScoreboard,
    Action::OpenChat,
    Action::ToggleLagCompensation,
];
/// The code of `SelectWeapon`, whose weapon is the second byte.
const SELECT_WEAPON: u8 = 200;

pub(crate) fn action_code(a: Action) -> [u8; 2] {
    if let Action::SelectWeapon(w) = a {
        return [SELECT_WEAPON, w];
    }
    let code = ACTIONS.iter().position(|x| *x == a).unwrap_or(usize::MAX);
    [u8::try_from(code).unwrap_or(u8::MAX), 0]
}

pub(crate) fn action_from(code: u8, arg: u8) -> Option<Action> {
    if code == SELECT_WEAPON {
        return Some(Action::SelectWeapon(arg));
    }
    ACTIONS.get(usize::from(code)).copied()
}

pub(crate) fn chat_code(k: ChatKey) -> (u8, u32) {
    match k {
        ChatKey::Char(c) => (0, u32::from(c)),
        ChatKey::Backspace => (1, 0),
        ChatKey::Send => (2, 0),
        ChatKey::Cancel => (3, 0),
    }
}

pub(crate) fn chat_from(code: u8, c: u32) -> Option<ChatKey> {
    match code {
        0 => char::from_u32(c).map(ChatKey::Char),
        1 => Some(ChatKey::Backspace),
        2 => Some(ChatKey::Send),
        3 => Some(ChatKey::Cancel),
        _ => None,
    }
}

pub(crate) fn kind_code(k: LoopKind) -> u8 {
    match k {
        LoopKind::Headless => 0,
        LoopKind::Interactive => 1,
    }
}

/// The conditions as 40 bytes: latency, jitter (u32 ms), loss, burst length,
/// duplication, reordering (f64), bandwidth (u32 kbit/s).
pub(crate) fn put_conditions(out: &mut Vec<u8>, c: &Conditions) {
    out.extend_from_slice(&c.latency_ms.to_le_bytes());
    out.extend_from_slice(&c.jitter_ms.to_le_bytes());
    for f in [c.loss_pct, c.burst_len, c.dup_pct, c.reorder_pct] {
        out.extend_from_slice(&f.to_bits().to_le_bytes());
    }
    out.extend_from_slice(&c.bandwidth_kbps.to_le_bytes());
}
