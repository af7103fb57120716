//! Reads a recording back, bounded: a record's length is checked against
//! [`MAX_PAYLOAD`](super::format::MAX_PAYLOAD) (a keyframe's against [`MAX_KEYFRAME_PAYLOAD`]) before anything is
//! read into the one reused buffer, which grows only as bytes actually arrive; every
//! error names the byte offset where the bad record starts. A keyframe is decoded here
//! once to check it, so a bad one is an error at its offset, not a failed replay.

use std::io::{self, Read};
use std::time::{Duration, Instant};

use super::format::{
    ACTION, CHAT, DROPPED, END, FRAME, HEADER_LEN, KEYFRAME, KEYS, MAGIC, MAX_KEYFRAME_PAYLOAD,
    MAX_TICKS, MAX_TIME, OLDEST, RECEIVED, Record, SETTINGS, SIZE, START, Start, TICKS, VERSION,
    action_from, chat_from, correction_from, kind_from, max_payload, switches_from,
};
use crate::client::dials::Settings;
use crate::client::driver::Driver;
use crate::client::netcode::tuning::Tuning;
use crate::client::tap::LinkTotals;
use crate::net::codec::{self, read_varint};
use crate::net::conditioner::Conditions;
use crate::net::map_chunks::MAX_MAP_BYTES;
use crate::net::protocol::ServerMsg;
use crate::sim::world::{Buttons, Command};

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ReadError {
    #[error("not a netarena recording (no NAREC header)")]
    NotARecording,
    /// The file is a whole lab's recording (`NALAB`), which `replay` plays itself.
    #[error(
        "a whole lab's recording (NALAB), not one client's: `netarena replay FILE` plays it; its clients' own are the FILE-N beside it"
    )]
    LabRecording,
    #[error("recording format version {found}, this netarena reads {}", readable())]
    Version { found: u16 },
    /// The file ends inside the record that starts at `offset`: it was cut short.
    #[error("the recording ends in the middle of the record at byte {offset}")]
    Truncated { offset: u64 },
    #[error("bad record at byte {offset}: {what}")]
    Corrupt { offset: u64, what: String },
    #[error("cannot read the recording at byte {offset}: {what}")]
    Io { offset: u64, what: String },
}

/// The versions this netarena reads, in words.
fn readable() -> String {
    if OLDEST == VERSION {
        format!("version {VERSION}")
    } else {
        format!("versions {OLDEST} to {VERSION}")
    }
}

pub struct Reader<R: Read> {
    input: R,
    offset: u64,
    buf: Vec<u8>,
    /// The time of the last timed record: each one holds the step from it.
    clock: Duration,
}

impl<R: Read> Reader<R> {
    /// Checks the header.
    pub fn new(mut input: R) -> Result<Reader<R>, ReadError> {
        let mut header = [0u8; HEADER_LEN];
        let got = read_full(&mut input, &mut header).map_err(|e| io_error(0, &e))?;
        if got >= MAGIC.len() && header[..6] == crate::lab::recording::MAGIC {
            return Err(ReadError::LabRecording);
        }
        if got < MAGIC.len() || header[..6] != MAGIC {
            return Err(ReadError::NotARecording);
        }
        if got < HEADER_LEN {
            return Err(ReadError::Truncated { offset: 0 });
        }
        let found = u16::from_le_bytes([header[6], header[7]]);
        if !(OLDEST..=VERSION).contains(&found) {
            return Err(ReadError::Version { found });
        }
        Ok(Reader {
            input,
            offset: HEADER_LEN as u64,
            buf: Vec::new(),
            clock: Duration::ZERO,
        })
    }

    /// Byte offset of the next record.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// The next record, or None at a clean end of file.
    pub fn next_record(&mut self) -> Result<Option<Record>, ReadError> {
        let at = self.offset;
        let mut kind = [0u8; 1];
        if read_full(&mut self.input, &mut kind).map_err(|e| io_error(at, &e))? == 0 {
            return Ok(None);
        }
        let (len, len_bytes) = self.read_len(at)?;
        let max = max_payload(kind[0]);
        if len > max as u64 {
            return Err(corrupt(at, format!("length {len} is over {max}")));
        }
        // Grows with the bytes that arrive, never to what the length claims up front.
        self.buf.clear();
        let got = (&mut self.input)
            .take(len)
            .read_to_end(&mut self.buf)
            .map_err(|e| io_error(at, &e))?;
        if (got as u64) < len {
            return Err(ReadError::Truncated { offset: at });
        }
        self.offset = at + 1 + len_bytes + len;
        let record = parse(kind[0], &self.buf, self.clock).map_err(|w| corrupt(at, w))?;
        if let Some(t) = record.at() {
            self.clock = t;
        }
        Ok(Some(record))
    }

