//! The receiving player's own rule state, as each snapshot carries it.

use serde::{Deserialize, Serialize};

use netarena_sim::combat::Weapon;
use netarena_sim::step::{Body, Phase};
use netarena_sim::world::PlayerState;

/// The receiving player's own rule state after the command the snapshot acknowledges:
/// what the client needs, beside its position, to replay its later commands exactly
/// with [`netarena_sim::step::step`]. One byte on the wire (the flags), two while the
/// weapon cools down: `ready_in` travels only when it is not zero, LEB128, one byte
/// below 128 (the snapshot's wire form, `net/wire_snapshot.rs`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct OwnBody {
    /// Bits 0-1: phase (0 playing, 1 dead, 2 frozen); bit 2: the weapon's index; bit 3:
    /// spawn protected; bit 4: every event the server has for this client is in this
    /// snapshot (none held back for size); bits 5-7: the server's count of placements
    /// of this player (joins, respawns, teleports, new matches), wrapping: a change
    /// says a jump was decreed, not mispredicted (eight placements never fit between
    /// two snapshots).
    pub flags: u8,
    /// Commands after `ack_seq` until the weapon may fire (0: ready).
    pub ready_in: u16,
}

// A third weapon needs a wider weapon field in the flags.
const _: () = assert!(Weapon::INDEX_BITS == 1);

impl OwnBody {
    /// The weapon's index sits at bit 2, in one bit (checked below).
    const WEAPON_SHIFT: u8 = 2;
    const PROTECTED: u8 = 8;
    const EVENTS_COMPLETE: u8 = 16;
    const PLACED_SHIFT: u8 = 5;

    /// Packs `body` as it is after command `ack_seq`.
    pub fn pack(body: &Body, ack_seq: u32, placed: u8, events_complete: bool) -> OwnBody {
        let phase = match body.phase {
            Phase::Playing => 0,
            Phase::Dead => 1,
            Phase::Frozen => 2,
        };
        let mut flags = phase | (placed << Self::PLACED_SHIFT);
        flags |= body.weapon.index() << Self::WEAPON_SHIFT;
        if body.protected {
            flags |= Self::PROTECTED;
        }
        if events_complete {
            flags |= Self::EVENTS_COMPLETE;
        }
        let ready_in = body.ready_at.saturating_sub(ack_seq);
        OwnBody {
            flags,
            ready_in: u16::try_from(ready_in).unwrap_or(u16::MAX),
        }
    }

    /// The server's placement count, modulo 8.
    pub fn placed(&self) -> u8 {
        self.flags >> Self::PLACED_SHIFT
    }

    /// The body after command `ack_seq` at `state`. Any byte decodes to some body.
    pub fn body(&self, state: PlayerState, ack_seq: u32) -> Body {
        Body {
            state,
            phase: match self.flags & 3 {
                0 => Phase::Playing,
                1 => Phase::Dead,
                _ => Phase::Frozen,
            },
            weapon: Weapon::from_index(self.flags >> Self::WEAPON_SHIFT & 1),
            ready_at: ack_seq.saturating_add(u32::from(self.ready_in)),
            protected: self.flags & Self::PROTECTED != 0,
        }
    }

    pub fn events_complete(&self) -> bool {
        self.flags & Self::EVENTS_COMPLETE != 0
    }
}
