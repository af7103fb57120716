//! Command-line interface: the flags ([`args`]), their mapping to the library's configs
//! ([`config`]), signals, logging, the server console, and one runner per subcommand.

#![warn(unreachable_pub)]

mod args;
mod bench;
mod config;
mod config_file;
mod console;
mod generate;
mod host;
mod join;
mod lab;
mod list;
mod logging;
mod map_file;
mod player_name;
mod relay;
mod replay;
mod server;
mod signals;

use std::process::ExitCode;

use args::Command;

pub(crate) fn run() -> anyhow::Result<ExitCode> {
    let cli = config_file::parse(std::env::args_os().collect())?;
    let signals = signals::install()?;
    let (stop, signal) = (&*signals.stop, &*signals.signal);
    match cli.command {
        Command::Host(args) => host::run(args, stop, signal),
        Command::Server(args) => server::run(args, stop),
        Command::Join(args) => join::run(args, stop, signal),
        Command::List(args) => list::run(args),
        Command::Bench(args) => bench::run(args),
        Command::Lab(args) => lab::run(args, stop, signal),
        Command::Replay(args) => replay::run(args, stop, signal),
        Command::Completions { shell } => generate::completions(shell),
        Command::Manpage => generate::manpage(),
        Command::Config(args) => generate::config(&args),
        Command::Relay(args) => relay::run(args, stop),
    }
}
