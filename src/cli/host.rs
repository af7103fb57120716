//! `netarena host`: a server on its own thread, and this terminal's player joining it
//! over loopback.

use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use anyhow::{Context, anyhow};

use netarena::client::shell::interactive;
use netarena::net::conditioner::Conditions;
use netarena::server::event_loop::{self, NetOptions};

use super::args::{HostArgs, PanicSite};
use super::config::{client_config, server_config};
use super::console::LogEvents;
use super::logging;
use super::signals::finish;

pub(crate) fn run(
    args: HostArgs,
    stop: &AtomicBool,
    signal: &AtomicUsize,
) -> anyhow::Result<ExitCode> {
    let _log = logging::init(args.player.log.as_ref())?;
    let server_name = args
        .server_name
        .clone()
        .unwrap_or_else(|| format!("{}'s game", args.player.name));
    let mut config = server_config(&args.game, &server_name, args.player.net.seed)?;
    config.discoverable = !args.no_discovery;
    config.debug_panic_after = args.player.view.panic_after(PanicSite::Server);
    config.validate()?;
    let conditions = args.player.net.conditions()?;
    // The host's own client joins over loopback, through the simulated network if any:
    // it plays under exactly the conditions a remote player would.
    let loopback = SocketAddr::from(([127, 0, 0, 1], args.game.port));
    let mut client = client_config(loopback, &args.player, conditions)?;
    if args.game.bots == 0 {
        client.alone = alone_hint(args.game.port, !args.no_discovery);
    }
    // The host's client knows its own server's key.
    client.pin = netarena::client::known_servers::ServerPin::Key(config.key.public());

    let (tx, rx) = mpsc::channel();
    let server_stop = Arc::new(AtomicBool::new(false));
    let server_thread = {
        let server_stop = Arc::clone(&server_stop);
        let net = NetOptions {
            bind: SocketAddr::from((std::net::Ipv6Addr::UNSPECIFIED, args.game.port)),
            outgoing: Conditions::default(),
            incoming: Conditions::default(),
        };
        std::thread::Builder::new()
            .name("server".into())
            .spawn(move || {
                let mut observer = LogEvents(tx.clone());
                if let Err(e) = event_loop::run(config, net, &server_stop, &mut observer) {
                    let _ = tx.send(Err(e));
                }
            })
            .context("cannot start the server thread")?
    };
    let addr = rx
        .recv_timeout(Duration::from_secs(5))
        .map_err(|_| anyhow!("the server did not start within 5 s"))??;
    client.server = SocketAddr::from(([127, 0, 0, 1], addr.port()));

    let tap = super::join::recorder(args.player.record.as_deref(), true)?;
    let result = interactive::run_with(client, stop, tap, args.player.report.as_deref());
    server_stop.store(true, Ordering::Relaxed);
    let _ = server_thread.join();
    finish(result, signal)
}

/// What an empty arena says: how to add bots, and the command a friend runs to join
/// (this machine's LAN address, found by asking the routing table which address a
/// datagram to the outside would leave from: nothing is sent).
fn alone_hint(port: u16, discoverable: bool) -> Vec<String> {
    let lan = std::net::UdpSocket::bind(("0.0.0.0", 0))
        .and_then(|s| s.connect(("192.0.2.1", 9)).and(s.local_addr()))
        .ok()
        .map(|a| a.ip())
        .filter(|ip| !ip.is_unspecified() && !ip.is_loopback());
    let port = if port == super::args::DEFAULT_PORT {
        String::new()
    } else {
        format!(":{port}")
    };
    let join = match (lan, discoverable) {
        (Some(ip), _) => format!("friends join with: netarena join {ip}{port}"),
        (None, true) => "friends join with: netarena join (this game is listed)".to_owned(),
        (None, false) => format!("friends join with: netarena join THIS-MACHINE{port}"),
    };
    vec![
        "nobody else is here: `netarena host --bots 3` adds bots".to_owned(),
        join,
    ]
}
