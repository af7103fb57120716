//! Every message type survives encode then decode unchanged, and no byte string makes
//! a decoder panic.

use proptest::prelude::*;

use netarena::net::codec;
use netarena::net::delta;
use netarena::net::protocol::{
    ClientMsg, CommandRun, Cookie, InputCounts, InputPacket, PlayerSnap, RejectReason, RosterEntry,
    ServerMsg, SnapshotDelta, Welcome,
};
use netarena::sim::world::{Buttons, Command, PlayerState};

fn command() -> impl Strategy<Value = Command> {
    (0u8..16).prop_map(|b| Command::moving(Buttons::from_bits_truncate(b)))
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

fn client_msg() -> impl Strategy<Value = ClientMsg> {
    prop_oneof![
        (
            any::<u32>(),
            any::<u16>(),
            "\\PC{0,20}",
            proptest::option::of(cookie()),
            proptest::collection::vec(any::<u8>(), 0..64)
        )
            .prop_map(
                |(magic, version, name, cookie, padding)| ClientMsg::Connect {
                    magic,
                    version,
                    name,
                    cookie,
                    padding
                }
            ),
        (
            any::<u32>(),
            any::<u32>(),
            any::<u32>(),
            any::<u32>(),
            proptest::collection::vec((command(), 1u8..=255), 0..20)
        )
            .prop_map(|(client_time_ms, packet_seq, ack_tick, last_seq, runs)| {
                ClientMsg::Input(InputPacket {
                    client_time_ms,
                    packet_seq,
                    ack_tick,
                    last_seq,
                    runs: runs
                        .into_iter()
                        .map(|(cmd, count)| CommandRun { cmd, count })
                        .collect(),
                })
            }),
        Just(ClientMsg::Leave),
    ]
}

fn server_msg() -> impl Strategy<Value = ServerMsg> {
    let welcome = (
        any::<u8>(),
        any::<u16>(),
        any::<u16>(),
        any::<u32>(),
        "\\PC{0,20}",
        "[a-z]{1,10}",
        "[#.S\n]{0,200}",
    )
        .prop_map(
            |(
                player_id,
                tick_rate,
                snapshot_rate,
                server_tick,
                server_name,
                map_name,
                map_text,
            )| {
                ServerMsg::Welcome(Welcome {
                    player_id,
                    tick_rate,
                    snapshot_rate,
                    server_tick,
                    server_name,
                    map_name,
                    map_text,
                })
            },
        );
    let snapshot = (
        any::<u32>(),
        any::<u8>(),
        any::<u32>(),
        any::<u32>(),
        any::<u16>(),
        proptest::option::of((any::<u32>(), any::<u32>())),
        proptest::collection::vec(any::<u8>(), 0..10),
        proptest::collection::vec(player(), 0..20),
        proptest::collection::vec(any::<u8>(), 0..20),
        proptest::collection::vec(any::<i32>(), 0..40),
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
            )| {
                ServerMsg::Snapshot(SnapshotDelta {
                    tick,
                    baseline_age,
                    ack_seq,
                    echo_time_ms,
                    echo_hold_ms,
                    inputs: inputs.map(|(received, high)| InputCounts { received, high }),
                    removed,
                    added,
                    masks,
                    values,
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
                ServerMsg::Roster(
                    r.into_iter()
                        .map(|(id, name, bot)| RosterEntry { id, name, bot })
                        .collect(),
                )
            }
        ),
        "\\PC{0,40}".prop_map(ServerMsg::Bye),
        cookie().prop_map(ServerMsg::Challenge),
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
        codec::encode_server(&msg, &mut buf).unwrap();
        prop_assert_eq!(codec::decode_server(&buf).unwrap(), msg);
    }

    #[test]
    fn arbitrary_bytes_never_panic_a_decoder(bytes in proptest::collection::vec(any::<u8>(), 0..2000)) {
        let _ = codec::decode_client(&bytes);
        let _ = codec::peek_connect(&bytes);
        if let Ok(ServerMsg::Snapshot(d)) = codec::decode_server(&bytes) {
            let _ = delta::decode(&d, Some(&[]));
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
