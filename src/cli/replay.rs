//! `netarena replay FILE`: re-run a recording, in the terminal or headless to a report.

use std::io::Write;
use std::process::ExitCode;

use std::sync::atomic::{AtomicBool, AtomicUsize};

use anyhow::Context;
use netarena::lab::recording::export_trace;
use netarena::lab::{playback, recording};
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
    if recording::is_lab_recording(&args.file)? {
        return lab(&args, stop, signal);
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

/// A whole-lab recording: the lab again in this terminal, or headless to its report.
fn lab(args: &ReplayArgs, stop: &AtomicBool, signal: &AtomicUsize) -> anyhow::Result<ExitCode> {
    if !args.headless {
        return finish(
            playback::run(&args.file, args.theme.resolve(), stop),
            signal,
        );
    }
    let mut replay = recording::LabReplay::load(&args.file)?;
    if let Some(e) = &replay.file.stopped {
        eprintln!("{}: {e}; replayed up to there", args.file.display());
    }
    let report = netarena::lab::headless::replayed(&mut replay);
    if let Some(why) = replay.diverged() {
        eprintln!("warning: {why}");
    }
    let json = serde_json::to_string_pretty(&report)?;
    // As written, byte for byte (read back as numbers, floats may differ in a last bit).
    if let Some((_, recorded)) = &replay.file.end
        && *recorded != serde_json::to_string(&report)?
    {
        eprintln!("warning: the re-run's report differs from the one the lab wrote");
    }
    match &args.report {
        Some(path) => std::fs::write(path, json + "\n")
            .with_context(|| format!("cannot write report {}", path.display()))?,
        None => super::console::print_report(&json)?,
    }
    Ok(ExitCode::SUCCESS)
}

fn export(args: &ReplayArgs) -> anyhow::Result<ExitCode> {
    match &args.output {
        Some(path) => {
            let file = std::fs::File::create(path)
                .with_context(|| format!("cannot create {}", path.display()))?;
            let mut out = std::io::BufWriter::new(file);
            write_export(args, &mut out)?;
            out.flush()?;
        }
        None => {
            let mut out = std::io::stdout().lock();
            write_export(args, &mut out)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn write_export(args: &ReplayArgs, out: &mut impl Write) -> anyhow::Result<()> {
    if args.export.as_deref() == Some("trace") {
        return export_trace(&args.file, out);
    }
    if recording::is_lab_recording(&args.file)? {
        anyhow::bail!(
            "{} is a whole lab's recording: --export csv reads one client's (the FILE-N beside it), --export trace reads both",
            args.file.display()
        );
    }
    export_csv(&args.file, out).map(|_| ())
}
