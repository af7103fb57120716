//! The field encodings of the hand-written wire forms (`wire_input`, `wire_snapshot`,
//! `wire_events`) and the one reader they decode with. A byte is a byte, a 16-bit
//! counter's low bits two little-endian bytes, an unsigned number LEB128 (the codec's,
//! [`put_varint`]: one byte up to 127) and a signed one LEB128 of its zigzag (one byte
//! from -64 to 63). The reader never reads past its bytes, refuses a number above what
//! its field holds, and gives a length no more than the bytes left could hold, so
//! nothing it decodes allocates more than its input can honestly need.

use super::codec::{put_varint, read_varint};

/// Why bytes of a hand-written wire form do not read: what was missing or wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Malformed(pub(crate) &'static str);

pub(crate) fn put16(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&(v as u16).to_le_bytes());
}

fn zigzag(v: i32) -> u64 {
    u64::from(((v << 1) ^ (v >> 31)) as u32)
}

fn unzigzag(v: u32) -> i32 {
    (v >> 1) as i32 ^ -((v & 1) as i32)
}

/// A signed number, LEB128 of its zigzag.
pub(crate) fn put_signed(out: &mut Vec<u8>, v: i32) {
    put_varint(out, zigzag(v));
}

/// An unsigned number, LEB128.
pub(crate) fn put_unsigned(out: &mut Vec<u8>, v: impl Into<u64>) {
    put_varint(out, v.into());
}

/// A length, then the bytes.
pub(crate) fn put_bytes(out: &mut Vec<u8>, bytes: &[u8]) {
    put_varint(out, bytes.len() as u64);
    out.extend_from_slice(bytes);
}

/// Bytes being read, front to back.
pub(crate) struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    pub(crate) fn new(bytes: &'a [u8]) -> Reader<'a> {
        Reader { bytes, at: 0 }
    }

    /// Bytes not read yet.
    pub(crate) fn left(&self) -> usize {
        self.bytes.len() - self.at
    }

    /// Refuses bytes after the end of what was read.
    pub(crate) fn end(&self) -> Result<(), Malformed> {
        if self.left() == 0 {
            Ok(())
        } else {
            Err(Malformed("trailing bytes"))
        }
    }

    pub(crate) fn u8(&mut self, what: &'static str) -> Result<u8, Malformed> {
        let b = *self.bytes.get(self.at).ok_or(Malformed(what))?;
        self.at += 1;
        Ok(b)
    }

    pub(crate) fn array<const N: usize>(
        &mut self,
        what: &'static str,
    ) -> Result<[u8; N], Malformed> {
        let bytes = self.take(N, what)?;
        let mut out = [0; N];
        out.copy_from_slice(bytes);
        Ok(out)
    }

    /// The low 16 bits of a counter.
    pub(crate) fn u16(&mut self, what: &'static str) -> Result<u32, Malformed> {
        Ok(u32::from(u16::from_le_bytes(self.array(what)?)))
    }

    /// An unsigned number of at most `max`.
    pub(crate) fn unsigned(&mut self, what: &'static str, max: u64) -> Result<u64, Malformed> {
        read_varint(self.bytes, &mut self.at)
            .filter(|v| *v <= max)
            .ok_or(Malformed(what))
    }

    pub(crate) fn u16_number(&mut self, what: &'static str) -> Result<u16, Malformed> {
        Ok(self.unsigned(what, u64::from(u16::MAX))? as u16)
    }

    pub(crate) fn u32_number(&mut self, what: &'static str) -> Result<u32, Malformed> {
        Ok(self.unsigned(what, u64::from(u32::MAX))? as u32)
    }

    pub(crate) fn signed(&mut self, what: &'static str) -> Result<i32, Malformed> {
        Ok(unzigzag(self.u32_number(what)?))
    }

    /// A count of things that take at least `each` bytes apiece: no more than the bytes
    /// left hold.
    pub(crate) fn count(&mut self, what: &'static str, each: usize) -> Result<usize, Malformed> {
        let n = self.unsigned(what, u64::from(u32::MAX))? as usize;
        if n.saturating_mul(each.max(1)) > self.left() {
            return Err(Malformed(what));
        }
        Ok(n)
    }

    fn take(&mut self, n: usize, what: &'static str) -> Result<&'a [u8], Malformed> {
        let end = self.at.checked_add(n).filter(|e| *e <= self.bytes.len());
        let bytes = &self.bytes[self.at..end.ok_or(Malformed(what))?];
        self.at += n;
        Ok(bytes)
    }

    /// What [`put_bytes`] wrote.
    pub(crate) fn bytes(&mut self, what: &'static str) -> Result<Vec<u8>, Malformed> {
        let n = self.count(what, 1)?;
        Ok(self.take(n, what)?.to_vec())
    }

    /// Text as [`put_bytes`] wrote it, which must be UTF-8.
    pub(crate) fn text(&mut self, what: &'static str) -> Result<String, Malformed> {
        String::from_utf8(self.bytes(what)?).map_err(|_| Malformed(what))
    }

    /// `Some` of what `read` gives after a byte 1, `None` after a 0.
    pub(crate) fn option<T>(
        &mut self,
        what: &'static str,
        read: impl FnOnce(&mut Self) -> Result<T, Malformed>,
    ) -> Result<Option<T>, Malformed> {
        match self.u8(what)? {
            0 => Ok(None),
            1 => read(self).map(Some),
            _ => Err(Malformed(what)),
        }
    }
}
