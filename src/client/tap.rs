//! A listener on everything that enters a client loop, so a recorder can store it and a
//! replay can feed the same inputs to the same loop. The client knows only this trait;
//! the recorder (`crate::record`) implements it.

use std::time::Instant;

use super::ClientConfig;
use super::dials::Settings;
use super::play::input::{Action, ChatKey};
use crate::net::protocol::{ServerMsg, Welcome};
use crate::sim::world::{Buttons, Command};

/// Which shell drives the loop: a replay re-runs it the same way.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum LoopKind {
    /// One frame per command tick, commands from a bot.
    Headless,
    /// Frames as drawn, commands from held keys.
    Interactive,
}

/// One input to the loop, in the order it happened.
#[derive(Clone, Copy, Debug)]
pub enum TapEvent<'a> {
    /// A message from the server, `wire_bytes` long on the wire, as the session got it.
    Received {
        msg: &'a ServerMsg,
        wire_bytes: usize,
    },
    /// The commands a bot made at one instant (headless).
    Ticks(&'a [Command]),
    /// The keys held at one turn of the interactive loop.
    Keys(Buttons),
    /// A frame drawn.
    Frame,
    Action(Action),
    Chat(ChatKey),
    /// The terminal's size.
    Size(u16, u16),
    /// The client's own simulated link dropped input packet `packet` as it was sent
    /// (not an input to the loop: what the link did, which a re-run cannot know).
    Dropped {
        packet: u32,
    },
    /// A dial turned (the player's, or the lab's): the settings in force from now on
    /// (a replay puts them in force at the same time).
    Settings(Settings),
}

/// The link's own counts at the end, which a re-run cannot recompute.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct LinkTotals {
    pub seconds: f64,
    pub bytes_in: u64,
    pub bytes_out: u64,
    pub packets_in: u64,
    pub packets_out: u64,
    pub malformed_in: u64,
}

pub trait Tap {
    /// The session starts at `start` with `welcome`, run by `kind` under `config`.
    fn start(&mut self, start: Instant, kind: LoopKind, welcome: &Welcome, config: &ClientConfig);
    fn event(&mut self, at: Instant, event: TapEvent<'_>);
    /// The session is over; writes what is left.
    fn finish(&mut self, totals: LinkTotals);
    /// Whether the tap wants a keyframe (the loop's whole state) at `at`: if so, the
    /// instant its times count from. Asked after each frame or command tick, so it
    /// must be cheap; the default wants none.
    fn keyframe_due(&mut self, _at: Instant) -> Option<Instant> {
        None
    }
    /// The keyframe asked for, taken at `at` after every input before it (or why it
    /// could not be taken).
    fn keyframe(&mut self, _at: Instant, _state: Result<&[u8], String>) {}
    /// Saves what is kept in memory (the last minute), if anything, ending it with
    /// `totals`, the link's counts so far; says where.
    fn save(&mut self, _totals: LinkTotals) -> Option<Result<String, String>> {
        None
    }
    /// Why the tap stopped keeping the session, if it did (a write failed): the shell
    /// shows it at once and ends the session with it. The default never fails.
    fn failure(&self) -> Option<String> {
        None
    }
}
