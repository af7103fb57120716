//! `netarena list`: the servers on the local network, as a table or JSON.

use std::process::ExitCode;
use std::time::Duration;

use netarena::client::shell::discovery;

use super::args::ListArgs;
use super::console::say;

pub(crate) fn run(args: ListArgs) -> anyhow::Result<ExitCode> {
    let found = discovery::search(
        args.discovery.scope.into(),
        &args.discovery.ports(),
        Duration::from_millis(args.wait_ms),
    )?;
    if args.json {
        say(format_args!("{}", serde_json::to_string(&found)?));
        return Ok(ExitCode::SUCCESS);
    }
    if found.is_empty() {
        let asked = discovery::describe(args.discovery.scope.into(), &args.discovery.ports());
        say(format_args!(
            "no servers found on {asked}; for a server on another port: --discovery-port PORT"
        ));
    }
    for s in &found {
        let version = if s.compatible {
            "ok".to_owned()
        } else {
            format!("v{} incompatible", s.version)
        };
        say(format_args!(
            "{:<22} {:<24} {:<10} {:>3}/{:<3} {:>5.1} ms  {version}",
            s.address.to_string(),
            s.name,
            s.map,
            s.players,
            s.max_players,
            s.ping_ms
        ));
    }
    Ok(ExitCode::SUCCESS)
}
