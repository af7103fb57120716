//! The one file format of every recording, a client's (`NAREC`) and a whole lab's
//! (`NALAB`), version [`VERSION`] (docs/RECORDING.md): an 8-byte header (the kind's
//! five letters, a zero byte, the version as u16 little-endian), then records. A record
//! is an [`Entry`] in the project's bincode form (`net::codec`), framed as its kind
//! (the enum's variant index, one byte), its payload's length as a LEB128 varint and
//! its payload (the variant's fields). The length is checked against the kind's limit
//! before anything is read, and the payload is decoded under the codec's bound.
//!
//! The compatibility policy: the records are serde-derived, so any change to what a
//! record holds (the server messages inside, a client's keyframe state) changes the
//! bytes; it takes a new [`VERSION`], and [`OLDEST`] is raised to it. A file of another
//! version is refused in one line naming both.

use std::io::{self, Read, Write};
use std::marker::PhantomData;

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::net::codec::{self, CodecError, put_varint, read_varint};

/// 11: one format for both kinds (serde-derived records in one frame); versions 1 to
/// 10 of a client's recording were hand-coded, version 1 of a lab's framed otherwise.
/// 12: a link's conditions hold their jitter mode.
pub const VERSION: u16 = 12;
/// The oldest version this netarena reads.
pub const OLDEST: u16 = 12;
pub(crate) const HEADER_LEN: usize = 8;
/// A client's recording begins with these six bytes.
pub const CLIENT_MAGIC: [u8; 6] = *b"NAREC\0";
/// A whole lab's recording begins with these six bytes.
pub const LAB_MAGIC: [u8; 6] = *b"NALAB\0";

/// What a recording of one kind holds, a record at a time.
pub trait Entry: Serialize + DeserializeOwned {
    /// The header's first six bytes.
    const MAGIC: [u8; 6];
    /// The most the payload of a record of `kind` (its variant index) may take; None
    /// for a kind there is no variant of.
    fn max_payload(kind: u8) -> Option<usize>;
}

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

impl ReadError {
    /// What went wrong without where, and where (the byte offset, 0 for the header).
    pub fn parts(&self) -> (u64, String) {
        match self {
            ReadError::Truncated { offset } => (*offset, "a record cut short".to_owned()),
            ReadError::Corrupt { offset, what } | ReadError::Io { offset, what } => {
                (*offset, what.clone())
            }
            other => (0, other.to_string()),
        }
    }
}

/// The versions this netarena reads, in words.
pub fn readable() -> String {
    if OLDEST == VERSION {
        format!("version {VERSION}")
    } else {
        format!("versions {OLDEST} to {VERSION}")
    }
}

/// A codec error in words: a message of our own said inside the decoder (a server
/// message or keyframe that does not decode) without bincode's wrapping.
pub(crate) fn said(e: CodecError) -> String {
    match e {
        CodecError::Malformed(bincode::error::DecodeError::OtherString(s)) => s,
        e => e.to_string(),
    }
}

/// Writes records of kind `T`, framed.
pub struct FrameWriter<W: Write, T> {
    out: W,
    encoded: Vec<u8>,
    head: Vec<u8>,
    written: u64,
    kind: PhantomData<fn(&T)>,
}

impl<W: Write, T: Entry> FrameWriter<W, T> {
    /// Writes the header at once.
    pub fn new(mut out: W) -> io::Result<Self> {
        out.write_all(&T::MAGIC)?;
        out.write_all(&VERSION.to_le_bytes())?;
        let mut w = Self::appending(out);
        w.written = HEADER_LEN as u64;
        Ok(w)
    }

    /// Writes records to go after others already written (no header).
    pub fn appending(out: W) -> Self {
        FrameWriter {
            out,
            encoded: Vec::with_capacity(256),
            head: Vec::with_capacity(11),
            written: 0,
            kind: PhantomData,
        }
    }

