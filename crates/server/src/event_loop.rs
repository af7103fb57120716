//! The server's I/O shell: a mio loop that feeds datagrams and fixed-rate ticks to
//! [`Server`] and sends what it produces.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::Context;
use mio::{Events, Poll, Token};

use super::{Server, ServerConfig, ServerEvent};
use netarena_net::codec;
use netarena_net::conditioner::Conditions;
use netarena_net::transport::Transport;

const SOCKET: Token = Token(0);
/// Falling further behind than this many ticks (a stalled machine) skips them instead of
/// running a burst of catch-up ticks that would teleport everyone.
const MAX_CATCH_UP_TICKS: u32 = 5;

/// How the loop reports to its owner.
pub trait Observer {
    /// The socket is bound; clients can connect to `addr`.
    fn started(&mut self, _addr: SocketAddr, _server: &Server) {}
    fn event(&mut self, _event: &ServerEvent) {}
}

pub struct NetOptions {
    /// `[::]:PORT` listens on IPv6 and IPv4 alike (IPv4 alone where there is no IPv6).
    pub bind: SocketAddr,
    pub outgoing: Conditions,
    pub incoming: Conditions,
}

/// Runs until `stop` is set, then says goodbye to every client.
pub fn run(
    config: ServerConfig,
    net: NetOptions,
    stop: &AtomicBool,
    observer: &mut dyn Observer,
) -> anyhow::Result<()> {
    config.validate()?;
    let mut poll = Poll::new().context("cannot create poll")?;
    let open = |bind: SocketAddr| {
        Transport::bind(
            bind,
            poll.registry(),
            SOCKET,
            net.outgoing.clone(),
            net.incoming.clone(),
            config.seed,
        )
    };
    let mut transport = match open(net.bind) {
        Ok(t) => t,
        // `[::]` on a machine without IPv6: IPv4 alone, as before.
        Err(e)
            if net.bind.ip() == IpAddr::V6(Ipv6Addr::UNSPECIFIED)
                && e.kind() != std::io::ErrorKind::AddrInUse =>
        {
            let v4 = SocketAddr::from((Ipv4Addr::UNSPECIFIED, net.bind.port()));
            tracing::warn!("cannot listen on UDP {} ({e}); IPv4 only", net.bind);
            open(v4).with_context(|| format!("cannot listen on UDP {v4}"))?
        }
        Err(e) => return Err(e).with_context(|| format!("cannot listen on UDP {}", net.bind)),
    };
    let period = Duration::from_secs(1) / u32::from(config.tick_rate.max(1));
    let panic_at = config.debug_panic_after.map(|d| Instant::now() + d);
    let mut server = Server::new(config);
    observer.started(transport.local_addr()?, &server);
    let mut events = Events::with_capacity(64);
    let mut buf = Vec::with_capacity(codec::MAX_SERVER_DATAGRAM);
    let mut next_tick = Instant::now() + period;

    loop {
        let now = Instant::now();
        if panic_at.is_some_and(|t| now >= t) {
            panic!("debug panic requested with --debug-panic");
        }
        if stop.load(Ordering::Relaxed) {
            goodbye(&mut server, &mut transport, &mut buf, now);
            return Ok(());
        }
        let wake = transport.next_due().map_or(next_tick, |d| d.min(next_tick));
        // Wake at least every 100 ms to notice `stop`.
        let timeout = wake
            .saturating_duration_since(now)
            .min(Duration::from_millis(100));
        if let Err(e) = poll.poll(&mut events, Some(timeout))
            && e.kind() != std::io::ErrorKind::Interrupted
        {
            return Err(e).context("poll failed");
        }

        let now = Instant::now();
        transport.receive(now, |from, bytes| server.receive(now, from, bytes));
        let mut ran = 0;
        while now >= next_tick {
            if ran == MAX_CATCH_UP_TICKS {
                tracing::warn!("server fell behind; skipping ticks");
                next_tick = now + period;
                break;
            }
            server.tick(next_tick);
            next_tick += period;
            ran += 1;
        }
        send_outbox(&mut server, &mut transport, &mut buf, now);
        transport.flush(now);
        for event in server.take_events() {
            observer.event(&event);
        }
    }
}

/// Says goodbye to every client, lets delayed goodbyes leave before the socket closes,
/// and logs the server's figures.
fn goodbye(server: &mut Server, transport: &mut Transport, buf: &mut Vec<u8>, now: Instant) {
    server.shutdown("server shutting down");
    send_outbox(server, transport, buf, now);
    let deadline = now + Duration::from_millis(500);
    while let Some(due) = transport.next_due().filter(|d| *d <= deadline) {
        std::thread::sleep(due.saturating_duration_since(Instant::now()));
        transport.flush(Instant::now());
    }
    let traffic = transport.traffic();
    tracing::info!(
        "server figures: {} datagrams out ({} failed to send, {:?}), {} in; refused: {:?}",
        traffic.packets_out,
        transport.send_errors(),
        server.send_failures(),
        traffic.packets_in,
        server.refusals()
    );
}

fn send_outbox(server: &mut Server, transport: &mut Transport, buf: &mut Vec<u8>, now: Instant) {
    server.send_outbox(buf, |addr, bytes| transport.send(now, addr, bytes));
}
