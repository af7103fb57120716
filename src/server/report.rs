//! What the server tells its owner: joins, leaves, frags and results as plain data. How
//! they are shown (a console line, a log entry) is the owner's business.

use std::net::SocketAddr;

use crate::net::protocol::GameEvent;
use crate::sim::combat::Weapon;
use crate::sim::world::PlayerId;

/// Something worth a line in the dedicated server's output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ServerEvent {
    Joined {
        id: PlayerId,
        name: String,
        /// None for a bot.
        from: Option<SocketAddr>,
    },
    Left {
        id: PlayerId,
        name: String,
        reason: &'static str,
    },
    Frag {
        killer: String,
        victim: String,
        weapon: Weapon,
    },
    /// A match ended.
    Results {
        map: String,
        /// Best first.
        lines: Vec<Standing>,
        next_map: String,
    },
}

/// One player's line in a match's results.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Standing {
    pub name: String,
    pub frags: i16,
    pub deaths: u16,
}

/// The server events among one tick's game events; `name` names a player id.
pub(crate) fn from_game_events(
    events: &[GameEvent],
    map: &str,
    name: impl Fn(PlayerId) -> String,
) -> Vec<ServerEvent> {
    let mut out = Vec::new();
    for e in events {
        match e {
            GameEvent::Kill {
                killer,
                victim,
                weapon,
            } => out.push(ServerEvent::Frag {
                killer: name(*killer),
                victim: name(*victim),
                weapon: *weapon,
            }),
            GameEvent::MatchEnd {
                standings,
                next_map,
                ..
            } if !standings.is_empty() => out.push(ServerEvent::Results {
                map: map.to_owned(),
                lines: standings
                    .iter()
                    .map(|p| Standing {
                        name: name(p.id),
                        frags: p.frags,
                        deaths: p.deaths,
                    })
                    .collect(),
                next_map: next_map.clone(),
            }),
            _ => {}
        }
    }
    out
}
