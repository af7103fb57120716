//! Any datagram, as the server and as a client would take it: decoding, the version
//! peek, snapshot delta decoding and widening, and the server's whole receive path must
//! never panic.

#![no_main]

use std::net::SocketAddr;
use std::sync::OnceLock;
use std::time::Instant;

use libfuzzer_sys::fuzz_target;
use netarena::net::codec;
use netarena::net::delta;
use netarena::net::protocol::{PlayerSnap, ServerMsg};
use netarena::net::widen::Known;
use netarena::server::{Server, ServerConfig};
use netarena::sim::map::Map;
use netarena::sim::world::PlayerState;

fn baseline() -> &'static [PlayerSnap] {
    static BASE: OnceLock<Vec<PlayerSnap>> = OnceLock::new();
    BASE.get_or_init(|| {
        (0..8)
            .map(|id| PlayerSnap {
                id,
                state: PlayerState::at_cell(2 + u16::from(id), 3),
            })
            .collect()
    })
}

fuzz_target!(|data: &[u8]| {
    // Client side: what a server (or anyone) might send us.
    if let Ok(ServerMsg::Snapshot(mut d)) = codec::decode_server(data) {
        let _ = delta::decode(&d, Some(baseline()));
        let _ = delta::decode(&d, None);
        // Widened against the extremes a client's counters can hold.
        d.widen(&Known {
            tick: u32::MAX,
            ack: Some(0),
            next_event: u32::MAX,
        });
        let _ = delta::decode(&d, Some(baseline()));
    }
    // Server side: the full receive path, from a stranger and from a joined client.
    let mut config = ServerConfig::new(Map::builtin("duel").expect("built in"));
    config.bots = 1;
    let mut server = Server::new(config);
    let now = Instant::now();
    let friend: SocketAddr = "10.0.0.1:5000".parse().unwrap();
    let _ = server.join_in_process(now, friend, "friend");
    server.receive(now, "10.0.0.2:5000".parse().unwrap(), data);
    server.receive(now, friend, data);
    server.tick(now);
    for (_, msg) in server.take_outbox() {
        let mut buf = Vec::new();
        let _ = codec::encode_server(&msg, &mut buf);
    }
});
