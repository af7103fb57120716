//! `netarena join`: play on a server by address, or choose one on the join screen; or,
//! headless, let a bot play (tests, load tests, benchmarks).

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use anyhow::Context;
use netarena::client::shell::interactive::Outcome;
use netarena::client::shell::{headless, interactive, join_screen};
use netarena::client::tap::Tap;
use netarena::record::recorder::Recorder;
use netarena::record::ring::Ring;

use super::args::JoinArgs;
use super::config::{client_config, resolve};
use super::logging;
use super::signals::finish;

pub(crate) fn run(
    args: JoinArgs,
    stop: &AtomicBool,
    signal: &AtomicUsize,
) -> anyhow::Result<ExitCode> {
    let _log = logging::init(args.player.log.as_ref())?;
    let conditions = args.player.net.conditions()?;
    if !args.headless {
        // Before anything reaches a server: a session that cannot draw would only
        // leave a ghost player behind until the server times it out.
        need_terminal()?;
    }
    let Some(address) = &args.address else {
        return browse(&args, conditions, stop, signal);
    };
    let server = resolve(address)?;
    let client = client_config(server, &args.player, conditions)?;
    let tap = recorder(args.player.record.as_deref(), !args.headless)?;
    if args.headless {
        headless::run_with(
            &client,
            args.bot.into(),
            args.seconds,
            args.player.report.as_deref(),
            stop,
            tap,
        )?;
        return Ok(ExitCode::SUCCESS);
    }
    finish(
        interactive::run_with(client, stop, tap, args.player.report.as_deref()),
        signal,
    )
}

/// A recorder writing to `path`, created before joining so a bad path fails at once;
/// without a path, an interactive session is kept in memory for F8 to save.
pub(crate) fn recorder(
    path: Option<&Path>,
    interactive: bool,
) -> anyhow::Result<Option<Box<dyn Tap>>> {
    Ok(match path {
        Some(path) => Some(Box::new(Recorder::create(path).with_context(|| {
            format!("cannot create the recording {}", path.display())
        })?)),
        None if interactive => Some(Box::new(Ring::new(PathBuf::from(".")))),
        None => None,
    })
}

/// The join screen: a join that fails comes back to it with the error shown.
fn browse(
    args: &JoinArgs,
    conditions: netarena::net::conditioner::Conditions,
    stop: &AtomicBool,
    signal: &AtomicUsize,
) -> anyhow::Result<ExitCode> {
    let scope = args.discovery.scope.into();
    let mut error = None;
    loop {
        let Some(server) =
            join_screen::choose(scope, &args.discovery.ports(), stop, resolve, error)?
        else {
            let how = if stop.load(Ordering::Relaxed) {
                Outcome::Stopped
            } else {
                Outcome::Quit
            };
            return finish(Ok(how), signal);
        };
        let client = client_config(server, &args.player, conditions.clone())?;
        match interactive::run_with(client, stop, None, args.player.report.as_deref()) {
            Err(e) if !stop.load(Ordering::Relaxed) => error = Some(format!("{e:#}")),
            result => return finish(result, signal),
        }
    }
}

/// Playing needs a terminal on both ends: keys in, the arena out.
fn need_terminal() -> anyhow::Result<()> {
    let missing = match (
        std::io::stdin().is_terminal(),
        std::io::stdout().is_terminal(),
    ) {
        (true, true) => return Ok(()),
        (false, true) => "stdin is",
        (true, false) => "stdout is",
        (false, false) => "stdin and stdout are",
    };
    anyhow::bail!(
        "join needs a terminal to play in, but {missing} not one; use --headless to let a bot play without one"
    )
}
