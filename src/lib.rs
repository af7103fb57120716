//! netarena: a top-down ASCII deathmatch for the LAN whose netcode you can see.
//!
//! The crate is split the way the netcode is: a pure deterministic [`sim`] that both
//! sides run, the [`net`] layer (protocol, codec, transport, link conditioner), the
//! authoritative [`server`], the predicting and interpolating [`client`], a
//! [`ui`] that only draws, and the flight recorder ([`record`]) that stores what enters
//! a client and replays it exactly.
//!
//! The simulation is usable on its own, for tools and tests:
//!
//! ```
//! use netarena::sim::map::Map;
//! use netarena::sim::world::{Buttons, Command, PlayerState, Rules, move_player};
//!
//! let bad = Map::parse("pit.txt", "#####\n#S..#\n#.?.#\n#...#\n#####");
//! assert_eq!(
//!     bad.unwrap_err().to_string(),
//!     "pit.txt:3:3: unknown glyph '?' (expected '#', '.' or 'S')"
//! );
//!
//! let map = Map::builtin("duel").expect("a built-in map");
//! let (x, y) = map.spawns()[0];
//! let me = PlayerState::at_cell(x, y);
//! let rules = Rules::for_tick_rate(60);
//! let moved = move_player(&map, &rules, me, Command::moving(Buttons::DOWN), &[]);
//! // Same inputs, same result: this is what makes prediction exact.
//! assert_eq!(moved, move_player(&map, &rules, me, Command::moving(Buttons::DOWN), &[]));
//! ```

#![warn(unreachable_pub)]

pub mod bench;
pub mod bounds;
pub mod client;
pub mod lab;
pub mod net;
pub mod record;
pub mod server;
pub mod sim;
pub mod ui;

#[cfg(test)]
mod layout_tests;
