//! `--log FILE`: logs go to a file, never to the screen, which belongs to the game.

use std::path::PathBuf;

use anyhow::Context;

/// Keeps the log writer's worker alive for as long as the program runs.
pub(crate) type LogGuard = Option<tracing_appender::non_blocking::WorkerGuard>;

pub(crate) fn init(path: Option<&PathBuf>) -> anyhow::Result<LogGuard> {
    let Some(path) = path else { return Ok(None) };
    let file = std::fs::File::create(path)
        .with_context(|| format!("cannot create log file {}", path.display()))?;
    let (writer, guard) = tracing_appender::non_blocking(file);
    tracing_subscriber::fmt()
        .with_writer(writer)
        .with_ansi(false)
        .with_max_level(tracing::Level::DEBUG)
        .init();
    Ok(Some(guard))
}
