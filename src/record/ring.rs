//! The recording every interactive client keeps in memory without `--record`, saved to
//! a file by a key (F8).
//!
//! It keeps the whole session, not only its last minute: snapshots are delta-encoded
//! against ones the client acknowledged earlier, so a clip of the last 60 s alone could
//! not be re-run. Past [`CAP`] it stops keeping (a 16-player match at 1,000 frames a
//! second writes about 700 KiB a minute: the cap is over an hour away) and says so when
//! asked to save.

use std::path::PathBuf;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use super::format::Start;
use super::writer::Writer;
use crate::client::ClientConfig;
use crate::client::tap::{LinkTotals, LoopKind, Tap, TapEvent};
use crate::net::protocol::Welcome;

/// The most a session kept in memory may take.
pub const CAP: u64 = 64 << 20;

pub struct Ring {
    writer: Option<Writer<Vec<u8>>>,
    start: Option<Instant>,
    dir: PathBuf,
    full: bool,
}

impl Ring {
    /// Keeps the session in memory; saves go to `dir`.
    pub fn new(dir: PathBuf) -> Ring {
        Ring {
            writer: Writer::new(Vec::new()).ok(),
            start: None,
            dir,
            full: false,
        }
    }

    /// The bytes kept so far, a valid recording up to its last record.
    pub fn bytes(&self) -> &[u8] {
        self.writer.as_ref().map_or(&[], |w| w.get_ref())
    }

    fn keep(&mut self, f: impl FnOnce(&mut Writer<Vec<u8>>) -> std::io::Result<()>) {
        let Some(w) = &mut self.writer else { return };
        if w.written() > CAP {
            self.full = true;
            return;
        }
        if f(w).is_err() {
            self.writer = None;
        }
    }
}

impl Tap for Ring {
    fn start(&mut self, start: Instant, kind: LoopKind, welcome: &Welcome, config: &ClientConfig) {
        self.start = Some(start);
        let start = Start::of(kind, welcome, config);
        self.keep(|w| w.start(&start));
    }

    fn event(&mut self, at: Instant, event: TapEvent<'_>) {
        let Some(start) = self.start else { return };
        let offset = at.saturating_duration_since(start);
        self.keep(|w| w.event(offset, &event));
    }

    fn finish(&mut self, _totals: LinkTotals) {}

    fn save(&mut self) -> Option<Result<String, String>> {
        if self.full {
            return Some(Err(format!(
                "the session outgrew the {} MiB kept in memory; use --record FILE",
                CAP >> 20
            )));
        }
        let secs = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let path = self.dir.join(format!("netarena-{secs}.narec"));
        Some(
            std::fs::write(&path, self.bytes())
                .map(|()| path.display().to_string())
                .map_err(|e| format!("{}: {e}", path.display())),
        )
    }
}
