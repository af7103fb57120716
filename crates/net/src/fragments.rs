//! A whole too big for one datagram, sent as numbered parts and put back together: map
//! texts ([`super::map_chunks`]) and rosters ([`super::roster_pages`]) both travel so.
//!
//! [`pack`] cuts a run of items into parts under a byte budget. A [`Reassembler`] holds
//! one whole at a time: parts come in any order, a duplicate is ignored, a part of
//! another whole starts over, and what no honest sender sends (a count of zero or over
//! the bound, an index past the count, parts adding up to more than the bound) is
//! refused and forgotten. Nothing a peer sends can make it panic or hold more than its
//! bounds. Pure: the caller gives the time.

use std::ops::Range;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

/// Cuts items of these sizes into consecutive parts of at most `budget` each (an item
/// larger than the budget gets a part of its own); at least one part, empty for no
/// items.
pub(crate) fn pack(sizes: impl IntoIterator<Item = usize>, budget: usize) -> Vec<Range<usize>> {
    let mut parts = Vec::new();
    parts.push(0..0);
    let mut used = 0;
    for (i, size) in sizes.into_iter().enumerate() {
        let current = parts.last_mut().expect("never empty");
        if used + size > budget && current.end > current.start {
            parts.push(i..i);
            used = 0;
        }
        used += size;
        parts.last_mut().expect("never empty").end = i + 1;
    }
    parts
}

/// What one whole may come to: at most `parts` parts of `size` in all (in whatever
/// unit the caller counts: bytes, entries).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Bounds {
    pub(crate) parts: usize,
    pub(crate) size: usize,
}

/// One part as it arrived: part `index` of the `count` parts of the whole `key`, and
/// what it counts against [`Bounds::size`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Piece<K, P> {
    pub(crate) key: K,
    pub(crate) index: usize,
    pub(crate) count: usize,
    pub(crate) part: P,
    pub(crate) size: usize,
}

/// Why a part was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum FragmentError {
    #[error("part {index} of {count} is out of bounds")]
    OutOfRange { index: usize, count: usize },
    #[error("parts of {size} in all would pass the bound of {bound}")]
    TooLarge { size: usize, bound: usize },
}

/// When a whole's first part came, for a whole that may time out (a map; a roster has
/// no timeout and keeps `()`). Saved as its instant is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Started(#[serde(with = "crate::instants")] pub Instant);

/// The whole being collected: which one (`key`), since when, the parts so far and
/// their size.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct Partial<K, P, T> {
    key: K,
    started: T,
    parts: Vec<Option<P>>,
    size: usize,
}

/// Collects the parts of one whole at a time, keyed by `K`; parts are `P`; `T` says
/// when the whole began ([`Started`]) where it may time out.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Reassembler<K, P, T = ()>(Option<Partial<K, P, T>>);

impl<K, P, T> Default for Reassembler<K, P, T> {
    fn default() -> Self {
        Reassembler(None)
    }
}

impl<K: PartialEq, P, T> Reassembler<K, P, T> {
    /// Adds a piece; `now` is kept if it begins a whole. The whole, its parts in order,
    /// once the last one is in. A piece that would take the whole past its size bound
    /// drops the whole.
    pub(crate) fn add(
        &mut self,
        now: T,
        bounds: Bounds,
        piece: Piece<K, P>,
    ) -> Result<Option<Vec<P>>, FragmentError> {
        let Piece {
            key,
            index,
            count,
            part,
            size,
        } = piece;
        if count == 0 || count > bounds.parts || index >= count {
            return Err(FragmentError::OutOfRange { index, count });
        }
        if size > bounds.size {
            return Err(FragmentError::TooLarge {
                size,
                bound: bounds.size,
            });
        }
        let partial = match &mut self.0 {
            Some(p) if p.key == key && p.parts.len() == count => p,
            slot => slot.insert(Partial {
                key,
                started: now,
                parts: std::iter::repeat_with(|| None).take(count).collect(),
                size: 0,
            }),
        };
        if partial.parts[index].is_some() {
            return Ok(None);
        }
        if partial.size + size > bounds.size {
            let size = partial.size + size;
            self.0 = None;
            return Err(FragmentError::TooLarge {
                size,
                bound: bounds.size,
            });
        }
        partial.size += size;
        partial.parts[index] = Some(part);
        if !partial.parts.iter().all(Option::is_some) {
            return Ok(None);
        }
        let whole = self
            .0
            .take()
            .map(|p| p.parts.into_iter().flatten().collect());
        Ok(whole)
    }

    /// True while a whole is incomplete.
    #[cfg(test)]
    pub(crate) fn collecting(&self) -> bool {
        self.0.is_some()
    }

