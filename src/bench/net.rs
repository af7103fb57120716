//! Bandwidth over real loopback UDP: a server and N headless clients, all moving, each
//! through the full client pipeline, optionally over a simulated network. With bots the
//! server also runs fighting bots (both weapons, projectiles, kills, respawns), so the
//! clients receive a real match. Every client talks through a counting relay that sorts
//! the downstream bytes by kind.

use std::net::SocketAddr;
use std::sync::atomic::AtomicBool;
use std::sync::mpsc;
use std::time::Duration;

use anyhow::{Context, anyhow};
use serde::Serialize;

use super::relay::{Relay, Shares};
use crate::client::ClientConfig;
use crate::client::shell::headless::{self, BotKind};
use crate::net::conditioner::Conditions;
use crate::net::wire_bytes;
use crate::server::event_loop::{self, NetOptions, Observer};
use crate::server::{Server, ServerConfig};
use crate::sim::map::Map;

pub struct NetBenchOptions {
    pub players: u16,
    /// Server-side fighting bots beside the headless clients.
    pub bots: u16,
    pub seconds: f64,
    pub conditions: Conditions,
    /// A built-in map name.
    pub map: String,
}

/// Per-client means.
#[derive(Debug, Serialize)]
pub struct NetResult {
    pub players: u16,
    pub bots: u16,
    pub seconds: f64,
    /// Header bytes added to every datagram's payload in the per-second figures and
    /// the shares: IPv4 and UDP ([`wire_bytes`]; no Ethernet frame).
    pub overhead_bytes_per_datagram: usize,
    /// Per client, including the header bytes of every datagram.
    pub down_bytes_per_s: f64,
    pub up_bytes_per_s: f64,
    pub snapshot_bytes_mean: f64,
    pub full_state_bytes_mean: f64,
    pub compression_ratio: f64,
    pub corrections_per_min: f64,
    pub underruns_per_min: f64,
    pub interp_delay_ms_mean: f64,
    /// Fractions of all downstream bytes (they sum to 1): snapshot player fields,
    /// projectile events (births and ends), other game events, rosters, and headers
    /// (the header bytes of each datagram plus each snapshot's fixed fields).
    pub share_players: f64,
    pub share_projectiles: f64,
    pub share_events: f64,
    pub share_roster: f64,
    pub share_headers: f64,
    pub share_other: f64,
    /// New events the clients saw, over all clients: shots fired, rails, kills.
    pub shots_seen: u64,
    pub rails_seen: u64,
    pub kills_seen: u64,
}

struct Started(mpsc::Sender<SocketAddr>);

impl Observer for Started {
    fn started(&mut self, addr: SocketAddr, _server: &Server) {
        let _ = self.0.send(addr);
    }
}

