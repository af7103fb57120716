//! Issue 16: a server holds 128 players, 64 people and 64 bots, and while they fight
//! every datagram it sends stays within 1,200 bytes. Each snapshot carries at most 64
//! players, the receiver and those nearest it; this test decodes every one against the
//! client's own baseline, as a client does, and checks it against the server's world.
//! The clients' snapshots go out on ticks spread over each interval, and the roster's
//! refresh over its period.

use std::collections::{BTreeMap, HashMap};
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use netarena::net::codec::{self, MAX_SERVER_DATAGRAM};
use netarena::net::delta;
use netarena::net::protocol::{ClientMsg, InputPacket, PlayerSnap, ServerMsg};
use netarena::net::roster_pages::RosterPages;
use netarena::net::widen::Known;
use netarena::server::{PLAYER_LIMIT, Server, ServerConfig};
use netarena::sim::map::{CELL, MAX_HEIGHT, MAX_WIDTH, Map};
use netarena::sim::world::{Buttons, Command, PlayerId, PlayerState};

use crate::support::Keyring;

const PEOPLE: usize = 64;
const BOTS: usize = 64;
/// Most players in one snapshot (`server::interest`).
const SNAPSHOT_PLAYERS: usize = 64;
/// How much nearer a newcomer must be to take a player's place in a client's set.
const KEEP_MARGIN: i64 = 4 * CELL as i64;

/// The largest map the loader accepts, open with scattered walls and 64 spawns: the
/// widest coordinates on the wire.
fn largest_map() -> Map {
    let mut rows = vec!["#".repeat(MAX_WIDTH)];
    let mut spawns = 0;
    for y in 1..MAX_HEIGHT - 1 {
        let row: String = (0..MAX_WIDTH)
            .map(|x| match x {
                0 => '#',
                x if x == MAX_WIDTH - 1 => '#',
                x if (x + y).is_multiple_of(7) && y.is_multiple_of(3) && spawns < 64 => {
                    spawns += 1;
                    'S'
                }
                x if (x * 3 + y).is_multiple_of(11) => '#',
                _ => '.',
            })
            .collect();
        rows.push(row);
    }
    rows.push("#".repeat(MAX_WIDTH));
    Map::parse("big", &rows.join("\n")).expect("the map parses")
}

/// How far out of a terminal's view centred on `me` a player is (a cell is two columns
/// wide, so rows count double).
fn view_distance(me: &PlayerState, s: &PlayerState) -> i64 {
    let dx = (i64::from(s.x) - i64::from(me.x)).abs();
    let dy = (i64::from(s.y) - i64::from(me.y)).abs();
    dx.max(2 * dy)
}

struct Client {
    addr: SocketAddr,
    id: PlayerId,
    seq: u32,
    ack_tick: u32,
    event_ack: u32,
    /// Decoded snapshots by tick: the baselines of the next deltas.
    snapshots: BTreeMap<u32, Vec<PlayerSnap>>,
    roster: RosterPages,
    roster_len: usize,
    cut: usize,
    /// The tick of the newest snapshot.
    last: Option<u32>,
    /// Whole rosters received after the joins.
    rosters: usize,
}