    /// The payload length and how many bytes it took.
    fn read_len(&mut self, at: u64) -> Result<(u64, u64), ReadError> {
        let mut v = 0u64;
        for i in 0..10 {
            let mut b = [0u8; 1];
            if read_full(&mut self.input, &mut b).map_err(|e| io_error(at, &e))? == 0 {
                return Err(ReadError::Truncated { offset: at });
            }
            v |= u64::from(b[0] & 0x7f) << (7 * i);
            if b[0] & 0x80 == 0 {
                return Ok((v, i + 1));
            }
            if v > MAX_KEYFRAME_PAYLOAD as u64 {
                break;
            }
        }
        Err(corrupt(at, "record length is not a valid varint".into()))
    }
}

impl<R: Read> Iterator for Reader<R> {
    type Item = Result<Record, ReadError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_record().transpose()
    }
}

fn corrupt(offset: u64, what: String) -> ReadError {
    ReadError::Corrupt { offset, what }
}

fn io_error(offset: u64, e: &io::Error) -> ReadError {
    ReadError::Io {
        offset,
        what: e.to_string(),
    }
}

/// Reads until `buf` is full or the input ends; how much was read.
fn read_full(input: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match input.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

/// A cursor over one payload; every read is checked. Times are steps from `clock`.
struct Payload<'a>(&'a [u8], Duration);

impl<'a> Payload<'a> {
    fn bytes(&mut self, n: usize) -> Result<&'a [u8], String> {
        if self.0.len() < n {
            return Err("payload too short".into());
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Ok(head)
    }

    fn u8(&mut self) -> Result<u8, String> {
        Ok(self.bytes(1)?[0])
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], String> {
        let mut a = [0u8; N];
        a.copy_from_slice(self.bytes(N)?);
        Ok(a)
    }

    fn varint(&mut self) -> Result<u64, String> {
        let mut at = 0;
        let v = read_varint(self.0, &mut at).ok_or_else(|| {
            if self.0.len() < 10 && self.0.iter().all(|b| b & 0x80 != 0) {
                "payload too short".to_owned()
            } else {
                "varint overflows 64 bits".to_owned()
            }
        })?;
        self.0 = &self.0[at..];
        Ok(v)
    }

    fn time(&mut self) -> Result<Duration, String> {
        let step = Duration::from_nanos(self.varint()?);
        let t = self.1.saturating_add(step);
        if t > MAX_TIME {
            return Err(format!("time {} s is past the 24-hour limit", t.as_secs()));
        }
        Ok(t)
    }

    fn done(&self) -> Result<(), String> {
        match self.0.len() {
            0 => Ok(()),
            n => Err(format!("{n} unexpected bytes at the end")),
        }
    }

    fn message(&mut self) -> Result<ServerMsg, String> {
        let msg = codec::decode_server(self.0).map_err(|e| e.to_string())?;
        self.0 = &[];
        Ok(msg)
    }
}

fn parse(kind: u8, bytes: &[u8], clock: Duration) -> Result<Record, String> {
    let mut p = Payload(bytes, clock);
    let record = match kind {
        START => Record::Start(Box::new(parse_start(&mut p)?)),
        RECEIVED => {
            let at = p.time()?;
            let wire_bytes = u32::try_from(p.varint()?).map_err(|_| "wire size too large")?;
            let msg = Box::new(p.message()?);
            Record::Received {
                at,
                wire_bytes,
                msg,
            }
        }
        TICKS => {
            let at = p.time()?;
            let n = usize::from(p.u8()?);
            if n == 0 || n > MAX_TICKS {
                return Err(format!("{n} commands in one instant"));
            }
            let mut commands = Vec::with_capacity(n);
            for _ in 0..n {
                let [b, weapon, aim] = p.array::<3>()?;
                let buttons = Buttons::from_bits_truncate(b);
                commands.push(Command {
                    buttons,
                    weapon,
                    aim,
                });
            }
            Record::Ticks { at, commands }
        }
        KEYS => Record::Keys {
            at: p.time()?,
            buttons: Buttons::from_bits_truncate(p.u8()?),
        },
        FRAME => Record::Frame { at: p.time()? },
        ACTION => {
            let [code, arg] = p.array::<2>()?;
            Record::Action(
                action_from(code, arg).ok_or_else(|| format!("unknown action {code} ({arg})"))?,
            )
        }
        CHAT => {
            let code = p.u8()?;
            let c = u32::from_le_bytes(p.array::<4>()?);
            Record::Chat(chat_from(code, c).ok_or("unknown chat key")?)
        }
        SIZE => {
            let w = u16::from_le_bytes(p.array::<2>()?);
            Record::Size(w, u16::from_le_bytes(p.array::<2>()?))
        }
        END => Record::End(parse_end(&mut p)?),
        KEYFRAME => parse_keyframe(&mut p)?,
        DROPPED => Record::Dropped {
            at: p.time()?,
            packet: u32::try_from(p.varint()?).map_err(|_| "packet number too large")?,
        },
        SETTINGS => {
            let at = p.time()?;
            let tuning = parse_tuning(&mut p)?;
            let code = p.u8()?;
            let correction =
                correction_from(code).ok_or_else(|| format!("unknown correction {code}"))?;
            let interval = p.varint()?;
            // A session takes at least one tick between snapshots; a hostile file may
            // say anything.
            let snapshot_interval = u32::try_from(interval)
                .ok()
                .filter(|&i| (1..=u32::from(u16::MAX)).contains(&i))
                .ok_or_else(|| format!("snapshot interval {interval}"))?;
            Record::Settings {
                at,
                settings: Settings {
                    tuning,
                    correction,
                    snapshot_interval,
                },
            }
        }
        other => return Err(format!("unknown record kind {other}")),
    };
    p.done()?;
    Ok(record)
}

