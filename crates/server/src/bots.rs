//! Bots that fight: they find a path to the nearest enemy, line up a shot, and fire
//! after a human-like reaction time, not always straight. Their commands go through the
//! same queue as a client's.
//!
//! They do not snowball: a bot prefers enemies at or above its own score to those far
//! below it (the newcomer), and a bot ahead of the field reacts slower and aims worse
//! the further ahead it is. Everything they decide is integer arithmetic on what the
//! server holds and a seeded generator: a seeded match repeats exactly.

use std::collections::VecDeque;

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg32;

use netarena_sim::combat;
use netarena_sim::map::{CELL, Map};
use netarena_sim::world::{Buttons, Command, PlayerId, PlayerState, World};

/// What a bot can see of the match when it decides.
pub(crate) struct Situation<'a> {
    pub(crate) me: PlayerId,
    pub(crate) state: PlayerState,
    pub(crate) world: &'a World,
    pub(crate) map: &'a Map,
    pub(crate) tick: u32,
    pub(crate) tick_rate: u32,
    /// Whether a player is alive (and so worth chasing).
    pub(crate) alive: &'a dyn Fn(PlayerId) -> bool,
    /// Whether a shot would hurt a player: alive and not spawn-protected.
    pub(crate) vulnerable: &'a dyn Fn(PlayerId) -> bool,
    /// Everyone's score this match, by id (sorted).
    pub(crate) scores: &'a [Score],
}

/// What a bot knows of a player's match.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Score {
    pub(crate) id: PlayerId,
    pub(crate) frags: i16,
    /// Who fragged it last, if anyone this match.
    pub(crate) fragged_by: Option<PlayerId>,
}

impl Situation<'_> {
    fn score(&self, id: PlayerId) -> Option<&Score> {
        let i = self.scores.binary_search_by_key(&id, |s| s.id).ok()?;
        self.scores.get(i)
    }

    fn frags_of(&self, id: PlayerId) -> i32 {
        self.score(id).map_or(0, |s| i32::from(s.frags))
    }

    /// How many frags this bot is ahead of the others' average (0 if not ahead).
    fn lead(&self) -> u32 {
        let others = self.scores.iter().filter(|s| s.id != self.me);
        let (sum, n) = others.fold((0i32, 0i32), |(t, n), s| (t + i32::from(s.frags), n + 1));
        if n == 0 {
            return 0;
        }
        let lead = self.frags_of(self.me) - sum.div_euclid(n);
        u32::try_from(lead).unwrap_or(0)
    }
}

/// Per frag a bot leads the others' average by: this much slower to react...
const LEAD_REACTION_MS: u32 = 60;
/// ...and this many more shots in a hundred one eighth off...
const LEAD_MISAIM_PCT: u32 = 4;
/// ...up to this many frags of lead.
const LEAD_COUNTED: u32 = 8;
/// An enemy this many frags or more below the bot counts as twice as far away (less
/// below, in proportion): a bot hunts its equals and betters before the weakest. One
/// the bot itself fragged last counts as farther again by as much: it looks for
/// someone else before it comes back for the same victim.
const BELOW_COUNTED: i32 = 6;

#[derive(Clone, Debug)]
pub(crate) struct FightBot {
    rng: Pcg32,
    /// 1 (slow, sloppy) to 5 (quick, precise).
    skill: u8,
    aim: u8,
    /// When the current target first lined up; the bot fires a reaction time later.
    lined_up_since: Option<u32>,
    path: VecDeque<(i32, i32)>,
    next_path: u32,
}

impl FightBot {
    pub(crate) fn new(seed: u64, skill: u8) -> FightBot {
        FightBot {
            rng: Pcg32::seed_from_u64(seed),
            skill: skill.clamp(1, 5),
            aim: 0,
            lined_up_since: None,
            path: VecDeque::new(),
            next_path: 0,
        }
    }

    /// The reaction time in ticks of a bot `lead` frags ahead of the field.
    fn reaction_ticks(&self, tick_rate: u32, lead: u32) -> u32 {
        // 700 ms at skill 1 down to 180 ms at skill 5, like people from sloppy to sharp.
        let ms = 700 - (u32::from(self.skill) - 1) * 130;
        let ms = ms + lead.min(LEAD_COUNTED) * LEAD_REACTION_MS;
        ms * tick_rate / 1000
    }

    /// Chance in percent that a shot goes one eighth off, `lead` frags ahead.
    fn misaim_pct(&self, lead: u32) -> u32 {
        // 37% at skill 1, 5% at skill 5.
        45 - u32::from(self.skill) * 8 + lead.min(LEAD_COUNTED) * LEAD_MISAIM_PCT
    }

