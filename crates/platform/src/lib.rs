//! Every call that differs between operating systems, behind one seam.
//!
//! The rest of netarena (every other crate) is portable code: it names no `std::os::unix`, `std::os::fd`,
//! `nix`, `rustix`, `libc` or `mio::unix` (`src/layout_tests.rs` checks it). What is
//! here, and what stands in for it where the call does not exist:
//!
//! - `udp`: the game's UDP socket. On Linux it asks the kernel for each datagram's
//!   destination (`IP_PKTINFO`, `IPV6_RECVPKTINFO`, through nix) and answers from that
//!   address; everywhere else, and on Linux with the cargo feature `portable-net`, a
//!   socket from std and socket2 (`IPV6_V6ONLY` off, set before binding) lets the
//!   system pick the source address.
//! - `terminal`: waking a mio poll on keys, noticing a hung-up terminal and Ctrl-Z's
//!   stop-and-continue, on Unix (mio's `SourceFd`, rustix's `poll` and `tcflush`, and
//!   `SIGTSTP`); elsewhere the keys are polled, a hang-up is not seen, and Ctrl-Z is an
//!   ordinary key.
//! - `signals`: the signals that ask the program to stop (`SIGHUP` only on Unix).
//! - `fs`: a file only its owner may read (mode 0600 on Unix; elsewhere the
//!   directory's permissions).
//! - `pty` (Unix only): the latency bench's own pseudo-terminal (rustix).

#![warn(unreachable_pub)]

pub mod fs;
#[cfg(unix)]
pub mod pty;
pub mod signals;
pub mod terminal;
pub mod udp;
