//! Weapons: aim directions, blaster projectiles and the rail's trace. Pure and in
//! integers like the rest of the simulation, so a client flying a projectile from its
//! birth event lands on exactly the positions the server computed.

use serde::{Deserialize, Serialize};

use super::map::{CELL, Map};
use super::world::{Command, HALF, PlayerId, PlayerState};

pub const MAX_HEALTH: i16 = 100;

// Commands clamp the weapon they ask for to this many.
const _: () = assert!(Weapon::ALL.len() == Command::WEAPONS as usize);

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Weapon {
    /// Projectiles: fast fire, moderate damage, dodgeable.
    #[default]
    Blaster,
    /// Hitscan: slow fire, heavy damage, decided by server-side rewind.
    Rail,
}

impl Weapon {
    /// Every weapon, by index: commands, the wire and recordings encode a weapon as its
    /// place in this list, and nothing else lists them.
    pub const ALL: [Weapon; 2] = [Weapon::Blaster, Weapon::Rail];
    /// Bits a weapon index takes in a packed field (the wire's flag bytes check it).
    pub const INDEX_BITS: u32 = usize::BITS - (Self::ALL.len() - 1).leading_zeros();

    /// The weapon at index `i`; any other byte is the blaster.
    pub fn from_index(i: u8) -> Weapon {
        Self::ALL.get(usize::from(i)).copied().unwrap_or_default()
    }

    pub fn index(self) -> u8 {
        self as u8
    }

    pub fn damage(self) -> i16 {
        match self {
            Weapon::Blaster => 25,
            Weapon::Rail => 80,
        }
    }

    /// Seconds between shots, in thousandths.
    fn cooldown_ms(self) -> u32 {
        match self {
            Weapon::Blaster => 250,
            Weapon::Rail => 1250,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Weapon::Blaster => "blaster",
            Weapon::Rail => "rail",
        }
    }
}

/// The longest spawn protection, for a player who neither moves nor fires: long enough
/// to look around, too short to camp.
pub const PROTECT_MAX_MS: u32 = 3000;
/// The longest spawn protection for a player who, since spawning, has neither moved
/// nor fired and has kept `?` help or the scoreboard open: a newcomer reads the keys
/// without being shot, and nobody camps for longer.
pub const PROTECT_READING_MAX_MS: u32 = 10_000;
/// How long a weapon switch takes before the new weapon can fire.
pub const SWITCH_MS: u32 = 300;
/// How long the dead wait before they respawn.
pub const RESPAWN_MS: u32 = 2000;

/// A bolt's speed: fast, but dodgeable.
pub const BOLT_CELLS_PER_SEC: i32 = 24;
/// How long a bolt flies before it fizzles (so its range is 36 cells).
pub const BOLT_LIFE_MS: u32 = 1500;
/// Sub-steps a bolt takes per cell of flight: each is tested against walls and players,
/// so at any tick rate it hits what it passes. An eighth of a cell is far under a
/// player's width (0.9 cells), so no square is skipped.
pub const BOLT_SUBSTEPS_PER_CELL: i32 = 8;
/// Sub-cell units of one sub-step along an axis.
const BOLT_SUBSTEP: i32 = CELL / BOLT_SUBSTEPS_PER_CELL;
/// Sub-steps a bolt takes per second.
const BOLT_SUBSTEPS_PER_SEC: u64 = (BOLT_CELLS_PER_SEC * BOLT_SUBSTEPS_PER_CELL) as u64;
/// Sub-steps in a bolt's whole flight: its range, the same at every tick rate.
pub(crate) const BOLT_RANGE_SUBSTEPS: u32 =
    (BOLT_SUBSTEPS_PER_SEC * BOLT_LIFE_MS as u64 / 1000) as u32;

/// The combat rules at one tick rate. The rules themselves are in seconds and cells per
/// second (the constants above); what is counted in ticks here is derived from them,
/// rounded up to whole ticks, and a bolt's flight is the same path of sub-steps at every
/// rate (only how many of them a tick takes depends on the rate).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CombatRules {
    /// Ticks (and commands) per second.
    pub(crate) tick_rate: u32,
    pub(crate) blaster_cooldown: u32,
    pub(crate) rail_cooldown: u32,
    /// Time a weapon switch takes before the new weapon can fire.
    pub(crate) switch_ticks: u32,
    pub respawn_ticks: u32,
    /// Invulnerability after spawning: until the player first moves or fires, and at
    /// most this long.
    pub protect_ticks: u32,
}

