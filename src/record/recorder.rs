//! The tap that writes a recording to a file as the session runs. A write error stops
//! the recording, loudly: the game goes on, showing it (`Tap::failure`), and the program
//! ends with it as an error.

use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::time::Instant;

use super::format::Start;
use super::writer::Writer;
use crate::client::ClientConfig;
use crate::client::tap::{LinkTotals, LoopKind, Tap, TapEvent};
use crate::net::protocol::Welcome;

pub struct Recorder {
    path: PathBuf,
    writer: Option<Writer<BufWriter<File>>>,
    start: Option<Instant>,
    /// Why the recording stopped, if it did.
    failed: Option<String>,
}

impl Recorder {
    /// Creates (or truncates) `path` and writes the header.
    pub fn create(path: &Path) -> std::io::Result<Recorder> {
        let file = File::create(path)?;
        Ok(Recorder {
            path: path.to_owned(),
            writer: Some(Writer::new(BufWriter::with_capacity(64 * 1024, file))?),
            start: None,
            failed: None,
        })
    }

    fn write(&mut self, f: impl FnOnce(&mut Writer<BufWriter<File>>) -> std::io::Result<()>) {
        if let Some(w) = &mut self.writer
            && let Err(e) = f(w)
        {
            let why = format!("the recording to {} stopped: {e}", self.path.display());
            tracing::error!("{why}");
            self.failed = Some(why);
            self.writer = None;
        }
    }
}

impl Tap for Recorder {
    fn start(&mut self, start: Instant, kind: LoopKind, welcome: &Welcome, config: &ClientConfig) {
        self.start = Some(start);
        let start = Start::of(kind, welcome, config);
        self.write(|w| w.start(&start));
    }

    fn event(&mut self, at: Instant, event: TapEvent<'_>) {
        let Some(start) = self.start else { return };
        let offset = at.saturating_duration_since(start);
        self.write(|w| w.event(offset, &event));
    }

    fn finish(&mut self, totals: LinkTotals) {
        self.write(|w| w.end(&totals));
    }

    /// Everything so far is in the file already; flushes it.
    fn save(&mut self, _totals: LinkTotals) -> Option<Result<String, String>> {
        self.write(|w| w.flush());
        Some(match &self.failed {
            Some(why) => Err(why.clone()),
            None => Ok(self.path.display().to_string()),
        })
    }

    fn failure(&self) -> Option<String> {
        self.failed.clone()
    }
}
