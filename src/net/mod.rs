//! Everything between the simulation and the socket.

pub mod codec;
pub mod conditioner;
pub mod delta;
pub(crate) mod fragments;
pub(crate) mod instants;
pub mod map_chunks;
pub mod protocol;
pub mod roster_pages;
pub mod safe_text;
pub(crate) mod transport;
pub mod widen;
pub mod wire_bytes;
pub(crate) mod wire_events;
pub(crate) mod wire_snapshot;
