//! The tell: a muzzle flash drawn the moment a command fires, without waiting a round
//! trip for the server. The rulebook decides whether the command fires, with the same
//! cooldown and switch delay the server applies, so the flash shows exactly the shots
//! the server will make.

use std::time::Instant;

#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct Tell {
    /// The last flash shown: when, and which way.
    #[serde(with = "crate::net::instants")]
    pub(crate) muzzle: Option<(Instant, u8)>,
}

impl Tell {
    /// A predicted shot left at `now`, aiming `aim`.
    pub(crate) fn flash(&mut self, now: Instant, aim: u8) {
        self.muzzle = Some((now, aim));
    }
}
