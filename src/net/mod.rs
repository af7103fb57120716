//! Everything between the simulation and the socket.

pub mod codec;
pub mod conditioner;
pub mod delta;
pub mod fragments;
pub mod instants;
pub mod map_chunks;
pub mod protocol;
pub mod roster_pages;
pub mod transport;
pub mod widen;
pub(crate) mod wire_events;
pub(crate) mod wire_snapshot;
