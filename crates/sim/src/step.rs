//! The rulebook: what one command does to one player. The server's match and the
//! client's prediction both call [`step`], so whatever it decides (movement, facing, the
//! weapon switch delay, the cooldown, whether a shot leaves and from where, the end of
//! spawn protection) the client predicts exactly.
//!
//! A player's own timers count that player's commands, not server ticks: the server
//! applies command `seq` at whatever tick the network lets it, but the weapon is ready
//! again after the same number of commands on both sides. What only the server can
//! decide (damage, death, where a respawn puts you, the end of a match) it decides
//! outside this function and says in snapshots, by setting the [`Phase`].
//!
//! Spawn protection's caps are the one rule counted in server ticks, not commands (a
//! client that stops sending must not stay protected): `protection_holds` says it,
//! for the server's match and the client's countdown alike.

use serde::{Deserialize, Serialize};

use super::combat::{CombatRules, PROTECT_MAX_MS, PROTECT_READING_MAX_MS, Weapon};
use super::map::Map;
use super::world::{Buttons, Command, PlayerId, PlayerState, Rules, move_player};

/// What a player's commands may do right now.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Phase {
    /// Moving and fighting.
    #[default]
    Playing,
    /// Dead, waiting for the server to respawn it.
    Dead,
    /// The match is over and the results are showing: nobody moves or fires.
    Frozen,
}

/// The part of a player that its own commands change: everything a client needs to
/// replay a command exactly.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Body {
    pub state: PlayerState,
    pub phase: Phase,
    pub weapon: Weapon,
    /// The first command seq that may fire.
    pub ready_at: u32,
    /// Spawn protection: on at a spawn, off at the first command that moves or fires
    /// (or when the server's cap runs out).
    pub protected: bool,
}

impl Body {
    /// A player just placed at `state`, protected, able to fire from command `seq`.
    pub fn spawned(state: PlayerState, weapon: Weapon, seq: u32) -> Body {
        Body {
            state,
            phase: Phase::Playing,
            weapon,
            ready_at: seq,
            protected: true,
        }
    }
}

/// How many ticks after a spawn protection may last: [`PROTECT_MAX_MS`], or while the
/// player is `reading` (its newest command carries [`Buttons::READING`]: `?` help or
/// the scoreboard open) [`PROTECT_READING_MAX_MS`].
pub fn protection_cap(rules: &CombatRules, reading: bool) -> u32 {
    if reading {
        rules.protect_ticks.saturating_mul(PROTECT_READING_MAX_MS) / PROTECT_MAX_MS
    } else {
        rules.protect_ticks
    }
}

/// Whether spawn protection that no move or shot has ended yet still holds
/// `since_spawn` ticks after the spawn. Past the short cap it holds only while the
/// player reads, so closing the overlay ends it, and it never comes back.
pub fn protection_holds(rules: &CombatRules, since_spawn: u32, reading: bool) -> bool {
    since_spawn < protection_cap(rules, reading)
}

/// A shot that left the muzzle on one command.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shot {
    /// Derived from the shooter and the command seq, so both sides name it alike.
    pub id: u16,
    pub weapon: Weapon,
    /// The shooter's centre after the command's movement.
    pub from: (i32, i32),
    pub aim: u8,
}

/// The id both sides give the shot fired by `owner`'s command `seq`. Unique among the
/// shots alive at once: a player fires at most once per cooldown, and 256 commands are
/// far longer than a projectile lives.
pub fn shot_id(owner: PlayerId, seq: u32) -> u16 {
    u16::from(owner) << 8 | (seq & 0xff) as u16
}

/// Movement and combat rules for one tick rate, as both sides derive them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Rulebook {
    pub movement: Rules,
    pub combat: CombatRules,
}

impl Rulebook {
    pub fn for_tick_rate(tick_rate: u16) -> Rulebook {
        Rulebook {
            movement: Rules::for_tick_rate(tick_rate),
            combat: CombatRules::for_tick_rate(tick_rate),
        }
    }
}

