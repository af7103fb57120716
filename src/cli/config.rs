//! Flags to configs, in one place: [`ServerConfig`] and [`ClientConfig`] are built here
//! and checked with their own `validate` before anything starts.

use std::net::{SocketAddr, ToSocketAddrs};
use std::time::Duration;

use anyhow::{Context, anyhow, bail};

use netarena::client::discovery::DEFAULT_PORTS;
use netarena::client::{ClientConfig, Switches};
use netarena::net::conditioner::Conditions;
use netarena::server::ServerConfig;

use super::args::{DEFAULT_PORT, DiscoveryArgs, MatchArgs, NetArgs, PanicSite, ViewArgs};
use super::map_file;

impl NetArgs {
    /// The profile (or clean), with each explicit flag overriding its field.
    pub(crate) fn conditions(&self) -> anyhow::Result<Conditions> {
        let mut c = match &self.profile {
            Some(name) => Conditions::profile(name).ok_or_else(|| {
                anyhow!(
                    "unknown network profile '{name}' (profiles: {})",
                    Conditions::PROFILES.join(", ")
                )
            })?,
            None => Conditions::default(),
        };
        if let Some(v) = self.lag {
            c.latency_ms = v;
        }
        if let Some(v) = self.jitter {
            c.jitter_ms = v;
        }
        if let Some(v) = self.loss {
            c.loss_pct = percent("loss", v)?;
        }
        if let Some(v) = self.burst {
            if !(v.is_finite() && v >= 0.0) {
                bail!("--burst must be a number of packets, got {v}");
            }
            c.burst_len = v;
        }
        if let Some(v) = self.dup {
            c.dup_pct = percent("dup", v)?;
        }
        if let Some(v) = self.reorder {
            c.reorder_pct = percent("reorder", v)?;
        }
        if let Some(v) = self.bandwidth {
            c.bandwidth_kbps = v;
        }
        Ok(c)
    }
}

fn percent(flag: &str, v: f64) -> anyhow::Result<f64> {
    if (0.0..=100.0).contains(&v) {
        Ok(v)
    } else {
        bail!("--{flag} must be a percentage from 0 to 100, got {v}")
    }
}

impl ViewArgs {
    pub(crate) fn panic_after(&self, site: PanicSite) -> Option<Duration> {
        (self.debug_panic == Some(site)).then_some(Duration::from_secs(1))
    }

    /// The switches as given; the client makes them consistent (no reconciliation
    /// without prediction) in one place, `Switches::normalized`.
    fn switches(&self) -> Switches {
        Switches {
            prediction: !self.no_prediction,
            reconciliation: !self.no_reconciliation,
            interpolation: !self.no_interpolation,
            extrapolation: self.extrapolate,
            smoothing: !self.no_smoothing,
            ghosts: self.ghosts.into(),
        }
    }
}

impl DiscoveryArgs {
    pub(crate) fn ports(&self) -> Vec<u16> {
        if self.ports.is_empty() {
            DEFAULT_PORTS.collect()
        } else {
            self.ports.clone()
        }
    }
}

/// The match flags as a server config, named `name`; the caller sets the rest and
/// validates.
pub(crate) fn server_config(
    game: &MatchArgs,
    name: &str,
    seed: u64,
) -> anyhow::Result<ServerConfig> {
    let map = map_file::load(&game.map)?;
    if game.snapshot_rate > game.tick_rate {
        bail!(
            "--snapshot-rate ({}) cannot exceed --tick-rate ({})",
            game.snapshot_rate,
            game.tick_rate
        );
    }
    if game.bots > game.max_players {
        bail!(
            "--bots {} is more than --max-players {}",
            game.bots,
            game.max_players
        );
    }
    let mut config = ServerConfig::new(map);
    if !game.maps.is_empty() {
        config.game.maps = game
            .maps
            .iter()
            .map(|m| map_file::load(m.trim()))
            .collect::<Result<_, _>>()?;
    }
    config.game.frag_limit = game.frag_limit;
    config.game.time_limit_secs = game.time_limit;
    config.game.lag_compensation = !game.no_lag_comp;
    config.game.max_rewind_ms = game.max_rewind_ms;
    config.bot_skill = game.bot_skill;
    config.bots = game.bots;
    config.tick_rate = game.tick_rate;
    config.snapshot_rate = game.snapshot_rate;
    config.max_players = game.max_players;
    config.name = name.to_owned();
    config.seed = seed;
    Ok(config)
}

/// A client of `server` as `name`, with the view and network flags (`conditions` are
/// the network flags' [`NetArgs::conditions`]), validated.
pub(crate) fn client_config(
    server: SocketAddr,
    name: &str,
    view: &ViewArgs,
    net: &NetArgs,
    conditions: Conditions,
) -> anyhow::Result<ClientConfig> {
    let mut client = ClientConfig::new(server, name);
    client.switches = view.switches();
    client.fps_cap = view.fps_cap;
    client.input_rate = view.input_rate;
    client.debug_panic_after = view.panic_after(PanicSite::Client);
    client.outgoing = conditions.clone();
    client.incoming = conditions;
    client.seed = net.seed;
    client.validate()?;
    Ok(client)
}

/// A server address from HOST or HOST:PORT (default port 7777), IPv4 preferred.
pub(crate) fn resolve(address: &str) -> anyhow::Result<SocketAddr> {
    let with_port = if address.parse::<SocketAddr>().is_ok()
        || address
            .rsplit_once(':')
            .is_some_and(|(h, p)| !h.contains(':') && p.parse::<u16>().is_ok())
    {
        address.to_owned()
    } else if address.contains(':') && !address.starts_with('[') {
        format!("[{address}]:{DEFAULT_PORT}")
    } else {
        format!("{address}:{DEFAULT_PORT}")
    };
    let addrs: Vec<SocketAddr> = with_port
        .to_socket_addrs()
        .with_context(|| format!("cannot resolve server address '{address}'"))?
        .collect();
    addrs
        .iter()
        .find(|a| a.is_ipv4())
        .or(addrs.first())
        .copied()
        .ok_or_else(|| anyhow!("server address '{address}' resolves to nothing"))
}
