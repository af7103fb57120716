//! Flags to configs, in one place: [`ServerConfig`] and [`ClientConfig`] are built here
//! and checked with their own `validate` before anything starts.

use std::net::{SocketAddr, ToSocketAddrs};
use std::time::Duration;

use anyhow::{Context, anyhow, bail};

use netarena::client::shell::discovery::DEFAULT_PORTS;
use netarena::client::{ClientConfig, Switches};
use netarena::net::conditioner::Conditions;
use netarena::server::ServerConfig;

use super::args::{
    DEFAULT_PORT, DiscoveryArgs, MatchArgs, NetArgs, PanicSite, PlayerArgs, ViewArgs,
};
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
        if let Some(v) = self.jitter_mode {
            c.jitter_mode = v;
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
    config.input_buffer = game.input_buffer;
    config.name = name.to_owned();
    config.seed = seed;
    Ok(config)
}

/// A client of `server` as the player flags say (`conditions` are the network flags'
/// [`NetArgs::conditions`]), validated.
pub(crate) fn client_config(
    server: SocketAddr,
    player: &PlayerArgs,
    conditions: Conditions,
) -> anyhow::Result<ClientConfig> {
    let (view, net) = (&player.view, &player.net);
    let mut client = ClientConfig::new(server, &player.name);
    client.switches = view.switches();
    client.fps_cap = view.fps_cap;
    client.theme = view.theme.resolve();
    client.tuning.input_rate = view.input_rate;
    client.tuning.interp_ratio = view.interp_delay.0;
    client.tuning.redundancy = view.redundancy;
    client.correction = view.correction.into();
    client.debug_panic_after = view.panic_after(PanicSite::Client);
    client.outgoing = conditions.clone();
    client.incoming = conditions;
    client.seed = net.seed;
    client.keys = view.keys.clone();
    client.validate()?;
    Ok(client)
}

/// A server address from HOST or HOST:PORT (default port 7777), IPv4 preferred.
pub(crate) fn resolve(address: &str) -> anyhow::Result<SocketAddr> {
    check_address(address)?;
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

/// The host and, if given, the port of `HOST[:PORT]` (IPv6 as `[ADDR]:PORT` or bare).
fn split_port(address: &str) -> (&str, Option<&str>) {
    if let Some(rest) = address.strip_prefix('[') {
        return match rest.split_once("]:") {
            Some((host, port)) => (host, Some(port)),
            None => (rest.trim_end_matches(']'), None),
        };
    }
    match address.split_once(':') {
        Some((host, port)) if !port.contains(':') => (host, Some(port)),
        _ => (address, None),
    }
}

/// Says what is wrong with an address before asking a resolver, whose "Name or service
/// not known" would hide a mistyped port or an empty host.
fn check_address(address: &str) -> anyhow::Result<()> {
    const FORM: &str = "expected HOST or HOST:PORT, e.g. 127.0.0.1:7777";
    if address.trim().is_empty() {
        bail!("empty server address ({FORM})");
    }
    let (host, port) = split_port(address.trim());
    if let Some(port) = port
        && !port.parse::<u16>().is_ok_and(|p| p > 0)
    {
        bail!(
            "bad port '{port}' in server address '{address}': a port is a number from 1 to 65535"
        );
    }
    if host.is_empty() {
        bail!("no host in server address '{address}' ({FORM})");
    }
    Ok(())
}

#[cfg(test)]
mod address_tests {
    use super::resolve;

    fn error(address: &str) -> String {
        resolve(address).unwrap_err().to_string()
    }

    #[test]
    fn bad_addresses_say_what_is_wrong() {
        assert!(
            error("").starts_with("empty server address"),
            "{}",
            error("")
        );
        assert!(error("  ").starts_with("empty server address"));
        let e = error("127.0.0.1:99999");
        assert!(e.starts_with("bad port '99999'"), "{e}");
        let e = error(":abc");
        assert!(e.starts_with("bad port 'abc'"), "{e}");
        let e = error(":7777");
        assert!(e.starts_with("no host"), "{e}");
        let e = error("[::1]:0");
        assert!(e.starts_with("bad port '0'"), "{e}");
        for e in [error(""), error("127.0.0.1:99999"), error(":abc")] {
            assert!(!e.contains("resolve"), "{e}");
        }
    }

    #[test]
    fn good_addresses_still_resolve() {
        assert_eq!(resolve("127.0.0.1:9").unwrap().port(), 9);
        assert_eq!(resolve("[::1]:9").unwrap().port(), 9);
        assert!(resolve("::1").unwrap().is_ipv6());
        assert!(resolve("127.0.0.1").is_ok());
    }
}

#[cfg(test)]
mod dial_tests {
    use clap::Parser;

    use super::super::args::{Cli, Subcmd};
    use super::client_config;
    use netarena::net::conditioner::Conditions;

    /// `join`'s own dials reach the client's config, and the session's tuning from it.
    #[test]
    fn join_takes_the_players_own_dials() {
        let line = "netarena join 127.0.0.1 --interp-delay 2.5 --redundancy 8 --input-rate 20";
        let Subcmd::Join(args) = Cli::try_parse_from(line.split_whitespace())
            .unwrap()
            .command
        else {
            panic!("not join");
        };
        let addr = "127.0.0.1:7777".parse().unwrap();
        let config = client_config(addr, &args.player, Conditions::default()).unwrap();
        let t = config.tuning;
        assert_eq!(
            (t.input_rate, t.interp_ratio, t.redundancy),
            (20, Some(2.5), 8)
        );
        let line = "netarena join 127.0.0.1";
        let Subcmd::Join(args) = Cli::try_parse_from(line.split_whitespace())
            .unwrap()
            .command
        else {
            panic!("not join");
        };
        let config = client_config(addr, &args.player, Conditions::default()).unwrap();
        assert_eq!(config.tuning, Default::default());
    }
}
