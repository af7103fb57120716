//! A keyframe: the whole state of one client loop (what `Driver::fork` copies: the
//! session, the app, the command clock, the view's memory), as bytes a recording can
//! hold, so a replay can start there instead of at the welcome. The driver's tap and
//! its bookkeeping (the time of the last input, for the tap) are not the loop's state
//! and are left out: a replay has no tap.
//!
//! The bytes are the project's bincode form (`net::codec::encode_state`, decoded under
//! [`MAX_KEYFRAME`](crate::net::codec::MAX_KEYFRAME)); every `Instant` in the state is
//! written as nanoseconds from a base instant (`net::instants`): the recording's start
//! when taken, the replay's start when read. Decoding hostile bytes gives an error, never
//! a panic; the map inside is parsed again like any map.

use std::time::Instant;

use serde::{Deserialize, Serialize};

use super::netcode::cadence::CommandClock;
use super::netcode::session::ClientSession;
use super::play::app::App;
use super::view;
use crate::net::codec::{self, CodecError};
use crate::net::instants;

/// One line: what was wrong with the keyframe's bytes (or why it could not be taken).
#[derive(Debug, thiserror::Error)]
#[error("keyframe: {0}")]
pub(crate) struct KeyframeError(String);

impl From<CodecError> for KeyframeError {
    fn from(e: CodecError) -> KeyframeError {
        KeyframeError(match e {
            CodecError::Malformed(e) => e.to_string(),
            CodecError::TooLarge(n) => format!("{n} bytes is over the limit"),
            other => other.to_string(),
        })
    }
}

/// The state, borrowed, for writing; [`State`] is the same fields in the same order.
#[derive(Serialize)]
pub(super) struct StateRef<'a> {
    pub(super) session: &'a ClientSession,
    pub(super) app: &'a App,
    pub(super) clock: &'a CommandClock,
    pub(super) memory: &'a view::Memory,
}

#[derive(Deserialize)]
pub(super) struct State {
    pub(super) session: ClientSession,
    pub(super) app: App,
    pub(super) clock: CommandClock,
    pub(super) memory: view::Memory,
}

pub(super) fn encode(state: &StateRef<'_>, base: Instant) -> Result<Vec<u8>, KeyframeError> {
    let mut buf = Vec::new();
    instants::with_base(base, || codec::encode_state(state, &mut buf))?;
    Ok(buf)
}

pub(super) fn decode(bytes: &[u8], base: Instant) -> Result<State, KeyframeError> {
    Ok(instants::with_base(base, || codec::decode_state(bytes))?)
}
