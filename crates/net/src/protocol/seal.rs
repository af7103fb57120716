//! The proof that a client datagram comes from its session.
//!
//! A client picks a random [`SessionKey`] (a 32-bit id and a 128-bit key) and sends it
//! in its connect request, after the cookie exchange has shown that it receives at its
//! address. From then on every message of the session (input, chat, leave) travels as a
//! [`Sealed`] datagram: the session id, a counter that never repeats, the message's
//! bytes and a 64-bit tag, SipHash-2-4 keyed with the session key over all three. The
//! server finds the session by its id (not by the sender's address), checks the tag in
//! constant time and refuses a counter it has already seen ([`ReplayWindow`]).
//!
//! The key travels in clear: this stops anyone who has not seen the handshake (every
//! spoofer off the path), not an observer on it. docs/SECURITY.md says what that means.

use std::hash::Hasher;

use serde::{Deserialize, Serialize};
use siphasher::sip::SipHasher24;
use subtle::ConstantTimeEq;

/// Bytes of the tag on every sealed datagram.
pub const TAG_BYTES: usize = 8;
/// Counters remembered as seen behind the newest, so a late datagram is taken once.
pub const REPLAY_WINDOW: u32 = 64;

/// A session's id and key, chosen by the client. Its `Debug` does not show the key.
#[derive(Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionKey {
    #[serde(with = "fixed_u32")]
    pub id: u32,
    pub key: [u8; 16],
}

impl std::fmt::Debug for SessionKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SessionKey {{ id: {:08x}, key: .. }}", self.id)
    }
}

/// A session message with its proof: see the module docs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sealed {
    #[serde(with = "fixed_u32")]
    pub session: u32,
    /// Counts the session's sealed datagrams from 1; never repeats.
    #[serde(with = "fixed_u32")]
    pub seq: u32,
    /// The encoded message (an input packet, a chat line or a leave).
    pub body: Vec<u8>,
    pub tag: [u8; TAG_BYTES],
}

impl SessionKey {
    /// A fresh session from the operating system's generator.
    pub fn random() -> SessionKey {
        SessionKey {
            id: rand::random(),
            key: rand::random(),
        }
    }

    /// A session fixed by `seed`, for clients that live in the same process as their
    /// server (tests, the lab, benchmarks), where nothing is secret anyway.
    pub(crate) fn derived(seed: &[u8]) -> SessionKey {
        let half = |salt: u8| {
            let mut h = SipHasher24::new_with_keys(0x6e61_7265_6e61, u64::from(salt));
            h.write(seed);
            h.finish().to_le_bytes()
        };
        let (a, b) = (half(1), half(2));
        let mut key = [0; 16];
        key[..8].copy_from_slice(&a);
        key[8..].copy_from_slice(&b);
        SessionKey {
            id: u32::from_le_bytes([a[0] ^ b[4], a[1] ^ b[5], a[2] ^ b[6], a[3] ^ b[7]]),
            key,
        }
    }

    /// SipHash-2-4 under the session key over a fixed layout: a label, the session id,
    /// the counter (both little-endian) and the body.
    fn tag(&self, seq: u32, body: &[u8]) -> [u8; TAG_BYTES] {
        let mut h = SipHasher24::new_with_key(&self.key);
        h.write(b"netarena sealed v5");
        h.write(&self.id.to_le_bytes());
        h.write(&seq.to_le_bytes());
        h.write(body);
        h.finish().to_le_bytes()
    }

    pub(crate) fn seal(&self, seq: u32, body: Vec<u8>) -> Sealed {
        Sealed {
            session: self.id,
            seq,
            tag: self.tag(seq, &body),
            body,
        }
    }

    /// Whether `sealed` is this session's and its tag is right (compared in constant
    /// time, so timing does not tell a forger how much of a guess was right).
    pub fn verify(&self, sealed: &Sealed) -> bool {
        sealed.session == self.id
            && bool::from(self.tag(sealed.seq, &sealed.body).ct_eq(&sealed.tag))
    }

    /// Whether `other` holds the same key (constant time).
    pub fn same_as(&self, other: &SessionKey) -> bool {
        self.id == other.id && bool::from(self.key.ct_eq(&other.key))
    }
}

