//! `netarena replay FILE`: re-run a recording, in the terminal or headless to a report.

use std::io::Write;
use std::process::ExitCode;

use std::sync::atomic::{AtomicBool, AtomicUsize};

use anyhow::Context;
use netarena::record::export::export_csv;
use netarena::record::replay::replay_headless;
use netarena::record::screen;

use super::args::ReplayArgs;
use super::signals::finish;

pub(crate) fn run(
    args: ReplayArgs,
    stop: &AtomicBool,
    signal: &AtomicUsize,
) -> anyhow::Result<ExitCode> {
    if args.export.is_some() {
        return export(&args);
    }
    if !args.headless {
        return finish(screen::run(&args.file, args.theme.resolve(), stop), signal);
    }
    let replay = replay_headless(&args.file)?;
    if let Some(e) = &replay.stopped {
        eprintln!("{}: {e}; replayed up to there", args.file.display());
    }
    if replay.diverged > 0 {
        eprintln!(
            "warning: the re-run made {} commands differently from the recording",
            replay.diverged
        );
    }
    if let Some(path) = &args.report {
        let json = serde_json::to_string_pretty(&replay.report)?;
        std::fs::write(path, json + "\n")
            .with_context(|| format!("cannot write report {}", path.display()))?;
    }
    Ok(ExitCode::SUCCESS)
}

fn export(args: &ReplayArgs) -> anyhow::Result<ExitCode> {
    match &args.output {
        Some(path) => {
            let file = std::fs::File::create(path)
                .with_context(|| format!("cannot create {}", path.display()))?;
            let mut out = std::io::BufWriter::new(file);
            export_csv(&args.file, &mut out)?;
            out.flush()?;
        }
        None => {
            let mut out = std::io::stdout().lock();
            export_csv(&args.file, &mut out)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
