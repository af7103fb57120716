//! Every message type survives encode then decode unchanged, and no byte string makes
//! a decoder panic.

use proptest::prelude::*;

use netarena::net::codec;
use netarena::net::delta;
use netarena::net::protocol::{
    ClientMsg, CommandRun, Cookie, GameEvent, InputCounts, InputPacket, MapChunk, MapInfo, OwnBody,
    PlayerSnap, PlayerStatus, RailShot, RailVerdict, RejectReason, RosterEntry, RosterPage,
    ServerInfo, ServerMsg, SnapshotDelta, SnapshotHeader, Welcome,
};
use netarena::net::widen::Known;
use netarena::sim::combat::{Projectile, Weapon};
use netarena::sim::world::{Buttons, Command, PlayerState};

/// Any buttons (fire too), either weapon, any of the eight aims.
fn command() -> impl Strategy<Value = Command> {
    (0..=Buttons::ALL.bits(), 0u8..2, 0u8..8).prop_map(|(b, weapon, aim)| Command {
        buttons: Buttons::from_bits_truncate(b),
        weapon,
        aim,
    })
}

fn cookie() -> impl Strategy<Value = Cookie> {
    (any::<u32>(), any::<u32>(), any::<u64>()).prop_map(|(window, nonce, mac)| Cookie {
        window,
        nonce,
        mac,
    })
}

fn player() -> impl Strategy<Value = PlayerSnap> {
    (
        any::<u8>(),
        0..25_600i32,
        0..12_800i32,
        -64..64i32,
        -64..64i32,
    )
        .prop_map(|(id, x, y, vx, vy)| PlayerSnap {
            id,
            state: PlayerState { x, y, vx, vy },
        })
}

