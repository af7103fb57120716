//! `netarena relay`: the project's conditioner between any clients and any server, so
//! a classroom's real machines can play behind `--profile bad`. Each client gets its
//! own socket towards the server and a conditioner each way; Ctrl-C or SIGTERM stops it
//! and prints what it carried, by kind.

use std::net::{SocketAddr, ToSocketAddrs};
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;

use anyhow::Context;
use netarena::bench::{self, relay::LanRelay};

use super::args::RelayArgs;
use super::console::say;

fn resolve(what: &str, text: &str) -> anyhow::Result<SocketAddr> {
    text.to_socket_addrs()
        .with_context(|| format!("{what} {text:?} is not HOST:PORT"))?
        .next()
        .with_context(|| format!("{what} {text:?} has no address"))
}

pub(crate) fn run(args: RelayArgs, stop: &AtomicBool) -> anyhow::Result<ExitCode> {
    let listen = resolve("--listen", &args.listen)?;
    let server = resolve("--server", &args.server)?;
    let conditions = args.net.conditions()?;
    let key_log = std::env::var_os("NETARENA_KEYLOG").filter(|p| !p.is_empty());
    let relay = LanRelay::bind(
        listen,
        server,
        conditions.clone(),
        args.net.seed,
        key_log.map(Into::into),
    )
    .with_context(|| format!("cannot listen on {listen}"))?;
    say(format_args!(
        "relaying {} -> {server} ({conditions}, each way)",
        relay.local_addr()?
    ));
    let totals = relay.run(stop)?;
    bench::print("relay", &totals, args.json)?;
    Ok(ExitCode::SUCCESS)
}