    /// One record.
    pub fn put(&mut self, record: &T) -> io::Result<()> {
        codec::encode_state(record, &mut self.encoded).map_err(io::Error::other)?;
        // The variant index comes first, one byte for an enum of under 251 variants.
        let Some((&kind, payload)) = self.encoded.split_first() else {
            return Err(io::Error::other("a record that encodes to nothing"));
        };
        let max = T::max_payload(kind).unwrap_or(0);
        if payload.len() > max {
            return Err(io::Error::other(format!(
                "a record of kind {kind} takes {} bytes, over its limit of {max}",
                payload.len()
            )));
        }
        self.head.clear();
        self.head.push(kind);
        put_varint(&mut self.head, payload.len() as u64);
        self.out.write_all(&self.head)?;
        self.out.write_all(payload)?;
        self.written += (self.head.len() + payload.len()) as u64;
        Ok(())
    }

    /// Bytes written so far, header included.
    pub fn written(&self) -> u64 {
        self.written
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
}

/// Reads records of kind `T` back, bounded: a record's length is checked against its
/// kind's limit before anything is read into the one reused buffer, which grows only
/// as bytes actually arrive; every error names the byte offset where the bad record
/// starts.
pub struct FrameReader<R: Read, T> {
    input: R,
    offset: u64,
    buf: Vec<u8>,
    kind: PhantomData<fn() -> T>,
}

impl<R: Read, T: Entry> FrameReader<R, T> {
    /// Checks the header.
    pub fn new(mut input: R) -> Result<Self, ReadError> {
        let mut header = [0u8; HEADER_LEN];
        let got = read_full(&mut input, &mut header).map_err(|e| io_error(0, &e))?;
        let magic = &header[..6];
        if got < 6 || magic != T::MAGIC {
            return Err(if got >= 6 && magic == LAB_MAGIC {
                ReadError::LabRecording
            } else {
                ReadError::NotARecording
            });
        }
        if got < HEADER_LEN {
            return Err(ReadError::Truncated { offset: 0 });
        }
        let found = u16::from_le_bytes([header[6], header[7]]);
        if !(OLDEST..=VERSION).contains(&found) {
            return Err(ReadError::Version { found });
        }
        Ok(FrameReader {
            input,
            offset: HEADER_LEN as u64,
            buf: Vec::new(),
            kind: PhantomData,
        })
    }

    /// Byte offset of the next record.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// The next record and the offset it starts at, or None at a clean end of file.
    pub fn next_entry(&mut self) -> Result<Option<(u64, T)>, ReadError> {
        let at = self.offset;
        let mut kind = [0u8; 1];
        if read_full(&mut self.input, &mut kind).map_err(|e| io_error(at, &e))? == 0 {
            return Ok(None);
        }
        let Some(max) = T::max_payload(kind[0]) else {
            return Err(corrupt(at, format!("unknown record kind {}", kind[0])));
        };
        let (len, len_bytes) = self.read_len(at)?;
        if len > max as u64 {
            return Err(corrupt(at, format!("length {len} is over {max}")));
        }
        // Grows with the bytes that arrive, never to what the length claims up front.
        self.buf.clear();
        self.buf.push(kind[0]);
        let got = (&mut self.input)
            .take(len)
            .read_to_end(&mut self.buf)
            .map_err(|e| io_error(at, &e))?;
        if (got as u64) < len {
            return Err(ReadError::Truncated { offset: at });
        }
        self.offset = at + 1 + len_bytes + len;
        let record = codec::decode_state::<T>(&self.buf).map_err(|e| corrupt(at, said(e)))?;
        Ok(Some((at, record)))
    }

    /// The payload length and how many bytes it took: the codec's LEB128, read a byte
    /// at a time.
    fn read_len(&mut self, at: u64) -> Result<(u64, u64), ReadError> {
        let mut bytes = [0u8; 10];
        for i in 0..bytes.len() {
            let got = read_full(&mut self.input, &mut bytes[i..=i]);
            if got.map_err(|e| io_error(at, &e))? == 0 {
                return Err(ReadError::Truncated { offset: at });
            }
            if bytes[i] & 0x80 == 0 {
                let mut used = 0;
                return read_varint(&bytes[..=i], &mut used)
                    .map(|v| (v, used as u64))
                    .ok_or_else(|| corrupt(at, "record length is not a valid varint".into()));
            }
        }
        Err(corrupt(at, "record length is not a valid varint".into()))
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

/// Times as whole nanoseconds (serde `with`).
pub(crate) mod nanos {
    use std::time::Duration;

    use serde::{Deserialize, Deserializer, Serializer};

    pub(crate) fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(crate::net::codec::nanos(*d))
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        u64::deserialize(d).map(Duration::from_nanos)
    }
}
