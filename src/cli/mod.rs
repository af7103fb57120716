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
mod learn;
mod list;
mod logging;
mod map_file;
mod player_name;
mod relay;
mod replay;
mod server;
mod server_key;
mod signals;

use std::process::ExitCode;

use args::Subcmd;

pub(crate) fn run() -> anyhow::Result<ExitCode> {
    let cli = config_file::parse(std::env::args_os().collect())?;
    let signals = signals::install()?;
    let (stop, signal) = (&*signals.stop, &*signals.signal);
    match cli.command {
        Subcmd::Host(args) => host::run(args, stop, signal),
        Subcmd::Server(args) => server::run(args, stop),
        Subcmd::Join(args) => join::run(args, stop, signal),
        Subcmd::List(args) => list::run(args),
        Subcmd::Bench(args) => bench::run(args),
        Subcmd::Lab(args) => lab::run(args, stop, signal),
        Subcmd::Learn(args) => learn::run(args, stop, signal),
        Subcmd::Replay(args) => replay::run(args, stop, signal),
        Subcmd::Completions { shell } => generate::completions(shell),
        Subcmd::Manpage => generate::manpage(),
        Subcmd::Config(args) => generate::config(&args),
        Subcmd::Relay(args) => relay::run(args, stop),
    }
}
