//! Writes a client's records as they happen, flushing at least once a second of
//! session time, so a crash or a kill loses at most the last second.

use std::io::{self, Write};
use std::time::Duration;

use super::file::FrameWriter;
use super::format::{MAX_TICKS, Record, Start};
use crate::client::tap::{LinkTotals, TapEvent};

const FLUSH_EVERY: Duration = Duration::from_secs(1);

pub struct Writer<W: Write> {
    out: FrameWriter<W, Record>,
    last_flush: Duration,
    /// The time of the last timed record: the next one's time is written as the step
    /// from it (a few bytes, where the time itself takes nine).
    last_at: Duration,
}

impl<W: Write> Writer<W> {
    /// Writes the header at once.
    pub fn new(out: W) -> io::Result<Writer<W>> {
        Ok(Writer::over(FrameWriter::new(out)?))
    }

    /// Writes records to go after others already written (no header), as if
    /// the last timed one was at time zero.
    pub(crate) fn appending(out: W) -> Writer<W> {
        Writer::over(FrameWriter::appending(out))
    }

    fn over(out: FrameWriter<W, Record>) -> Writer<W> {
        Writer {
            out,
            last_flush: Duration::ZERO,
            last_at: Duration::ZERO,
        }
    }

    /// Bytes written so far, header included.
    pub fn written(&self) -> u64 {
        self.out.written()
    }

    pub fn start(&mut self, start: &Start) -> io::Result<()> {
        self.out.put(&Record::Start(Box::new(start.clone())))?;
        self.out.flush()
    }

    /// One event `at` this long after the session started. Times never go back: an
    /// earlier one is written as the time before it.
    pub fn event(&mut self, at: Duration, event: &TapEvent<'_>) -> io::Result<()> {
        let record = match *event {
            TapEvent::Received { msg, wire_bytes } => Record::Received {
                at,
                wire_bytes: u32::try_from(wire_bytes).unwrap_or(u32::MAX),
                msg: Box::new(msg.clone()),
            },
            TapEvent::Ticks(commands) => {
                // The command clock makes at most 6 at once; more is a bug upstream,
                // which the recording says rather than keep part of the instant.
                if commands.is_empty() || commands.len() > MAX_TICKS {
                    return Err(io::Error::other(format!(
                        "{} commands at one instant (1 to {MAX_TICKS} can be recorded)",
                        commands.len()
                    )));
                }
                Record::Ticks {
                    at,
                    commands: commands.to_vec(),
                }
            }
            TapEvent::Keys(buttons) => Record::Keys { at, buttons },
            TapEvent::Frame => Record::Frame { at },
            TapEvent::Action(a) => Record::Action(a),
            TapEvent::Chat(k) => Record::Chat(k),
            TapEvent::Size(w, h) => Record::Size(w, h),
            TapEvent::Dropped { packet } => Record::Dropped { at, packet },
            TapEvent::Settings(settings) => Record::Settings { at, settings },
        };
        self.timed(record)?;
        if at.saturating_sub(self.last_flush) >= FLUSH_EVERY {
            self.last_flush = at;
            self.out.flush()?;
        }
        Ok(())
    }

    /// Writes a record whose time (if it has one) is since the start as the step from
    /// the last timed record.
    fn timed(&mut self, mut record: Record) -> io::Result<()> {
        let mut now = None;
        if let Some(at) = record.at_mut() {
            now = Some(self.last_at.max(*at));
            *at = at.saturating_sub(self.last_at);
        }
        self.out.put(&record)?;
        if let Some(now) = now {
            self.last_at = now;
        }
        Ok(())
    }

    /// A keyframe: the loop's state (`Driver::keyframe`) `at` this long after the start.
    /// Its time is written whole, not as a step, so a file may begin with it; the
    /// records after it step from it.
    pub fn keyframe(&mut self, at: Duration, state: &[u8]) -> io::Result<()> {
        let at = at.max(self.last_at);
        self.out.put(&Record::Keyframe {
            at,
            state: state.to_vec(),
        })?;
        self.last_at = at;
        Ok(())
    }

    /// The link's totals; flushes.
    pub fn end(&mut self, t: &LinkTotals) -> io::Result<()> {
        self.out.put(&Record::End(*t))?;
        self.out.flush()
    }

    /// Any record (tests and tools).
    pub fn record(&mut self, r: &Record) -> io::Result<()> {
        match r {
            Record::Start(s) => self.start(s),
            Record::End(t) => self.end(t),
            Record::Keyframe { at, state } => self.keyframe(*at, state),
            Record::Ticks { at, commands } => self.event(*at, &TapEvent::Ticks(commands)),
            other => self.timed(other.clone()),
        }
    }

    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }

    pub fn get_ref(&self) -> &W {
        self.out.get_ref()
    }

    pub(crate) fn get_mut(&mut self) -> &mut W {
        self.out.get_mut()
    }

    pub fn into_inner(self) -> W {
        self.out.into_inner()
    }
}
