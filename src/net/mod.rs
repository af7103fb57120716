//! Everything between the simulation and the socket.

pub mod codec;
pub mod conditioner;
pub mod delta;
pub(crate) mod fragments;
pub(crate) mod instants;
pub mod map_chunks;
pub mod protocol;
pub mod roster_pages;
pub mod secure;
pub(crate) mod transport;
pub mod widen;
pub(crate) mod wire_events;
pub(crate) mod wire_snapshot;
