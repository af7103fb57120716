//! Players, commands and movement: the one piece of code that both the server (to decide)
//! and the client (to predict) run, so a misprediction is a real disagreement about the
//! world and never a rounding difference.
//!
//! Positions are fixed-point: [`CELL`] sub-units per arena cell, measured at the centre of
//! the player's square. Nothing here reads a clock, touches a socket or uses a float.

use serde::{Deserialize, Serialize};

use super::map::{CELL, Map};

/// A player's slot number, shared by server and clients; also picks its letter and colour.
pub type PlayerId = u8;

/// Half the side of a player's collision square. A little under half a cell, so a player
/// fits through a one-cell corridor without scraping both walls.
pub const HALF: i32 = CELL * 45 / 100;

/// Top speed in cells per second, whatever the tick rate.
pub(crate) const SPEED_CELLS_PER_SEC: i32 = 9;

/// Movement buttons held during one command tick.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Buttons(u8);

impl Buttons {
    pub const UP: Buttons = Buttons(1);
    pub const DOWN: Buttons = Buttons(2);
    pub const LEFT: Buttons = Buttons(4);
    pub const RIGHT: Buttons = Buttons(8);
    /// Fire the selected weapon.
    pub const FIRE: Buttons = Buttons(16);
    /// Not a key: the player has `?` help or the scoreboard open. Spawn protection may
    /// outlast its usual cap while this is held (see [`crate::step`]).
    pub const READING: Buttons = Buttons(32);
    /// Every bit a command may carry; anything else from the network is masked off.
    pub const ALL: Buttons = Buttons(63);

    pub const fn empty() -> Buttons {
        Buttons(0)
    }
    pub const fn bits(self) -> u8 {
        self.0
    }
    /// Keeps only meaningful bits, so a hostile client cannot smuggle state in unused ones.
    pub const fn from_bits_truncate(bits: u8) -> Buttons {
        Buttons(bits & Self::ALL.0)
    }
    pub const fn contains(self, other: Buttons) -> bool {
        self.0 & other.0 == other.0
    }
    pub fn set(&mut self, other: Buttons, on: bool) {
        if on {
            self.0 |= other.0;
        } else {
            self.0 &= !other.0;
        }
    }
    pub const fn union(self, other: Buttons) -> Buttons {
        Buttons(self.0 | other.0)
    }

    /// The movement direction as a unit step on each axis; opposite keys cancel.
    pub fn direction(self) -> (i32, i32) {
        let axis = |neg: Buttons, pos: Buttons| {
            i32::from(self.contains(pos)) - i32::from(self.contains(neg))
        };
        (
            axis(Buttons::LEFT, Buttons::RIGHT),
            axis(Buttons::UP, Buttons::DOWN),
        )
    }
}

/// One command tick of player intent. The client samples keys into these at a fixed rate;
/// the server applies them one per tick.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Command {
    pub buttons: Buttons,
    /// The weapon wanted (see `combat::Weapon`); switching takes time on the server.
    pub weapon: u8,
    /// Aim direction, 0..8 clockwise from east (see `combat::aim_vector`).
    pub aim: u8,
}

impl Command {
    /// How many weapons a command may ask for: `combat::Weapon::ALL`'s length, which
    /// checks it (this module is below `combat` and cannot name the list).
    pub const WEAPONS: u8 = 2;

    pub const fn moving(buttons: Buttons) -> Command {
        Command {
            buttons,
            weapon: 0,
            aim: 0,
        }
    }

    /// Clamps fields a hostile client could set out of range.
    pub fn sanitized(self) -> Command {
        Command {
            buttons: Buttons::from_bits_truncate(self.buttons.bits()),
            weapon: self.weapon.min(Self::WEAPONS - 1),
            aim: self.aim % 8,
        }
    }
}

/// Everything the simulation knows about one player.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct PlayerState {
    /// Centre of the player's square, in sub-cell units.
    pub x: i32,
    pub y: i32,
    /// Displacement of the last applied command: what dead reckoning extrapolates with.
    pub vx: i32,
    pub vy: i32,
}

impl PlayerState {
    pub fn at_cell(cx: u16, cy: u16) -> PlayerState {
        PlayerState {
            x: i32::from(cx) * CELL + CELL / 2,
            y: i32::from(cy) * CELL + CELL / 2,
            vx: 0,
            vy: 0,
        }
    }

