//! `netarena server`: a dedicated server printing one line per event.

use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use netarena::server::event_loop::{self, NetOptions};

use super::args::ServerArgs;
use super::config::server_config;
use super::console::{PrintEvents, say};
use super::logging;

pub(crate) fn run(args: ServerArgs, stop: &AtomicBool) -> anyhow::Result<ExitCode> {
    let _log = logging::init(args.log.as_ref())?;
    let mut config = server_config(&args.game, &args.server_name, args.net.seed)?;
    config.discoverable = !args.no_discovery;
    if let Some(v) = args.debug_protocol_version {
        config.protocol_version = v;
    }
    config.client_timeout = Duration::from_secs(args.client_timeout);
    config.validate()?;
    let conditions = args.net.conditions()?;
    let net = NetOptions {
        bind: SocketAddr::from((std::net::Ipv6Addr::UNSPECIFIED, args.game.port)),
        outgoing: conditions.clone(),
        incoming: conditions,
    };
    event_loop::run(config, net, stop, &mut PrintEvents)?;
    say(format_args!("server stopped"));
    Ok(ExitCode::SUCCESS)
}
