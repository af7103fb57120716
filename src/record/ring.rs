//! The recording every interactive client keeps in memory without `--record`: the last
//! minute or so, saved to a file by a key (F8).
//!
//! Snapshots are delta-encoded against ones the client acknowledged earlier, so a clip
//! of the last minute's records alone could not be re-run: it starts at a keyframe, the
//! whole client loop as it was (`Driver::keyframe`). Every `KEYFRAME_EVERY` the loop
//! hands the ring one, which starts a new *segment* (the keyframe, the terminal's size,
//! then the records after it); the oldest segment goes once the next one began at least
//! `KEEP` ago (checked at every record). So the ring holds at least the last `KEEP`
//! and less than `KEEP + KEYFRAME_EVERY` (85 s), whatever the session's length, and a save is the
//! header, the start record, then the kept segments in order: a recording whose first
//! timed record is a keyframe, which a replay starts from. Until the first segment goes,
//! a save is the whole session from the welcome.
//!
//! `CAP` is a last guard on memory: should keyframes fail (they are a few tens of KiB
//! and never do), it stops keeping past 64 MiB and says so when asked to save.

use std::collections::VecDeque;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use super::format::Start;
use super::writer::Writer;
use crate::client::ClientConfig;
use crate::client::tap::{LinkTotals, LoopKind, Tap, TapEvent};
use crate::net::protocol::Welcome;

/// At least this much of the session is kept.
pub(crate) const KEEP: Duration = Duration::from_secs(60);
/// A keyframe is taken this often.
pub(crate) const KEYFRAME_EVERY: Duration = Duration::from_secs(25);
/// The most the ring may take if keyframes fail.
pub(crate) const CAP: u64 = 64 << 20;

/// Records from one keyframe (or from the start) to the next.
struct Segment {
    /// Its keyframe's time since the start (zero: it begins at the welcome).
    at: Duration,
    bytes: Vec<u8>,
    /// The bytes of its keyframe (and size) records, which a save leaves out unless it
    /// is the first segment saved: zero if it has none or they must stay.
    key_len: usize,
}

pub struct Ring {
    /// The header and the start record.
    head: Vec<u8>,
    /// Closed segments, oldest first, and their bytes in all.
    closed: VecDeque<Segment>,
    closed_bytes: u64,
    /// Writes the open segment (its bytes are the writer's).
    writer: Option<Writer<Vec<u8>>>,
    open_at: Duration,
    open_key_len: usize,
    /// The time of the last timed record.
    last_at: Duration,
    start: Option<Instant>,
    /// The terminal's size, as last seen, for each new segment to begin with.
    size: Option<(u16, u16)>,
    next_keyframe: Option<Instant>,
    dir: PathBuf,
    full: bool,
    /// Why the last keyframe could not be taken, if it could not.
    failed: Option<String>,
    /// Why the ring stopped keeping the session, if a write failed.
    stopped: Option<String>,
}

impl Ring {
    /// Keeps the session in memory; saves go to `dir`.
    pub fn new(dir: PathBuf) -> Ring {
        Ring {
            head: Vec::new(),
            closed: VecDeque::new(),
            closed_bytes: 0,
            writer: Writer::new(Vec::new()).ok(),
            open_at: Duration::ZERO,
            open_key_len: 0,
            last_at: Duration::ZERO,
            start: None,
            size: None,
            next_keyframe: None,
            dir,
            full: false,
            failed: None,
            stopped: None,
        }
    }

    /// What a save writes now: a valid recording of the kept time, up to its last record:
    /// the header, the start record, the oldest kept keyframe and every record after it
    /// (the later keyframes left out), then an end record of `totals`, so a replay
    /// knows it has the whole clip.
    pub(crate) fn clip(&self, totals: &LinkTotals) -> Vec<u8> {
        let mut out = self.kept();
        let mut end = Writer::appending(Vec::new());
        // Into memory: cannot fail.
        let _ = end.end(totals);
        out.extend_from_slice(end.get_ref());
        out
    }

