//! Everything between the simulation and the socket.

#![warn(unreachable_pub)]

pub mod bounds;
pub mod codec;
pub mod conditioner;
pub mod delta;
pub(crate) mod fragments;
pub mod instants;
pub mod map_chunks;
pub mod protocol;
pub mod roster_pages;
pub mod safe_text;
pub mod secure;
pub mod transport;
pub mod widen;
pub mod wire_bytes;
pub(crate) mod wire_events;
pub mod wire_fields;
pub mod wire_input;
pub mod wire_snapshot;