impl CombatRules {
    pub fn for_tick_rate(tick_rate: u16) -> CombatRules {
        let rate = u32::from(tick_rate.max(1));
        let ticks = |ms: u32| (ms * rate).div_ceil(1000).max(1);
        CombatRules {
            tick_rate: rate,
            blaster_cooldown: ticks(Weapon::Blaster.cooldown_ms()),
            rail_cooldown: ticks(Weapon::Rail.cooldown_ms()),
            switch_ticks: ticks(SWITCH_MS),
            respawn_ticks: ticks(RESPAWN_MS),
            protect_ticks: ticks(PROTECT_MAX_MS),
        }
    }

    pub fn cooldown(&self, w: Weapon) -> u32 {
        match w {
            Weapon::Blaster => self.blaster_cooldown,
            Weapon::Rail => self.rail_cooldown,
        }
    }

    /// Sub-steps a bolt has flown after `ticks` ticks of flight: a time in sub-steps
    /// (rounded down), so every rate puts a bolt on the same point at the same moment,
    /// up to the rounding; never past its range.
    pub fn bolt_substeps(&self, ticks: u32) -> u32 {
        let done = u64::from(ticks) * BOLT_SUBSTEPS_PER_SEC / u64::from(self.tick_rate.max(1));
        done.min(u64::from(BOLT_RANGE_SUBSTEPS)) as u32
    }
}

/// Unit step of aim direction `aim` (0 = east, then clockwise in eighths).
pub fn aim_vector(aim: u8) -> (i32, i32) {
    const DIRS: [(i32, i32); 8] = [
        (1, 0),
        (1, 1),
        (0, 1),
        (-1, 1),
        (-1, 0),
        (-1, -1),
        (0, -1),
        (1, -1),
    ];
    DIRS[usize::from(aim % 8)]
}

/// The aim for a movement direction, if moving.
pub fn aim_of(dx: i32, dy: i32) -> Option<u8> {
    (0..8).find(|&a| aim_vector(a) == (dx.signum(), dy.signum()))
}

/// A step of `speed` along an aim: diagonals are scaled by 1/sqrt(2) as movement is.
pub(crate) fn aim_velocity(aim: u8, speed: i32) -> (i32, i32) {
    let (dx, dy) = aim_vector(aim);
    let s = if dx != 0 && dy != 0 {
        speed * 181 / 256
    } else {
        speed
    };
    (dx * s, dy * s)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Projectile {
    pub id: u16,
    pub owner: PlayerId,
    /// Tick it was fired on; it is at `origin` then, and flies on in that tick's step.
    pub born: u32,
    pub x: i32,
    pub y: i32,
    /// One sub-step of its flight, in sub-cell units (see [`BOLT_SUBSTEPS_PER_CELL`]):
    /// the same at every tick rate.
    pub vx: i32,
    pub vy: i32,
}

/// How one tick of a bolt's flight ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Leg<T> {
    /// Still flying.
    Flying,
    /// Its next sub-step was in a wall: it stops on its last free point.
    Wall,
    /// It has flown its whole range.
    Spent,
    /// A sub-step touched what the test returned: it stops there.
    Hit(T),
}

impl Projectile {
    /// A bolt fired by `owner` from `from` along `aim` on `tick`. Its step is the same
    /// at every tick rate: the rate decides only how many steps a tick takes.
    pub fn fire(id: u16, owner: PlayerId, from: &PlayerState, aim: u8, tick: u32) -> Projectile {
        let (vx, vy) = aim_velocity(aim, BOLT_SUBSTEP);
        Projectile {
            id,
            owner,
            born: tick,
            x: from.x,
            y: from.y,
            vx,
            vy,
        }
    }