    pub(crate) fn next(&mut self, s: &Situation) -> Command {
        let me = s.state;
        // The nearest player a shot would hurt, those far below the bot's score counting
        // as farther; a spawn-protected one (a newcomer finding the keys) only when
        // nobody else is about, and then not shot at.
        let target = nearest_enemy(s, s.vulnerable).or_else(|| nearest_enemy(s, s.alive));
        let lead = s.lead();
        let Some((target_id, t)) = target else {
            self.lined_up_since = None;
            return Command::default();
        };
        let hurts = (s.vulnerable)(target_id);

        // Lined up along one of the eight aims, with nothing in between? Never on a
        // protected target: the reaction time starts when its protection ends, not
        // while the bot waits it out.
        let rules = combat::CombatRules::for_tick_rate(s.tick_rate.min(u32::from(u16::MAX)) as u16);
        let (weapon, aim) = combat::line_up(s.map, &rules, &me, (target_id, t));
        let lined_up = aim.filter(|_| hurts);
        if let Some(aim) = lined_up {
            let since = *self.lined_up_since.get_or_insert(s.tick);
            if s.tick - since >= self.reaction_ticks(s.tick_rate, lead) {
                self.aim = if self.rng.random_range(0..100) < self.misaim_pct(lead) {
                    (aim + if self.rng.random_bool(0.5) { 1 } else { 7 }) % 8
                } else {
                    aim
                };
                return Command {
                    buttons: Buttons::FIRE,
                    weapon: weapon.index(),
                    aim: self.aim,
                };
            }
            // Hold still while taking aim.
            return Command {
                buttons: Buttons::empty(),
                weapon: weapon.index(),
                aim,
            };
        }
        self.lined_up_since = None;

        if s.tick >= self.next_path || self.path.is_empty() {
            self.path = s.map.path(me.cell(), t.cell());
            // Re-plan twice a second, at slightly different times for each bot.
            self.next_path = s.tick + s.tick_rate / 2 + self.rng.random_range(0..10);
        }
        while let Some(&(cx, cy)) = self.path.front() {
            let (wx, wy) = (cx * CELL + CELL / 2, cy * CELL + CELL / 2);
            if (wx - me.x).abs() < CELL / 4 && (wy - me.y).abs() < CELL / 4 {
                self.path.pop_front();
                continue;
            }
            let dx = deadzone(wx - me.x);
            let dy = deadzone(wy - me.y);
            let mut buttons = Buttons::empty();
            buttons.set(Buttons::RIGHT, dx > 0);
            buttons.set(Buttons::LEFT, dx < 0);
            buttons.set(Buttons::DOWN, dy > 0);
            buttons.set(Buttons::UP, dy < 0);
            if let Some(aim) = combat::aim_of(dx, dy) {
                self.aim = aim;
            }
            return Command {
                buttons,
                weapon: weapon.index(),
                aim: self.aim,
            };
        }
        Command::default()
    }
}

/// The nearest player but the bot itself that is `worth` it (the first of equals, in id
/// order), one far below the bot's score counting as up to twice as far, and the bot's
/// own last victim as farther again. `worth` is asked only of one nearer than the best
/// so far: that lookup was most of a crowded server's bot time.
fn nearest_enemy(
    s: &Situation,
    worth: &dyn Fn(PlayerId) -> bool,
) -> Option<(PlayerId, PlayerState)> {
    let mine = s.frags_of(s.me);
    let mut best: Option<(i64, PlayerId, PlayerState)> = None;
    for &(id, t) in s.world.players() {
        if id == s.me {
            continue;
        }
        // Distance squared: twice as far is four times as much.
        let below = (mine - s.frags_of(id)).clamp(0, BELOW_COUNTED);
        let my_victim = s.score(id).is_some_and(|v| v.fragged_by == Some(s.me));
        let farther = i64::from(BELOW_COUNTED + below + i32::from(my_victim) * BELOW_COUNTED);
        let d = s.state.dist2(&t) * farther * farther / i64::from(BELOW_COUNTED).pow(2);
        if best.is_some_and(|(b, _, _)| d >= b) || !worth(id) {
            continue;
        }
        best = Some((d, id, t));
    }
    best.map(|(_, id, t)| (id, t))
}