/// A keyframe's time is whole (since the start), not a step; its state must decode.
fn parse_keyframe(p: &mut Payload<'_>) -> Result<Record, String> {
    let at = Duration::from_nanos(p.varint()?);
    if at > MAX_TIME {
        return Err(format!("time {} s is past the 24-hour limit", at.as_secs()));
    }
    let state = std::mem::take(&mut p.0);
    Driver::from_keyframe(state, Instant::now()).map_err(|e| e.to_string())?;
    Ok(Record::Keyframe {
        at,
        state: state.to_vec(),
    })
}

fn parse_start(p: &mut Payload<'_>) -> Result<Start, String> {
    let code = p.u8()?;
    let kind = kind_from(code).ok_or_else(|| format!("unknown loop kind {code}"))?;
    let seed = u64::from_le_bytes(p.array::<8>()?);
    let tuning = parse_tuning(p)?;
    let [bits, ghosts] = p.array::<2>()?;
    let switches = switches_from(bits, ghosts).ok_or("unknown switches")?;
    let code = p.u8()?;
    let correction = correction_from(code).ok_or_else(|| format!("unknown correction {code}"))?;
    let conditions = parse_conditions(p)?;
    let len = p.varint()?;
    if len > MAX_MAP_BYTES as u64 {
        return Err(format!("a map of {len} bytes (at most {MAX_MAP_BYTES})"));
    }
    let text = p.bytes(len as usize)?;
    let text = String::from_utf8(text.to_vec()).map_err(|_| "a map that is not UTF-8")?;
    let ServerMsg::Welcome(mut welcome) = p.message()? else {
        return Err("the start record holds no welcome".into());
    };
    welcome.map_text = text;
    Ok(Start {
        kind,
        seed,
        tuning,
        switches,
        correction,
        conditions,
        welcome,
    })
}

/// The player's dials (`format::put_tuning`); out-of-bounds dials are brought within
/// them, as a session does.
fn parse_tuning(p: &mut Payload<'_>) -> Result<Tuning, String> {
    let input_rate = u16::from_le_bytes(p.array::<2>()?);
    let ratio = f64::from_bits(u64::from_le_bytes(p.array::<8>()?));
    let [redundancy] = p.array::<1>()?;
    let limit = u32::from_le_bytes(p.array::<4>()?);
    Ok(Tuning {
        input_rate,
        interp_ratio: (ratio != 0.0).then_some(ratio),
        redundancy,
        extrapolation_limit_ms: (limit != u32::MAX).then_some(limit),
    }
    .bounded())
}

fn parse_conditions(p: &mut Payload<'_>) -> Result<Conditions, String> {
    let u32_of = |b: [u8; 4]| u32::from_le_bytes(b);
    let f64_of = |b: [u8; 8]| f64::from_bits(u64::from_le_bytes(b));
    let latency_ms = u32_of(p.array()?);
    let jitter_ms = u32_of(p.array()?);
    let loss_pct = f64_of(p.array()?);
    let burst_len = f64_of(p.array()?);
    let dup_pct = f64_of(p.array()?);
    let reorder_pct = f64_of(p.array()?);
    Ok(Conditions {
        latency_ms,
        jitter_ms,
        loss_pct,
        burst_len,
        dup_pct,
        reorder_pct,
        bandwidth_kbps: u32_of(p.array()?),
    })
}

fn parse_end(p: &mut Payload<'_>) -> Result<LinkTotals, String> {
    let seconds = f64::from_bits(u64::from_le_bytes(p.array::<8>()?));
    Ok(LinkTotals {
        seconds,
        bytes_in: p.varint()?,
        bytes_out: p.varint()?,
        packets_in: p.varint()?,
        packets_out: p.varint()?,
        malformed_in: p.varint()?,
    })
}
