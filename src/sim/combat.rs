//! Weapons: aim directions, blaster projectiles and the rail's trace. Pure and in
//! integers like the rest of the simulation, so a client flying a projectile from its
//! birth event lands on exactly the positions the server computed.

use serde::{Deserialize, Serialize};

use super::map::{CELL, Map};
use super::world::{Command, HALF, PlayerId, PlayerState};

pub(crate) const MAX_HEALTH: i16 = 100;

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
    pub(crate) fn from_index(i: u8) -> Weapon {
        Self::ALL.get(usize::from(i)).copied().unwrap_or_default()
    }

    pub fn index(self) -> u8 {
        self as u8
    }

    pub(crate) fn damage(self) -> i16 {
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

/// Combat timings in ticks, for one tick rate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CombatRules {
    pub(crate) blaster_cooldown: u32,
    pub(crate) rail_cooldown: u32,
    /// Time a weapon switch takes before the new weapon can fire.
    pub(crate) switch_ticks: u32,
    pub(crate) respawn_ticks: u32,
    /// Invulnerability after spawning: until the player first moves or fires, and at
    /// most this long.
    pub(crate) protect_ticks: u32,
    /// Sub-cell units a projectile flies per tick along one axis.
    pub(crate) projectile_speed: i32,
    pub(crate) projectile_ttl: u32,
}

impl CombatRules {
    pub fn for_tick_rate(tick_rate: u16) -> CombatRules {
        let rate = u32::from(tick_rate.max(1));
        let ticks = |ms: u32| (ms * rate).div_ceil(1000).max(1);
        CombatRules {
            blaster_cooldown: ticks(Weapon::Blaster.cooldown_ms()),
            rail_cooldown: ticks(Weapon::Rail.cooldown_ms()),
            switch_ticks: ticks(300),
            respawn_ticks: ticks(2000),
            protect_ticks: ticks(PROTECT_MAX_MS),
            // 24 cells/s: fast, but under a player's width per tick, so a projectile
            // cannot pass through anyone between two ticks.
            projectile_speed: (24 * CELL / rate as i32).min(2 * HALF - 1),
            projectile_ttl: ticks(1500),
        }
    }

    pub(crate) fn cooldown(&self, w: Weapon) -> u32 {
        match w {
            Weapon::Blaster => self.blaster_cooldown,
            Weapon::Rail => self.rail_cooldown,
        }
    }
}

/// Unit step of aim direction `aim` (0 = east, then clockwise in eighths).
pub(crate) fn aim_vector(aim: u8) -> (i32, i32) {
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
pub(crate) fn aim_of(dx: i32, dy: i32) -> Option<u8> {
    (0..8).find(|&a| aim_vector(a) == (dx.signum(), dy.signum()))
}

/// Per-tick velocity along an aim: diagonals are scaled by 1/sqrt(2) as movement is.
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
    /// Tick it was fired on; it is at `origin` then, and one step further each tick.
    pub born: u32,
    pub x: i32,
    pub y: i32,
    pub vx: i32,
    pub vy: i32,
}

impl Projectile {
    pub fn fire(
        id: u16,
        owner: PlayerId,
        from: &PlayerState,
        aim: u8,
        tick: u32,
        rules: &CombatRules,
    ) -> Projectile {
        let (vx, vy) = aim_velocity(aim, rules.projectile_speed);
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

    /// Moves one tick. False if it flew into a wall (and is gone). Saturating: a client
    /// flies what a server sent, which may be absurd, and off the map is a wall.
    pub(crate) fn advance(&mut self, map: &Map) -> bool {
        self.x = self.x.saturating_add(self.vx);
        self.y = self.y.saturating_add(self.vy);
        !map.is_wall(self.x.div_euclid(CELL), self.y.div_euclid(CELL))
    }

    /// Whether it is inside `target`'s square.
    pub(crate) fn touches(&self, target: &PlayerState) -> bool {
        (self.x - target.x).abs() < HALF && (self.y - target.y).abs() < HALF
    }

    /// Whether it touches `target` (standing still) before a wall or the end of its
    /// life: for a scripted player deciding whether a blaster shot would land. A bolt's
    /// steps are coarser than the rail's trace and can pass a square's corner by.
    pub(crate) fn reaches(mut self, map: &Map, rules: &CombatRules, target: &PlayerState) -> bool {
        for _ in 0..rules.projectile_ttl {
            if !self.advance(map) {
                return false;
            }
            if self.touches(target) {
                return true;
            }
        }
        false
    }

    /// Positions tick by tick from birth (index 0) until a wall or the end of its life:
    /// what a client draws between the birth and removal events.
    pub fn flight(mut self, map: &Map, rules: &CombatRules) -> Vec<(i32, i32)> {
        let mut path = vec![(self.x, self.y)];
        for _ in 0..rules.projectile_ttl {
            if !self.advance(map) {
                break;
            }
            path.push((self.x, self.y));
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
    let aim = (0..8u8).find(|&aim| match weapon {
        Weapon::Rail => rail(map, (me.x, me.y), aim, &[(target_id, t)]).1.is_some(),
        Weapon::Blaster => Projectile::fire(0, 0, me, aim, 0, rules).reaches(map, rules, &t),
    });
    (weapon, aim)
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn projectiles_fly_straight_and_stop_at_walls() {
        let rules = CombatRules::for_tick_rate(60);
        let from = PlayerState::at_cell(1, 1);
        let p = Projectile::fire(1, 0, &from, 0, 100, &rules);
        let path = p.flight(&map(), &rules);
        assert_eq!(path[0], (from.x, from.y));
        assert!(
            path.windows(2)
                .all(|w| w[1].0 - w[0].0 == rules.projectile_speed && w[1].1 == w[0].1)
        );
        let (lx, _) = *path.last().unwrap();
        assert!(
            lx < 11 * CELL && lx + rules.projectile_speed >= 11 * CELL,
            "stops at the east wall"
        );
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
