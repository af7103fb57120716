//! The tell: a muzzle flash drawn the moment fire is pressed, without waiting a round
//! trip for the server, when the weapon is ready by the client's own count.

use std::time::{Duration, Instant};

#[derive(Clone, Debug, Default)]
pub(crate) struct Tell {
    /// When our weapon is ready again by our own count.
    next_fire: Option<Instant>,
    /// The last flash shown: when, and which way.
    pub(crate) muzzle: Option<(Instant, u8)>,
}

impl Tell {
    /// Fire pressed at `now`, aiming `aim`: flashes if the weapon is ready, which it
    /// then is not again for `cooldown`.
    pub(crate) fn fire(&mut self, now: Instant, aim: u8, cooldown: Duration) {
        if self.next_fire.is_none_or(|t| now >= t) {
            self.next_fire = Some(now + cooldown);
            self.muzzle = Some((now, aim));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flashes_once_per_cooldown() {
        let t0 = Instant::now();
        let mut t = Tell::default();
        let cooldown = Duration::from_millis(500);
        t.fire(t0, 2, cooldown);
        assert_eq!(t.muzzle, Some((t0, 2)));
        t.fire(t0 + Duration::from_millis(100), 4, cooldown);
        assert_eq!(t.muzzle, Some((t0, 2)), "not ready yet");
        let later = t0 + cooldown;
        t.fire(later, 4, cooldown);
        assert_eq!(t.muzzle, Some((later, 4)));
    }
}