    /// The squared distance between two centres, in sub-cell units.
    pub fn dist2(&self, other: &PlayerState) -> i64 {
        let dx = i64::from(self.x - other.x);
        let dy = i64::from(self.y - other.y);
        dx * dx + dy * dy
    }

    /// The cell the centre is in.
    pub fn cell(&self) -> (i32, i32) {
        (self.x.div_euclid(CELL), self.y.div_euclid(CELL))
    }
}

/// Tunables that both sides must agree on; sent to clients in the welcome.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Rules {
    /// Sub-cell units moved per command along one axis: 9 cells per second at
    /// this tick rate.
    pub speed: i32,
    /// Speed on each axis when moving diagonally (speed / sqrt 2, rounded down).
    pub(crate) diagonal_speed: i32,
}

impl Rules {
    pub fn for_tick_rate(tick_rate: u16) -> Rules {
        let rate = i32::from(tick_rate.max(1));
        // The nearest whole sub-cell unit to the speed in cells per second spread over
        // the ticks: a second's walk is the same at every rate to within half a unit a
        // tick (exact at 128 Hz).
        let speed = ((SPEED_CELLS_PER_SEC * CELL + rate / 2) / rate).max(1);
        // 181/256 is 1/sqrt(2) to within 0.1%, in integers so both sides agree exactly.
        Rules {
            speed,
            diagonal_speed: (speed * 181 / 256).max(1),
        }
    }
}

/// Applies one command to one player: moves along x, then along y, stopping flush
/// against walls and other players. Moving each axis on its own is what makes a player
/// slide along a wall it runs into at an angle.
pub fn move_player(
    map: &Map,
    rules: &Rules,
    me: PlayerState,
    cmd: Command,
    others: &[PlayerState],
) -> PlayerState {
    let (dx, dy) = cmd.buttons.direction();
    let speed = if dx != 0 && dy != 0 {
        rules.diagonal_speed
    } else {
        rules.speed
    };
    let mut next = me;
    next.x = move_axis(map, me.x, me.y, dx * speed, Axis::X, others);
    next.y = move_axis(map, next.x, me.y, dy * speed, Axis::Y, others);
    // Corner assist: walking straight into the corner of an opening that the player's
    // own lane leads into, slide sideways towards the lane's centre, so a player a few
    // units off-line still gets into a one-cell corridor instead of sticking.
    let blocked_x = dx != 0 && dy == 0 && next.x == me.x;
    let blocked_y = dy != 0 && dx == 0 && next.y == me.y;
    if blocked_x || blocked_y {
        let (cx, cy) = me.cell();
        if !map.is_wall(cx + dx, cy + dy) {
            if blocked_x {
                let toward = (cy * CELL + CELL / 2 - me.y).clamp(-speed, speed);
                next.y = move_axis(map, next.x, me.y, toward, Axis::Y, others);
            } else {
                let toward = (cx * CELL + CELL / 2 - me.x).clamp(-speed, speed);
                next.x = move_axis(map, me.x, next.y, toward, Axis::X, others);
            }
        }
    }
    next.vx = next.x - me.x;
    next.vy = next.y - me.y;
    next
}

#[derive(Clone, Copy)]
enum Axis {
    X,
    Y,
}

/// Moves the coordinate `along` the axis by `delta` (at most a cell), with the other
/// coordinate fixed at `across`, and returns where it stops.
fn move_axis(map: &Map, x: i32, y: i32, delta: i32, axis: Axis, others: &[PlayerState]) -> i32 {
    let (along, across) = match axis {
        Axis::X => (x, y),
        Axis::Y => (y, x),
    };
    if delta == 0 {
        return along;
    }
    let wall = |a: i32, b: i32| match axis {
        Axis::X => map.is_wall(a, b),
        Axis::Y => map.is_wall(b, a),
    };
    let mut target = along + delta;

    // Walls: the leading edge may enter at most one new row/column of tiles, because a
    // step is shorter than a cell; check every tile that row/column overlaps.
    let lo = (across - HALF).div_euclid(CELL);
    let hi = (across + HALF - 1).div_euclid(CELL);
    if delta > 0 {
        let tile = (target + HALF - 1).div_euclid(CELL);
        if (lo..=hi).any(|b| wall(tile, b)) {
            target = target.min(tile * CELL - HALF);
        }
    } else {
        let tile = (target - HALF).div_euclid(CELL);
        if (lo..=hi).any(|b| wall(tile, b)) {
            target = target.max((tile + 1) * CELL + HALF);
        }
    }

    // Players: only block motion towards another player, so two players that somehow
    // overlap (a spawn on top of someone) can always walk apart.
    for o in others {
        let (o_along, o_across) = match axis {
            Axis::X => (o.x, o.y),
            Axis::Y => (o.y, o.x),
        };
        if (o_across - across).abs() >= 2 * HALF {
            continue;
        }
        if delta > 0 && o_along > along && target > o_along - 2 * HALF {
            target = target.min((o_along - 2 * HALF).max(along));
        } else if delta < 0 && o_along < along && target < o_along + 2 * HALF {
            target = target.max((o_along + 2 * HALF).min(along));
        }
    }
    target
}

