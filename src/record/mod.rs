//! The flight recorder: everything that enters a client loop, written as it happens
//! (`writer`, through a [`recorder::Recorder`] on the loop's tap), read back bounded
//! (`reader`), and re-run through the same loop ([`replay`]). The format is in
//! [`format`](mod@format) and docs/RECORDING.md.

pub(crate) mod control;
pub mod export;
mod fates;
pub mod file;
pub mod format;
mod keys;
pub mod player;
pub(crate) mod reader;
pub mod recorder;
pub mod replay;
pub mod ring;
pub mod screen;
pub(crate) mod speed;
pub mod trace;
pub(crate) mod writer;

pub use format::{Record, Start};
pub use reader::{ReadError, Reader};
pub use writer::Writer;
#[cfg(test)]
mod dials_tests;
#[cfg(test)]
mod drops_tests;
#[cfg(test)]
mod format_tests;
#[cfg(test)]
mod golden_tests;
#[cfg(test)]
mod tests;
