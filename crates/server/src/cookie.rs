//! Stateless connection cookies.
//!
//! A connect request from an address we have never heard from gets only a challenge: a
//! cookie that is a keyed hash of the address and the current time window. The server
//! remembers nothing. Only a request that echoes a valid cookie, which proves the sender
//! receives at that address, gets a player slot. Spoofed floods therefore cost no memory
//! and, since a challenge is smaller than the padded request, cannot be amplified.

use std::collections::{HashSet, VecDeque};
use std::hash::Hasher;
use std::net::{IpAddr, SocketAddr};

use siphasher::sip::SipHasher24;
use subtle::ConstantTimeEq;

use netarena_net::protocol::Cookie;

/// Length of one cookie time window. A cookie is good in its window and the next, so for
/// 8 to 16 seconds: ample for one round trip, short enough that a captured cookie dies.
pub(crate) const WINDOW_SECS: u64 = 8;

#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub(crate) enum CookieError {
    #[error("cookie does not match this address")]
    Forged,
    #[error("cookie has expired")]
    Expired,
    #[error("cookie was already used")]
    Replayed,
}

pub(crate) struct CookieJar {
    /// A per-process random 128-bit SipHash-2-4 key, drawn from the operating system's
    /// generator: cookies cannot be computed off this server.
    key: [u8; 16],
    /// Cookies already redeemed, with their window, oldest first; pruned as windows pass.
    used: VecDeque<(u32, u64)>,
    used_set: HashSet<u64>,
    issued: u32,
}

impl Default for CookieJar {
    fn default() -> Self {
        CookieJar {
            key: rand::random(),
            used: VecDeque::new(),
            used_set: HashSet::new(),
            issued: 0,
        }
    }
}

impl CookieJar {
    /// SipHash-2-4, a keyed pseudo-random function made to authenticate short messages,
    /// over a fixed encoding of the address, window and nonce: 64 bits.
    fn mac(&self, addr: SocketAddr, window: u32, nonce: u32) -> u64 {
        let mut h = SipHasher24::new_with_key(&self.key);
        match addr.ip() {
            IpAddr::V4(v4) => {
                h.write_u8(4);
                h.write(&v4.octets());
            }
            IpAddr::V6(v6) => {
                h.write_u8(6);
                h.write(&v6.octets());
            }
        }
        h.write(&addr.port().to_le_bytes());
        h.write(&window.to_le_bytes());
        h.write(&nonce.to_le_bytes());
        h.finish()
    }

    /// Whether `cookie` carries the MAC this jar gives it, compared in constant time.
    fn authentic(&self, addr: SocketAddr, cookie: Cookie) -> bool {
        let expected = self.mac(addr, cookie.window, cookie.nonce).to_le_bytes();
        bool::from(expected.ct_eq(&cookie.mac.to_le_bytes()))
    }

    /// A fresh cookie for `addr`. Each differs (a counter goes into the hash), so an
    /// address that leaves and rejoins within a window is not taken for a replay.
    pub(crate) fn issue(&mut self, addr: SocketAddr, window: u32) -> Cookie {
        self.issued = self.issued.wrapping_add(1);
        Cookie {
            window,
            nonce: self.issued,
            mac: self.mac(addr, window, self.issued),
        }
    }

    /// Checks a cookie echoed from `addr` in window `now`, and spends it.
    pub(crate) fn redeem(
        &mut self,
        addr: SocketAddr,
        cookie: Cookie,
        now: u32,
    ) -> Result<(), CookieError> {
        if !self.authentic(addr, cookie) {
            return Err(CookieError::Forged);
        }
        if cookie.window > now || now - cookie.window > 1 {
            return Err(CookieError::Expired);
        }
        while self
            .used
            .front()
            .is_some_and(|(w, _)| now - (*w).min(now) > 1)
        {
            if let Some((_, mac)) = self.used.pop_front() {
                self.used_set.remove(&mac);
            }
        }
        if !self.used_set.insert(cookie.mac) {
            return Err(CookieError::Replayed);
        }
        self.used.push_back((cookie.window, cookie.mac));
        Ok(())
    }

    /// Cookies remembered as spent (bounded by the connect rate limit and two windows).
    #[cfg(test)]
    pub(crate) fn spent(&self) -> usize {
        self.used.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn addr(s: &str) -> SocketAddr {
        s.parse().unwrap()
    }

    #[test]
    fn a_cookie_is_good_once_for_its_address_for_two_windows() {
        let mut jar = CookieJar::default();
        let a = addr("10.0.0.1:5000");
        let c = jar.issue(a, 10);
        assert_eq!(
            jar.redeem(addr("10.0.0.2:5000"), c, 10),
            Err(CookieError::Forged)
        );
        assert_eq!(
            jar.redeem(addr("10.0.0.1:5001"), c, 10),
            Err(CookieError::Forged)
        );
        assert_eq!(jar.redeem(a, c, 11), Ok(()));
        assert_eq!(jar.redeem(a, c, 11), Err(CookieError::Replayed));
        let late = jar.issue(a, 12);
        assert_eq!(jar.redeem(a, late, 14), Err(CookieError::Expired));
        let forged = Cookie {
            mac: late.mac ^ 1,
            ..late
        };
        assert_eq!(jar.redeem(a, forged, 12), Err(CookieError::Forged));
        let again = jar.issue(a, 11);
        assert_eq!(
            jar.redeem(a, again, 11),
            Ok(()),
            "a new cookie, same address"
        );
    }

    #[test]
    fn jars_have_their_own_keys() {
        let a = addr("10.0.0.1:5000");
        let mut one = CookieJar::default();
        let mut other = CookieJar::default();
        let c = one.issue(a, 3);
        assert_eq!(other.redeem(a, c, 3), Err(CookieError::Forged));
        assert_eq!(one.redeem(a, c, 3), Ok(()));
    }

    #[test]
    fn the_mac_is_siphash_2_4_of_a_fixed_encoding() {
        // The MAC is exactly SipHash-2-4 of this byte layout: the address family, the
        // octets, then port, window and nonce little-endian (stable across Rust versions).
        let jar = CookieJar {
            key: std::array::from_fn(|i| i as u8),
            ..CookieJar::default()
        };
        let mut message = vec![4u8, 10, 0, 0, 1];
        message.extend_from_slice(&5000u16.to_le_bytes());
        message.extend_from_slice(&7u32.to_le_bytes());
        message.extend_from_slice(&9u32.to_le_bytes());
        let mut h = SipHasher24::new_with_key(&jar.key);
        h.write(&message);
        assert_eq!(jar.mac(addr("10.0.0.1:5000"), 7, 9), h.finish());
        assert_ne!(jar.mac(addr("10.0.0.1:5000"), 7, 10), h.finish());
    }

    #[test]
    fn spent_cookies_are_forgotten_once_expired() {
        let mut jar = CookieJar::default();
        for i in 0..100 {
            let a = SocketAddr::from(([10, 0, 0, 1], 1000 + i));
            let c = jar.issue(a, 5);
            jar.redeem(a, c, 5).unwrap();
        }
        assert_eq!(jar.spent(), 100);
        let a = addr("10.9.9.9:1");
        let c = jar.issue(a, 9);
        jar.redeem(a, c, 9).unwrap();
        assert_eq!(jar.spent(), 1);
    }
}