    /// The header, the start record and the kept segments, without an end.
    fn kept(&self) -> Vec<u8> {
        let open = Segment {
            at: self.open_at,
            bytes: Vec::new(),
            key_len: self.open_key_len,
        };
        let open_bytes: &[u8] = self.writer.as_ref().map_or(&[], |w| w.get_ref());
        let mut out = Vec::with_capacity(self.held() as usize);
        out.extend_from_slice(&self.head);
        let segments = self.closed.iter().map(|s| (s, &s.bytes[..]));
        for (i, (s, bytes)) in segments.chain([(&open, open_bytes)]).enumerate() {
            let skip = if i == 0 { 0 } else { s.key_len };
            out.extend_from_slice(bytes.get(skip..).unwrap_or_default());
        }
        out
    }

    /// Bytes held.
    pub fn held(&self) -> u64 {
        let open = self.writer.as_ref().map_or(0, |w| w.get_ref().len());
        (self.head.len() + open) as u64 + self.closed_bytes
    }

    /// The time the kept records begin at (the oldest keyframe's, or zero).
    #[cfg(test)]
    pub(crate) fn kept_from(&self) -> Duration {
        self.closed.front().map_or(self.open_at, |s| s.at)
    }

    fn keep(&mut self, f: impl FnOnce(&mut Writer<Vec<u8>>) -> std::io::Result<()>) {
        if self.held() > CAP {
            self.full = true;
            return;
        }
        let Some(w) = &mut self.writer else { return };
        if let Err(e) = f(w) {
            self.stopped = Some(format!("the in-memory recording stopped: {e}"));
            self.writer = None;
        }
    }

    /// Drops the oldest segment while the next one began at least [`KEEP`] before `now`.
    fn forget_before(&mut self, now: Duration) {
        while let Some(first) = self.closed.front() {
            let next = self.closed.get(1).map_or(self.open_at, |s| s.at);
            if next + KEEP > now {
                break;
            }
            self.closed_bytes -= first.bytes.len() as u64;
            self.closed.pop_front();
        }
    }

    /// Closes the open segment and opens one with the keyframe `state` taken at `at`.
    fn begin_segment(&mut self, at: Duration, state: &[u8]) {
        let Some(w) = &mut self.writer else { return };
        let bytes = std::mem::take(w.get_mut());
        self.closed_bytes += bytes.len() as u64;
        self.closed.push_back(Segment {
            at: self.open_at,
            bytes,
            key_len: self.open_key_len,
        });
        self.open_at = at;
        let size = self.size;
        self.keep(|w| {
            w.keyframe(at, state)?;
            match size {
                Some((cols, rows)) => w.event(at, &TapEvent::Size(cols, rows)),
                None => Ok(()),
            }
        });
        // A keyframe taken at the time of the record before it (as the driver takes
        // them) may be left out of a save: the records after it step from the same time.
        let len = self.writer.as_ref().map_or(0, |w| w.get_ref().len());
        self.open_key_len = if at == self.last_at { len } else { 0 };
        self.forget_before(at);
    }
}

impl Tap for Ring {
    fn start(&mut self, start: Instant, kind: LoopKind, welcome: &Welcome, config: &ClientConfig) {
        self.start = Some(start);
        self.next_keyframe = Some(start + KEYFRAME_EVERY);
        let start = Start::of(kind, welcome, config);
        self.keep(|w| w.start(&start));
        if let Some(w) = &mut self.writer {
            self.head = std::mem::take(w.get_mut());
        }
    }