pub fn run(opts: &NetBenchOptions) -> anyhow::Result<NetResult> {
    let map = Map::builtin(&opts.map).ok_or_else(|| anyhow!("no built-in map {}", opts.map))?;
    let mut config = ServerConfig::new(map);
    config.bots = opts.bots;
    config.max_players = opts.players.max(1) + opts.bots;
    let stop = AtomicBool::new(false);
    let relay_stop = AtomicBool::new(false);
    // The clients' session keys, for the relay to read what passes: in a directory only
    // this user may enter, so no one can make (or read) the file first.
    let key_dir = crate::platform::fs::private_temp_dir("netarena-bench")
        .context("cannot make a private directory for the key log")?;
    let key_log = key_dir.join("keys");
    eprintln!(
        "warning: the bench's session keys go to {} until it ends",
        key_log.display()
    );
    let (tx, rx) = mpsc::channel();
    std::thread::scope(|scope| {
        let server = scope.spawn(|| {
            let net = NetOptions {
                bind: SocketAddr::from(([127, 0, 0, 1], 0)),
                outgoing: Conditions::default(),
                incoming: Conditions::default(),
            };
            event_loop::run(config, net, &stop, &mut Started(tx))
        });
        let result = (|| {
            let addr = rx
                .recv_timeout(Duration::from_secs(5))
                .map_err(|_| anyhow!("the bench server did not start"))?;
            let relay = Relay::new(addr, usize::from(opts.players), key_log.clone())?;
            let fronts = (0..usize::from(opts.players))
                .map(|i| relay.front_addr(i))
                .collect::<Result<Vec<_>, _>>()?;
            let relay = scope.spawn(|| relay.run(&relay_stop));
            let clients: Vec<_> = fronts
                .into_iter()
                .zip(0u64..)
                .map(|(front, i)| {
                    let mut c = ClientConfig::new(front, &format!("bench-{i}"));
                    c.outgoing = opts.conditions.clone();
                    c.incoming = opts.conditions.clone();
                    c.seed = i + 1;
                    c.key_log = Some(key_log.clone());
                    let stop = &stop;
                    scope
                        .spawn(move || headless::run(&c, BotKind::Wander, opts.seconds, None, stop))
                })
                .collect();
            let mut reports = Vec::new();
            for c in clients {
                reports.push(c.join().map_err(|_| anyhow!("a bench client panicked"))?);
            }
            relay_stop.store(true, std::sync::atomic::Ordering::Relaxed);
            let shares = relay
                .join()
                .map_err(|_| anyhow!("the bench relay panicked"))??;
            let reports = reports.into_iter().collect::<Result<Vec<_>, _>>()?;
            Ok::<_, anyhow::Error>((reports, shares))
        })();
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        relay_stop.store(true, std::sync::atomic::Ordering::Relaxed);
        let served = server
            .join()
            .map_err(|_| anyhow!("the bench server panicked"))?;
        served.context("bench server failed")?;
        let _ = std::fs::remove_dir_all(&key_dir);
        let (reports, shares) = result?;
        Ok(summarise(opts, &reports, &shares))
    })
}

fn summarise(opts: &NetBenchOptions, reports: &[headless::Report], shares: &Shares) -> NetResult {
    let n = reports.len().max(1) as f64;
    let mean = |f: &dyn Fn(&headless::Report) -> f64| reports.iter().map(f).sum::<f64>() / n;
    // The bench runs over IPv4 loopback.
    let overhead = wire_bytes::IPV4_UDP;
    let per_sec = |bytes: u64, packets: u64, secs: f64| {
        (bytes + overhead as u64 * packets) as f64 / secs.max(1e-9)
    };
    let per_min = |count: u64, secs: f64| 60.0 * count as f64 / secs.max(1e-9);
    let snapshot = mean(&|r| r.stats.snapshot_bytes_mean);
    let full = mean(&|r| r.stats.full_state_bytes_mean);
    let total = shares.total().max(1) as f64;
    let share = |bytes: u64| bytes as f64 / total;
    NetResult {
        players: opts.players,
        bots: opts.bots,
        seconds: opts.seconds,
        overhead_bytes_per_datagram: overhead,
        down_bytes_per_s: mean(&|r| per_sec(r.bytes_in, r.packets_in, r.seconds)),
        up_bytes_per_s: mean(&|r| per_sec(r.bytes_out, r.packets_out, r.seconds)),
        snapshot_bytes_mean: snapshot,
        full_state_bytes_mean: full,
        compression_ratio: full / snapshot.max(1e-9),
        corrections_per_min: mean(&|r| per_min(r.stats.corrections, r.seconds)),
        underruns_per_min: mean(&|r| per_min(r.stats.underruns, r.seconds)),
        interp_delay_ms_mean: mean(&|r| r.stats.interp_delay_ms_mean),
        share_players: share(shares.players),
        share_projectiles: share(shares.projectiles),
        share_events: share(shares.events),
        share_roster: share(shares.roster),
        share_headers: share(shares.headers),
        share_other: share(shares.other),
        shots_seen: shares.shots,
        rails_seen: shares.rails,
        kills_seen: shares.kills,
    }
}