    /// The key of the whole being collected and its parts so far (for a saved form).
    pub(crate) fn parts(&self) -> Option<(&K, &[Option<P>])> {
        self.0.as_ref().map(|p| (&p.key, p.parts.as_slice()))
    }

    /// Collecting `key` from `started`, with these parts in (a saved form read back);
    /// `size` is what they count.
    pub(crate) fn resume(key: K, started: T, parts: Vec<Option<P>>, size: usize) -> Self {
        Reassembler(Some(Partial {
            key,
            started,
            parts,
            size,
        }))
    }
}

impl<K, P> Reassembler<K, P, Started> {
    /// Forgets a whole still incomplete `timeout` after its first part.
    pub(crate) fn expire(&mut self, now: Instant, timeout: Duration) {
        if self
            .0
            .as_ref()
            .is_some_and(|p| now.saturating_duration_since(p.started.0) > timeout)
        {
            self.0 = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    const BOUNDS: Bounds = Bounds {
        parts: 8,
        size: 100,
    };

    fn piece<P>(key: char, index: usize, count: usize, part: P, size: usize) -> Piece<char, P> {
        Piece {
            key,
            index,
            count,
            part,
            size,
        }
    }

    #[test]
    fn packing_keeps_every_part_under_the_budget() {
        assert_eq!(pack([], 10), std::iter::once(0..0).collect::<Vec<_>>());
        assert_eq!(pack([1; 25], 10), [0..10, 10..20, 20..25]);
        assert_eq!(pack([4, 4, 4, 30, 1], 10), [0..2, 2..3, 3..4, 4..5]);
    }

    #[test]
    fn parts_in_any_order_with_duplicates_make_the_whole_once() {
        let now = ();
        let mut r = Reassembler::default();
        for i in [2, 0, 2, 0] {
            assert_eq!(r.add(now, BOUNDS, piece('a', i, 3, i, 1)), Ok(None));
        }
        assert_eq!(
            r.add(now, BOUNDS, piece('a', 1, 3, 1, 1)),
            Ok(Some(vec![0, 1, 2]))
        );
        assert!(!r.collecting());
    }

    #[test]
    fn hostile_parts_are_refused() {
        let now = ();
        let mut r = Reassembler::default();
        let out = |index, count| Err(FragmentError::OutOfRange { index, count });
        assert_eq!(r.add(now, BOUNDS, piece('a', 0, 0, (), 1)), out(0, 0));
        assert_eq!(r.add(now, BOUNDS, piece('a', 3, 3, (), 1)), out(3, 3));
        assert_eq!(
            r.add(now, BOUNDS, piece('a', 0, usize::MAX, (), 1)),
            out(0, usize::MAX)
        );
        assert!(r.add(now, BOUNDS, piece('a', 0, 2, (), 101)).is_err());
        assert_eq!(r.add(now, BOUNDS, piece('a', 0, 2, (), 60)), Ok(None));
        assert!(r.add(now, BOUNDS, piece('a', 1, 2, (), 60)).is_err());
        assert!(!r.collecting(), "a whole past its size is dropped");
    }

    #[test]
    fn another_whole_starts_over_and_an_old_one_expires() {
        let now = Started(Instant::now());
        let mut r = Reassembler::default();
        r.add(now, BOUNDS, piece('a', 0, 2, 0, 1)).unwrap();
        r.add(now, BOUNDS, piece('b', 0, 2, 10, 1)).unwrap();
        assert_eq!(
            r.add(now, BOUNDS, piece('a', 1, 2, 1, 1)),
            Ok(None),
            "a's first part is gone"
        );
        let later = now.0 + Duration::from_secs(2);
        r.expire(later, Duration::from_secs(1));
        assert!(!r.collecting());
    }

    proptest! {
        /// Whatever parts arrive, in whatever order, nothing panics, what is held stays
        /// within the bounds, and a whole that comes out is made of one part per index.
        #[test]
        fn any_parts_stay_bounded(
            parts in proptest::collection::vec(
                (proptest::char::range('a', 'c'), 0usize..12, 0usize..12, 0usize..120),
                0..64,
            )
        ) {
            let now = ();
            let mut r = Reassembler::default();
            for (key, index, count, size) in parts {
                let whole = r.add(now, BOUNDS, piece(key, index, count, index, size));
                let in_order = (0..count).collect::<Vec<_>>();
                prop_assert!(whole.clone().ok().flatten().is_none_or(|w| w == in_order), "{whole:?}");
                prop_assert!(r.parts().is_none_or(|(_, held)| held.len() <= BOUNDS.parts));
                prop_assert!(r.0.as_ref().is_none_or(|p| p.size <= BOUNDS.size));
            }
        }
    }
}
