//! Any datagram, as the server and as a client would take it: decoding, the version
//! peek, opening as a sealed datagram of a live session and as the handshake's answer,
//! snapshot delta decoding and widening, and the server's whole receive path must never
//! panic.

#![no_main]

use std::net::SocketAddr;
use std::sync::OnceLock;
use std::time::Instant;

use libfuzzer_sys::fuzz_target;
use netarena::net::codec;
use netarena::net::delta;
use netarena::net::protocol::{PlayerSnap, ServerMsg};
use netarena::net::secure::{self, ClientHandshake, ServerKey, Session};
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

fn server_key() -> &'static ServerKey {
    static KEY: OnceLock<ServerKey> = OnceLock::new();
    KEY.get_or_init(ServerKey::generate)
}

/// Both ends of a fresh session: the client's and the server's.
fn session() -> (Session, Session) {
    let mut client = ClientHandshake::new();
    let (answer, server) = secure::accept(server_key(), &client.hello(), 1).expect("handshake");
    (client.finish(&answer).expect("handshake").session, server)
}

fuzz_target!(|data: &[u8]| {
    // What the client's link does with a datagram from the server's address: open it
    // with the session (or before it has one), or read it as the handshake's answer;
    // and the server's end, as a session's datagram and as a client's hello.
    let (mut client_end, mut server_end) = session();
    let mut scratch = Vec::new();
    let _ = codec::open_server(Some(&mut client_end), data, &mut scratch);
    let _ = codec::open_server(None, data, &mut scratch);
    let _ = codec::open_client(&mut server_end, data, &mut scratch);
    let _ = codec::peek_connect(data);
    let _ = codec::decode_info(data);
    let _ = ClientHandshake::new().finish(data);
    let _ = secure::accept(server_key(), data, 1);
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
