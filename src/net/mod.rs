//! Everything between the simulation and the socket.

pub mod conditioner;