/// All players in play, by id: their positions, for collision, shots and snapshots. On
/// the server it is the index of the match's bodies (written wherever a body moves);
/// clients hold predictions and interpolations of it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct World {
    pub tick: u32,
    players: Vec<(PlayerId, PlayerState)>,
}

impl World {
    pub fn players(&self) -> &[(PlayerId, PlayerState)] {
        &self.players
    }

    pub fn get(&self, id: PlayerId) -> Option<PlayerState> {
        let at = self.players.binary_search_by_key(&id, |(p, _)| *p).ok()?;
        Some(self.players[at].1)
    }

    /// Inserts or replaces a player, keeping the list ordered by id so every side walks
    /// players in the same order.
    pub fn put(&mut self, id: PlayerId, state: PlayerState) {
        match self.players.binary_search_by_key(&id, |(p, _)| *p) {
            Ok(i) => self.players[i].1 = state,
            Err(i) => self.players.insert(i, (id, state)),
        }
    }

    pub fn remove(&mut self, id: PlayerId) {
        self.players.retain(|(p, _)| *p != id);
    }

    /// Applies one command for one player against everyone else's current position
    /// (the tests' shortcut; the server and the client go through `sim::step`).
    #[cfg(any(test, feature = "test-support"))]
    pub fn apply(&mut self, map: &Map, rules: &Rules, id: PlayerId, cmd: Command) {
        let Some(me) = self.get(id) else { return };
        let others = self.others(id);
        self.put(id, move_player(map, rules, me, cmd, &others));
    }

    /// Every player but `id`: what blocks its movement.
    #[cfg(any(test, feature = "test-support"))]
    pub fn others(&self, id: PlayerId) -> Vec<PlayerState> {
        self.players
            .iter()
            .filter(|(p, _)| *p != id)
            .map(|(_, s)| *s)
            .collect()
    }

