//! The recording format, version [`VERSION`] (documented in docs/RECORDING.md): an 8-byte header
//! (`NAREC`, a zero byte, the version as u16 little-endian), then records. A record is a
//! kind byte, its payload length as a LEB128 varint (at most `MAX_PAYLOAD`, a keyframe
//! at most `MAX_KEYFRAME_PAYLOAD`), and the payload. Times are varints: nanoseconds
//! since the previous timed record, but a keyframe's is since the session started, so a
//! file may begin at a keyframe. Only this version is read.
//!
//! Every enum a record holds is coded by a `match` each way with no wildcard arm, and
//! listed whole by an `every_*` function: a new variant cannot compile without a code,
//! and the tests check that each one decodes to itself.

use std::time::Duration;

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

pub const MAGIC: [u8; 6] = *b"NAREC\0";
/// 10: a settings record: a dial turned mid-run (the player's dials, the correction
/// style, the snapshot interval in force from then on), and a keyframe's app state
/// holds the dial the game's keys turn, so version 8's keyframes do not decode.
/// The server messages inside are protocol 9's (the tick-rate event), and a keyframe's
/// session holds the server's ticks as seconds across rate changes and the rules its
/// commands before the newest change were applied by.
/// Its server messages also carry protocol 8's changes (a snapshot carries the running
/// total of snapshots held back, an input packet how long its acknowledged snapshot was
/// held, a rail shot its lag compensation verdict), and a keyframe's session keeps that
/// total in its newest snapshot.
/// 8: the server messages inside are protocol version 7's (a snapshot also carries the
/// server's jitter-buffer depth), and a keyframe's session notes whether its command
/// clock runs fast.
/// 7: the start record also holds the remote players' correction style, and a
/// keyframe's session holds it and the corrections fading.
/// 6: the start record holds the player's dials after the input rate (the
/// interpolation delay ratio, the redundancy, the extrapolation bound), and a
/// keyframe's session holds them too, so version 5's keyframes do not decode.
/// 5: the server messages inside are protocol version 6's (a bolt's velocity is a
/// sub-step of its flight) and a keyframe's combat rules count no bolt speed or life in
/// ticks, so version 4 is no longer read.
/// 4: a keyframe's app state no longer holds the netcode switches (the session's are
/// the one copy), so version 3's keyframes do not decode.
/// 3: the codes of `Action::Back` and `Action::Face` (version 2 wrote them as 255), and
/// the server messages inside are protocol version 5's (a snapshot's count of snapshots
/// held back, an input packet's count of snapshots missing, sealed session messages).
/// 2: a keyframe record, protocol version 4's messages (version 1 held version 3's). A
/// change to the server messages' encoding (`PROTOCOL_VERSION`) needs a new version here
/// too, and [`OLDEST`] raised past the versions it breaks.
pub const VERSION: u16 = 10;
/// The oldest version this netarena reads.
pub const OLDEST: u16 = 10;
pub(crate) const HEADER_LEN: usize = 8;
/// No payload is longer: the largest is a server datagram plus a few varints.
pub(crate) const MAX_PAYLOAD: usize = MAX_SERVER_DATAGRAM + 64;
/// No keyframe payload is longer: its time, then the state under the codec's bound.
pub(crate) const MAX_KEYFRAME_PAYLOAD: usize = MAX_KEYFRAME + 16;
/// No start payload is longer: the map's text besides a welcome (which fits in a
/// datagram) and a few fields. (Version 2 held it to [`MAX_PAYLOAD`], which was 16 KiB
/// and more until server datagrams were held to 1200 bytes; since then a map over
/// about 1 KB, warehouse or catacombs, could not be recorded, and nothing said so.)
pub(crate) const MAX_START_PAYLOAD: usize = MAX_MAP_BYTES + MAX_PAYLOAD;
/// No recorded time is later: a session is shorter than a day, and a replay's per-tick
/// tables are sized by the last time, which a hostile file must not choose freely.
pub(crate) const MAX_TIME: Duration = Duration::from_secs(24 * 3600);
/// The most commands one instant can make (the command clock catches up at most 6).
pub(crate) const MAX_TICKS: usize = 16;

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
pub(crate) const SETTINGS: u8 = 12;

/// The most a payload of `kind` may be.
pub(crate) fn max_payload(kind: u8) -> usize {
    match kind {
        KEYFRAME => MAX_KEYFRAME_PAYLOAD,
        START => MAX_START_PAYLOAD,
        _ => MAX_PAYLOAD,
    }
}

/// What the session started with.
#[derive(Clone, Debug, PartialEq)]
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
    pub welcome: Welcome,
}

