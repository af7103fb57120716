//! The deterministic simulation shared by server and client: no I/O, no clocks, no floats.

#![warn(unreachable_pub)]

pub mod combat;
pub mod map;
pub mod step;
pub mod world;