    /// The spawn point farthest from every other player (ties: first in map order), so a
    /// new player does not appear on top of someone.
    pub fn spawn_point(&self, map: &Map, skip: PlayerId) -> PlayerState {
        let mut best: Option<(i64, PlayerState)> = None;
        for &(cx, cy) in map.spawns() {
            let candidate = PlayerState::at_cell(cx, cy);
            let nearest = self
                .players
                .iter()
                .filter(|(p, _)| *p != skip)
                .map(|(_, s)| s.dist2(&candidate))
                .min()
                .unwrap_or(i64::MAX);
            if best.is_none_or(|(d, _)| nearest > d) {
                best = Some((nearest, candidate));
            }
        }
        best.map(|(_, s)| s).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(rows: &[&str]) -> Map {
        Map::parse("test", &rows.join("\n")).expect("test map parses")
    }

    fn open_map() -> Map {
        map(&[
            "##########",
            "#S.......#",
            "#........#",
            "#........#",
            "#........#",
            "##########",
        ])
    }

    const RIGHT: Command = Command::moving(Buttons::RIGHT);

    #[test]
    fn same_commands_give_same_states() {
        let m = map(&[
            "############",
            "#S...#.....#",
            "#..#...#...#",
            "#....S.....#",
            "############",
        ]);
        let rules = Rules::for_tick_rate(60);
        let run = || {
            let mut w = World::default();
            w.put(1, PlayerState::at_cell(1, 1));
            w.put(2, PlayerState::at_cell(5, 3));
            let mut rng = 12345u32;
            let mut trace = Vec::new();
            for _ in 0..2000 {
                for id in [1, 2] {
                    rng = rng.wrapping_mul(1_103_515_245).wrapping_add(12345);
                    let cmd = Command::moving(Buttons::from_bits_truncate((rng >> 16) as u8));
                    w.apply(&m, &rules, id, cmd);
                }
                trace.push(w.players().to_vec());
            }
            trace
        };
        let trace = run();
        assert_ne!(trace[0], trace[trace.len() - 1], "the players moved");
        assert_eq!(trace, run());
    }

    #[test]
    fn stops_flush_against_a_wall() {
        let m = open_map();
        let rules = Rules::for_tick_rate(60);
        let mut s = PlayerState::at_cell(1, 1);
        for _ in 0..200 {
            s = move_player(&m, &rules, s, RIGHT, &[]);
        }
        // Column 9 is the border wall; the square's right edge touches it exactly.
        assert_eq!(s.x, 9 * CELL - HALF);
        assert_eq!(s.vx, 0, "no motion once against the wall");
        assert_eq!(s.y, PlayerState::at_cell(1, 1).y, "no drift across");
    }

    #[test]
    fn slides_along_a_wall_when_moving_diagonally() {
        let m = open_map();
        let rules = Rules::for_tick_rate(60);
        let mut s = PlayerState::at_cell(1, 1);
        let up_right = Command::moving(Buttons::UP.union(Buttons::RIGHT));
        for _ in 0..10 {
            s = move_player(&m, &rules, s, up_right, &[]);
        }
        assert_eq!(s.y, CELL + HALF, "pressed against the top wall");
        let x_before = s.x;
        s = move_player(&m, &rules, s, up_right, &[]);
        assert!(s.x > x_before, "still sliding right along the wall");
        assert_eq!(s.vy, 0);
    }

    #[test]
    fn fits_through_a_one_cell_corridor() {
        let m = map(&["#######", "#S....#", "###.###", "#.....#", "#######"]);
        let rules = Rules::for_tick_rate(60);
        let mut s = PlayerState::at_cell(3, 1);
        for _ in 0..60 {
            s = move_player(&m, &rules, s, Command::moving(Buttons::DOWN), &[]);
        }
        assert_eq!(s.cell(), (3, 3), "walked down through the gap");
    }

    #[test]
    fn corner_assist_slides_an_off_line_player_into_a_corridor() {
        let m = map(&[
            "#######", "#S....#", "#.....#", "###.###", "#.....#", "#######",
        ]);
        let rules = Rules::for_tick_rate(60);
        // Half a player off the corridor's centre line: the corner blocks a straight walk.
        let mut s = PlayerState {
            x: 3 * CELL + CELL / 2 + 40,
            ..PlayerState::at_cell(3, 2)
        };
        for _ in 0..40 {
            s = move_player(&m, &rules, s, Command::moving(Buttons::DOWN), &[]);
        }
        assert_eq!(s.cell(), (3, 4), "slid to the centre and went through");
    }

    #[test]
    fn players_block_each_other() {
        let m = open_map();
        let rules = Rules::for_tick_rate(60);
        let other = PlayerState::at_cell(5, 1);
        let mut s = PlayerState::at_cell(1, 1);
        for _ in 0..100 {
            s = move_player(&m, &rules, s, RIGHT, &[other]);
        }
        assert_eq!(s.x, other.x - 2 * HALF, "stopped touching the other player");
        // Walking away from an overlapping player is never blocked.
        let overlapping = PlayerState { x: s.x + 10, ..s };
        let left = Command::moving(Buttons::LEFT);
        let moved = move_player(&m, &rules, s, left, &[overlapping]);
        assert!(moved.x < s.x);
    }

    #[test]
    fn diagonal_is_not_faster() {
        let r = Rules::for_tick_rate(60);
        let d2 = 2 * r.diagonal_speed * r.diagonal_speed;
        assert!(d2 <= r.speed * r.speed);
        // Rounding down costs at most a few percent of speed on diagonals.
        assert!(d2 * 100 >= r.speed * r.speed * 90);
    }

    #[test]
    fn spawn_avoids_other_players() {
        let m = map(&[
            "#########",
            "#S.....S#",
            "#.......#",
            "#.......#",
            "#########",
        ]);
        let mut w = World::default();
        w.put(1, PlayerState::at_cell(1, 1));
        assert_eq!(w.spawn_point(&m, 2), PlayerState::at_cell(7, 1));
    }
}