/// Applies command `seq` of player `id` to its body: movement (blocked by walls and
/// `others`), the weapon switch and its delay, the cooldown, and firing. Returns the
/// shot it fires, if any.
pub fn step(
    map: &Map,
    rules: &Rulebook,
    id: PlayerId,
    body: &mut Body,
    seq: u32,
    cmd: Command,
    others: &[PlayerState],
) -> Option<Shot> {
    let cmd = cmd.sanitized();
    if body.phase != Phase::Playing {
        body.state.vx = 0;
        body.state.vy = 0;
        return None;
    }
    body.state = move_player(map, &rules.movement, body.state, cmd, others);
    let wanted = Weapon::from_index(cmd.weapon);
    if wanted != body.weapon {
        // A switch takes time whatever the client sends: switching faster, or switching
        // to dodge a cooldown, gains nothing.
        body.weapon = wanted;
        body.ready_at = body
            .ready_at
            .max(seq.saturating_add(rules.combat.switch_ticks));
    }
    let moved = cmd.buttons.direction() != (0, 0);
    let fires = cmd.buttons.contains(Buttons::FIRE) && seq >= body.ready_at;
    if moved || fires {
        body.protected = false;
    }
    if !fires {
        return None;
    }
    body.ready_at = seq.saturating_add(rules.combat.cooldown(body.weapon));
    Some(Shot {
        id: shot_id(id, seq),
        weapon: body.weapon,
        from: (body.state.x, body.state.y),
        aim: cmd.aim,
    })
}

/// Sub-ticks in one tick: the unit a variable-rate command's length is counted in.
pub const SUBTICKS: u32 = 16;

/// The longest one variable-rate command may last, in sub-ticks (four ticks): a longer
/// frame is made into several commands.
pub const MAX_SPAN: u8 = 64;

/// How long a command lasts, and how long the one before it did (the article on
/// client-side prediction revisited: each command carries its own frame time). `0` is
/// one fixed tick (the fixed-tick client's commands, timers counted in commands); `1`
/// to [`MAX_SPAN`] is a variable-rate command of that many [`SUBTICKS`]ths of a tick
/// (timers counted in sub-ticks). The one before says which unit the body's timers are
/// in when this one starts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Span {
    pub this: u8,
    pub before: u8,
}

impl Span {
    /// One fixed tick after another: what [`step`] applies.
    pub const TICK: Span = Span { this: 0, before: 0 };
}

/// The body's weapon timer, as sub-ticks to wait from the start of command `seq`, when
/// the command before it counted in `before`'s unit.
fn wait_subticks(body: &Body, seq: u32, before: u8) -> u32 {
    let left = body.ready_at.saturating_sub(seq);
    if before == 0 {
        left.saturating_mul(SUBTICKS)
    } else {
        left
    }
}

/// The movement of a command lasting `span` sub-ticks (0: one fixed tick, as
/// [`move_player`]): its whole ticks' moves, then the rest's share of a tick's speed,
/// rounded down; the velocity its displacement per tick. Commands that only move (a
/// correction's cause analysis) are re-run through this.
pub fn move_span(
    map: &Map,
    rules: &Rules,
    me: PlayerState,
    (cmd, span): (Command, u8),
    others: &[PlayerState],
) -> PlayerState {
    if span == 0 {
        return move_player(map, rules, me, cmd, others);
    }
    let n = u32::from(span.min(MAX_SPAN));
    let mut state = me;
    for _ in 0..n / SUBTICKS {
        state = move_player(map, rules, state, cmd, others);
    }
    let part = n % SUBTICKS;
    if part > 0 {
        let scaled = |v: i32| (i64::from(v) * i64::from(part) / i64::from(SUBTICKS)) as i32;
        let partial = Rules {
            speed: scaled(rules.speed),
            diagonal_speed: scaled(rules.diagonal_speed),
        };
        state = move_player(map, &partial, state, cmd, others);
    }
    let per_tick = |d: i32| (i64::from(d) * i64::from(SUBTICKS) / i64::from(n)) as i32;
    state.vx = per_tick(state.x - me.x);
    state.vy = per_tick(state.y - me.y);
    state
}