    /// Flies the `age`th tick of its flight (0 on the tick it is fired), sub-step by
    /// sub-step: at each one a wall ends it, then `hit` is asked whether the bolt at that point
    /// touches someone. Saturating: a client flies what a server sent, which may be
    /// absurd, and off the map is a wall.
    pub(crate) fn fly_tick<T>(
        &mut self,
        map: &Map,
        rules: &CombatRules,
        age: u32,
        hit: impl FnMut(&Projectile) -> Option<T>,
    ) -> Leg<T> {
        self.fly_tick_carried(map, rules, 0, age, hit)
    }

    /// `Projectile::fly_tick` for a bolt that had flown `carry` sub-steps when its
    /// `age` was counted from 0 again: the server's bolts in flight when the tick rate
    /// changes go on from the sub-steps they have flown, at the new rate's pace.
    pub fn fly_tick_carried<T>(
        &mut self,
        map: &Map,
        rules: &CombatRules,
        carry: u32,
        age: u32,
        mut hit: impl FnMut(&Projectile) -> Option<T>,
    ) -> Leg<T> {
        let at = |a: u32| {
            carry
                .saturating_add(rules.bolt_substeps(a))
                .min(BOLT_RANGE_SUBSTEPS)
        };
        let (from, to) = (at(age), at(age.saturating_add(1)));
        if from >= BOLT_RANGE_SUBSTEPS {
            return Leg::Spent;
        }
        for _ in from..to {
            let (x, y) = (
                self.x.saturating_add(self.vx),
                self.y.saturating_add(self.vy),
            );
            if map.is_wall(x.div_euclid(CELL), y.div_euclid(CELL)) {
                return Leg::Wall;
            }
            (self.x, self.y) = (x, y);
            if let Some(h) = hit(self) {
                return Leg::Hit(h);
            }
        }
        if to >= BOLT_RANGE_SUBSTEPS {
            Leg::Spent
        } else {
            Leg::Flying
        }
    }

    /// Whether it is inside `target`'s square.
    pub fn touches(&self, target: &PlayerState) -> bool {
        (self.x - target.x).abs() < HALF && (self.y - target.y).abs() < HALF
    }

    /// Whether it touches `target` (standing still) before a wall or the end of its
    /// range: for a scripted player deciding whether a blaster shot would land.
    pub fn reaches(mut self, map: &Map, rules: &CombatRules, target: &PlayerState) -> bool {
        let mut age = 0;
        loop {
            match self.fly_tick(map, rules, age, |p| p.touches(target).then_some(())) {
                Leg::Flying => age += 1,
                Leg::Hit(()) => return true,
                Leg::Wall | Leg::Spent => return false,
            }
        }
    }

    /// Positions at the end of each tick from birth (index 0 is where it was fired)
    /// while it flies: the tick it meets a wall is not one of them, the tick it flies
    /// its last sub-step is. What a client draws between the birth and removal events.
    pub fn flight(self, map: &Map, rules: &CombatRules) -> Vec<(i32, i32)> {
        self.flight_carried(map, rules, 0)
    }

    /// [`Projectile::flight`] of a bolt that had flown `carry` sub-steps at its `born`
    /// (see [`Projectile::fly_tick_carried`]).
    pub fn flight_carried(mut self, map: &Map, rules: &CombatRules, carry: u32) -> Vec<(i32, i32)> {
        let mut path = vec![(self.x, self.y)];
        let mut age = 0;
        loop {
            match self.fly_tick_carried(map, rules, carry, age, |_| None::<()>) {
                Leg::Flying => path.push((self.x, self.y)),
                Leg::Spent => {
                    path.push((self.x, self.y));
                    break;
                }
                Leg::Wall | Leg::Hit(()) => break,
            }
            age += 1;
        }
        path
    }
}

/// Granularity of the rail trace: far under a player's width, so nothing is skipped.
const RAIL_STEP: i32 = CELL / 16;

