//! Issue 15: every datagram the server sends is at most 1,200 bytes, whatever the map
//! and the player count. The largest map the loader accepts, a rotation to a second one
//! (its text travels as events), 64 players with 16-character names of 4-byte
//! characters, and a match that ends (64 standings): every datagram is checked.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use netarena::net::codec::{self, MAX_SERVER_DATAGRAM};
use netarena::net::map_chunks::MapAssembler;
use netarena::net::protocol::{ClientMsg, GameEvent, InputPacket, ServerMsg};
use netarena::net::roster_pages::RosterPages;
use netarena::server::{Server, ServerConfig};
use netarena::sim::map::{MAX_HEIGHT, MAX_NAME_CHARS, MAX_WIDTH, Map};
use netarena::sim::world::Command;

use crate::support::Keyring;

const PLAYERS: usize = 64;

/// A full-size map with 64 spawns; `shift` makes a different one.
fn largest_map(shift: usize) -> Map {
    let mut rows = vec!["#".repeat(MAX_WIDTH)];
    let mut spawns = 0;
    for y in 1..MAX_HEIGHT - 1 {
        let row: String = (0..MAX_WIDTH)
            .map(|x| {
                if x == 0 || x == MAX_WIDTH - 1 {
                    '#'
                } else if (x + y + shift).is_multiple_of(7) && y.is_multiple_of(3) && spawns < 64 {
                    spawns += 1;
                    'S'
                } else if (x * 3 + y + shift).is_multiple_of(11) {
                    '#'
                } else {
                    '.'
                }
            })
            .collect();
        rows.push(row);
    }
    rows.push("#".repeat(MAX_WIDTH));
    let name = format!("maps/{}{shift}.txt", "m".repeat(80));
    let map = Map::parse(&name, &rows.join("\n")).expect("the largest map parses");
    assert_eq!(map.name().chars().count(), MAX_NAME_CHARS);
    assert_eq!(map.spawns().len(), 64);
    map
}

struct Budget {
    largest: HashMap<&'static str, usize>,
    count: usize,
}

impl Budget {
    /// Encodes and checks everything the server has to send: (to, message) decoded.
    fn drain(&mut self, server: &mut Server, keys: &mut Keyring) -> Vec<(SocketAddr, ServerMsg)> {
        let mut out = Vec::new();
        let mut buf = Vec::new();
        let mut sent = Vec::new();
        server.send_outbox(&mut buf, |to, bytes| sent.push((to, bytes.to_vec())));
        assert_eq!(server.send_failures().encode, 0, "a message did not encode");
        for (to, bytes) in sent {
            assert!(
                bytes.len() <= MAX_SERVER_DATAGRAM,
                "{} bytes to {to}",
                bytes.len()
            );
            let msg = keys.open(to, &bytes).expect("decodes");
            let kind = match &msg {
                ServerMsg::Welcome(_) => "welcome",
                ServerMsg::Snapshot(_) => "snapshot",
                ServerMsg::Roster(_) => "roster",
                ServerMsg::MapChunk(_) => "map chunk",
                ServerMsg::Challenge(_) => "challenge",
                _ => "other",
            };
            let top = self.largest.entry(kind).or_default();
            *top = (*top).max(bytes.len());
            self.count += 1;
            out.push((to, msg));
        }
        out
    }
}

struct Client {
    addr: SocketAddr,
    seq: u32,
    ack_tick: u32,
    event_ack: u32,
    roster: RosterPages,
    roster_len: usize,
    map_starts: usize,
    chunks: MapAssembler,
}

fn send(server: &mut Server, keys: &mut Keyring, now: Instant, from: SocketAddr, msg: &ClientMsg) {
    let mut buf = Vec::new();
    keys.seal(from, msg, &mut buf);
    server.receive(now, from, &buf);
}