    fn event(&mut self, at: Instant, event: TapEvent<'_>) {
        let Some(start) = self.start else { return };
        if let TapEvent::Size(cols, rows) = event {
            self.size = Some((cols, rows));
        }
        let offset = at.saturating_duration_since(start);
        if matches!(
            event,
            TapEvent::Received { .. }
                | TapEvent::Ticks(_)
                | TapEvent::Keys(_)
                | TapEvent::Frame
                | TapEvent::Dropped { .. }
                | TapEvent::Settings(_)
        ) {
            self.last_at = self.last_at.max(offset);
        }
        self.keep(|w| w.event(offset, &event));
        // Two comparisons unless a segment goes (once per keyframe period).
        self.forget_before(offset);
    }

    fn keyframe_due(&mut self, at: Instant) -> Option<Instant> {
        let due = self.next_keyframe.is_some_and(|t| at >= t);
        if due {
            // Once per period, even if this one cannot be taken.
            self.next_keyframe = Some(at + KEYFRAME_EVERY);
        }
        due.then_some(self.start?)
    }

    fn keyframe(&mut self, at: Instant, state: Result<&[u8], String>) {
        let Some(start) = self.start else { return };
        match state {
            Ok(state) => self.begin_segment(at.saturating_duration_since(start), state),
            Err(e) => {
                if self.failed.is_none() {
                    tracing::warn!("the in-memory recording took no keyframe: {e}");
                }
                self.failed = Some(e);
            }
        }
    }

    fn finish(&mut self, _totals: LinkTotals) {}

    fn save(&mut self, totals: LinkTotals) -> Option<Result<String, String>> {
        if self.full {
            return Some(Err(format!(
                "the session outgrew the {} MiB kept in memory; use --record FILE",
                CAP >> 20
            )));
        }
        if let Some(why) = &self.stopped {
            return Some(Err(why.clone()));
        }
        Some(save_new(
            &self.dir,
            &local_stamp(SystemTime::now()),
            &self.clip(&totals),
        ))
    }

    fn failure(&self) -> Option<String> {
        self.stopped.clone()
    }
}

/// Writes `bytes` to a new file in `dir` named for `stamp`
/// (`netarena-2026-11-24-193012.narec`), never over another: a second save in the same
/// second gets `-2`, and so on. Says where.
pub(super) fn save_new(dir: &Path, stamp: &str, bytes: &[u8]) -> Result<String, String> {
    for n in 1..100 {
        let name = match n {
            1 => format!("netarena-{stamp}.narec"),
            n => format!("netarena-{stamp}-{n}.narec"),
        };
        let path = dir.join(name);
        let file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path);
        match file {
            Ok(mut f) => {
                return f
                    .write_all(bytes)
                    .map(|()| path.display().to_string())
                    .map_err(|e| format!("{}: {e}", path.display()));
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(format!("{}: {e}", path.display())),
        }
    }
    Err(format!("{}: too many saves this second", dir.display()))
}

/// `t` as the local date and time, `2026-11-24-193012`, in the system's time zone (the
/// time zone database and `TZ` on Unix, the system setting on Windows); where that is
/// unknown, UTC with a `Z` (`2026-11-24-193012Z`).
pub(crate) fn local_stamp(t: SystemTime) -> String {
    match jiff::tz::TimeZone::try_system() {
        Ok(zone) => stamp_in(t, &zone, ""),
        Err(_) => stamp_in(t, &jiff::tz::TimeZone::UTC, "Z"),
    }
}

/// `t` as the date and time in `zone`, `YYYY-MM-DD-HHMMSS`, then `suffix`. A time
/// outside what jiff represents (years -9999 to 9999) is clamped to its end.
pub(super) fn stamp_in(t: SystemTime, zone: &jiff::tz::TimeZone, suffix: &str) -> String {
    let at = jiff::Timestamp::try_from(t).unwrap_or(if t < UNIX_EPOCH {
        jiff::Timestamp::MIN
    } else {
        jiff::Timestamp::MAX
    });
    format!(
        "{}{suffix}",
        at.to_zoned_datetime(zone.clone())
            .strftime("%Y-%m-%d-%H%M%S")
    )
}
