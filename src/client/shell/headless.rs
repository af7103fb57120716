//! The client pipeline without a terminal: the same link, session, prediction and
//! interpolation, driven by a scripted bot, ending with a JSON report. Tests, load tests
//! and benchmarks run this.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::Context;
use serde::Serialize;

use super::link::Link;
use super::pump::{Pumped, pump};
use super::rejoin::{Silence, rejoin};
use crate::client::ClientConfig;
use crate::client::driver::Driver;
use crate::client::netcode::net_stats::{RemoteSeen, SessionStats};
use crate::client::netcode::session::ClientSession;
use crate::client::play::app::App;
use crate::client::play::brain::{Fighter, Reflex, Wander};
use crate::client::tap::{LinkTotals, LoopKind, Tap};
use crate::net::protocol::ServerMsg;
use crate::sim::world::Command;

/// What drives the headless client's keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BotKind {
    /// Wanders the map, turning when blocked.
    Wander,
    /// Wanders, fires both weapons and switches between them.
    Fighter,
    /// A newcomer with quick hands: reads `?` help for 8 s, then fights what it sees
    /// ([`Reflex`]).
    Reflex,
    /// Holds no keys.
    Idle,
}

/// Written as JSON at the end of a headless run: the session's counts, and the link's.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// False when the join failed: the counts are then zero, and `ended` says why.
    pub joined: bool,
    pub player_id: u8,
    #[serde(flatten)]
    pub stats: SessionStats,
    pub commands_acked: u64,
    pub jitter_ms: f64,
    pub bytes_in: u64,
    pub bytes_out: u64,
    pub packets_in: u64,
    pub packets_out: u64,
    pub malformed_in: u64,
    pub seconds: f64,
    pub remote_players: Vec<RemoteSeen>,
    /// The IP packet size the join proved the path carries (`Link::path_mtu`): 576
    /// when full-size connect requests went unanswered and the session's datagrams
    /// keep to 548 bytes; 0 in a replay.
    pub path_mtu: usize,
    /// How the session ended: "time up", "stopped by a signal", or what the server
    /// did ("the server closed the connection: ...", "... stopped answering").
    pub ended: String,
}

pub fn run(
    config: &ClientConfig,
    bot: BotKind,
    seconds: f64,
    report_path: Option<&Path>,
    stop: &AtomicBool,
) -> anyhow::Result<Report> {
    run_with(config, bot, seconds, report_path, stop, None)
}

/// [`run`], every input to the loop also handed to `tap` (a recorder).
pub fn run_with(
    config: &ClientConfig,
    bot: BotKind,
    seconds: f64,
    report_path: Option<&Path>,
    stop: &AtomicBool,
    mut tap: Option<Box<dyn Tap>>,
) -> anyhow::Result<Report> {
    let tried = Instant::now();
    let mut link = Link::open(config)?;
    let welcome = match link.connect(&config.name, config.timeout, || {
        Ok(stop.load(Ordering::Relaxed))
    }) {
        Ok(Some(welcome)) => welcome,
        Ok(None) => {
            let e = anyhow::anyhow!("stopped by a signal before joining");
            return Err(unjoined(&link, tried, report_path, e));
        }
        Err(e) => return Err(unjoined(&link, tried, report_path, e)),
    };
    let start = Instant::now();
    if let Some(tap) = &mut tap {
        tap.start(start, LoopKind::Headless, &welcome, config);
    }
    let mut session = ClientSession::new(welcome, start, config.switches)
        .context("the server sent a map this client cannot use")?;
    session.apply(config);
    session.real_network();
    let app = App::new(config.outgoing.clone());
    let mut driver = Driver::new(session, app, start);
    if let Some(tap) = tap {
        driver.set_tap(tap);
    }
    let end = start + Duration::from_secs_f64(seconds.max(0.0));
    let played = play(&mut link, &mut driver, config, bot, end, stop);
    let elapsed = start.elapsed().as_secs_f64();
    let ended = match &played {
        Ok(()) if stop.load(Ordering::Relaxed) => "stopped by a signal".to_owned(),
        Ok(()) => "time up".to_owned(),
        Err(e) => format!("{e:#}"),
    };
    // A server that said goodbye needs none back.
    if played.is_ok() {
        let rtt = driver.session().stats().rtt_ms;
        leave(&mut link, rtt, Duration::from_millis(600))?;
    }
    let totals = link.totals(elapsed);
    if let Some(tap) = driver.tap_mut() {
        tap.finish(totals);
    }
    // The report is written however the session ended, then the failure is passed on.
    let mut report = report(driver.session(), totals, ended);
    report.path_mtu = link.path_mtu();
    if let Some(path) = report_path {
        write_report(path, &report)?;
    }
    played?;
    // A recording that stopped is an error, though the session went on.
    match driver.tap_failure() {
        Some(why) => Err(anyhow::anyhow!(why)),
        None => Ok(report),
    }
}

/// A join that failed with `error`: the report (when asked for) says so, counts zero
/// but the link's; the error is passed on, or the report's, if that cannot be written.
pub(crate) fn unjoined(
    link: &Link,
    tried: Instant,
    report_path: Option<&Path>,
    error: anyhow::Error,
) -> anyhow::Error {
    let Some(path) = report_path else {
        return error;
    };
    match write_unjoined(link, tried, path, format!("{error:#}")) {
        Ok(()) => error,
        Err(e) => e.context(format!("{error:#}")),
    }
}

/// Writes the report of a join that did not happen, `ended` saying why.
pub(crate) fn write_unjoined(
    link: &Link,
    tried: Instant,
    path: &Path,
    ended: String,
) -> anyhow::Result<()> {
    let totals = link.totals(tried.elapsed().as_secs_f64());
    let mut report = Report::new(None, totals, ended);
    report.path_mtu = link.path_mtu();
    write_report(path, &report)
}

