//! The one receive pump of the terminal and the headless client: what the server sent
//! goes into the driver, and the session ends, with one error whose `Display` both say,
//! when the server said goodbye, sent a map this client cannot use, or fell silent.

use std::fmt;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use super::link::Link;
use crate::client::driver::Driver;
use crate::client::netcode::session::SessionEnd;

/// Why the server's side ended a session, as every front end says it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Ended {
    /// The session ended it (a goodbye, an unusable map).
    Session(SessionEnd),
    /// Nothing came from `server` for longer than the `--timeout`.
    Silent {
        server: SocketAddr,
        timeout: Duration,
    },
}

impl fmt::Display for Ended {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ended::Session(end) => end.fmt(f),
            Ended::Silent { server, timeout } => write!(
                f,
                "the server at {server} stopped answering ({} s of silence)",
                timeout.as_secs()
            ),
        }
    }
}

impl std::error::Error for Ended {}

/// What a pump found besides messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Pumped {
    /// The session goes on.
    Fine,
    /// The server does not know our session (it restarted): time to rejoin. Looked at
    /// before the silence, which a forgetful server's answers do not break.
    Forgotten,
}

/// Takes in everything the link has for `driver` at `now`; `timeout` is how long the
/// server may stay silent.
pub(crate) fn pump(
    link: &mut Link,
    driver: &mut Driver,
    now: Instant,
    timeout: Duration,
) -> Result<Pumped, Ended> {
    let mut ended = None;
    link.pump(now, |msg, len| {
        if let Some(end) = driver.receive(now, msg, len) {
            ended.get_or_insert(end);
        }
    });
    if let Some(end) = ended {
        return Err(Ended::Session(end));
    }
    if link.server_forgot_us() {
        return Ok(Pumped::Forgotten);
    }
    silence(link.server(), driver.session().last_heard(), now, timeout)?;
    Ok(Pumped::Fine)
}

/// Err when `server`, last heard at `last_heard`, has been silent past `timeout`.
fn silence(
    server: SocketAddr,
    last_heard: Instant,
    now: Instant,
    timeout: Duration,
) -> Result<(), Ended> {
    if now.saturating_duration_since(last_heard) > timeout {
        return Err(Ended::Silent { server, timeout });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The two front ends said these differently (the headless client without the
    /// seconds, neither through `SessionEnd`'s words); now both say this.
    #[test]
    fn every_way_the_server_ends_a_session_reads_one_way() {
        let bye = Ended::Session(SessionEnd::ServerSaidBye("server shutting down".into()));
        assert_eq!(
            bye.to_string(),
            "the server closed the connection: server shutting down"
        );
        let map = Ended::Session(SessionEnd::UnusableMap("row 3: no spawn".into()));
        assert_eq!(
            map.to_string(),
            "the server changed to a map this client cannot use: row 3: no spawn"
        );
        let server: SocketAddr = "127.0.0.1:7777".parse().unwrap();
        let t0 = Instant::now();
        let timeout = Duration::from_secs(5);
        assert_eq!(silence(server, t0, t0 + timeout, timeout), Ok(()));
        let silent = silence(server, t0, t0 + timeout + Duration::from_millis(1), timeout);
        assert_eq!(
            silent.map_err(|e| e.to_string()),
            Err("the server at 127.0.0.1:7777 stopped answering (5 s of silence)".into())
        );
    }
}