/// Applies command `seq` of player `id`, lasting `span`, to its body: [`step`] for a
/// fixed tick; for a variable-rate command of `n` sub-ticks, the moves of `n / 16`
/// whole ticks, then one of the remaining sixteenths of a tick's speed (rounded down,
/// so a command shorter than a tick may move up to a sub-cell unit less than its share:
/// a 2-tick command moves exactly as two 1-tick ones, eight of 2 sub-ticks a little
/// less). Its velocity is its displacement per tick. The weapon timers count its
/// sub-ticks: after a shot the weapon is ready once a cooldown's worth of commands'
/// time has passed, however many commands that took, so a faster frame rate fires no
/// faster; a command fires at most once, and only if the weapon was ready when it
/// began. Between commands the timer travels as `ready_at` (the seq after this one
/// plus the sub-ticks still to wait), so a snapshot's `ready_in` carries it, and a
/// switch between fixed and variable commands converts it (whole ticks up to
/// sub-ticks and back, rounding up): changing mode never shortens a cooldown.
pub fn step_span(
    map: &Map,
    rules: &Rulebook,
    id: PlayerId,
    body: &mut Body,
    seq: u32,
    (cmd, span): (Command, Span),
    others: &[PlayerState],
) -> Option<Shot> {
    if span.this == 0 {
        if span.before != 0 {
            // From sub-ticks back to commands, rounding up.
            let left = body.ready_at.saturating_sub(seq);
            body.ready_at = seq.saturating_add(left.div_ceil(SUBTICKS));
        }
        return step(map, rules, id, body, seq, cmd, others);
    }
    let cmd = cmd.sanitized();
    let n = u32::from(span.this.min(MAX_SPAN));
    let mut wait = wait_subticks(body, seq, span.before);
    let mut shot = None;
    if body.phase != Phase::Playing {
        body.state.vx = 0;
        body.state.vy = 0;
    } else {
        body.state = move_span(map, &rules.movement, body.state, (cmd, span.this), others);
        let wanted = Weapon::from_index(cmd.weapon);
        if wanted != body.weapon {
            body.weapon = wanted;
            wait = wait.max(rules.combat.switch_ticks.saturating_mul(SUBTICKS));
        }
        let moved = cmd.buttons.direction() != (0, 0);
        let fires = cmd.buttons.contains(Buttons::FIRE) && wait == 0;
        if moved || fires {
            body.protected = false;
        }
        if fires {
            wait = rules.combat.cooldown(body.weapon).saturating_mul(SUBTICKS);
            shot = Some(Shot {
                id: shot_id(id, seq),
                weapon: body.weapon,
                from: (body.state.x, body.state.y),
                aim: cmd.aim,
            });
        }
    }
    body.ready_at = seq.saturating_add(1).saturating_add(wait.saturating_sub(n));
    shot
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::map::CELL;

    fn arena() -> Map {
        Map::builtin("duel").expect("built in")
    }

    fn firing(weapon: u8) -> Command {
        Command {
            buttons: Buttons::FIRE,
            weapon,
            aim: 0,
        }
    }

    fn body(map: &Map) -> Body {
        let (x, y) = map.spawns()[0];
        Body::spawned(PlayerState::at_cell(x, y), Weapon::Blaster, 1)
    }

    #[test]
    fn the_cooldown_counts_commands() {
        let map = arena();
        let rules = Rulebook::for_tick_rate(60);
        let mut b = body(&map);
        let fired: Vec<u32> = (1..=100)
            .filter(|&seq| step(&map, &rules, 3, &mut b, seq, firing(0), &[]).is_some())
            .collect();
        let every = rules.combat.blaster_cooldown;
        assert_eq!(fired[0], 1);
        assert!(fired.windows(2).all(|w| w[1] - w[0] == every), "{fired:?}");
    }

    #[test]
    fn a_switch_delays_the_next_shot_and_cannot_dodge_a_cooldown() {
        let map = arena();
        let rules = Rulebook::for_tick_rate(60);
        let mut b = body(&map);
        assert!(step(&map, &rules, 0, &mut b, 1, firing(0), &[]).is_some());
        // Switching to the rail at once: ready only after the switch delay.
        let first_rail = (2..200)
            .find(|&seq| step(&map, &rules, 0, &mut b, seq, firing(1), &[]).is_some())
            .unwrap();
        assert_eq!(first_rail, 2 + rules.combat.switch_ticks);
        assert_eq!(b.weapon, Weapon::Rail);
        // Switching back straight after the rail shot does not skip the rail's cooldown.
        let next = (first_rail + 1..400)
            .find(|&seq| step(&map, &rules, 0, &mut b, seq, firing(0), &[]).is_some())
            .unwrap();
        assert_eq!(next, first_rail + rules.combat.rail_cooldown);
    }

    #[test]
    fn dead_and_frozen_players_neither_move_nor_fire() {
        let map = arena();
        let rules = Rulebook::for_tick_rate(60);
        for phase in [Phase::Dead, Phase::Frozen] {
            let mut b = Body {
                phase,
                ..body(&map)
            };
            let before = b;
            let cmd = Command {
                buttons: Buttons::FIRE.union(Buttons::RIGHT),
                weapon: 0,
                aim: 0,
            };
            assert_eq!(step(&map, &rules, 0, &mut b, 5, cmd, &[]), None);
            assert_eq!((b.state.x, b.state.y), (before.state.x, before.state.y));
        }
    }

    #[test]
    fn protection_ends_at_the_first_move_or_shot() {
        let map = arena();
        let rules = Rulebook::for_tick_rate(60);
        let mut b = body(&map);
        step(&map, &rules, 0, &mut b, 1, Command::default(), &[]);
        assert!(b.protected, "standing still keeps it");
        step(
            &map,
            &rules,
            0,
            &mut b,
            2,
            Command::moving(Buttons::LEFT),
            &[],
        );
        assert!(!b.protected);
        let mut b = body(&map);
        step(&map, &rules, 0, &mut b, 1, firing(0), &[]);
        assert!(!b.protected);
    }

    #[test]
    fn reading_stretches_protection_to_its_own_cap_only() {
        let rules = CombatRules::for_tick_rate(60);
        assert_eq!(protection_cap(&rules, false), 180);
        assert_eq!(protection_cap(&rules, true), 600);
        assert!(protection_holds(&rules, 179, false));
        assert!(
            !protection_holds(&rules, 180, false),
            "closing help ends it"
        );
        assert!(protection_holds(&rules, 599, true));
        assert!(
            !protection_holds(&rules, 600, true),
            "reading ends it at its cap"
        );
        // Reading is no key: it neither moves nor ends protection.
        let map = arena();
        let mut b = body(&map);
        let reading = Command::moving(Buttons::READING);
        step(
            &map,
            &Rulebook::for_tick_rate(60),
            0,
            &mut b,
            1,
            reading,
            &[],
        );
        assert!(b.protected);
        assert_eq!((b.state.vx, b.state.vy), (0, 0));
    }

    #[test]
    fn shots_leave_from_where_the_command_moved_the_player() {
        let map = arena();
        let rules = Rulebook::for_tick_rate(60);
        let mut b = body(&map);
        let cmd = Command {
            buttons: Buttons::FIRE.union(Buttons::DOWN),
            weapon: 0,
            aim: 2,
        };
        let shot = step(&map, &rules, 7, &mut b, 300, cmd, &[]).unwrap();
        assert_eq!(shot.from, (b.state.x, b.state.y));
        assert!(b.state.vy > 0 && b.state.vy < CELL);
        assert_eq!((shot.id, shot.aim), (shot_id(7, 300), 2));
        assert_ne!(shot_id(7, 300), shot_id(6, 300));
        assert_ne!(shot_id(7, 300), shot_id(7, 301));
    }

    fn walking(buttons: Buttons) -> Command {
        Command::moving(buttons)
    }

    fn variable(this: u8, before: u8) -> Span {
        Span { this, before }
    }

    /// A command of two ticks from rest moves exactly as far as two one-tick commands
    /// (and one of 16 sub-ticks as one fixed tick), straight, diagonally and into a wall.
    #[test]
    fn a_two_tick_command_moves_as_two_one_tick_ones() {
        let map = arena();
        let rules = Rulebook::for_tick_rate(60);
        for dir in [
            Buttons::RIGHT,
            Buttons::DOWN.union(Buttons::LEFT),
            Buttons::UP.union(Buttons::RIGHT),
        ] {
            let cmd = walking(dir);
            // Long enough to reach a wall on the duel map.
            let mut fixed = body(&map);
            let mut long = body(&map);
            let mut single = body(&map);
            for seq in 1..=200u32 {
                step(&map, &rules, 0, &mut fixed, seq, cmd, &[]);
                if seq % 2 == 0 {
                    let before = if seq == 2 { 0 } else { 32 };
                    step_span(
                        &map,
                        &rules,
                        0,
                        &mut long,
                        seq,
                        (cmd, variable(32, before)),
                        &[],
                    );
                    // Its velocity is its mean per tick; the fixed one's, its last tick's.
                    let at = |b: &Body| (b.state.x, b.state.y);
                    assert_eq!(at(&long), at(&fixed), "{dir:?} after {seq} ticks");
                }
                let before = if seq == 1 { 0 } else { 16 };
                step_span(
                    &map,
                    &rules,
                    0,
                    &mut single,
                    seq,
                    (cmd, variable(16, before)),
                    &[],
                );
                assert_eq!(single.state, fixed.state, "{dir:?} after {seq} ticks");
            }
            assert!(fixed.state.vx == 0 || fixed.state.vy == 0, "reached a wall");
        }
    }

    /// Quarter-tick commands move a quarter of a tick's speed each, rounded down: at
    /// 60 Hz (38 units a tick) four of them cover 36, never more than the tick.
    #[test]
    fn shorter_commands_move_their_share_rounded_down() {
        let map = arena();
        let rules = Rulebook::for_tick_rate(60);
        let cmd = walking(Buttons::RIGHT);
        let mut quarter = body(&map);
        let start = quarter.state.x;
        for seq in 1..=4u32 {
            step_span(
                &map,
                &rules,
                0,
                &mut quarter,
                seq,
                (cmd, variable(4, 4)),
                &[],
            );
        }
        assert_eq!(rules.movement.speed, 38);
        assert_eq!(quarter.state.x - start, 4 * (38 * 4 / 16));
        assert_eq!(quarter.state.vx, 36, "displacement per tick");
    }

    /// The weapon's timers count time, not commands: a client making four commands a
    /// tick fires no more often than one making one; a command fires at most once.
    #[test]
    fn a_faster_frame_rate_fires_no_faster() {
        let map = arena();
        let rules = Rulebook::for_tick_rate(60);
        let shots = |span: u8| {
            let mut b = body(&map);
            let commands = 600 * SUBTICKS / u32::from(span);
            (1..=commands)
                .filter(|&seq| {
                    step_span(
                        &map,
                        &rules,
                        0,
                        &mut b,
                        seq,
                        (firing(0), variable(span, span)),
                        &[],
                    )
                    .is_some()
                })
                .count()
        };
        let every = rules.combat.blaster_cooldown as usize;
        assert_eq!(shots(16), 600 / every);
        assert_eq!(shots(4), 600 / every);
        assert_eq!(shots(1), 600 / every);
        // A shot waits for a command that begins with the weapon ready: with commands of
        // four ticks the blaster's 15-tick cooldown is served in 16.
        assert_eq!(every, 15);
        assert_eq!(shots(64), 600usize.div_ceil(16));
    }

    /// Switching between fixed and variable commands converts the timer: a shot made
    /// with a fixed tick, then variable commands of a tick each (or the other way round),
    /// waits the whole cooldown.
    #[test]
    fn changing_mode_never_shortens_a_cooldown() {
        let map = arena();
        let rules = Rulebook::for_tick_rate(60);
        let every = rules.combat.blaster_cooldown;
        let mut b = body(&map);
        assert!(step(&map, &rules, 0, &mut b, 1, firing(0), &[]).is_some());
        let next = (2..400)
            .find(|&seq| {
                let before = if seq == 2 { 0 } else { 16 };
                step_span(
                    &map,
                    &rules,
                    0,
                    &mut b,
                    seq,
                    (firing(0), variable(16, before)),
                    &[],
                )
                .is_some()
            })
            .unwrap();
        assert_eq!(next, 1 + every);
        let back = (next + 1..400)
            .find(|&seq| {
                let before = if seq == next + 1 { 16 } else { 0 };
                step_span(
                    &map,
                    &rules,
                    0,
                    &mut b,
                    seq,
                    (firing(0), variable(0, before)),
                    &[],
                )
                .is_some()
            })
            .unwrap();
        assert_eq!(back, next + every);
    }
}