impl Client {
    /// Takes a snapshot in as a client does, and checks it against the server's world.
    fn snapshot(&mut self, delta: &netarena::net::protocol::SnapshotDelta, server: &Server) {
        let base = delta::baseline_tick(delta).map(|t| &self.snapshots[&t][..]);
        let snap = delta::decode(delta, base).expect("the delta decodes against its baseline");
        if let Some(last) = self.last {
            assert_eq!(snap.header.tick - last, 3, "one snapshot every interval");
        }
        self.last = Some(snap.header.tick);
        let world = server.world().players();
        assert!(
            snap.players.len() <= SNAPSHOT_PLAYERS,
            "{}",
            snap.players.len()
        );
        for p in &snap.players {
            let truth = world.iter().find(|(id, _)| *id == p.id).map(|(_, s)| *s);
            assert_eq!(Some(p.state), truth, "player {} as the server has it", p.id);
        }
        // The client itself is always in, and everyone left out is about as far as
        // anyone let in, or farther.
        if let Some(me) = server.world().get(self.id) {
            assert!(snap.players.iter().any(|p| p.id == self.id), "itself");
            let sent = |id| snap.players.iter().any(|p| p.id == id);
            let farthest_in = world
                .iter()
                .filter(|(id, _)| sent(*id))
                .map(|(_, s)| view_distance(&me, s))
                .max()
                .unwrap_or(0);
            let nearest_out = world
                .iter()
                .filter(|(id, _)| !sent(*id))
                .map(|(_, s)| view_distance(&me, s))
                .min();
            if let Some(out) = nearest_out {
                assert!(
                    out + KEEP_MARGIN >= farthest_in,
                    "{out} left out, {farthest_in} in"
                );
                self.cut += 1;
            }
        }
        self.ack_tick = self.ack_tick.max(snap.header.tick);
        for (seq, _) in &delta.events {
            if *seq == self.event_ack + 1 {
                self.event_ack = *seq;
            }
        }
        self.snapshots.insert(snap.header.tick, snap.players);
        while self.snapshots.len() > 40 {
            self.snapshots.pop_first();
        }
    }

    /// One command: walking and shooting, each client its own way.
    fn input(&mut self, t: u32, i: usize) -> ClientMsg {
        self.seq += 1;
        let phase = (t as usize / 40 + i) % 4;
        let walk = [Buttons::RIGHT, Buttons::DOWN, Buttons::LEFT, Buttons::UP][phase];
        let mut cmd = Command::moving(walk);
        cmd.buttons
            .set(Buttons::FIRE, (t as usize / 30 + i).is_multiple_of(2));
        cmd.aim = ((t as usize / 20 + i) % 8) as u8;
        cmd.weapon = u8::from((t as usize / 90 + i).is_multiple_of(3));
        let mut input = InputPacket::pack(t, self.seq, self.ack_tick, [(self.seq, cmd)]);
        input.event_ack = self.event_ack;
        input.view_tick = self.ack_tick;
        ClientMsg::Input(input)
    }
}

/// Everything the server has to send, encoded and checked: (to, message) decoded.
fn drain(
    server: &mut Server,
    keys: &mut Keyring,
    largest: &mut usize,
) -> Vec<(SocketAddr, ServerMsg)> {
    let mut buf = Vec::new();
    let mut sent = Vec::new();
    server.send_outbox(&mut buf, |to, bytes| sent.push((to, bytes.to_vec())));
    assert_eq!(server.send_failures().encode, 0, "a message did not encode");
    sent.into_iter()
        .map(|(to, bytes)| {
            assert!(
                bytes.len() <= MAX_SERVER_DATAGRAM,
                "{} bytes to {to}",
                bytes.len()
            );
            *largest = (*largest).max(bytes.len());
            (to, keys.open(to, &bytes).expect("decodes"))
        })
        .collect()
}

fn send(server: &mut Server, keys: &mut Keyring, now: Instant, from: SocketAddr, msg: &ClientMsg) {
    let mut buf = Vec::new();
    keys.seal(from, msg, &mut buf);
    server.receive(now, from, &buf);
}

/// The people join through the handshake; the welcome names each one's player.
fn join_all(
    server: &mut Server,
    keys: &mut Keyring,
    now: Instant,
    largest: &mut usize,
) -> Vec<Client> {
    let name = "\u{1D54F}".repeat(16); // 16 characters of 4 bytes each
    let mut clients = Vec::new();
    for i in 0..PEOPLE {
        let addr = SocketAddr::from(([10, 0, 1, 1 + i as u8], 5000));
        let mut buf = Vec::new();
        let mut cookie = None;
        let mut id = None;
        for _ in 0..2 {
            codec::connect_request(&name, cookie, keys.hello(addr), &mut buf).unwrap();
            server.receive(now, addr, &buf);
            for (to, msg) in drain(server, keys, largest) {
                match msg {
                    ServerMsg::Challenge(c) if to == addr => cookie = Some(c),
                    ServerMsg::Welcome(w) if to == addr => id = Some(w.player_id),
                    _ => {}
                }
            }
        }
        clients.push(Client {
            addr,
            id: id.expect("welcomed"),
            seq: 0,
            ack_tick: 0,
            event_ack: 0,
            snapshots: BTreeMap::new(),
            roster: RosterPages::default(),
            roster_len: 0,
            cut: 0,
            last: None,
            rosters: 0,
        });
    }
    clients
}

