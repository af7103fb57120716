//! Writes records as they happen, flushing at least once a second of session time, so a
//! crash or a kill loses at most the last second.

use std::io::{self, Write};
use std::time::Duration;

use super::format::{
    ACTION, CHAT, DROPPED, END, FRAME, HEADER_LEN, KEYFRAME, KEYS, MAGIC, MAX_TICKS, RECEIVED,
    Record, SETTINGS, SIZE, START, Start, TICKS, VERSION, action_code, chat_code, correction_code,
    kind_code, max_payload, nanos, put_conditions, put_tuning, put_varint, switches_bits,
};
use crate::client::tap::{LinkTotals, TapEvent};
use crate::net::codec;
use crate::net::protocol::ServerMsg;

const FLUSH_EVERY: Duration = Duration::from_secs(1);

pub struct Writer<W: Write> {
    out: W,
    payload: Vec<u8>,
    scratch: Vec<u8>,
    last_flush: Duration,
    /// The time of the last timed record: the next one's time is written as the step
    /// from it (a few bytes, where the time itself takes six).
    last_at: Duration,
    written: u64,
}

impl<W: Write> Writer<W> {
    /// Writes the header at once.
    pub fn new(mut out: W) -> io::Result<Writer<W>> {
        let mut header = [0u8; HEADER_LEN];
        header[..6].copy_from_slice(&MAGIC);
        header[6..].copy_from_slice(&VERSION.to_le_bytes());
        out.write_all(&header)?;
        Ok(Writer {
            out,
            payload: Vec::with_capacity(256),
            scratch: Vec::with_capacity(256),
            last_flush: Duration::ZERO,
            last_at: Duration::ZERO,
            written: HEADER_LEN as u64,
        })
    }

    /// Writes records to go after others already written (no header), as if
    /// the last timed one was at time zero.
    pub(crate) fn appending(out: W) -> Writer<W> {
        Writer {
            out,
            payload: Vec::new(),
            scratch: Vec::new(),
            last_flush: Duration::ZERO,
            last_at: Duration::ZERO,
            written: 0,
        }
    }

    /// Bytes written so far, header included.
    pub fn written(&self) -> u64 {
        self.written
    }

    pub fn start(&mut self, start: &Start) -> io::Result<()> {
        let p = &mut self.payload;
        p.clear();
        p.push(kind_code(start.kind));
        p.extend_from_slice(&start.seed.to_le_bytes());
        put_tuning(p, &start.tuning);
        p.extend_from_slice(&switches_bits(start.switches));
        p.push(correction_code(start.correction));
        put_conditions(p, &start.conditions);
        // The welcome names the map; its text came in chunks before it.
        let text = start.welcome.map_text.as_bytes();
        put_varint(p, text.len() as u64);
        p.extend_from_slice(text);
        let welcome = ServerMsg::Welcome(start.welcome.clone());
        codec::encode_server(&welcome, &mut self.scratch).map_err(io::Error::other)?;
        p.extend_from_slice(&self.scratch);
        self.emit(START)?;
        self.out.flush()
    }

    /// One event `at` this long after the session started. Times never go back: an
    /// earlier one is written as the time before it.
    pub fn event(&mut self, at: Duration, event: &TapEvent<'_>) -> io::Result<()> {
        let p = &mut self.payload;
        p.clear();
        let step = nanos(at.saturating_sub(self.last_at));
        let timed = |p: &mut Vec<u8>| put_varint(p, step);
        let kind = match *event {
            TapEvent::Received { msg, wire_bytes } => {
                timed(p);
                put_varint(p, wire_bytes as u64);
                codec::encode_server(msg, &mut self.scratch).map_err(io::Error::other)?;
                p.extend_from_slice(&self.scratch);
                RECEIVED
            }
            TapEvent::Ticks(commands) => {
                // The command clock makes at most 6 at once; more is a bug upstream,
                // which the recording says rather than keep part of the instant.
                if commands.is_empty() || commands.len() > MAX_TICKS {
                    return Err(io::Error::other(format!(
                        "{} commands at one instant (1 to {MAX_TICKS} can be recorded)",
                        commands.len()
                    )));
                }
                timed(p);
                p.push(commands.len() as u8);
                for c in commands {
                    p.extend_from_slice(&[c.buttons.bits(), c.weapon, c.aim]);
                }
                TICKS
            }
            TapEvent::Keys(b) => {
                timed(p);
                p.push(b.bits());
                KEYS
            }
            TapEvent::Frame => {
                timed(p);
                FRAME
            }
            TapEvent::Action(a) => {
                p.extend_from_slice(&action_code(a));
                ACTION
            }
            TapEvent::Chat(k) => {
                let (code, c) = chat_code(k);
                p.push(code);
                p.extend_from_slice(&c.to_le_bytes());
                CHAT
            }
            TapEvent::Size(w, h) => {
                p.extend_from_slice(&w.to_le_bytes());
                p.extend_from_slice(&h.to_le_bytes());
                SIZE
            }
            TapEvent::Dropped { packet } => {
                timed(p);
                put_varint(p, u64::from(packet));
                DROPPED
            }
            TapEvent::Settings(s) => {
                timed(p);
                put_tuning(p, &s.tuning);
                p.push(correction_code(s.correction));
                put_varint(p, u64::from(s.snapshot_interval));
                SETTINGS
            }
        };
        self.emit(kind)?;
        if matches!(kind, RECEIVED | TICKS | KEYS | FRAME | DROPPED | SETTINGS) {
            self.last_at = self.last_at.max(at);
        }
        if at.saturating_sub(self.last_flush) >= FLUSH_EVERY {
            self.last_flush = at;
            self.out.flush()?;
        }
        Ok(())
    }