/// Traces a rail from `from` along `aim` to the first wall. Returns the end point and
/// the first target (by id, from `targets`) whose square the beam enters, with where.
pub fn rail(
    map: &Map,
    from: (i32, i32),
    aim: u8,
    targets: &[(PlayerId, PlayerState)],
) -> ((i32, i32), Option<(PlayerId, PlayerState)>) {
    let (dx, dy) = aim_velocity(aim, RAIL_STEP);
    let (mut x, mut y) = from;
    let limit = (map.width().max(map.height()) as i32 + 1) * CELL / RAIL_STEP * 2;
    for _ in 0..limit {
        let (nx, ny) = (x + dx, y + dy);
        if map.is_wall(nx.div_euclid(CELL), ny.div_euclid(CELL)) {
            break;
        }
        (x, y) = (nx, ny);
        if let Some(hit) = targets
            .iter()
            .find(|(_, t)| (x - t.x).abs() < HALF && (y - t.y).abs() < HALF)
        {
            return ((x, y), Some(*hit));
        }
    }
    ((x, y), None)
}

/// How a bot or a stand-in player shoots at `target` from `me`: the rail beyond six
/// cells, the blaster nearer, and the first of the eight aims along which that weapon
/// reaches the target where it stands (a bolt is flown, not traced: its steps are coarser
/// than the rail's and can pass a square's corner). The aim is `None` when nothing lines up.
pub fn line_up(
    map: &Map,
    rules: &CombatRules,
    me: &PlayerState,
    target: (PlayerId, PlayerState),
) -> (Weapon, Option<u8>) {
    let (target_id, t) = target;
    let far = me.dist2(&t) > i64::from(6 * CELL) * i64::from(6 * CELL);
    let weapon = if far { Weapon::Rail } else { Weapon::Blaster };
    let aim = (0..8u8).find(|&aim| {
        may_touch(me, &t, aim)
            && match weapon {
                Weapon::Rail => rail(map, (me.x, me.y), aim, &[(target_id, t)]).1.is_some(),
                Weapon::Blaster => Projectile::fire(0, 0, me, aim, 0).reaches(map, rules, &t),
            }
    });
    (weapon, aim)
}

