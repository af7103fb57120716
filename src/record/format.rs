//! A client's recording (docs/RECORDING.md): the records of [`file`](super::file)'s
//! one format, [`Record`], serde-derived. Times are nanoseconds since the previous
//! timed record (the writer and reader turn them into times since the start), but a
//! keyframe's is since the session started, so a file may begin at a keyframe. The
//! server messages inside are stored as the codec writes them (`net::codec`), the
//! welcome's map text beside it.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::file::{CLIENT_MAGIC, Entry, nanos};
use crate::client::GhostMode;
use crate::client::dials::Settings;
use crate::client::netcode::tuning::Tuning;
use crate::client::play::input::{Action, ChatKey};
use crate::client::tap::{LinkTotals, LoopKind};
use crate::client::{ClientConfig, CorrectionStyle, Switches};
use crate::net::codec::{MAX_KEYFRAME, MAX_SERVER_DATAGRAM};
use crate::net::conditioner::Conditions;
use crate::net::map_chunks::MAX_MAP_BYTES;
use crate::net::protocol::{ServerMsg, Welcome};
use crate::sim::world::{Buttons, Command};

pub use super::file::{OLDEST, VERSION};

/// No payload is longer: the largest is a server datagram plus a few varints.
pub(crate) const MAX_PAYLOAD: usize = MAX_SERVER_DATAGRAM + 64;
/// No keyframe payload is longer: its time, then the state under the codec's bound.
pub(crate) const MAX_KEYFRAME_PAYLOAD: usize = MAX_KEYFRAME + 16;
/// No start payload is longer: the map's text besides a welcome (which fits in a
/// datagram) and a few fields.
pub(crate) const MAX_START_PAYLOAD: usize = MAX_MAP_BYTES + MAX_PAYLOAD;
/// No recorded time is later: a session is shorter than a day, and a replay's per-tick
/// tables are sized by the last time, which a hostile file must not choose freely.
pub(crate) const MAX_TIME: Duration = Duration::from_secs(24 * 3600);
/// The most commands one instant can make (the command clock catches up at most 6).
pub(crate) const MAX_TICKS: usize = 16;

/// The kinds (variant indices of [`Record`]) whose payloads have limits of their own.
pub(crate) const START: u8 = 0;
pub(crate) const KEYFRAME: u8 = 9;
/// How many kinds there are.
const KINDS: u8 = 12;

/// What the session started with.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Start {
    pub kind: LoopKind,
    pub seed: u64,
    /// The player's own dials at the start (input rate, interpolation delay,
    /// redundancy, extrapolation bound).
    pub tuning: Tuning,
    pub switches: Switches,
    /// How remote players are corrected onto a snapshot that disagrees.
    pub correction: CorrectionStyle,
    /// The simulated network the player started with, as the HUD shows it.
    pub conditions: Conditions,
    /// As the codec writes it, with the map's text (which came in chunks before it).
    #[serde(with = "welcome")]
    pub welcome: Welcome,
}

impl Start {
    pub(crate) fn of(kind: LoopKind, welcome: &Welcome, config: &ClientConfig) -> Start {
        Start {
            kind,
            seed: config.seed,
            tuning: config.tuning,
            switches: config.switches,
            correction: config.correction,
            conditions: config.outgoing.clone(),
            welcome: welcome.clone(),
        }
    }
}

/// One record. The order of the variants is the kinds' codes: a new one goes last.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Record {
    Start(Box<Start>),
    Received {
        #[serde(with = "nanos")]
        at: Duration,
        wire_bytes: u32,
        #[serde(with = "message")]
        msg: Box<ServerMsg>,
    },
    Ticks {
        #[serde(with = "nanos")]
        at: Duration,
        commands: Vec<Command>,
    },
    Keys {
        #[serde(with = "nanos")]
        at: Duration,
        buttons: Buttons,
    },
    Frame {
        #[serde(with = "nanos")]
        at: Duration,
    },
    Action(Action),
    Chat(ChatKey),
    Size(u16, u16),
    End(LinkTotals),
    /// The whole client loop `at` this long after the start, after every record before
    /// it (`Driver::keyframe`): a replay may start here.
    Keyframe {
        #[serde(with = "nanos")]
        at: Duration,
        state: Vec<u8>,
    },
    /// The client's simulated link dropped input packet `packet` as it was sent `at`.
    Dropped {
        #[serde(with = "nanos")]
        at: Duration,
        packet: u32,
    },
    /// A dial was turned `at`: these settings are in force from then on.
    Settings {
        #[serde(with = "nanos")]
        at: Duration,
        settings: Settings,
    },
}

impl Entry for Record {
    const MAGIC: [u8; 6] = CLIENT_MAGIC;

