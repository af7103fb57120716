//! One player as the match knows it: its body (the rulebook's own [`Body`]: position,
//! weapon, cooldown, protection; the part its commands change) and what only the server
//! keeps (health, life, score, respawn time). The world's list of positions is an index
//! of the bodies in play, written wherever a body moves.

use netarena_net::protocol::PlayerStatus;
use netarena_sim::combat::{CombatRules, MAX_HEALTH, Weapon};
use netarena_sim::step::{self, Body, Phase};
use netarena_sim::world::{PlayerId, PlayerState};

#[derive(Clone, Debug)]
pub(super) struct Player {
    /// Everything a command may change, exactly as the client predicts it. Its phase is
    /// the match's to say: read the body through [`Player::body`].
    pub(super) body: Body,
    pub(super) health: i16,
    pub(super) alive: bool,
    pub(super) respawn_at: u32,
    /// The tick of its latest placement: spawn protection's caps count from here.
    pub(super) spawned: u32,
    /// Its newest command said `?` help or the scoreboard is open.
    pub(super) reading: bool,
    pub(super) frags: i16,
    pub(super) deaths: u16,
    /// Who fragged it last this match.
    pub(super) fragged_by: Option<PlayerId>,
    /// Placements by the server (join, respawn, new match), wrapping; told to the client.
    pub(super) placed: u8,
}

impl Player {
    /// A newcomer placed at `at` on `tick`: full health, protected, blaster in hand.
    pub(super) fn joined(at: PlayerState, tick: u32) -> Player {
        Player {
            body: Body::spawned(at, Weapon::Blaster, 0),
            health: MAX_HEALTH,
            alive: true,
            respawn_at: 0,
            spawned: tick,
            reading: false,
            frags: 0,
            deaths: 0,
            fragged_by: None,
            placed: 1,
        }
    }

    /// Placed again at `at` on `tick` after a death or for a new match: full health,
    /// protected, able to fire at once; the weapon stays.
    pub(super) fn respawn(&mut self, at: PlayerState, tick: u32) {
        self.body = Body::spawned(at, self.body.weapon, 0);
        self.alive = true;
        self.health = MAX_HEALTH;
        self.spawned = tick;
        self.placed = self.placed.wrapping_add(1);
    }

    /// The body as its next command sees it, with what that command may do: nothing
    /// between matches (`frozen`), nothing while dead.
    pub(super) fn body(&self, frozen: bool) -> Body {
        let phase = if frozen {
            Phase::Frozen
        } else if self.alive {
            Phase::Playing
        } else {
            Phase::Dead
        };
        Body { phase, ..self.body }
    }

    /// Whether spawn protection holds at `tick` (the one rule: [`step::protection_holds`]).
    pub(super) fn protected_at(&self, tick: u32, rules: &CombatRules) -> bool {
        self.body.protected
            && step::protection_holds(rules, tick.saturating_sub(self.spawned), self.reading)
    }

    /// Whether damage passes at `tick`.
    pub(super) fn vulnerable(&self, tick: u32, rules: &CombatRules) -> bool {
        self.alive && !self.protected_at(tick, rules)
    }

    pub(super) fn status(&self, id: PlayerId) -> PlayerStatus {
        PlayerStatus {
            id,
            health: self.health,
            alive: self.alive,
            frags: self.frags,
            deaths: self.deaths,
            weapon: self.body.weapon,
            protected: self.body.protected,
        }
    }
}
