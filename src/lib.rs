//! netarena: a top-down ASCII deathmatch for the LAN whose netcode you can see.
//!
//! The crate is split the way the netcode is: a pure deterministic [`sim`] that both
//! sides run, the [`net`] layer (protocol, codec, transport, link conditioner), the
//! authoritative [`server`], the predicting and interpolating [`client`], a
//! `ui` that only draws, and the flight recorder ([`record`]) that stores what enters
//! a client and replays it exactly.
//!
//! # The public API
//!
//! The library exists for the `netarena` binary, its tests, fuzz targets and
//! benchmarks; it makes no stability promise. What it offers to a reader or a tool:
//!
//! - [`sim`]: maps ([`sim::map::Map`]), players and fixed-point movement
//!   ([`sim::world`]), weapons ([`sim::combat`]) and the one rulebook
//!   ([`sim::step::step`]), pure and deterministic (example below).
//! - [`net`]: the messages ([`net::protocol`]), the one bounded codec ([`net::codec`])
//!   and the seeded link conditioner ([`net::conditioner`]).
//! - [`server`]: the authoritative [`server::Server`] state machine, its
//!   [`server::ServerConfig`], and [`server::event_loop`], which runs it on a socket.
//! - [`client`]: the netcode state machine [`client::netcode::session::ClientSession`], the
//!   player's state [`client::play::app::App`], the command cadence
//!   ([`client::netcode::cadence::CommandClock`], [`client::driver::command_ticks`]), bot
//!   brains ([`client::play::brain`]), the [`client::ClientConfig`], the headless shell
//!   ([`client::shell::headless`]) and the recorder's hook ([`client::tap::Tap`]).
//! - [`lab`]: the server and its clients on one virtual clock ([`lab::Lab`],
//!   [`lab::headless`]).
//! - [`record`]: the recording format, its bounded [`record::Reader`], the
//!   [`record::recorder::Recorder`] and in-memory [`record::ring::Ring`], and
//!   [`record::replay`], which re-runs a recording through the same loop.
//!
//! Public only because the binary (a crate of its own), the integration tests or the
//! fuzz targets reach them, and hidden from these docs (`#[doc(hidden)]`): the terminal
//! front ends and their parts (`ui`, `client::shell::interactive`,
//! `client::shell::terminal`, `client::shell::join_screen`, `client::shell::discovery`,
//! `client::play::input`, `lab::terminal`, `record::screen`), the benchmarks and the relay
//! (`bench`), and wire and rule details the tests and fuzz targets check (`net::delta`,
//! `net::map_chunks`, `net::roster_pages`, `net::widen`, `server::game`,
//! `server::rate_limit`, `client::netcode::combat`), and `platform`, where every
//! OS-specific call is. An item nothing outside the crate
//! names is `pub(crate)`. The crate warns on `unreachable_pub`, which sees a `pub` item in
//! a private module but not one in a public module: those were narrowed by searching the
//! binary, the tests and the fuzz targets for their names, so dead code shows. `cargo doc
//! --no-deps` gives no warnings (`.ci/run` runs it with `RUSTDOCFLAGS=-Dwarnings`).
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
pub mod client;
pub mod lab;
pub mod learn;
pub mod record;
pub mod ui;

// The layers below the terminal are crates of their own (`crates/`), so the compiler
// keeps them apart: the simulation knows no wire, the wire no server, and none of them
// a terminal, and every call that differs between operating systems is in one crate
// (`platform`). Re-exported under their old names, so `netarena::sim::map::Map` still
// names the map.
pub use netarena_net as net;
pub use netarena_net::bounds;
pub use netarena_platform as platform;
pub use netarena_server as server;
pub use netarena_sim as sim;

#[cfg(test)]
mod docs_tests;
#[cfg(test)]
mod layout_tests;
