//! What the server tells its owner: joins, leaves, frags and results as plain data. How
//! they are shown (a console line, a log entry) is the owner's business.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use super::{Refusals, Server};

use netarena_net::protocol::GameEvent;
use netarena_sim::combat::Weapon;
use netarena_sim::world::PlayerId;

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
    /// A session's datagrams come from a new address now (a NAT rebound its port).
    Moved {
        id: PlayerId,
        from: SocketAddr,
        to: SocketAddr,
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
    /// What the server refused over the last [`REFUSALS_EVERY`], when anything was.
    Refused(Refusals),
}

/// How often refusals are reported (when there were any).
pub const REFUSALS_EVERY: Duration = Duration::from_secs(60);

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

/// When refusals were last reported, and their counts then.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct RefusalReport {
    at: Option<Instant>,
    counted: Refusals,
}

impl Server {
    /// Once every [`REFUSALS_EVERY`], reports what was refused since the last report,
    /// if anything was: an operator sees an attack without reading debug logs.
    pub(super) fn report_refusals(&mut self, now: Instant) {
        let last = &mut self.refusal_report;
        let at = *last.at.get_or_insert(now);
        if now.saturating_duration_since(at) < REFUSALS_EVERY {
            return;
        }
        let fresh = self.refusals.since(&last.counted);
        *last = RefusalReport {
            at: Some(now),
            counted: self.refusals,
        };
        if fresh.total() > 0 {
            self.events.push(ServerEvent::Refused(fresh));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ServerConfig;
    use netarena_sim::map::Map;

    fn refused(server: &mut Server) -> Vec<Refusals> {
        server
            .take_events()
            .filter_map(|e| match e {
                ServerEvent::Refused(r) => Some(r),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn refusals_are_reported_once_a_minute_when_there_are_any() {
        let mut server = Server::new(ServerConfig::new(Map::builtin("duel").unwrap()));
        let start = Instant::now();
        let stranger = "10.0.0.9:1234".parse().unwrap();
        let tick = Duration::from_millis(500);
        let mut now = start;
        let mut reports = Vec::new();
        // Three minutes of a simulated clock: garbage during the first 90 s only.
        while now < start + Duration::from_secs(180) {
            server.tick(now);
            reports.extend(refused(&mut server).into_iter().map(|r| (now - start, r)));
            if now < start + Duration::from_secs(90) {
                server.receive(now, stranger, &[0x7F; 7]);
            }
            now += tick;
        }
        let at: Vec<u64> = reports.iter().map(|(t, _)| t.as_secs()).collect();
        // At 60 s and 120 s (garbage from 60 to 90 s); nothing to say at 180 s.
        assert_eq!(at, [60, 120], "{reports:?}");
        // Each report counts its own minute: 2 datagrams a second.
        assert_eq!(reports[0].1.malformed, 120);
        assert_eq!(reports[1].1.malformed, 60);
        assert_eq!(reports[0].1.total(), 120);
    }
}
