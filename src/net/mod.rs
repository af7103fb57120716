//! Everything between the simulation and the socket.

pub mod codec;
pub mod conditioner;
pub mod delta;
pub mod protocol;
pub mod transport;
pub(crate) mod wire_events;
mod wire_snapshot;
