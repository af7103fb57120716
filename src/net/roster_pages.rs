//! The roster in pages, so that 256 players with long names never make a datagram
//! larger than [`super::codec::MAX_SERVER_DATAGRAM`]: the server splits it by a byte
//! budget, the client puts the pages of one serial back together.
#![doc(hidden)] // Public for the binary, tests or fuzz targets: see the crate docs.

use super::codec;
use super::protocol::{RosterEntry, RosterPage};

/// Bytes of entries one page may carry, leaving room for the page's own fields.
pub const PAGE_BUDGET: usize = codec::MAX_SERVER_DATAGRAM - 16;

/// Splits `entries` into pages of at most [`PAGE_BUDGET`] bytes each (at least one page).
pub fn split(serial: u16, entries: &[RosterEntry]) -> Vec<RosterPage> {
    let mut groups: Vec<Vec<RosterEntry>> = vec![Vec::new()];
    let mut used = 0;
    for e in entries {
        let len = codec::encoded_len(e);
        let current = groups.last_mut().expect("never empty");
        if used + len > PAGE_BUDGET && !current.is_empty() {
            groups.push(Vec::new());
            used = 0;
        }
        used += len;
        groups.last_mut().expect("never empty").push(e.clone());
    }
    let parts = groups.len().min(usize::from(u8::MAX)) as u8;
    groups
        .into_iter()
        .take(usize::from(parts))
        .enumerate()
        .map(|(part, entries)| RosterPage {
            serial,
            part: part as u8,
            parts,
            entries,
        })
        .collect()
}

/// Collects the pages of the newest roster; a page of another serial starts over.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct RosterPages {
    serial: u16,
    pages: Vec<Option<Vec<RosterEntry>>>,
}

/// Most entries a whole roster may have: one per player id.
const MAX_ENTRIES: usize = 256;

impl RosterPages {
    /// Adds a page; the whole roster once its last page is in.
    pub fn add(&mut self, page: RosterPage) -> Option<Vec<RosterEntry>> {
        if page.parts == 0 || page.part >= page.parts {
            return None;
        }
        if page.serial != self.serial || self.pages.len() != usize::from(page.parts) {
            self.serial = page.serial;
            self.pages = vec![None; usize::from(page.parts)];
        }
        self.pages[usize::from(page.part)] = Some(page.entries);
        if !self.pages.iter().all(Option::is_some) {
            return None;
        }
        let all: Vec<RosterEntry> = self.pages.drain(..).flatten().flatten().collect();
        (all.len() <= MAX_ENTRIES).then_some(all)
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
            assert!(codec::encoded_len_server(&msg) <= codec::MAX_SERVER_DATAGRAM);
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
}