    /// A keyframe: the loop's state (`Driver::keyframe`) `at` this long after the start.
    /// Its time is written whole, not as a step, so a file may begin with it; the
    /// records after it step from it.
    pub fn keyframe(&mut self, at: Duration, state: &[u8]) -> io::Result<()> {
        let at = at.max(self.last_at);
        let p = &mut self.payload;
        p.clear();
        put_varint(p, nanos(at));
        p.extend_from_slice(state);
        self.emit(KEYFRAME)?;
        self.last_at = at;
        Ok(())
    }

    /// The link's totals; flushes.
    pub fn end(&mut self, t: &LinkTotals) -> io::Result<()> {
        let p = &mut self.payload;
        p.clear();
        p.extend_from_slice(&t.seconds.to_bits().to_le_bytes());
        for v in [
            t.bytes_in,
            t.bytes_out,
            t.packets_in,
            t.packets_out,
            t.malformed_in,
        ] {
            put_varint(p, v);
        }
        self.emit(END)?;
        self.out.flush()
    }

    /// Any record (tests and tools).
    pub fn record(&mut self, r: &Record) -> io::Result<()> {
        match r {
            Record::Start(s) => self.start(s),
            Record::End(t) => self.end(t),
            Record::Received {
                at,
                wire_bytes,
                msg,
            } => self.event(
                *at,
                &TapEvent::Received {
                    msg,
                    wire_bytes: *wire_bytes as usize,
                },
            ),
            Record::Ticks { at, commands } => self.event(*at, &TapEvent::Ticks(commands)),
            Record::Keys { at, buttons } => self.event(*at, &TapEvent::Keys(*buttons)),
            Record::Frame { at } => self.event(*at, &TapEvent::Frame),
            Record::Action(a) => self.event(Duration::ZERO, &TapEvent::Action(*a)),
            Record::Chat(k) => self.event(Duration::ZERO, &TapEvent::Chat(*k)),
            Record::Size(w, h) => self.event(Duration::ZERO, &TapEvent::Size(*w, *h)),
            Record::Keyframe { at, state } => self.keyframe(*at, state),
            Record::Dropped { at, packet } => {
                self.event(*at, &TapEvent::Dropped { packet: *packet })
            }
            Record::Settings { at, settings } => self.event(*at, &TapEvent::Settings(*settings)),
        }
    }

    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }

    pub fn get_ref(&self) -> &W {
        &self.out
    }

    pub(crate) fn get_mut(&mut self) -> &mut W {
        &mut self.out
    }

    pub fn into_inner(self) -> W {
        self.out
    }

    fn emit(&mut self, kind: u8) -> io::Result<()> {
        let max = max_payload(kind);
        if self.payload.len() > max {
            return Err(io::Error::other(format!(
                "a record of kind {kind} takes {} bytes, over its limit of {max}",
                self.payload.len()
            )));
        }
        let head = &mut self.scratch;
        head.clear();
        head.push(kind);
        put_varint(head, self.payload.len() as u64);
        self.out.write_all(head)?;
        self.out.write_all(&self.payload)?;
        self.written += (head.len() + self.payload.len()) as u64;
        Ok(())
    }
}
