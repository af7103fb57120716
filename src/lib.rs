//! netarena: a top-down ASCII deathmatch for the LAN whose netcode you can see.
//!
//! The crate is split the way the netcode is: a pure deterministic [`sim`] that both
//! sides run, the [`net`] layer (protocol, codec, transport, link conditioner), the
//! authoritative [`server`], the predicting and interpolating [`client`], and a
//! [`ui`] that only draws.

pub mod bench;
pub mod client;
pub mod net;
pub mod server;
pub mod sim;
pub mod ui;