impl Start {
    pub(crate) fn of(kind: LoopKind, welcome: &Welcome, config: &ClientConfig) -> Start {
        Start {
            kind,
            seed: config.seed,
            tuning: config.tuning(),
            switches: config.switches,
            correction: config.correction,
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
    /// A dial was turned `at`: these settings are in force from then on.
    Settings {
        at: Duration,
        settings: Settings,
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
            | Record::Dropped { at, .. }
            | Record::Settings { at, .. } => Some(*at),
            _ => None,
        }
    }
}

pub(crate) use crate::net::codec::{nanos, put_varint};

pub(crate) fn switches_bits(s: Switches) -> [u8; 2] {
    let bits = u8::from(s.prediction)
        | u8::from(s.reconciliation) << 1
        | u8::from(s.interpolation) << 2
        | u8::from(s.extrapolation) << 3
        | u8::from(s.smoothing) << 4;
    [bits, ghost_code(s.ghosts)]
}

pub(crate) fn correction_code(c: CorrectionStyle) -> u8 {
    match c {
        CorrectionStyle::Snap => 0,
        CorrectionStyle::Smooth => 1,
        CorrectionStyle::Blend => 2,
    }
}

pub(crate) fn correction_from(code: u8) -> Option<CorrectionStyle> {
    match code {
        0 => Some(CorrectionStyle::Snap),
        1 => Some(CorrectionStyle::Smooth),
        2 => Some(CorrectionStyle::Blend),
        _ => None,
    }
}

fn ghost_code(g: GhostMode) -> u8 {
    match g {
        GhostMode::Off => 0,
        GhostMode::Server => 1,
        GhostMode::Trail => 2,
    }
}

fn ghost_from(code: u8) -> Option<GhostMode> {
    match code {
        0 => Some(GhostMode::Off),
        1 => Some(GhostMode::Server),
        2 => Some(GhostMode::Trail),
        _ => None,
    }
}

pub(crate) fn switches_from(bits: u8, ghosts: u8) -> Option<Switches> {
    let ghosts = ghost_from(ghosts)?;
    (bits < 32).then_some(Switches {
        prediction: bits & 1 != 0,
        reconciliation: bits & 2 != 0,
        interpolation: bits & 4 != 0,
        extrapolation: bits & 8 != 0,
        smoothing: bits & 16 != 0,
        ghosts,
    })
}

/// The code of an action: a byte, and a second for the variants that carry one. The
/// `match` has no wildcard arm, so a new `Action` cannot compile until it has a code
/// here, a decode arm in [`action_from`] and a place in [`every_action`] (whose test
/// checks that each decodes to itself). A code, once given, is never reused.
pub(crate) fn action_code(a: Action) -> [u8; 2] {
    match a {
        Action::Quit => [0, 0],
        Action::TogglePrediction => [1, 0],
        Action::ToggleReconciliation => [2, 0],
        Action::ToggleInterpolation => [3, 0],
        Action::ToggleExtrapolation => [4, 0],
        Action::ToggleSmoothing => [5, 0],
        Action::CycleGhosts => [6, 0],
        Action::ToggleStats => [7, 0],
        Action::ToggleHelp => [8, 0],
        Action::LagUp => [9, 0],
        Action::LagDown => [10, 0],
        Action::CycleJitter => [11, 0],
        Action::CycleLoss => [12, 0],
        Action::CycleProfile => [13, 0],
        Action::ToggleScoreboard => [14, 0],
        Action::OpenChat => [15, 0],
        Action::ToggleLagCompensation => [16, 0],
        // New in version 3: version 2 wrote these two as 255.
        Action::Back => [17, 0],
        // New in version 10.
        Action::NextDial => [18, 0],
        Action::PreviousDial => [19, 0],
        Action::DialDown => [20, 0],
        Action::DialUp => [21, 0],
        Action::SelectWeapon(weapon) => [200, weapon],
        Action::Face(aim) => [201, aim],
    }
}

/// The action of a code, the inverse of [`action_code`]; None for a code no version
/// gave.
pub(crate) fn action_from(code: u8, arg: u8) -> Option<Action> {
    let unit = |a: Action| (arg == 0).then_some(a);
    match code {
        0 => unit(Action::Quit),
        1 => unit(Action::TogglePrediction),
        2 => unit(Action::ToggleReconciliation),
        3 => unit(Action::ToggleInterpolation),
        4 => unit(Action::ToggleExtrapolation),
        5 => unit(Action::ToggleSmoothing),
        6 => unit(Action::CycleGhosts),
        7 => unit(Action::ToggleStats),
        8 => unit(Action::ToggleHelp),
        9 => unit(Action::LagUp),
        10 => unit(Action::LagDown),
        11 => unit(Action::CycleJitter),
        12 => unit(Action::CycleLoss),
        13 => unit(Action::CycleProfile),
        14 => unit(Action::ToggleScoreboard),
        15 => unit(Action::OpenChat),
        16 => unit(Action::ToggleLagCompensation),
        17 => unit(Action::Back),
        18 => unit(Action::NextDial),
        19 => unit(Action::PreviousDial),
        20 => unit(Action::DialDown),
        21 => unit(Action::DialUp),
        200 => Some(Action::SelectWeapon(arg)),
        201 => Some(Action::Face(arg)),
        _ => None,
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

/// The inverse of [`kind_code`].
pub(crate) fn kind_from(code: u8) -> Option<LoopKind> {
    match code {
        0 => Some(LoopKind::Headless),
        1 => Some(LoopKind::Interactive),
        _ => None,
    }
}

/// The player's dials as 15 bytes: the input rate (u16), the interpolation delay ratio
/// (f64, 0 for automatic), the redundancy (u8), the extrapolation bound (u32 ms,
/// `u32::MAX` for automatic).
pub(crate) fn put_tuning(out: &mut Vec<u8>, t: &Tuning) {
    out.extend_from_slice(&t.input_rate.to_le_bytes());
    // Automatic as 0 (a ratio is at least 0.5) and u32::MAX.
    out.extend_from_slice(&t.interp_ratio.unwrap_or(0.0).to_bits().to_le_bytes());
    out.push(t.redundancy);
    let limit = t.extrapolation_limit_ms.unwrap_or(u32::MAX);
    out.extend_from_slice(&limit.to_le_bytes());
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
