//! Brains for the headless client: they turn what a player sees (of itself, and for
//! [`Reflex`] of the others) into commands, fed through the same path a human's keys
//! take.

use std::time::Instant;

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg32;

use crate::client::netcode::session::ClientSession;
use crate::sim::combat::{self, Weapon, aim_of};
use crate::sim::map::CELL;
use crate::sim::world::{Buttons, Command, PlayerId, PlayerState};

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
            self.weapon = (self.weapon + 1) % Weapon::ALL.len() as u8;
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

/// A stand-in for a newcomer with quick hands, to measure how fair the bots are: it
/// sees only what a player's screen shows (others where they are drawn, the protected
/// ones on blue), wanders (it does not know the map yet), and fires once the nearest
/// enemy it could hurt has stayed lined up along one of the eight aims for a reaction
/// time. Like a person, it judges where the enemy is by eye (up to half a cell off on
/// each axis) and now and then presses the wrong key (15% of its shots go one eighth
/// off). It may first stand still with `?` help open, as someone reading the keys does.
#[derive(Clone, Debug)]
pub struct Reflex {
    rng: Pcg32,
    /// The reaction time in commands.
    reaction: u32,
    /// The enemy lined up and for how many commands.
    lined_up: Option<(PlayerId, u32)>,
    walk: Wander,
    /// Where it thinks the enemy is, off from where it is drawn (a person judges
    /// "on my diagonal" by eye), and for how many more commands it thinks so.
    misjudged: (i32, i32),
    judged_for: u32,
    aim: u8,
    /// Commands left to stand reading the help, at the start of the session.
    reading: u32,
}

impl Reflex {
    /// A reaction time that a player who knows the keys manages.
    pub const REACTION_MS: u32 = 90;
    /// Shots that go one eighth off (the wrong key), in percent.
    pub const MISAIM_PCT: u32 = 15;
    /// How far off it may judge an enemy's position on each axis, in sub-cell units.
    const MISJUDGED: i32 = CELL / 2;
    /// How long [`Reflex::newcomer`] reads the help before it plays.
    pub const NEWCOMER_READS_SECS: u32 = 8;
    /// Commands one judgement lasts (a quarter of a second at 60 Hz).
    const JUDGED_COMMANDS: u32 = 15;

    /// A stand-in for a server of `tick_rate` (one command a tick).
    pub fn new(seed: u64, tick_rate: u16) -> Reflex {
        Reflex {
            rng: Pcg32::seed_from_u64(seed),
            reaction: (Self::REACTION_MS * u32::from(tick_rate.max(1))).div_ceil(1000),
            lined_up: None,
            walk: Wander::new(seed ^ 0xa11),
            misjudged: (0, 0),
            judged_for: 0,
            aim: 0,
            reading: 0,
        }
    }

    /// The newcomer the guide's figures measure: it reads `?` help for its first
    /// [`Self::NEWCOMER_READS_SECS`] seconds of play, then fights.
    pub fn newcomer(seed: u64, tick_rate: u16) -> Reflex {
        Reflex::new(seed, tick_rate)
            .reading_first(Self::NEWCOMER_READS_SECS * u32::from(tick_rate.max(1)))
    }

    /// Stands still with `?` help open for its first `commands` commands.
    pub fn reading_first(mut self, commands: u32) -> Reflex {
        self.reading = commands;
        self
    }

    /// The next command, from what `s` shows at `now`.
    pub fn next(&mut self, s: &ClientSession, now: Instant) -> Command {
        let me_id = s.player_id();
        let alive = s.combat().status(me_id).is_none_or(|st| st.alive);
        let (Some(me), true) = (s.predicted(), alive) else {
            self.lined_up = None;
            return Command::default();
        };
        if self.reading > 0 {
            self.reading -= 1;
            return Command {
                buttons: Buttons::READING,
                weapon: 0,
                aim: self.aim,
            };
        }
        let Some((target_id, mut t)) = nearest_drawn_enemy(s, &me, now) else {
            self.lined_up = None;
            return self.walk.next(&me);
        };
        if self.judged_for == 0 {
            let mut off = || self.rng.random_range(-Self::MISJUDGED..=Self::MISJUDGED);
            self.misjudged = (off(), off());
            self.judged_for = Self::JUDGED_COMMANDS;
        }
        self.judged_for -= 1;
        t.x += self.misjudged.0;
        t.y += self.misjudged.1;
        let (weapon, lined_up) = combat::line_up(s.map(), &s.rules().combat, &me, (target_id, t));
        if let Some(aim) = lined_up {
            let seen = match self.lined_up {
                Some((id, n)) if id == target_id => n + 1,
                _ => 0,
            };
            self.lined_up = Some((target_id, seen));
            let mut cmd = Command {
                buttons: Buttons::empty(),
                weapon: weapon.index(),
                aim,
            };
            if seen >= self.reaction {
                if self.rng.random_range(0..100) < Self::MISAIM_PCT {
                    cmd.aim = (aim + if self.rng.random_bool(0.5) { 1 } else { 7 }) % 8;
                }
                cmd.buttons = Buttons::FIRE;
            }
            self.aim = cmd.aim;
            return cmd;
        }
        self.lined_up = None;
        let mut cmd = self.walk.next(&me);
        let (dx, dy) = cmd.buttons.direction();
        if let Some(aim) = aim_of(dx, dy) {
            self.aim = aim;
        }
        cmd.weapon = weapon.index();
        cmd.aim = self.aim;
        cmd
    }
}

/// The nearest other player as drawn at `now`, among those a shot would hurt (alive,
/// not on blue).
fn nearest_drawn_enemy(
    s: &ClientSession,
    me: &PlayerState,
    now: Instant,
) -> Option<(PlayerId, PlayerState)> {
    let latest = s.latest()?;
    latest
        .players
        .iter()
        .filter(|p| p.id != s.player_id())
        .filter(|p| {
            s.combat()
                .status(p.id)
                .is_some_and(|st| st.alive && !st.protected)
        })
        .filter_map(|p| {
            let (x, y) = s.remote_position(p.id, now)?;
            let drawn = PlayerState {
                x: x.round() as i32,
                y: y.round() as i32,
                ..p.state
            };
            Some((p.id, drawn))
        })
        .min_by_key(|(id, t)| (me.dist2(t), *id))
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