fn deadzone(d: i32) -> i32 {
    if d.abs() < CELL / 8 { 0 } else { d.signum() }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An open room: bot 1 at (2, 2), the others where `at` says, every score given.
    fn scene(at: &[(PlayerId, i32, i32)]) -> (Map, World) {
        let row = format!("#{}#\n", ".".repeat(14));
        let text = format!("{}\n{}{}", "#".repeat(16), row.repeat(10), "#".repeat(16));
        let map = Map::parse("t", &text.replacen('.', "S", 1)).unwrap();
        let mut world = World::default();
        world.put(1, PlayerState::at_cell(2, 2));
        for &(id, x, y) in at {
            world.put(id, PlayerState::at_cell(x as u16, y as u16));
        }
        (map, world)
    }

    fn situation<'a>(
        map: &'a Map,
        world: &'a World,
        scores: &'a [Score],
        tick: u32,
    ) -> Situation<'a> {
        Situation {
            me: 1,
            state: world.get(1).unwrap(),
            world,
            map,
            tick,
            tick_rate: 60,
            alive: &|_| true,
            vulnerable: &|_| true,
            scores,
        }
    }

    fn score(id: PlayerId, frags: i16, fragged_by: Option<PlayerId>) -> Score {
        Score {
            id,
            frags,
            fragged_by,
        }
    }

    /// Bots chased whoever was nearest, and the weakest player was often that: now one
    /// far below the bot's score, or its own last victim, counts as farther.
    #[test]
    fn a_bot_hunts_its_equal_before_a_weaker_or_just_fragged_player_as_near() {
        let (map, world) = scene(&[(2, 5, 2), (3, 2, 6)]);
        let nearest = |scores: &[Score]| {
            let s = situation(&map, &world, scores, 0);
            nearest_enemy(&s, s.vulnerable).map(|(id, _)| id)
        };
        // 3 cells to the weak one, 4 to the equal one.
        let level = [score(1, 10, None), score(2, 10, None), score(3, 10, None)];
        assert_eq!(nearest(&level), Some(2), "equals: the nearest");
        let weak = [score(1, 10, None), score(2, 2, None), score(3, 10, None)];
        assert_eq!(nearest(&weak), Some(3), "the weak one counts as farther");
        let victim = [
            score(1, 10, None),
            score(2, 10, Some(1)),
            score(3, 10, None),
        ];
        assert_eq!(
            nearest(&victim),
            Some(3),
            "its own last victim counts as farther"
        );
        let others_victim = [
            score(1, 10, None),
            score(2, 10, Some(3)),
            score(3, 10, None),
        ];
        assert_eq!(nearest(&others_victim), Some(2));
    }

    /// Ticks a bot with `scores` waits, with a target lined up in the open, before it
    /// fires, and how many of 200 such shots go off the line.
    fn reaction_and_misses(scores: &[Score]) -> (u32, u32) {
        let (map, world) = scene(&[(2, 8, 2)]);
        let (mut first, mut misses) = (None, 0);
        for shot in 0..200u64 {
            let mut bot = FightBot::new(shot, 2);
            for tick in 0..600 {
                let cmd = bot.next(&situation(&map, &world, scores, tick));
                if cmd.buttons.contains(Buttons::FIRE) {
                    first.get_or_insert(tick);
                    misses += u32::from(cmd.aim != 0);
                    break;
                }
            }
        }
        (first.expect("it fires"), misses)
    }

    /// A leading bot got better with every frag; now the lead makes it slower and
    /// sloppier: 60 ms and 4 shots in 100 more per frag ahead of the field, up to 8.
    #[test]
    fn a_bot_ahead_of_the_field_reacts_slower_and_misses_more() {
        let level = [score(1, 5, None), score(2, 5, None), score(3, 5, None)];
        let ahead = [score(1, 20, None), score(2, 5, None), score(3, 5, None)];
        let (react, missed) = reaction_and_misses(&level);
        let (react_ahead, missed_ahead) = reaction_and_misses(&ahead);
        assert_eq!(react, 34, "570 ms at skill 2");
        assert_eq!(react_ahead, 63, "1050 ms 8 or more frags ahead");
        assert!(
            missed_ahead > missed + 40,
            "{missed_ahead} and {missed} of 200 off"
        );
    }

    /// The rail's fine trace can graze a square the blaster's coarser steps pass by: a
    /// bot that took that for "lined up" stood still firing bolts that never landed.
    #[test]
    fn a_bot_fires_the_blaster_only_when_the_bolt_would_land() {
        let text = "############\n#S.........#\n#..........#\n#..........#\n#..........#\n#..........#\n#..........#\n############";
        let map = Map::parse("t", text).unwrap();
        let rules = combat::CombatRules::for_tick_rate(60);
        let me = PlayerState::at_cell(2, 2);
        let mut grazed = 0;
        for dx in (CELL..5 * CELL).step_by(7) {
            let t = PlayerState {
                x: me.x + dx,
                // Beside the diagonal by nearly a whole square: a thin overlap.
                y: me.y + dx + 2 * netarena_sim::world::HALF - 20,
                ..me
            };
            let by_rail = combat::rail(&map, (me.x, me.y), 1, &[(9, t)]).1.is_some();
            let bolt = combat::Projectile::fire(0, 0, &me, 1, 0);
            if by_rail && !bolt.reaches(&map, &rules, &t) {
                grazed += 1;
            }
        }
        assert!(grazed > 0, "no grazing case: the check would not matter");
    }
}