#[test]
fn every_datagram_fits_with_the_largest_map_and_64_players() {
    let mut config = ServerConfig::new(largest_map(0));
    config.game.maps.push(largest_map(3));
    let second_map = config.game.maps[1].text().to_owned();
    config.max_players = PLAYERS as u16;
    config.game.time_limit_secs = 10;
    config.game.results_secs = 1;
    let mut server = Server::new(config);
    let mut budget = Budget {
        largest: HashMap::new(),
        count: 0,
    };
    let mut now = Instant::now();
    let name = "\u{1D54F}".repeat(16); // 16 characters of 4 bytes each
    let mut keys = Keyring::default();
    let mut clients: Vec<Client> = Vec::new();
    for i in 0..PLAYERS {
        let addr = SocketAddr::from(([10, 0, 0, 1 + i as u8], 5000));
        let mut buf = Vec::new();
        let mut cookie = None;
        // Connect, answer the challenge, then connect once more (a lost welcome): each
        // time the welcome and its chunks go out through the encoder.
        for _ in 0..3 {
            codec::connect_request(&name, cookie, keys.hello(addr), &mut buf).unwrap();
            server.receive(now, addr, &buf);
            for (to, msg) in budget.drain(&mut server, &mut keys) {
                if let (true, ServerMsg::Challenge(c)) = (to == addr, msg) {
                    cookie = Some(c);
                }
            }
        }
        clients.push(Client {
            addr,
            seq: 0,
            ack_tick: 0,
            event_ack: 0,
            roster: RosterPages::default(),
            roster_len: 0,
            map_starts: 0,
            chunks: MapAssembler::default(),
        });
    }
    assert_eq!(server.player_count(), PLAYERS);

    // 15 s of play at 60 Hz: the first match ends at 10 s, the next map starts at 11 s.
    let tick = Duration::from_secs(1) / 60;
    for t in 0..60 * 15 {
        now += tick;
        server.tick(now);
        for (to, msg) in budget.drain(&mut server, &mut keys) {
            let Some(c) = clients.iter_mut().find(|c| c.addr == to) else {
                continue;
            };
            match msg {
                ServerMsg::Snapshot(s) => {
                    c.ack_tick = c.ack_tick.max(s.header.tick);
                    for (seq, e) in &s.events {
                        if *seq == c.event_ack + 1 {
                            c.event_ack = *seq;
                            match e {
                                GameEvent::MapChunk(chunk) => c.chunks.add(now, chunk).unwrap(),
                                GameEvent::MatchStart { map: Some(m), .. } => {
                                    let text = c.chunks.take(m).expect("the new map arrived");
                                    assert_eq!(text, second_map);
                                    c.map_starts += 1;
                                }
                                _ => {}
                            }
                        }
                    }
                }
                ServerMsg::Roster(page) => {
                    if let Some(r) = c.roster.add(page) {
                        c.roster_len = r.len();
                    }
                }
                ServerMsg::Bye(reason) => panic!("{to} dropped: {reason}"),
                _ => {}
            }
        }
        if t % 3 == 0 {
            for c in &mut clients {
                c.seq += 1;
                let mut input =
                    InputPacket::pack(t, c.seq, c.ack_tick, [(c.seq, Command::default())]);
                input.event_ack = c.event_ack;
                send(
                    &mut server,
                    &mut keys,
                    now,
                    c.addr,
                    &ClientMsg::Input(input),
                );
            }
        }
    }
    println!(
        "datagrams: {}, largest by kind: {:?}",
        budget.count, budget.largest
    );
    assert_eq!(server.player_count(), PLAYERS, "nobody fell behind");
    for c in &clients {
        assert_eq!(c.roster_len, PLAYERS, "the roster reassembles");
        assert_eq!(c.map_starts, 1, "the map change arrived");
    }
    for kind in ["welcome", "snapshot", "roster", "map chunk"] {
        assert!(budget.largest.contains_key(kind), "no {kind} seen");
    }
}
