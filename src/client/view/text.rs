//! The words and tables of a frame: kill feed, chat, the combat line, roster, scores.

use std::time::Instant;

use super::super::netcode::session::ClientSession;
use super::memory::{FLASH, Memory};
use crate::net::protocol::PlayerStatus;
use crate::ui::{CombatHud, ResultsView, RosterLine, ScoreLine};

pub(super) fn roster(s: &ClientSession) -> Vec<RosterLine> {
    s.roster()
        .iter()
        .map(|r| RosterLine {
            id: r.id,
            name: r.name.clone(),
            local: r.id == s.player_id(),
            bot: r.bot,
        })
        .collect()
}

/// Kill feed lines, oldest first.
pub(super) fn feed(s: &ClientSession) -> Vec<String> {
    s.match_log()
        .feed
        .iter()
        .map(|(_, k)| {
            if k.killer == k.victim {
                format!("{} fragged themselves", s.name_of(k.victim))
            } else {
                format!(
                    "{} [{}] {}",
                    s.name_of(k.killer),
                    k.weapon.name(),
                    s.name_of(k.victim)
                )
            }
        })
        .collect()
}

/// Chat lines, oldest first.
pub(super) fn chat(s: &ClientSession) -> Vec<String> {
    s.match_log()
        .chat
        .iter()
        .map(|(_, from, text)| format!("{}: {text}", s.name_of(*from)))
        .collect()
}

/// The local player's health, weapon, frags and the match clock, and the feedback
/// `memory` gives (hurt, hit, how we died, the rail's cooldown, the shield: to the long
/// cap while `reading`).
pub(super) fn combat(
    s: &ClientSession,
    memory: &Memory,
    now: Instant,
    reading: bool,
) -> Option<CombatHud> {
    let me = s.combat().status(s.player_id())?;
    let clock = s.match_log().clock.as_ref();
    let server_tick = f64::from(s.latest_tick().unwrap_or(0));
    let recent = |at: Option<Instant>| at.is_some_and(|t| now.saturating_duration_since(t) < FLASH);
    Some(CombatHud {
        health: me.health,
        alive: me.alive,
        weapon: me.weapon,
        frags: me.frags,
        frag_limit: clock.map_or(0, |c| c.frag_limit),
        time_left_secs: clock.map(|c| {
            let elapsed = s.tick_secs(server_tick) - s.tick_secs(f64::from(c.started_tick));
            (f64::from(c.time_limit_secs) - elapsed).max(0.0) as u32
        }),
        hurt: recent(memory.hurt_at),
        hit: recent(memory.hit_at),
        death: memory
            .death
            .as_ref()
            .zip(memory.respawn_in(s, now))
            .map(|(d, secs)| (d.how.clone(), secs)),
        rail_cooldown_secs: memory
            .rail_ready_at
            .map(|t| t.saturating_duration_since(now).as_secs_f64()),
        protected_secs: memory.protected_for(s, s.player_id(), now, reading),
    })
}

fn score_line(s: &ClientSession, st: &PlayerStatus) -> ScoreLine {
    ScoreLine {
        id: st.id,
        name: s.name_of(st.id),
        frags: st.frags,
        deaths: st.deaths,
        ping_ms: s
            .roster()
            .iter()
            .find(|r| r.id == st.id)
            .map_or(0, |r| r.ping_ms),
        local: st.id == s.player_id(),
    }
}

/// Everyone's score, most frags first (fewest deaths breaking ties).
pub(super) fn scoreboard(s: &ClientSession) -> Vec<ScoreLine> {
    let mut lines: Vec<ScoreLine> = s
        .combat()
        .statuses
        .values()
        .map(|st| score_line(s, st))
        .collect();
    lines.sort_by(|a, b| b.frags.cmp(&a.frags).then(a.deaths.cmp(&b.deaths)));
    lines
}

pub(super) fn results(s: &ClientSession) -> Option<ResultsView> {
    let r = s.match_log().results.as_ref()?;
    Some(ResultsView {
        winner: r
            .winner
            .map_or_else(|| "nobody".to_owned(), |id| s.name_of(id)),
        lines: r.standings.iter().map(|st| score_line(s, st)).collect(),
        next_map: r.next_map.clone(),
    })
}
