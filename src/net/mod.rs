//! Everything between the simulation and the socket.

pub mod codec;
pub mod conditioner;
pub mod protocol;
pub mod transport;
