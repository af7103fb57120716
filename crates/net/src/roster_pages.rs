//! The roster in pages, so that 256 players with long names never make a datagram
//! larger than IPv4's least path carries (548 bytes): the server splits it by a byte
//! budget, the client puts the pages of one serial back together (both through
//! `super::fragments`).
#![doc(hidden)] // Public for the binary, tests or fuzz targets: see the crate docs.

use std::borrow::Cow;

use super::codec;
use super::fragments::{self, Bounds, Piece, Reassembler};
use super::protocol::{RosterEntry, RosterPage};
use super::safe_text;

/// Bytes of entries one page may carry, leaving room for the page's own fields and the
/// seal: a page fits IPv4's least path (548 bytes), as every datagram of the join does.
pub const PAGE_BUDGET: usize =
    super::wire_bytes::IPV4_MIN_PAYLOAD - super::secure::SERVER_SEAL_BYTES - 16;

/// Splits `entries` into pages of at most [`PAGE_BUDGET`] bytes each (at least one page).
pub fn split(serial: u16, entries: &[RosterEntry]) -> Vec<RosterPage> {
    let mut pages = fragments::pack(entries.iter().map(codec::encoded_len), PAGE_BUDGET);
    pages.truncate(usize::from(u8::MAX));
    let parts = pages.len() as u8;
    pages
        .into_iter()
        .enumerate()
        .map(|(part, range)| RosterPage {
            serial,
            part: part as u8,
            parts,
            entries: entries[range].to_vec(),
        })
        .collect()
}

/// Most entries a whole roster may have: one per player id.
const MAX_ENTRIES: usize = 256;
/// A roster is at most this: as many pages as a page's count can say, entries for
/// every player id.
const BOUNDS: Bounds = Bounds {
    parts: u8::MAX as usize,
    size: MAX_ENTRIES,
};

/// Collects the pages of the newest roster; a page of another serial starts over.
/// Saved (in a recording's keyframes) as it always was, a serial and its pages.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct RosterPages {
    #[serde(with = "saved")]
    pages: Reassembler<u16, Vec<RosterEntry>>,
}

impl RosterPages {
    /// Adds a page; the whole roster once its last page is in. A page no honest server
    /// sends is dropped. A roster has no timeout: a newer serial replaces it.
    pub fn add(&mut self, page: RosterPage) -> Option<Vec<RosterEntry>> {
        let piece = Piece {
            key: page.serial,
            index: usize::from(page.part),
            count: usize::from(page.parts),
            size: page.entries.len(),
            part: page.entries,
        };
        let whole = self.pages.add((), BOUNDS, piece).ok()??;
        let mut roster = whole.concat();
        // Names are drawn: made safe here, whatever the server let through.
        for entry in &mut roster {
            if let Cow::Owned(safe) = safe_text::safe(&entry.name) {
                entry.name = safe;
            }
        }
        Some(roster)
    }
}

/// The saved form: `(serial, pages)`, no pages when no roster is being collected.
mod saved {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use super::{Reassembler, RosterEntry};

    type Pages = Vec<Option<Vec<RosterEntry>>>;

    pub(super) fn serialize<S: Serializer>(
        r: &Reassembler<u16, Vec<RosterEntry>>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        let (serial, pages) = r.parts().map_or((0, &[][..]), |(k, p)| (*k, p));
        (serial, pages).serialize(s)
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Reassembler<u16, Vec<RosterEntry>>, D::Error> {
        let (serial, pages) = <(u16, Pages)>::deserialize(d)?;
        if pages.is_empty() {
            return Ok(Reassembler::default());
        }
        let size = pages.iter().flatten().map(Vec::len).sum();
        Ok(Reassembler::resume(serial, (), pages, size))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roster(n: u8) -> Vec<RosterEntry> {
        (0..n)
            .map(|id| RosterEntry {
                id,
                name: "ñ".repeat(16),
                bot: false,
                ping_ms: u16::MAX,
            })
            .collect()
    }

    #[test]
    fn a_full_roster_splits_into_small_pages_and_back() {
        let all = roster(255);
        let pages = split(7, &all);
        assert!(pages.len() > 1);
        for p in &pages {
            let msg = super::super::protocol::ServerMsg::Roster(p.clone());
            let len = codec::encoded_len_server(&msg);
            assert!(len <= crate::wire_bytes::IPV4_MIN_PAYLOAD, "{len} bytes");
        }
        let mut r = RosterPages::default();
        let mut got = None;
        for p in pages.into_iter().rev() {
            assert!(got.is_none());
            got = r.add(p);
        }
        assert_eq!(got, Some(all));
    }

    #[test]
    fn pages_of_an_older_roster_do_not_mix() {
        let mut r = RosterPages::default();
        let old = split(1, &roster(200));
        let new = split(2, &roster(3));
        assert!(r.add(old[0].clone()).is_none());
        assert_eq!(r.add(new[0].clone()), Some(roster(3)));
        assert!(r.add(old[1].clone()).is_none());
        let mut bad = new[0].clone();
        bad.part = 5;
        assert!(r.add(bad).is_none());
    }

    /// A roster of more entries than there are player ids is dropped as soon as a page
    /// takes it past the bound, not held until its last page.
    #[test]
    fn a_roster_past_its_bound_is_dropped_at_once() {
        let mut r = RosterPages::default();
        let page = |part, entries| RosterPage {
            serial: 9,
            part,
            parts: 3,
            entries,
        };
        assert!(r.add(page(0, roster(200))).is_none());
        assert!(r.pages.collecting());
        assert!(r.add(page(1, roster(100))).is_none());
        assert!(!r.pages.collecting(), "300 entries held");
        assert!(r.add(page(2, roster(1))).is_none());
        let mut zero = page(0, roster(1));
        zero.parts = 0;
        assert!(r.add(zero).is_none());
    }

    /// A recording's keyframes hold the roster being collected as they always did, a
    /// serial and its pages, so recordings made before the one reassembler replay.
    #[test]
    fn the_saved_form_is_a_serial_and_its_pages() {
        let mut r = RosterPages::default();
        let pages = split(4, &roster(255));
        r.add(pages[1].clone());
        let mut bytes = Vec::new();
        codec::encode_state(&r, &mut bytes).unwrap();
        let (serial, saved): (u16, Vec<Option<Vec<RosterEntry>>>) =
            codec::decode_state(&bytes).unwrap();
        assert_eq!(serial, 4);
        assert_eq!(saved.len(), pages.len());
        assert_eq!(saved[1].as_ref(), Some(&pages[1].entries));
        let mut back: RosterPages = codec::decode_state(&bytes).unwrap();
        let mut whole = None;
        for p in pages.iter().filter(|p| p.part != 1) {
            whole = back.add(p.clone());
        }
        assert_eq!(
            whole,
            Some(roster(255)),
            "collecting goes on where it was saved"
        );
    }
}