/// The counters a session has used: each is taken once, and one further behind the
/// newest than [`REPLAY_WINDOW`] is refused, so a recorded datagram can never be played
/// back.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReplayWindow {
    high: u32,
    /// Bit k set: counter `high - k` has been taken.
    seen: u64,
}

/// What a counter is to a [`ReplayWindow`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Freshness {
    /// Newer than any so far.
    Newest,
    /// Older, but within the window and not seen yet (reordered).
    Late,
    /// Seen already, or too old to tell.
    Replayed,
}

impl ReplayWindow {
    pub fn check(&self, seq: u32) -> Freshness {
        if seq > self.high {
            return Freshness::Newest;
        }
        let age = self.high - seq;
        if seq == 0 || age >= REPLAY_WINDOW || self.seen & (1 << age) != 0 {
            Freshness::Replayed
        } else {
            Freshness::Late
        }
    }

    /// Marks `seq` as taken; call only after [`ReplayWindow::check`] said it is fresh.
    pub fn take(&mut self, seq: u32) {
        if seq > self.high {
            let shift = seq - self.high;
            self.seen = if shift >= REPLAY_WINDOW {
                0
            } else {
                self.seen << shift
            };
            self.seen |= 1;
            self.high = seq;
        } else {
            let age = self.high - seq;
            if age < REPLAY_WINDOW {
                self.seen |= 1 << age;
            }
        }
    }
}

/// A `u32` as four little-endian bytes, not a varint: sealed datagrams and the answer
/// to an unknown one have sizes that do not depend on the values.
pub(crate) mod fixed_u32 {
    use serde::{Deserialize, Deserializer, Serializer};

    pub(crate) fn serialize<S: Serializer>(v: &u32, s: S) -> Result<S::Ok, S::Error> {
        serde::Serialize::serialize(&v.to_le_bytes(), s)
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
        <[u8; 4]>::deserialize(d).map(u32::from_le_bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seal_verifies_only_unchanged_and_under_its_key() {
        let key = SessionKey::random();
        let sealed = key.seal(7, vec![2]);
        assert!(key.verify(&sealed));
        let mut other = key;
        other.key[3] ^= 1;
        assert!(!other.verify(&sealed), "another key");
        for tampered in [
            Sealed {
                seq: 8,
                ..sealed.clone()
            },
            Sealed {
                body: vec![3],
                ..sealed.clone()
            },
            Sealed {
                session: sealed.session ^ 1,
                ..sealed.clone()
            },
            Sealed {
                tag: [0; TAG_BYTES],
                ..sealed.clone()
            },
        ] {
            assert!(!key.verify(&tampered), "{tampered:?}");
        }
        assert!(format!("{key:?}").contains("key: ..") && !format!("{key:?}").contains('['));
    }

    #[test]
    fn the_tag_is_siphash_2_4_of_a_fixed_layout() {
        let key = SessionKey {
            id: 0x0102_0304,
            key: std::array::from_fn(|i| i as u8),
        };
        let mut message = b"netarena sealed v5".to_vec();
        message.extend_from_slice(&[4, 3, 2, 1, 9, 0, 0, 0, 0xAA]);
        let mut h = SipHasher24::new_with_key(&key.key);
        h.write(&message);
        assert_eq!(key.seal(9, vec![0xAA]).tag, h.finish().to_le_bytes());
    }

    #[test]
    fn each_counter_is_taken_once() {
        let mut w = ReplayWindow::default();
        assert_eq!(w.check(0), Freshness::Replayed, "counters start at 1");
        for seq in [1, 3, 2, 70] {
            assert_ne!(w.check(seq), Freshness::Replayed, "{seq}");
            w.take(seq);
            assert_eq!(w.check(seq), Freshness::Replayed, "{seq} again");
        }
        assert_eq!(w.check(69), Freshness::Late);
        assert_eq!(w.check(7), Freshness::Late, "63 behind the newest");
        assert_eq!(w.check(6), Freshness::Replayed, "too old to tell");
        assert_eq!(w.check(71), Freshness::Newest);
    }

    #[test]
    fn derived_sessions_differ_by_seed_and_repeat() {
        assert_eq!(SessionKey::derived(b"a"), SessionKey::derived(b"a"));
        assert_ne!(SessionKey::derived(b"a").id, SessionKey::derived(b"b").id);
    }
}
