//! The server's tick as fast as it goes: N remote players whose input packets arrive as
//! bytes and go through the normal decode and command path, and every snapshot encoded
//! for every client. Only the server's share of the work is timed. With bots the players
//! shoot too and the bots fight them: projectiles, rails, kills and respawns. A server
//! holds up to 128 players; beyond 64, each client's snapshot carries the 64 nearest it,
//! so `--players 64 --bots 64` measures the choosing as well.

use std::collections::HashMap;
use std::net::{Ipv4Addr, SocketAddr};
use std::time::{Duration, Instant};

use serde::Serialize;

use super::percentile_us;
use crate::client::play::brain::Wander;
use crate::net::codec;
use crate::net::protocol::{ClientMsg, InputPacket, MAX_COMMANDS_PER_INPUT, ServerMsg};
use crate::server::{Server, ServerConfig};
use crate::sim::map::Map;
use crate::sim::world::{Buttons, Command};

pub struct ServerOptions {
    pub players: u16,
    /// Server-side fighting bots beside the remote players.
    pub bots: u16,
    pub ticks: u32,
}

#[derive(Debug, Serialize)]
pub struct ServerResult {
    pub players: u16,
    pub bots: u16,
    pub ticks: u32,
    pub tick_us_p50: f64,
    pub tick_us_p99: f64,
    pub snapshot_bytes_mean: f64,
    /// Players and bots still in at the end: all of them, or the run measured less work.
    pub players_at_end: usize,
}

/// A remote player as the server sees it: commands, acks, packets.
struct FakeClient {
    addr: SocketAddr,
    brain: Wander,
    commands: Vec<Command>,
    acked_seq: u32,
    acked_tick: u32,
    /// Newest game event seen, acknowledged in the next packet as a client does.
    acked_event: u32,
    packets: u32,
}

/// The benchmark's server on `warehouse`, with room for everyone and its bots in.
fn server(opts: &ServerOptions) -> anyhow::Result<Server> {
    let limit = crate::server::PLAYER_LIMIT;
    if u32::from(opts.players.max(1)) + u32::from(opts.bots) > u32::from(limit) {
        anyhow::bail!("a server holds at most {limit} players and bots together");
    }
    let mut config = ServerConfig::new(Map::builtin("warehouse").expect("built in"));
    config.bots = opts.bots;
    config.max_players = opts.players.max(1) + opts.bots;
    Ok(Server::new(config))
}

pub fn run(opts: &ServerOptions) -> anyhow::Result<ServerResult> {
    let mut server = server(opts)?;
    let period = Duration::from_secs(1) / u32::from(server.config().tick_rate);
    let mut now = Instant::now();
    let mut clients: Vec<FakeClient> = Vec::new();
    let mut by_addr = HashMap::new();
    let mut ids = HashMap::new();
    for i in 0..opts.players {
        let addr = SocketAddr::from((Ipv4Addr::new(10, 1, (i >> 8) as u8, i as u8), 40_000));
        let welcome = server
            .join_in_process(now, addr, &format!("p{i}"))
            .ok_or_else(|| anyhow::anyhow!("bench player {i} could not join"))?;
        ids.insert(addr, welcome.player_id);
        by_addr.insert(addr, clients.len());
        clients.push(FakeClient {
            addr,
            brain: Wander::new(u64::from(i)),
            commands: Vec::new(),
            acked_seq: 0,
            acked_tick: 0,
            acked_event: 0,
            packets: 0,
        });
    }

    let mut times = Vec::with_capacity(opts.ticks as usize);
    let mut wire = Vec::with_capacity(codec::MAX_SERVER_DATAGRAM);
    let mut scratch = Vec::with_capacity(codec::MAX_SERVER_DATAGRAM);
    let (mut snapshot_bytes, mut snapshots) = (0u64, 0u64);
    let mut packets: Vec<(SocketAddr, Vec<u8>)> = Vec::new();
    for tick in 0..opts.ticks {
        now += period;
        // The clients' side, untimed: one command each, a packet every other tick.
        client_packets(
            &mut clients,
            &mut server,
            &ids,
            tick,
            opts.bots > 0,
            &mut packets,
        )?;

        let start = Instant::now();
        for (from, bytes) in &packets {
            server.receive(now, *from, bytes);
        }
        server.tick(now);
        let mut acks = Vec::new();
        let out: Vec<_> = server.take_outbox().collect();
        for (to, msg) in out {
            // Sealed, as the wire takes it.
            server.encode_for(to, &msg, &mut wire, &mut scratch)?;
            if let ServerMsg::Snapshot(s) = &msg {
                snapshot_bytes += wire.len() as u64;
                snapshots += 1;
                let event = s.events.last().map_or(0, |(seq, _)| *seq);
                acks.push((to, s.header.ack_seq, s.header.tick, event));
            }
        }
        times.push(start.elapsed());

        // Every snapshot arrives: the clients acknowledge it in their next packet.
        for (to, seq, tick, event) in acks {
            if let Some(&i) = by_addr.get(&to) {
                clients[i].acked_seq = seq;
                clients[i].acked_tick = tick;
                clients[i].acked_event = clients[i].acked_event.max(event);
            }
        }
    }
    Ok(ServerResult {
        players: opts.players,
        bots: opts.bots,
        ticks: opts.ticks,
        tick_us_p50: percentile_us(&mut times, 0.5),
        tick_us_p99: percentile_us(&mut times, 0.99),
        snapshot_bytes_mean: snapshot_bytes as f64 / snapshots.max(1) as f64,
        players_at_end: server.player_count(),
    })
}

/// One command from each simulated client for `tick`, and the input packets of those
/// whose turn it is (every other tick), into `packets`.
fn client_packets(
    clients: &mut [FakeClient],
    server: &mut Server,
    ids: &HashMap<SocketAddr, u8>,
    tick: u32,
    fighting: bool,
    packets: &mut Vec<(SocketAddr, Vec<u8>)>,
) -> anyhow::Result<()> {
    packets.clear();
    for (i, c) in clients.iter_mut().enumerate() {
        let me = ids
            .get(&c.addr)
            .and_then(|id| server.world().get(*id))
            .unwrap_or_default();
        let mut cmd = c.brain.next(&me);
        if fighting {
            fight(&mut cmd, tick, i);
        }
        c.commands.push(cmd);
        if !(tick as usize + i).is_multiple_of(2) {
            continue;
        }
        c.packets += 1;
        let latest = c.commands.len() as u32;
        let first = (c.acked_seq + 1).max(latest.saturating_sub(MAX_COMMANDS_PER_INPUT as u32 - 1));
        let mut input = InputPacket::pack(
            tick,
            c.packets,
            c.acked_tick,
            (first..=latest).map(|seq| (seq, c.commands[seq as usize - 1])),
        );
        input.event_ack = c.acked_event;
        input.view_tick = c.acked_tick;
        let mut bytes = Vec::new();
        server.encode_in_process(c.addr, &ClientMsg::Input(input), &mut bytes)?;
        packets.push((c.addr, bytes));
    }
    Ok(())
}

/// In a fight the simulated humans shoot too, in bursts as people do (fire held one
/// second in three), aim sweeping round, the rail one burst in four.
fn fight(cmd: &mut Command, tick: u32, i: usize) {
    let t = tick as usize + i * 17;
    cmd.buttons.set(Buttons::FIRE, (t / 60).is_multiple_of(3));
    cmd.aim = ((t / 30) % 8) as u8;
    cmd.weapon = u8::from((t / 180).is_multiple_of(4));
}