    fn max_payload(kind: u8) -> Option<usize> {
        match kind {
            START => Some(MAX_START_PAYLOAD),
            KEYFRAME => Some(MAX_KEYFRAME_PAYLOAD),
            k if k < KINDS => Some(MAX_PAYLOAD),
            _ => None,
        }
    }
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
            | Record::Dropped { at, .. }
            | Record::Settings { at, .. } => Some(*at),
            _ => None,
        }
    }

    /// The record's time, for the records that carry one (the writer and reader turn
    /// it between a step and a time since the start).
    pub(crate) fn at_mut(&mut self) -> Option<&mut Duration> {
        match self {
            Record::Received { at, .. }
            | Record::Ticks { at, .. }
            | Record::Keys { at, .. }
            | Record::Frame { at }
            | Record::Keyframe { at, .. }
            | Record::Dropped { at, .. }
            | Record::Settings { at, .. } => Some(at),
            _ => None,
        }
    }
}

/// A server message as the codec writes it (serde `with`): the recording holds what
/// entered the client at the message level, whatever the datagram around it.
mod message {
    use serde::de::Error as _;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use crate::net::codec;
    use crate::net::protocol::ServerMsg;

    pub(super) fn serialize<S: Serializer>(msg: &ServerMsg, s: S) -> Result<S::Ok, S::Error> {
        let mut bytes = Vec::new();
        codec::encode_server(msg, &mut bytes).map_err(serde::ser::Error::custom)?;
        bytes.serialize(s)
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Box<ServerMsg>, D::Error> {
        let bytes = <Vec<u8>>::deserialize(d)?;
        codec::decode_server(&bytes)
            .map(Box::new)
            .map_err(D::Error::custom)
    }
}

/// The welcome as the codec writes it, after the map's text (serde `with`).
mod welcome {
    use serde::de::Error as _;
    use serde::ser::SerializeTuple;
    use serde::{Deserialize, Deserializer, Serializer};

    use crate::net::codec;
    use crate::net::protocol::{ServerMsg, Welcome};

    pub(super) fn serialize<S: Serializer>(w: &Welcome, s: S) -> Result<S::Ok, S::Error> {
        let mut bytes = Vec::new();
        codec::encode_server(&ServerMsg::Welcome(w.clone()), &mut bytes)
            .map_err(serde::ser::Error::custom)?;
        let mut t = s.serialize_tuple(2)?;
        t.serialize_element(&w.map_text)?;
        t.serialize_element(&bytes)?;
        t.end()
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Welcome, D::Error> {
        let (map_text, bytes) = <(String, Vec<u8>)>::deserialize(d)?;
        match codec::decode_server(&bytes).map_err(D::Error::custom)? {
            ServerMsg::Welcome(welcome) => Ok(Welcome {
                map_text,
                ..welcome
            }),
            _ => Err(D::Error::custom("the start record holds no welcome")),
        }
    }
}

/// Lists the variants of an enum once, checked: the `match` inside has one arm per
/// listed variant and no wildcard, so the list cannot miss a variant and compile.
/// A variant with a byte is listed with the values to try (`Name(range)`).
macro_rules! every {
    ($(#[$doc:meta])* $name:ident -> $ty:ident { $($unit:ident),* $(,)? } { $($arg:ident($range:expr)),* $(,)? }) => {
        $(#[$doc])*
        pub fn $name() -> Vec<$ty> {
            fn listed(v: $ty) {
                match v {
                    $($ty::$unit => {})*
                    $($ty::$arg(_) => {})*
                }
            }
            let all: Vec<$ty> = [$($ty::$unit),*]
                .into_iter()
                $(.chain(($range).map($ty::$arg)))*
                .collect();
            all.iter().copied().for_each(listed);
            all
        }
    };
}

every! {
    /// Every action a recording can hold: each variant, those with a byte with every
    /// byte (a hostile file may hold any).
    every_action -> Action {
        Quit, Back, TogglePrediction, ToggleReconciliation, ToggleInterpolation,
        ToggleExtrapolation, ToggleSmoothing, CycleGhosts, ToggleStats, ToggleHelp, LagUp,
        LagDown, CycleJitter, CycleLoss, CycleProfile, ToggleScoreboard, OpenChat,
        ToggleLagCompensation, NextDial, PreviousDial, DialDown, DialUp,
    } {
        Face(0..=u8::MAX), SelectWeapon(0..=u8::MAX),
    }
}

every! {
    /// Every kind of chat key, a few characters among them (the unit variants all).
    every_chat_key -> ChatKey {
        Backspace, Send, Cancel,
    } {
        Char(['a', ' ', 'é', '\u{0}', '\u{10FFFF}', '😀'].into_iter()),
    }
}

every! {
    /// Every loop kind.
    every_loop_kind -> LoopKind { Headless, Interactive } {}
}

every! {
    /// Every ghost mode.
    every_ghost_mode -> GhostMode { Off, Server, Trail } {}
}