#[test]
fn a_server_holds_64_people_and_64_bots_and_every_datagram_fits() {
    assert!(usize::from(PLAYER_LIMIT) >= PEOPLE + BOTS);
    let mut config = ServerConfig::new(largest_map());
    config.max_players = (PEOPLE + BOTS) as u16;
    config.bots = BOTS as u16;
    let mut server = Server::new(config);
    let mut largest = 0;
    let mut now = Instant::now();
    let mut keys = Keyring::default();
    let mut clients = join_all(&mut server, &mut keys, now, &mut largest);
    assert_eq!(
        server.player_count(),
        PEOPLE + BOTS,
        "nobody's seat went to a bot"
    );
    let by_addr: HashMap<SocketAddr, usize> = clients
        .iter()
        .enumerate()
        .map(|(i, c)| (c.addr, i))
        .collect();

    // 22 s of fighting at 60 Hz (two of the roster's 10 s refreshes), each client
    // sending a packet every other tick.
    let tick = Duration::from_secs(1) / 60;
    let mut most_rosters_at_once = 0;
    for t in 0..60 * 22 {
        now += tick;
        server.tick(now);
        let mut rosters_now = 0;
        for (to, msg) in drain(&mut server, &mut keys, &mut largest) {
            let Some(&i) = by_addr.get(&to) else { continue };
            let c = &mut clients[i];
            match msg {
                ServerMsg::Snapshot(mut s) => {
                    // Its counters came as their low bits: widened as a client does.
                    s.widen(&Known {
                        tick: c.last.unwrap_or(0),
                        ack: Some(c.seq),
                        next_event: c.event_ack + 1,
                    });
                    c.snapshot(&s, &server)
                }
                ServerMsg::Roster(page) => {
                    if let Some(r) = c.roster.add(page) {
                        c.roster_len = r.len();
                        c.rosters += 1;
                        rosters_now += 1;
                    }
                }
                ServerMsg::Bye(reason) => panic!("{to} dropped: {reason}"),
                _ => {}
            }
        }
        // The first tick sends the roster the last join changed to everyone.
        if t > 0 {
            most_rosters_at_once = most_rosters_at_once.max(rosters_now);
        }
        for (i, c) in clients.iter_mut().enumerate() {
            if (t as usize + i).is_multiple_of(2) {
                let msg = c.input(t, i);
                send(&mut server, &mut keys, now, c.addr, &msg);
            }
        }
    }
    println!("largest datagram: {largest} bytes");
    assert_eq!(server.player_count(), PEOPLE + BOTS, "nobody fell behind");
    let kills: usize = server
        .game()
        .statuses()
        .iter()
        .map(|s| usize::from(s.deaths))
        .sum();
    assert!(kills > 0, "they fought");
    // The clients' turns are spread over the ticks, so no tick encodes for all of them.
    let mut turns = [0; 3];
    for c in &clients {
        turns[c.last.expect("snapshots came") as usize % 3] += 1;
    }
    assert!(turns.iter().all(|n| *n < PEOPLE / 2), "{turns:?}");
    // The roster's refresh every 10 s reaches the clients a group at a time.
    assert!(
        most_rosters_at_once <= 8,
        "{most_rosters_at_once} rosters on one tick"
    );
    for c in &clients {
        // The one after the last join, then a refresh in each 10 s.
        assert!(c.rosters >= 3, "refreshed every 10 s: {}", c.rosters);
        assert_eq!(c.roster_len, PEOPLE + BOTS, "the roster lists everyone");
        assert!(
            c.cut > 100,
            "snapshots were cut to the nearest players: {}",
            c.cut
        );
    }
}