/// Whether anything fired from `me` along `aim` could touch `target` at all, walls
/// aside: whether some point of the ray from `me` (bolts and rails step along it, the
/// diagonals with equal parts) comes within [`HALF`] of `target` on both axes. Every
/// aim for which this is false misses, so [`line_up`] traces only the others.
fn may_touch(me: &PlayerState, target: &PlayerState, aim: u8) -> bool {
    let (ax, ay) = aim_vector(aim);
    let half = i64::from(HALF);
    let (rx, ry) = (i64::from(target.x - me.x), i64::from(target.y - me.y));
    // How far ahead the target is along each of the aim's parts.
    let (u, v) = (rx * i64::from(ax), ry * i64::from(ay));
    match (ax, ay) {
        (0, _) => rx.abs() < half && v + half > 0,
        (_, 0) => ry.abs() < half && u + half > 0,
        _ => (u - v).abs() < 2 * half && u.min(v) + half > 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::{Rules, SPEED_CELLS_PER_SEC};

    fn map() -> Map {
        Map::parse(
            "t",
            "############\n#S.........#\n#..........#\n#.......#..#\n############",
        )
        .unwrap()
    }

    /// Found by the `client_session` fuzz target: a hostile server's Shot event with a
    /// velocity near `i32::MAX` overflowed the client's flight (a panic in debug builds).
    #[test]
    fn an_absurd_projectile_ends_at_once_without_overflow() {
        let rules = CombatRules::for_tick_rate(60);
        let p = Projectile {
            id: 1,
            owner: 0,
            born: 0,
            x: CELL * 3 / 2,
            y: CELL * 3 / 2,
            vx: i32::MAX,
            vy: i32::MIN,
        };
        assert_eq!(p.flight(&map(), &rules), vec![(p.x, p.y)]);
    }

    /// `line_up` skips the aims `may_touch` rules out: none of them ever reaches the
    /// target, by rail or by bolt, from any of a grid of positions around it, while
    /// every aim that does reach is kept.
    #[test]
    fn may_touch_rules_out_only_aims_that_miss() {
        let (map, rules) = (map(), CombatRules::for_tick_rate(60));
        let target = PlayerState::at_cell(5, 2);
        let (mut reached, mut ruled_out) = (0, 0);
        for x in (CELL..11 * CELL).step_by((CELL / 5) as usize) {
            for y in (CELL..4 * CELL).step_by((CELL / 5) as usize) {
                let me = PlayerState {
                    x,
                    y,
                    ..PlayerState::default()
                };
                for aim in 0..8 {
                    let by_rail = rail(&map, (x, y), aim, &[(1, target)]).1.is_some();
                    let by_bolt =
                        Projectile::fire(0, 0, &me, aim, 0).reaches(&map, &rules, &target);
                    if may_touch(&me, &target, aim) {
                        reached += usize::from(by_rail || by_bolt);
                    } else {
                        ruled_out += 1;
                        assert!(!by_rail && !by_bolt, "({x}, {y}) aim {aim}");
                    }
                }
            }
        }
        assert!(reached > 100 && ruled_out > 1000, "{reached} {ruled_out}");
    }

    #[test]
    fn projectiles_fly_straight_and_stop_at_walls() {
        let rules = CombatRules::for_tick_rate(60);
        let from = PlayerState::at_cell(1, 1);
        let p = Projectile::fire(1, 0, &from, 0, 100);
        let path = p.flight(&map(), &rules);
        assert_eq!(path[0], (from.x, from.y));
        // 24 cells/s at 60 Hz: 3.2 sub-steps of an eighth of a cell a tick.
        assert!(path.windows(2).all(|w| {
            let dx = w[1].0 - w[0].0;
            (dx == 3 * BOLT_SUBSTEP || dx == 4 * BOLT_SUBSTEP) && w[1].1 == w[0].1
        }));
        let (lx, _) = *path.last().unwrap();
        assert!(
            lx < 11 * CELL && lx + 4 * BOLT_SUBSTEP >= 11 * CELL,
            "stops at the east wall"
        );
    }

    /// A closed room `w` by `h` cells.
    fn room(w: usize, h: usize) -> Map {
        let mut rows = vec!["#".repeat(w)];
        for y in 1..h - 1 {
            let spawn = if y == 1 { "S" } else { "." };
            rows.push(format!("#{spawn}{}#", ".".repeat(w - 3)));
        }
        rows.push("#".repeat(w));
        Map::parse("room", &rows.join("\n")).unwrap()
    }

    /// Sub-cell units a thing moving at `speed` units a second has gone after `ticks`
    /// ticks at `rate`.
    fn gone(speed: i32, ticks: u32, rate: u32) -> i32 {
        (i64::from(speed) * i64::from(ticks) / i64::from(rate)) as i32
    }

    /// A target: its id, where it starts and its velocity, in sub-cell units (a second).
    type Walker = (PlayerId, (i32, i32), (i32, i32));

    /// Flies a bolt fired from `from` along `aim` at tick 0, at `rate`, against targets that
    /// walk at constant velocities (sub-cell units per second) from where they start, as
    /// the server does: each tick the targets move, then the bolt flies its sub-steps.
    /// Returns who it hit, or None and where it stopped.
    fn shoot(
        m: &Map,
        rate: u16,
        from: PlayerState,
        aim: u8,
        walkers: &[Walker],
    ) -> (Option<PlayerId>, (i32, i32)) {
        let rules = CombatRules::for_tick_rate(rate);
        let mut p = Projectile::fire(1, 0, &from, aim, 0);
        for tick in 0.. {
            let at: Vec<(PlayerId, PlayerState)> = walkers
                .iter()
                .map(|&(id, (x, y), (vx, vy))| {
                    let t = tick + 1;
                    let r = u32::from(rate);
                    let s = PlayerState {
                        x: x + gone(vx, t, r),
                        y: y + gone(vy, t, r),
                        vx: 0,
                        vy: 0,
                    };
                    (id, s)
                })
                .collect();
            let leg = p.fly_tick(m, &rules, tick, |p| {
                at.iter().find(|(_, s)| p.touches(s)).map(|(id, _)| *id)
            });
            match leg {
                Leg::Flying => {}
                Leg::Hit(id) => return (Some(id), (p.x, p.y)),
                Leg::Wall | Leg::Spent => return (None, (p.x, p.y)),
            }
        }
        unreachable!()
    }

    /// Article 5's sub-steps: the same shots at 20, 30, 60 and 128 Hz hit the same walkers
    /// and stop at the same point of a wall or of their range, and a player walks the
    /// same distance in a second.
    #[test]
    fn bolts_and_walkers_do_the_same_at_every_tick_rate() {
        let m = room(60, 17);
        let from = PlayerState::at_cell(2, 8);
        let bolt = BOLT_CELLS_PER_SEC * CELL;
        let walk = SPEED_CELLS_PER_SEC * CELL;
        // When the bolt, flying east, reaches the near side of column `cx`'s centre.
        let arrives = |cx: i32| {
            let d = i64::from(cx * CELL + CELL / 2 - HALF - from.x);
            (d * i64::from(walk) / i64::from(bolt)) as i32
        };
        // A walker heading south that crosses the bolt's line as the bolt passes it,
        // one that crosses a cell and a half too early, and one standing behind both.
        let on_time = (1, (14 * CELL + CELL / 2, from.y - arrives(14)), (0, walk));
        let early = (
            2,
            (10 * CELL + CELL / 2, from.y - arrives(10) - 3 * CELL / 2),
            (0, walk),
        );
        let behind = (3, (20 * CELL + CELL / 2, from.y), (0, 0));
        let mut seen = Vec::new();
        for rate in [20u16, 30, 60, 128] {
            let hits = [
                shoot(&m, rate, from, 0, &[early, on_time, behind]).0,
                shoot(&m, rate, from, 0, &[early, behind]).0,
                shoot(&m, rate, from, 0, &[early]).0,
            ];
            assert_eq!(hits, [Some(1), Some(3), None], "at {rate} Hz");
            // Every aim, nobody in the way: the same wall or range end, to the unit
            // (every rate puts the bolt on the same sub-steps).
            let ends: Vec<(i32, i32)> = (0..8)
                .map(|aim| shoot(&m, rate, from, aim, &[]).1)
                .collect();
            // Walking east for one second covers 9 cells, within the half unit a tick
            // that whole sub-cell units per tick allow.
            let rules = Rules::for_tick_rate(rate);
            let east = Command {
                buttons: crate::world::Buttons::RIGHT,
                ..Command::default()
            };
            let mut me = from;
            for _ in 0..rate {
                me = crate::world::move_player(&m, &rules, me, east, &[]);
            }
            let off = (me.x - from.x - walk).abs();
            assert!(
                off <= i32::from(rate) / 2,
                "{rate} Hz walks {} units, not {walk}",
                me.x - from.x
            );
            seen.push(ends);
        }
        assert!(seen.windows(2).all(|w| w[0] == w[1]), "{seen:?}");
        // East: the range (36 cells) ends the bolt inside the 60-cell room.
        let range = BOLT_CELLS_PER_SEC * BOLT_LIFE_MS as i32 / 1000;
        assert_eq!(seen[0][0], (from.x + range * CELL, from.y));
    }

    #[test]
    fn the_rail_hits_the_first_target_in_line_and_stops_at_walls() {
        let m = map();
        let from = PlayerState::at_cell(1, 3);
        let near = PlayerState::at_cell(4, 3);
        let far = PlayerState::at_cell(6, 3);
        let (_, hit) = rail(&m, (from.x, from.y), 0, &[(2, far), (1, near)]);
        assert_eq!(hit.map(|h| h.0), Some(1));
        let behind_wall = PlayerState::at_cell(9, 3);
        let (end, hit) = rail(&m, (from.x, from.y), 0, &[(3, behind_wall)]);
        assert_eq!(hit, None);
        assert!(end.0 < 8 * CELL, "stopped by the wall at column 8");
        // Off the line by more than half a player: a miss.
        let off = PlayerState {
            y: from.y + HALF + 10,
            ..near
        };
        assert_eq!(rail(&m, (from.x, from.y), 0, &[(1, off)]).1, None);
    }

    #[test]
    fn aims() {
        assert_eq!(aim_of(1, 0), Some(0));
        assert_eq!(aim_of(-1, -1), Some(5));
        assert_eq!(aim_of(0, 0), None);
        for a in 0..8 {
            let (dx, dy) = aim_vector(a);
            assert_eq!(aim_of(dx, dy), Some(a));
        }
    }
}
