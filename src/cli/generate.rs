//! What the program prints about itself: shell completions and the manual page, both
//! generated from the one clap definition in `args.rs` (so they cannot drift from
//! `--help`), and the config file's path and example.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Context;
use clap::CommandFactory;

use super::args::{Cli, ConfigArgs};
use super::config_file;

/// `netarena completions SHELL`: the completion script on standard output.
pub(crate) fn completions(shell: clap_complete::Shell) -> anyhow::Result<ExitCode> {
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "netarena", &mut out);
    write_out(&out)
}

/// `netarena manpage`: netarena(1) in roff on standard output, its subcommands listed,
/// then a page for each subcommand (netarena-host(1), ...) with all its flags.
pub(crate) fn manpage() -> anyhow::Result<ExitCode> {
    let mut out = Vec::new();
    let cli = Cli::command();
    clap_mangen::Man::new(cli.clone())
        .render(&mut out)
        .context("cannot render the manual page")?;
    for sub in cli.get_subcommands().filter(|s| !s.is_hide_set()) {
        clap_mangen::Man::new(sub.clone())
            .title(format!("netarena-{}", sub.get_name()))
            .render(&mut out)
            .context("cannot render the manual page")?;
    }
    write_out(&out)
}

/// `netarena config --path | --example`.
pub(crate) fn config(args: &ConfigArgs) -> anyhow::Result<ExitCode> {
    if args.example {
        return write_out(config_file::EXAMPLE.as_bytes());
    }
    let path = config_file::path().context(
        "no home directory to keep a config file in: set NETARENA_CONFIG to a file's path",
    )?;
    write_out(format!("{}\n", path.display()).as_bytes())
}

fn write_out(bytes: &[u8]) -> anyhow::Result<ExitCode> {
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(bytes)
        .and_then(|()| stdout.flush())
        .context("cannot write to standard output")?;
    Ok(ExitCode::SUCCESS)
}