/// Writes `report` as pretty JSON, a newline at the end: the one way a client's report
/// is written, headless or played.
pub(crate) fn write_report(path: &Path, report: &Report) -> anyhow::Result<()> {
    let json = serde_json::to_string_pretty(report)?;
    std::fs::write(path, json + "\n")
        .with_context(|| format!("cannot write report {}", path.display()))
}

/// The loop: take in what arrived, make the commands due, sleep until the next.
fn play(
    link: &mut Link,
    driver: &mut Driver,
    config: &ClientConfig,
    bot: BotKind,
    end: Instant,
    stop: &AtomicBool,
) -> anyhow::Result<()> {
    let mut brain = Wander::new(config.seed);
    let mut fighter = Fighter::new(config.seed);
    let mut reflex = Reflex::newcomer(config.seed, driver.session().tick_rate().round() as u16);
    let start = Instant::now();
    let mut silence = Silence::default();
    while !stop.load(Ordering::Relaxed) {
        let now = Instant::now();
        if now >= end {
            break;
        }
        if pump(link, driver, now, config.timeout)? == Pumped::Forgotten {
            let seconds = now.duration_since(start).as_secs_f64();
            if !rejoin(link, driver, config, seconds, || {
                Ok(stop.load(Ordering::Relaxed))
            })? {
                break;
            }
            continue;
        }
        let _ = silence.note(now, driver.session().last_heard(), link.server());
        let mut dropped = Vec::new();
        driver.run_ticks(
            now,
            |session, at| match (bot, session.predicted()) {
                (BotKind::Wander, Some(me)) => brain.next(&me),
                (BotKind::Fighter, Some(me)) => fighter.next(&me),
                (BotKind::Reflex, _) => reflex.next(session, at),
                _ => Command::default(),
            },
            |session, msg| {
                if let Some(msg) = msg
                    && link.send(now, &msg)
                {
                    dropped.push(msg);
                }
                // One frame per command tick stands in for the terminal's frames.
                session.frame(now);
            },
        );
        for msg in &dropped {
            driver.link_dropped(now, msg);
        }
        link.wait(driver.next_command().min(end))?;
    }
    Ok(())
}

/// How a goodbye went: `Leave`s sent, and whether the server answered one.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Goodbye {
    pub(crate) sent: u32,
    pub(crate) acknowledged: bool,
}

/// Says goodbye: a `Leave`, repeated every one and a half round trips (100 ms to 1 s)
/// only until the server answers `Left`, for at most `wait`.
pub(crate) fn leave(link: &mut Link, rtt_ms: f64, wait: Duration) -> anyhow::Result<Goodbye> {
    let retry = Duration::from_secs_f64((1.5 * rtt_ms / 1000.0).clamp(0.1, 1.0));
    let deadline = Instant::now() + wait;
    let mut goodbye = Goodbye::default();
    let mut next = Instant::now();
    link.start_leaving();
    loop {
        let now = Instant::now();
        link.pump(now, |msg, _| {
            goodbye.acknowledged |= matches!(msg, ServerMsg::Left);
        });
        if goodbye.acknowledged || now >= deadline {
            return Ok(goodbye);
        }
        if now >= next {
            link.send(now, &ClientSession::leave());
            goodbye.sent += 1;
            next = now + retry;
        }
        link.wait(next.min(deadline))?;
    }
}

/// The report of `session`, with the link's totals (a replay passes recorded ones).
pub(crate) fn report(session: &ClientSession, link: LinkTotals, ended: String) -> Report {
    Report::new(Some(session), link, ended)
}

impl Report {
    /// The one way a report is built, played, headless, replayed or failed: the link's
    /// totals, and the session's counts if there was a session (a join that failed has
    /// none: `joined` is false and its counts are zero).
    fn new(session: Option<&ClientSession>, link: LinkTotals, ended: String) -> Report {
        Report {
            joined: session.is_some(),
            player_id: session.map_or(0, ClientSession::player_id),
            stats: session.map(|s| s.stats().clone()).unwrap_or_default(),
            commands_acked: session.map_or(0, |s| u64::from(s.acked_seq())),
            jitter_ms: session.map_or(0.0, |s| 1000.0 * s.jitter_secs()),
            bytes_in: link.bytes_in,
            bytes_out: link.bytes_out,
            packets_in: link.packets_in,
            packets_out: link.packets_out,
            malformed_in: link.malformed_in,
            seconds: link.seconds,
            remote_players: session
                .map(|s| s.remotes_seen().to_vec())
                .unwrap_or_default(),
            path_mtu: 0,
            ended,
        }
    }
}

#[cfg(test)]
mod report_tests {
    use super::*;

    /// A failed join's report is built by the same builder as a played one: the link's
    /// counts, nothing of a session.
    #[test]
    fn a_join_that_failed_reports_the_link_and_no_session() {
        let link = LinkTotals {
            seconds: 1.5,
            bytes_out: 640,
            packets_out: 5,
            ..LinkTotals::default()
        };
        let r = Report::new(None, link, "no answer".to_owned());
        assert!(!r.joined);
        assert_eq!((r.bytes_out, r.packets_out, r.seconds), (640, 5, 1.5));
        assert_eq!((r.commands_acked, r.player_id), (0, 0));
        assert!(r.remote_players.is_empty());
        let json = serde_json::to_value(&r).unwrap();
        assert_eq!(json["ended"], "no answer");
        assert_eq!(json["joined"], false);
    }
}
