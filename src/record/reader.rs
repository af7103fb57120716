//! Reads a client's recording back through the one bounded frame reader
//! ([`FrameReader`]), then holds each record to what a session can take: times within
//! a day, 1 to 16 commands an instant, dials brought within their bounds, a keyframe
//! that decodes to a loop (so a bad one is an error at its offset, not a failed replay).

use std::io::Read;
use std::time::{Duration, Instant};

use super::file::FrameReader;
pub use super::file::ReadError;
use super::format::{MAX_TICKS, MAX_TIME, Record};
use crate::client::driver::Driver;
use crate::net::map_chunks::MAX_MAP_BYTES;
use crate::sim::world::Buttons;

pub struct Reader<R: Read> {
    frames: FrameReader<R, Record>,
    /// The time of the last timed record: each one holds the step from it.
    clock: Duration,
}

impl<R: Read> Reader<R> {
    /// Checks the header.
    pub fn new(input: R) -> Result<Reader<R>, ReadError> {
        Ok(Reader {
            frames: FrameReader::new(input)?,
            clock: Duration::ZERO,
        })
    }

    /// Byte offset of the next record.
    pub fn offset(&self) -> u64 {
        self.frames.offset()
    }

    /// The next record, or None at a clean end of file.
    pub fn next_record(&mut self) -> Result<Option<Record>, ReadError> {
        let Some((offset, record)) = self.frames.next_entry()? else {
            return Ok(None);
        };
        let record =
            settle(record, self.clock).map_err(|what| ReadError::Corrupt { offset, what })?;
        if let Some(t) = record.at() {
            self.clock = t;
        }
        Ok(Some(record))
    }
}

impl<R: Read> Iterator for Reader<R> {
    type Item = Result<Record, ReadError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_record().transpose()
    }
}

/// A record as read, its time made the time since the start (a step from `clock`,
/// but a keyframe's is whole), held to what a session can take.
fn settle(mut record: Record, clock: Duration) -> Result<Record, String> {
    let whole = matches!(record, Record::Keyframe { .. });
    if let Some(at) = record.at_mut() {
        if !whole {
            *at = clock.saturating_add(*at);
        }
        if *at > MAX_TIME {
            return Err(format!("time {} s is past the 24-hour limit", at.as_secs()));
        }
    }
    match &mut record {
        Record::Start(start) => {
            let len = start.welcome.map_text.len();
            if len > MAX_MAP_BYTES {
                return Err(format!("a map of {len} bytes (at most {MAX_MAP_BYTES})"));
            }
            // Out-of-bounds dials are brought within them, as a session does.
            start.tuning = start.tuning.bounded();
        }
        Record::Ticks { commands, .. } => {
            let n = commands.len();
            if n == 0 || n > MAX_TICKS {
                return Err(format!("{n} commands in one instant"));
            }
            for c in commands {
                c.buttons = Buttons::from_bits_truncate(c.buttons.bits());
            }
        }
        Record::Keys { buttons, .. } => *buttons = Buttons::from_bits_truncate(buttons.bits()),
        Record::Settings { settings, .. } => {
            settings.tuning = settings.tuning.bounded();
            // A session takes at least one tick between snapshots; a hostile file may
            // say anything.
            let interval = settings.snapshot_interval;
            if !(1..=u32::from(u16::MAX)).contains(&interval) {
                return Err(format!("snapshot interval {interval}"));
            }
        }
        Record::Keyframe { state, .. } => {
            Driver::from_keyframe(state, Instant::now()).map_err(|e| e.to_string())?;
        }
        _ => {}
    }
    Ok(record)
}
