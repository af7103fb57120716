//! A map's text in numbered chunks, so that no datagram carries more than a safe MTU,
//! and its reassembly on the receiving side (both through `super::fragments`):
//! bounded in size and count, bound to one map by its id (a checksum, verified at the
//! end), and given up after a timeout.
//!
//! Pure: the caller feeds chunks and the time; nothing here touches a socket.
#![doc(hidden)] // Public for the binary, tests or fuzz targets: see the crate docs.

use std::time::{Duration, Instant};

use super::fragments::{self, Bounds, FragmentError, Piece, Reassembler, Started};
use super::protocol::{MapChunk, MapInfo};
use netarena_sim::map::{MAX_HEIGHT, MAX_WIDTH};

/// The longest map text any loader accepts: full rows and their newlines.
pub const MAX_MAP_BYTES: usize = (MAX_WIDTH + 1) * MAX_HEIGHT;
/// Chunk size for the chunks sent on their own after a welcome: each sealed chunk fits
/// IPv4's least path ([`crate::wire_bytes::IPV4_MIN_PAYLOAD`], 548 bytes), so a path
/// with a small MTU still joins.
pub const WELCOME_CHUNK_BYTES: usize = 500;
/// Chunk size for the chunks that ride in snapshots as reliable events, beside the
/// players: small, so one fits next to a large snapshot.
pub const EVENT_CHUNK_BYTES: usize = 256;
/// The most chunks a map may come in (at the smallest chunk size, with room to spare).
pub const MAX_CHUNKS: u16 = 64;
/// A map still incomplete this long after its first chunk is given up.
pub const TIMEOUT: Duration = Duration::from_secs(10);

const _: () = assert!(MAX_MAP_BYTES.div_ceil(EVENT_CHUNK_BYTES) <= MAX_CHUNKS as usize);

/// FNV-1a: not a defence against a hostile server (which can send any map it likes),
/// just a guard against mixing the chunks of two maps.
pub fn map_id(text: &str) -> u32 {
    text.bytes().fold(0x811C_9DC5, |h: u32, b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    })
}

/// How `text` travels in chunks of `chunk_bytes`.
pub fn info(text: &str, chunk_bytes: usize) -> MapInfo {
    MapInfo {
        id: map_id(text),
        len: text.len() as u32,
        chunks: text.len().div_ceil(chunk_bytes).max(1) as u16,
    }
}

/// Splits `text` into numbered chunks of at most `chunk_bytes` (at least one chunk, even
/// for an empty text).
pub fn split(text: &str, chunk_bytes: usize) -> Vec<MapChunk> {
    let map = info(text, chunk_bytes);
    let bytes = text.as_bytes();
    fragments::pack(std::iter::repeat_n(1, bytes.len()), chunk_bytes)
        .into_iter()
        .enumerate()
        .map(|(index, range)| MapChunk {
            map,
            index: index as u16,
            data: bytes[range].to_vec(),
        })
        .collect()
}

/// Why a chunk was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ChunkError {
    #[error("map chunk out of bounds (map of {len} bytes in {chunks} chunks, chunk {index})")]
    Bounds { len: u32, chunks: u16, index: u16 },
    #[error("map chunk of {0} bytes does not fit its map")]
    Size(usize),
    #[error("reassembled map does not match its checksum or is not text")]
    Corrupt,
}

/// Reassembles one map at a time from its chunks, in any order, duplicates welcome.
/// Holds at most one incomplete map ([`MAX_MAP_BYTES`]) and one complete one.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct MapAssembler {
    partial: Reassembler<MapInfo, Vec<u8>, Started>,
    complete: Option<(MapInfo, String)>,
    /// The map last taken: its late duplicates are ignored.
    taken: Option<MapInfo>,
}

impl MapAssembler {
    /// Adds a chunk. A chunk of another map than the one being assembled starts over
    /// with it; an incomplete map older than [`TIMEOUT`] is dropped.
    pub fn add(&mut self, now: Instant, chunk: &MapChunk) -> Result<(), ChunkError> {
        let map = chunk.map;
        let bounds_error = ChunkError::Bounds {
            len: map.len,
            chunks: map.chunks,
            index: chunk.index,
        };
        if map.len as usize > MAX_MAP_BYTES {
            return Err(bounds_error);
        }
        if self.taken == Some(map) || self.complete.as_ref().is_some_and(|(m, _)| *m == map) {
            return Ok(());
        }
        self.expire(now);
        let bounds = Bounds {
            parts: usize::from(MAX_CHUNKS),
            size: map.len as usize,
        };
        let size = chunk.data.len();
        let whole = self
            .partial
            .add(
                Started(now),
                bounds,
                Piece {
                    key: map,
                    index: usize::from(chunk.index),
                    count: usize::from(map.chunks),
                    part: chunk.data.clone(),
                    size,
                },
            )
            .map_err(|e| match e {
                FragmentError::OutOfRange { .. } => bounds_error,
                FragmentError::TooLarge { .. } => ChunkError::Size(size),
            })?;
        if let Some(parts) = whole {
            let text = String::from_utf8(parts.concat()).map_err(|_| ChunkError::Corrupt)?;
            if text.len() != map.len as usize || map_id(&text) != map.id {
                return Err(ChunkError::Corrupt);
            }
            self.complete = Some((map, text));
        }
        Ok(())
    }

    /// Drops an incomplete map older than [`TIMEOUT`].
    pub fn expire(&mut self, now: Instant) {
        self.partial.expire(now, TIMEOUT);
    }

