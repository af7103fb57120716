//! `netarena join`: play on a server by address, or choose one on the join screen; or,
//! headless, let a bot play (tests, load tests, benchmarks).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use std::sync::atomic::{AtomicBool, AtomicUsize};

use netarena::client::tap::Tap;
use netarena::client::{headless, interactive, join_screen};
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
    let _log = logging::init(args.log.as_ref())?;
    let conditions = args.net.conditions()?;
    let server = match &args.address {
        Some(address) => resolve(address)?,
        None => {
            let scope = args.discovery.scope.into();
            match join_screen::choose(scope, &args.discovery.ports(), stop, resolve)? {
                Some(addr) => addr,
                None => return Ok(ExitCode::SUCCESS),
            }
        }
    };
    let client = client_config(server, &args.name, &args.view, &args.net, conditions)?;
    let tap = recorder(args.record.as_deref(), !args.headless)?;
    if args.headless {
        headless::run_with(
            &client,
            args.bot.into(),
            args.seconds,
            args.report.as_deref(),
            stop,
            tap,
        )?;
        return Ok(ExitCode::SUCCESS);
    }
    finish(interactive::run_with(client, stop, tap), signal)
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
