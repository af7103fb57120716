//! Why a correction happened, worked out by re-simulation from the last state the client
//! and the server agreed on (the state after the previous acknowledged command):
//!
//! 0. While the match is over the server holds everyone still: its decision.
//! 1. Re-run our commands with the other players where the server had them: if that
//!    lands on the server's state, another player was somewhere other than predicted
//!    (we name the one nearest to where we ended up).
//! 2. Re-run them leaving out a run of consecutive commands: if that lands on the
//!    server's state, the server never got those commands in time (they were lost
//!    beyond the redundancy window, and the server skipped them).
//! 3. Otherwise, if the server has us further away than our commands could have taken
//!    us, the server decided it (a teleport, a respawn, the match ending).
//! 4. Otherwise: unknown, and we say so.
//!
//! Pure: it takes the session's data (a `Disagreement`) and nothing else, so the rules
//! can change around it.

use std::fmt;

use crate::net::protocol::PlayerSnap;
use crate::sim::map::{CELL, Map};
use crate::sim::world::{Command, PlayerId, PlayerState, Rules, move_player};

/// What the cause analysis needs, captured before the prediction is rewritten.
#[derive(Clone, Debug)]
pub(crate) struct Disagreement {
    /// Our state after the previous acknowledged command: where both sides agreed.
    pub(crate) agreed: PlayerState,
    /// Our commands since then, up to and including the acknowledged one.
    pub(crate) commands: Vec<Command>,
    /// Where our prediction had us after the acknowledged command.
    pub(crate) predicted: PlayerState,
    /// The seq of `commands[0]`.
    pub(crate) first_seq: u32,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Cause {
    /// Another player (named) was somewhere other than predicted.
    OtherPlayer(String),
    /// Commands the server never got in time: how many, from which seq.
    CommandsLost(u32, u32),
    /// The server decided it: the match is over and everyone is held still, or a
    /// teleport, respawn or the like.
    ServerDecision(&'static str),
    Unknown,
}

impl Cause {
    /// The key `corrections_by_cause` counts it under.
    pub(crate) fn key(&self) -> &'static str {
        match self {
            Cause::OtherPlayer(_) => "other_player",
            Cause::CommandsLost(..) => "commands_lost",
            Cause::ServerDecision(_) => "server_decision",
            Cause::Unknown => "unknown",
        }
    }
}

impl fmt::Display for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Cause::OtherPlayer(name) => write!(f, "{name} was elsewhere than predicted"),
            Cause::CommandsLost(n, _) => write!(f, "{n} commands never reached the server"),
            Cause::ServerDecision(what) => write!(f, "server decision ({what})"),
            Cause::Unknown => write!(f, "unknown"),
        }
    }
}

/// The most commands re-simulated; a longer window is not worth the search.
const MAX_WINDOW: usize = 128;

/// Works out the cause of a disagreement with `server`, our state in a snapshot whose
/// players are `players`; `name` names a player id; `match_over` says the results are
/// showing.
#[allow(clippy::too_many_arguments)]
pub(crate) fn explain(
    d: &Disagreement,
    match_over: bool,
    map: &Map,
    rules: &Rules,
    server: PlayerState,
    players: &[PlayerSnap],
    me: PlayerId,
    name: impl Fn(PlayerId) -> String,
) -> Cause {
    if match_over {
        return Cause::ServerDecision("match over");
    }
    let same = |a: PlayerState, b: PlayerState| (a.x, a.y) == (b.x, b.y);
    let skipped = d.commands.len().saturating_sub(MAX_WINDOW);
    let commands = &d.commands[skipped..];
    let others: Vec<PlayerState> = players
        .iter()
        .filter(|p| p.id != me)
        .map(|p| p.state)
        .collect();
    let run = |cmds: &mut dyn Iterator<Item = &Command>| {
        cmds.fold(d.agreed, |s, c| move_player(map, rules, s, *c, &others))
    };
    if same(run(&mut commands.iter()), server) {
        let nearest = players.iter().filter(|p| p.id != me).min_by_key(|p| {
            i64::from(p.state.x - server.x).pow(2) + i64::from(p.state.y - server.y).pow(2)
        });
        if let Some(p) = nearest {
            return Cause::OtherPlayer(name(p.id));
        }
    }
    let n = commands.len();
    for len in 1..=n {
        for first in 0..=n - len {
            let mut kept = commands[..first].iter().chain(&commands[first + len..]);
            if same(run(&mut kept), server) {
                let seq = d.first_seq + (skipped + first) as u32;
                return Cause::CommandsLost(len as u32, seq);
            }
        }
    }
    let reach = i64::from(rules.speed) * (n as i64 + 1) + i64::from(CELL);
    let dx = i64::from(server.x - d.predicted.x).abs();
    let dy = i64::from(server.y - d.predicted.y).abs();
    if dx.max(dy) > reach {
        return Cause::ServerDecision("teleport or respawn");
    }
    Cause::Unknown
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::world::Buttons;

    fn setup() -> (Map, Rules, PlayerState) {
        let map = Map::builtin("arena").unwrap();
        let (x, y) = map.spawns()[0];
        (map, Rules::for_tick_rate(60), PlayerState::at_cell(x, y))
    }

    fn predict(map: &Map, rules: &Rules, from: PlayerState, cmds: &[Command]) -> PlayerState {
        cmds.iter()
            .fold(from, |s, c| move_player(map, rules, s, *c, &[]))
    }

    #[test]
    fn a_lost_run_of_commands_is_found_by_leaving_it_out() {
        let (map, rules, start) = setup();
        let mut cmds = vec![Command::moving(Buttons::RIGHT); 10];
        cmds.extend(vec![Command::moving(Buttons::DOWN); 10]);
        let d = Disagreement {
            agreed: start,
            commands: cmds.clone(),
            predicted: predict(&map, &rules, start, &cmds),
            first_seq: 101,
        };
        // The server never got commands 3..7.
        let kept: Vec<_> = cmds[..3].iter().chain(&cmds[7..]).copied().collect();
        let server = predict(&map, &rules, start, &kept);
        let cause = explain(&d, false, &map, &rules, server, &[], 1, |_| String::new());
        // Leaving out any four of the first ten (alike) lands there too: the earliest
        // such run is named.
        assert_eq!(cause, Cause::CommandsLost(4, 101));
    }

    #[test]
    fn a_jump_no_command_explains_is_the_servers_decision_and_a_small_one_unknown() {
        let (map, rules, start) = setup();
        let cmds = vec![Command::default(); 5];
        let d = Disagreement {
            agreed: start,
            commands: cmds,
            predicted: start,
            first_seq: 1,
        };
        let far = PlayerState {
            x: start.x + 10 * CELL,
            ..start
        };
        let cause = explain(&d, false, &map, &rules, far, &[], 1, |_| String::new());
        assert_eq!(cause, Cause::ServerDecision("teleport or respawn"));
        let near = PlayerState {
            x: start.x + 3,
            ..start
        };
        assert_eq!(
            explain(&d, false, &map, &rules, near, &[], 1, |_| String::new()),
            Cause::Unknown
        );
    }
}