    /// The text of `map`, if it is complete; it is handed out once.
    pub fn take(&mut self, map: &MapInfo) -> Option<String> {
        match self.complete.take() {
            Some((m, text)) if m == *map => {
                self.taken = Some(m);
                Some(text)
            }
            other => {
                self.complete = other;
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(len: usize) -> String {
        (0..len)
            .map(|i| if i % 101 == 100 { '\n' } else { '#' })
            .collect()
    }

    #[test]
    fn chunks_in_any_order_with_duplicates_reassemble() {
        let t = text(MAX_MAP_BYTES);
        let mut chunks = split(&t, EVENT_CHUNK_BYTES);
        assert!(chunks.len() <= usize::from(MAX_CHUNKS));
        assert!(chunks.iter().all(|c| c.data.len() <= EVENT_CHUNK_BYTES));
        chunks.reverse();
        let dup = chunks[3].clone();
        chunks.insert(7, dup);
        let now = Instant::now();
        let mut a = MapAssembler::default();
        let map = chunks[0].map;
        for (i, c) in chunks.iter().enumerate() {
            assert_eq!(a.take(&map), None, "complete after {i}");
            a.add(now, c).unwrap();
        }
        assert_eq!(a.take(&map).as_deref(), Some(t.as_str()));
        assert_eq!(a.take(&map), None, "handed out once");
        // Late duplicates of a taken map start nothing.
        a.add(now, &chunks[1]).unwrap();
        assert!(!a.partial.collecting());
    }

    // With 1,024-byte chunks (841 bytes sealed for the warehouse) a path of IPv4's
    // least MTU never saw the map, and the client said nobody answered.
    #[test]
    fn every_welcome_chunk_fits_the_least_ipv4_path() {
        use crate::codec;
        use crate::protocol::ServerMsg;
        let t = text(MAX_MAP_BYTES);
        let chunks = split(&t, WELCOME_CHUNK_BYTES);
        assert!(chunks.len() > 1);
        for c in chunks {
            let len = codec::encoded_len_server(&ServerMsg::MapChunk(c));
            assert!(len <= crate::wire_bytes::IPV4_MIN_PAYLOAD, "{len} bytes");
        }
    }

    #[test]
    fn a_small_map_is_one_chunk() {
        let chunks = split("#S#", WELCOME_CHUNK_BYTES);
        assert_eq!(chunks.len(), 1);
        let mut a = MapAssembler::default();
        a.add(Instant::now(), &chunks[0]).unwrap();
        assert_eq!(a.take(&chunks[0].map).unwrap(), "#S#");
    }

    #[test]
    fn hostile_chunks_are_refused_and_bounded() {
        let now = Instant::now();
        let mut a = MapAssembler::default();
        let good = split(&text(3000), 1000);
        let mut huge = good[0].clone();
        huge.map.len = u32::MAX;
        assert!(matches!(a.add(now, &huge), Err(ChunkError::Bounds { .. })));
        let mut many = good[0].clone();
        many.map.chunks = u16::MAX;
        assert!(a.add(now, &many).is_err());
        let mut beyond = good[0].clone();
        beyond.index = 3;
        assert!(a.add(now, &beyond).is_err());
        // Chunks that add up to more than the map says.
        let mut fat = good[1].clone();
        fat.data = vec![b'#'; 2999];
        a.add(now, &good[0]).unwrap();
        assert!(matches!(a.add(now, &fat), Err(ChunkError::Size(_))));
        // A wrong checksum.
        let mut forged = split(&text(3000), 1000);
        forged[2].data[0] = b'S';
        for c in &forged[..2] {
            a.add(now, c).unwrap();
        }
        assert_eq!(a.add(now, &forged[2]), Err(ChunkError::Corrupt));
        assert_eq!(a.take(&forged[0].map), None);
    }

    #[test]
    fn an_incomplete_map_times_out() {
        let now = Instant::now();
        let chunks = split(&text(3000), 1000);
        let mut a = MapAssembler::default();
        a.add(now, &chunks[0]).unwrap();
        a.add(now, &chunks[1]).unwrap();
        let later = now + TIMEOUT + Duration::from_millis(1);
        // The first two are forgotten: the last alone does not complete the map.
        a.add(later, &chunks[2]).unwrap();
        assert_eq!(a.take(&chunks[0].map), None);
        a.add(later, &chunks[0]).unwrap();
        a.add(later, &chunks[1]).unwrap();
        assert!(a.take(&chunks[0].map).is_some());
    }

    /// A recording's keyframes hold a map being assembled as they did before the one
    /// reassembler: the map, when it began, its chunks, their bytes.
    #[test]
    fn the_saved_form_is_unchanged() {
        type Old = (
            Option<(MapInfo, i64, Vec<Option<Vec<u8>>>, usize)>,
            Option<(MapInfo, String)>,
            Option<MapInfo>,
        );
        let base = Instant::now();
        let chunks = split(&text(3000), 1000);
        let mut a = MapAssembler::default();
        a.add(base + Duration::from_millis(5), &chunks[1]).unwrap();
        let mut bytes = Vec::new();
        crate::instants::with_base(base, || crate::codec::encode_state(&a, &mut bytes)).unwrap();
        let (partial, complete, taken): Old = crate::codec::decode_state(&bytes).unwrap();
        let (map, started_ns, parts, size) = partial.expect("a map being assembled");
        assert_eq!(map, chunks[1].map);
        assert_eq!(started_ns, 5_000_000);
        assert_eq!(parts, [None, Some(chunks[1].data.clone()), None]);
        assert_eq!((size, complete, taken), (1000, None, None));
    }
}
