//! When the server goes quiet or forgets us: the notice after 2 s of silence, and
//! joining again, as the same player, a server that restarted (its "not connected"
//! answer, see [`Link::server_forgot_us`]).

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use anyhow::Context;

use super::link::Link;
use crate::client::ClientConfig;
use crate::client::driver::Driver;
use crate::client::netcode::session::ClientSession;

/// How long the server may be silent before the player is told (the session itself
/// ends only at `--timeout`).
pub(crate) const SILENCE_NOTICE: Duration = Duration::from_secs(2);

/// Says, in the log and on the screen, when the server has not been heard from for
/// [`SILENCE_NOTICE`], and when it is heard again.
#[derive(Debug, Default)]
pub(crate) struct Silence {
    said: bool,
}

impl Silence {
    /// The notice to show now, if the server is silent.
    pub(crate) fn note(
        &mut self,
        now: Instant,
        last_heard: Instant,
        server: SocketAddr,
    ) -> Option<String> {
        let quiet = now.saturating_duration_since(last_heard);
        if quiet >= SILENCE_NOTICE {
            if !self.said {
                tracing::warn!(
                    "the server at {server} has not answered for {} s",
                    quiet.as_secs()
                );
                self.said = true;
            }
            Some(format!(
                "the server at {server} has not answered for {} s",
                quiet.as_secs()
            ))
        } else {
            if self.said {
                tracing::info!("the server at {server} answers again");
                self.said = false;
            }
            None
        }
    }
}

/// What a loop shows while the server does not know our session.
pub(crate) const REJOINING: &str = "server restarted, rejoining";

/// Joins again with a new session, after [`Link::server_forgot_us`]: the server
/// restarted (or dropped us), and the player goes on under the same name. A recording
/// (the driver's tap) ends here, finished with the link's figures after `seconds`.
pub(crate) fn rejoin(
    link: &mut Link,
    driver: &mut Driver,
    config: &ClientConfig,
    seconds: f64,
    cancel: impl FnMut() -> anyhow::Result<bool>,
) -> anyhow::Result<bool> {
    tracing::warn!("{REJOINING}: {} as {}", link.server(), config.name);
    link.new_session();
    let Some(welcome) = link
        .connect(&config.name, config.timeout, cancel)
        .context("the server restarted and joining it again failed")?
    else {
        return Ok(false);
    };
    let now = Instant::now();
    let mut session = ClientSession::new(welcome, now, config.switches)
        .context("the restarted server sent a map this client cannot use")?;
    session.apply(config);
    session.real_network();
    if let Some(mut tap) = driver.rejoined(session, now) {
        tap.finish(link.totals(seconds));
    }
    tracing::info!(
        "rejoined {} as player #{}",
        link.server(),
        driver.session().player_id()
    );
    Ok(true)
}
