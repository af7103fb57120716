//! Brains for the headless client: they turn what a player sees of itself into
//! commands, fed through the same path a human's keys take.

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg32;

use crate::sim::combat::aim_of;
use crate::sim::world::{Buttons, Command, PlayerState};

const DIRECTIONS: [Buttons; 8] = [
    Buttons::UP,
    Buttons::DOWN,
    Buttons::LEFT,
    Buttons::RIGHT,
    Buttons::UP.union(Buttons::LEFT),
    Buttons::UP.union(Buttons::RIGHT),
    Buttons::DOWN.union(Buttons::LEFT),
    Buttons::DOWN.union(Buttons::RIGHT),
];

/// Walks in a straight line for a while, turns when blocked or bored, and pauses now and
/// then, which is enough to exercise starts, stops, wall slides and collisions.
#[derive(Clone, Debug)]
pub struct Wander {
    rng: Pcg32,
    heading: Buttons,
    ticks_left: u32,
}

impl Wander {
    pub fn new(seed: u64) -> Wander {
        Wander {
            rng: Pcg32::seed_from_u64(seed),
            heading: Buttons::empty(),
            ticks_left: 0,
        }
    }

    /// The next command, given the player's own state after the previous one.
    pub fn next(&mut self, me: &PlayerState) -> Command {
        let blocked = self.heading != Buttons::empty() && me.vx == 0 && me.vy == 0;
        if self.ticks_left == 0 || blocked {
            self.heading = if self.rng.random_ratio(1, 8) {
                Buttons::empty()
            } else {
                DIRECTIONS[self.rng.random_range(0..DIRECTIONS.len())]
            };
            self.ticks_left = self.rng.random_range(15..90);
        }
        self.ticks_left -= 1;
        Command::moving(self.heading)
    }
}

/// Wanders, aims where it walks, holds fire most of the time and switches weapons every
/// few seconds, often firing in the very first ticks after a switch: everything the
/// rulebook predicts about firing, exercised without a terminal.
#[derive(Clone, Debug)]
pub struct Fighter {
    walk: Wander,
    rng: Pcg32,
    weapon: u8,
    aim: u8,
    switch_in: u32,
}

impl Fighter {
    pub fn new(seed: u64) -> Fighter {
        Fighter {
            walk: Wander::new(seed),
            rng: Pcg32::seed_from_u64(seed ^ 0x5eed),
            weapon: 0,
            aim: 0,
            switch_in: 90,
        }
    }

    pub fn next(&mut self, me: &PlayerState) -> Command {
        let mut cmd = self.walk.next(me);
        if self.switch_in == 0 {
            self.weapon ^= 1;
            self.switch_in = self.rng.random_range(60..240);
        }
        self.switch_in -= 1;
        let (dx, dy) = cmd.buttons.direction();
        if let Some(aim) = aim_of(dx, dy) {
            self.aim = aim;
        }
        if self.rng.random_ratio(3, 4) {
            cmd.buttons = cmd.buttons.union(Buttons::FIRE);
        }
        cmd.weapon = self.weapon;
        cmd.aim = self.aim;
        cmd
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::map::Map;
    use crate::sim::world::{Rules, move_player};

    #[test]
    fn wanders_the_map_deterministically() {
        let map = Map::builtin("arena").expect("arena is built in");
        let rules = Rules::for_tick_rate(60);
        let walk = |seed| {
            let mut bot = Wander::new(seed);
            let mut me = PlayerState::at_cell(map.spawns()[0].0, map.spawns()[0].1);
            let mut cells = std::collections::HashSet::new();
            for _ in 0..3600 {
                me = move_player(&map, &rules, me, bot.next(&me), &[]);
                cells.insert(me.cell());
            }
            (me, cells.len())
        };
        let (end, visited) = walk(7);
        assert_eq!(walk(7).0, end);
        assert!(
            visited > 40,
            "a minute of wandering visits many cells: {visited}"
        );
    }
}
