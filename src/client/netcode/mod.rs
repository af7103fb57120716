//! The netcode: a `session::ClientSession` per connection, a state machine that owns
//! no socket and reads no clock (every method takes the `Instant` it happens at).
//! Messages come in through `intake`; the local player is predicted and reconciled
//! (`prediction`, with `causes` telling why each correction happened), remote players
//! are interpolated (`interpolation`, timed by `clock`); commands are made on the
//! `cadence` and sent by the `pacer`, held back through an `outage`; the fighting and
//! the match are kept as the server tells them (`combat`, `match_log`, and `tell`
//! for a predicted shot's flash); and the counts show how well it all goes
//! (`net_stats`, `lagometer`, `rates`). The player's own dials (input rate, interpolation
//! delay, redundancy, extrapolation bound) are a `tuning`.

pub mod cadence;
pub(crate) mod causes;
mod clock;
pub mod combat;
pub(super) mod interpolation;
pub(super) mod lagometer;
pub(crate) mod match_log;
pub(crate) mod net_stats;
mod outage;
mod pacer;
mod prediction;
pub(crate) mod rates;
pub mod session;
mod tell;
pub mod tuning;
