//! Bandwidth over real loopback UDP: a server and N headless clients, all moving, each
//! through the full client pipeline, optionally over a simulated network.

use std::net::SocketAddr;
use std::sync::atomic::AtomicBool;
use std::sync::mpsc;
use std::time::Duration;

use anyhow::{Context, anyhow};
use serde::Serialize;

use crate::client::ClientConfig;
use crate::client::headless::{self, BotKind};
use crate::net::conditioner::Conditions;
use crate::server::event_loop::{self, NetOptions, Observer};
use crate::server::{Server, ServerConfig};
use crate::sim::map::Map;

/// Bytes of IPv4 + UDP header per datagram, counted in the per-second figures.
pub const UDP_IPV4_HEADER: f64 = 28.0;

pub struct NetBenchOptions {
    pub players: u16,
    pub seconds: f64,
    pub conditions: Conditions,
}

/// Per-client means.
#[derive(Debug, Serialize)]
pub struct NetResult {
    pub players: u16,
    pub seconds: f64,
    pub down_bytes_per_s: f64,
    pub up_bytes_per_s: f64,
    pub snapshot_bytes_mean: f64,
    pub full_state_bytes_mean: f64,
    pub compression_ratio: f64,
    pub corrections_per_min: f64,
    pub interp_delay_ms_mean: f64,
}

struct Started(mpsc::Sender<SocketAddr>);

impl Observer for Started {
    fn started(&mut self, addr: SocketAddr, _server: &Server) {
        let _ = self.0.send(addr);
    }
}

pub fn run(opts: &NetBenchOptions) -> anyhow::Result<NetResult> {
    let map = Map::builtin("warehouse").expect("warehouse is built in");
    let mut config = ServerConfig::new(map);
    config.max_players = opts.players.max(1);
    let stop = AtomicBool::new(false);
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
            let clients: Vec<_> = (0..opts.players)
                .map(|i| {
                    let mut c = ClientConfig::new(addr, &format!("bench-{i}"));
                    c.outgoing = opts.conditions.clone();
                    c.incoming = opts.conditions.clone();
                    c.seed = u64::from(i) + 1;
                    let stop = &stop;
                    scope
                        .spawn(move || headless::run(&c, BotKind::Wander, opts.seconds, None, stop))
                })
                .collect();
            let mut reports = Vec::new();
            for c in clients {
                reports.push(c.join().map_err(|_| anyhow!("a bench client panicked"))??);
            }
            Ok::<_, anyhow::Error>(reports)
        })();
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        let served = server
            .join()
            .map_err(|_| anyhow!("the bench server panicked"))?;
        served.context("bench server failed")?;
        let reports = result?;
        let n = reports.len().max(1) as f64;
        let mean = |f: &dyn Fn(&headless::Report) -> f64| reports.iter().map(f).sum::<f64>() / n;
        let per_sec = |bytes: u64, packets: u64, secs: f64| {
            (bytes as f64 + UDP_IPV4_HEADER * packets as f64) / secs.max(1e-9)
        };
        let snapshot = mean(&|r| r.stats.snapshot_bytes_mean);
        let full = mean(&|r| r.stats.full_state_bytes_mean);
        Ok(NetResult {
            players: opts.players,
            seconds: opts.seconds,
            down_bytes_per_s: mean(&|r| per_sec(r.bytes_in, r.packets_in, r.seconds)),
            up_bytes_per_s: mean(&|r| per_sec(r.bytes_out, r.packets_out, r.seconds)),
            snapshot_bytes_mean: snapshot,
            full_state_bytes_mean: full,
            compression_ratio: full / snapshot.max(1e-9),
            corrections_per_min: mean(&|r| 60.0 * r.stats.corrections as f64 / r.seconds.max(1e-9)),
            interp_delay_ms_mean: mean(&|r| r.stats.interp_delay_ms_mean),
        })
    })
}