fn status() -> impl Strategy<Value = PlayerStatus> {
    (
        any::<u8>(),
        any::<i16>(),
        any::<bool>(),
        any::<i16>(),
        any::<u16>(),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(
            |(id, health, alive, frags, deaths, rail, protected)| PlayerStatus {
                id,
                health,
                alive,
                frags,
                deaths,
                weapon: if rail { Weapon::Rail } else { Weapon::Blaster },
                protected,
            },
        )
}

fn game_event() -> impl Strategy<Value = GameEvent> {
    let point = (any::<i32>(), any::<i32>());
    prop_oneof![
        map_chunk().prop_map(GameEvent::MapChunk),
        status().prop_map(GameEvent::Status),
        (
            any::<u16>(),
            any::<u8>(),
            any::<u32>(),
            any::<i32>(),
            any::<i32>(),
            -200..200i32,
            -200..200i32
        )
            .prop_map(
                |(id, owner, born, x, y, vx, vy)| GameEvent::Shot(Projectile {
                    id,
                    owner,
                    born,
                    x,
                    y,
                    vx,
                    vy
                })
            ),
        (
            any::<u16>(),
            any::<u32>(),
            proptest::option::of(any::<u8>())
        )
            .prop_map(|(id, tick, hit)| GameEvent::ShotEnd { id, tick, hit }),
        (
            any::<u16>(),
            any::<u8>(),
            any::<u32>(),
            point,
            point,
            proptest::option::of(any::<u8>()),
            any::<u16>(),
            proptest::option::of(point),
            proptest::option::of(point),
            (
                any::<u16>(),
                any::<u16>(),
                proptest::option::of((any::<u8>(), point, point)),
                0u8..3
            )
        )
            .prop_map(
                |(
                    id,
                    shooter,
                    tick,
                    from,
                    to,
                    hit,
                    rewound_ticks,
                    tested_at,
                    present_at,
                    (wanted_ticks, bound_ticks, nearest, verdict),
                )| {
                    GameEvent::Rail(RailShot {
                        id,
                        shooter,
                        tick,
                        from,
                        to,
                        hit,
                        rewound_ticks,
                        tested_at,
                        present_at,
                        wanted_ticks,
                        bound_ticks,
                        nearest,
                        verdict: [RailVerdict::Hit, RailVerdict::Miss, RailVerdict::PastBound]
                            [usize::from(verdict)],
                    })
                }
            ),
        (any::<u8>(), any::<u8>(), any::<bool>()).prop_map(|(killer, victim, rail)| {
            GameEvent::Kill {
                killer,
                victim,
                weapon: if rail { Weapon::Rail } else { Weapon::Blaster },
            }
        }),
        (any::<u8>(), "\\PC{0,120}").prop_map(|(from, text)| GameEvent::Chat { from, text }),
        (
            "[a-z]{1,10}",
            proptest::option::of(map_info()),
            any::<u32>(),
            any::<u16>(),
            any::<u32>()
        )
            .prop_map(
                |(map_name, map, started_tick, frag_limit, time_limit_secs)| {
                    GameEvent::MatchStart {
                        map_name,
                        map,
                        started_tick,
                        frag_limit,
                        time_limit_secs,
                    }
                }
            ),
        (
            proptest::option::of(any::<u8>()),
            proptest::collection::vec(status(), 0..8),
            "[a-z]{1,10}"
        )
            .prop_map(|(winner, standings, next_map)| GameEvent::MatchEnd {
                winner,
                standings,
                next_map
            }),
        (any::<u16>(), any::<u16>(), any::<u32>(), any::<u32>()).prop_map(
            |(tick_rate, snapshot_interval, from_tick, from_seq)| GameEvent::TickRate {
                tick_rate,
                snapshot_interval,
                from_tick,
                from_seq,
            }
        ),
    ]
}

fn client_msg() -> impl Strategy<Value = ClientMsg> {
    prop_oneof![
        (
            any::<u32>(),
            any::<u16>(),
            "\\PC{0,20}",
            proptest::option::of(cookie()),
            any::<[u8; 32]>(),
            proptest::collection::vec(any::<u8>(), 0..64)
        )
            .prop_map(|(magic, version, name, cookie, hello, padding)| {
                ClientMsg::Connect {
                    magic,
                    version,
                    name,
                    cookie,
                    hello,
                    padding,
                }
            }),
        // The counters travel as their low 16 bits (the server widens them), the clock
        // only on a packet the server echoes (`net::wire_input`).
        (
            any::<u16>(),
            any::<u16>(),
            any::<u16>(),
            any::<u16>(),
            proptest::collection::vec((command(), 1u8..=255), 0..20)
        )
            .prop_map(|(client_time_ms, packet_seq, ack_tick, last_seq, runs)| {
                let (packet_seq, ack_tick) = (u32::from(packet_seq), u32::from(ack_tick));
                let echoed = packet_seq.is_multiple_of(4);
                ClientMsg::Input(InputPacket {
                    client_time_ms: if echoed { u32::from(client_time_ms) } else { 0 },
                    packet_seq,
                    ack_tick,
                    event_ack: packet_seq ^ 7,
                    view_tick: ack_tick / 2,
                    rtt_ms: client_time_ms % 1000,
                    last_seq: u32::from(last_seq),
                    runs: runs
                        .into_iter()
                        // Fixed ticks (span 0) and variable-rate commands alike.
                        .map(|(cmd, count)| CommandRun {
                            cmd,
                            count,
                            span: count / 2,
                        })
                        .collect(),
                    snapshots_lost: last_seq as u8,
                    ack_hold_ms: packet_seq as u16,
                })
            }),
        Just(ClientMsg::Leave),
        (
            any::<u32>(),
            any::<u16>(),
            any::<u32>(),
            proptest::collection::vec(any::<u8>(), 0..100)
        )
            .prop_map(|(magic, version, nonce, padding)| ClientMsg::Discover {
                magic,
                version,
                nonce,
                padding
            }),
        "\\PC{0,100}".prop_map(ClientMsg::Chat),
    ]
}

fn map_info() -> impl Strategy<Value = MapInfo> {
    (any::<u32>(), any::<u32>(), any::<u16>()).prop_map(|(id, len, chunks)| MapInfo {
        id,
        len,
        chunks,
    })
}

fn map_chunk() -> impl Strategy<Value = MapChunk> {
    (
        map_info(),
        any::<u16>(),
        proptest::collection::vec(any::<u8>(), 0..300),
    )
        .prop_map(|(map, index, data)| MapChunk { map, index, data })
}

fn server_msg() -> impl Strategy<Value = ServerMsg> {
    let welcome = (
        any::<u8>(),
        any::<u16>(),
        any::<u16>(),
        any::<u32>(),
        "\\PC{0,20}",
        "[a-z]{1,10}",
        map_info(),
    )
        .prop_map(
            |(player_id, tick_rate, snapshot_interval, server_tick, server_name, map_name, map)| {
                ServerMsg::Welcome(Welcome {
                    player_id,
                    tick_rate,
                    snapshot_interval,
                    server_tick,
                    server_name,
                    map_name,
                    map,
                    // Never on the wire: the receiver fills it from the chunks.
                    map_text: String::new(),
                })
            },
        );
    let snapshot = (
        any::<u16>(),
        any::<u8>(),
        any::<u16>(),
        any::<u16>(),
        any::<u16>(),
        proptest::option::of((any::<u32>(), any::<u32>())),
        proptest::collection::vec(any::<u8>(), 0..10),
        proptest::collection::vec(player(), 0..20),
        proptest::collection::vec(any::<u8>(), 0..20),
        proptest::collection::vec(any::<i32>(), 0..40),
        proptest::collection::vec((any::<u32>(), game_event()), 0..6),
        (any::<u8>(), any::<u16>()),
    )
        .prop_map(
            |(
                tick,
                baseline_age,
                ack_seq,
                echo_time_ms,
                echo_hold_ms,
                inputs,
                removed,
                added,
                masks,
                values,
                events,
                (flags, ready_in),
            )| {
                // The echo travels as the low 16 bits of the client's clock, and with
                // its hold only when there is one (0: none).
                let echo_time_ms = u32::from(echo_time_ms);
                let echo_hold_ms = if echo_time_ms == 0 { 0 } else { echo_hold_ms };
                // So do the tick, the acknowledged command and the first event's seq
                // (`widened_snapshots_come_back_whole` checks them whole).
                // A near snapshot carries their low 8 bits.
                let near = baseline_age % 2 == 1;
                let low = if near { 0xff } else { 0xffff };
                let (tick, ack_seq) = (u32::from(tick) & low, u32::from(ack_seq) & low);
                let mut events = events;
                if let Some((first, _)) = events.first_mut() {
                    *first &= low;
                }
                ServerMsg::Snapshot(SnapshotDelta {
                    header: SnapshotHeader {
                        tick,
                        ack_seq,
                        echo_time_ms,
                        echo_hold_ms,
                        inputs: inputs.map(|(received, high)| InputCounts { received, high }),
                        queued: baseline_age.wrapping_mul(3),
                        buffer_depth: baseline_age / 3,
                        me: OwnBody { flags, ready_in },
                        withheld_total: u32::from(baseline_age) * 1000,
                    },
                    baseline_age,
                    removed,
                    added,
                    masks,
                    values,
                    events,
                    near,
                })
            },
        );
    prop_oneof![
        welcome,
        any::<u16>().prop_map(|max_players| ServerMsg::Reject(RejectReason::Full { max_players })),
        any::<u16>().prop_map(|server| ServerMsg::Reject(RejectReason::Version { server })),
        snapshot,
        proptest::collection::vec((any::<u8>(), "\\PC{0,16}", any::<bool>()), 0..16).prop_map(
            |r| {
                ServerMsg::Roster(RosterPage {
                    serial: 7,
                    part: 0,
                    parts: 1,
                    entries: r
                        .into_iter()
                        .map(|(id, name, bot)| RosterEntry {
                            id,
                            name,
                            bot,
                            ping_ms: u16::from(id),
                        })
                        .collect(),
                })
            }
        ),
        map_chunk().prop_map(ServerMsg::MapChunk),
        (any::<u8>(), any::<[u8; 2]>())
            .prop_map(|(session, seq)| ServerMsg::NotConnected { session, seq }),
        proptest::collection::vec(any::<u8>(), 0..120).prop_map(ServerMsg::Accept),
        "\\PC{0,40}".prop_map(ServerMsg::Bye),
        Just(ServerMsg::Left),
        cookie().prop_map(ServerMsg::Challenge),
        (
            any::<u16>(),
            any::<u32>(),
            "\\PC{0,24}",
            "[a-z]{0,24}",
            any::<u16>(),
            (any::<u16>(), any::<[u8; 8]>())
        )
            .prop_map(|(version, nonce, name, map, players, (max_players, key))| {
                ServerMsg::Info(ServerInfo {
                    version,
                    nonce,
                    name,
                    map,
                    players,
                    max_players,
                    key,
                })
            }),
    ]
}

proptest! {
    #[test]
    fn client_messages_round_trip(msg in client_msg()) {
        let mut buf = Vec::new();
        codec::encode_client(&msg, &mut buf).unwrap();
        prop_assert_eq!(codec::decode_client(&buf).unwrap(), msg);
    }

    #[test]
    fn server_messages_round_trip(msg in server_msg()) {
        let mut buf = Vec::new();
        // Every message that fits a datagram round-trips; a larger one is refused.
        match codec::encode_server(&msg, &mut buf) {
            Ok(()) => prop_assert_eq!(codec::decode_server(&buf).unwrap(), msg),
            Err(e) => prop_assert!(
                codec::encoded_len_server(&msg) > codec::MAX_SERVER_DATAGRAM,
                "{}", e
            ),
        }
    }

    /// The tick, the acknowledged command and the event seqs travel as their low 16
    /// bits (8 in a near snapshot); widened against values within 32,767 of them (127
    /// when near), whole values come back.
    #[test]
    fn widened_snapshots_come_back_whole(
        msg in server_msg(),
        (tick, ack, first) in (any::<u32>(), any::<u32>(), any::<u32>()),
        (dt, da, de) in (-32_768..32_768i32, -32_768..32_768i32, -32_768..32_768i32),
    ) {
        let ServerMsg::Snapshot(mut d) = msg else { return Ok(()) };
        let (dt, da, de) = if d.near { (dt / 256, da / 256, de / 256) } else { (dt, da, de) };
        d.header.tick = tick;
        d.header.ack_seq = ack;
        let shift = first.wrapping_sub(d.events.first().map_or(0, |e| e.0));
        for (seq, _) in &mut d.events {
            *seq = seq.wrapping_add(shift);
        }
        let mut buf = Vec::new();
        if codec::encode_server(&ServerMsg::Snapshot(d.clone()), &mut buf).is_err() {
            return Ok(());
        }
        let Ok(ServerMsg::Snapshot(mut got)) = codec::decode_server(&buf) else {
            panic!("a snapshot decodes");
        };
        // The client knows values near the true ones, before or after them.
        got.widen(&Known {
            tick: tick.wrapping_sub(dt as u32),
            ack: Some(ack.wrapping_sub(da as u32)),
            next_event: first.wrapping_sub(de as u32),
        });
        prop_assert_eq!(got, d);
    }

    #[test]
    fn arbitrary_bytes_never_panic_a_decoder(bytes in proptest::collection::vec(any::<u8>(), 0..2000)) {
        let _ = codec::decode_client(&bytes);
        let _ = codec::peek_connect(&bytes);
        if let Ok(ServerMsg::Snapshot(mut d)) = codec::decode_server(&bytes) {
            let _ = delta::decode(&d, Some(&[]));
            let _ = delta::decode(&d, None);
            d.widen(&Known { tick: u32::MAX, ack: Some(7), next_event: 1 });
            let _ = delta::decode(&d, None);
        }
    }

    #[test]
    fn arbitrary_snapshot_deltas_never_panic(msg in server_msg(), base in proptest::collection::vec(player(), 0..20)) {
        if let ServerMsg::Snapshot(d) = msg {
            let _ = delta::decode(&d, Some(&base));
        }
    }
}
