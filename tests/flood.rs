//! A connect flood from many distinct source addresses. The whole 127.0.0.0/8 range is
//! this machine's, so every datagram really comes from another address.

mod support;

use std::net::{Ipv4Addr, SocketAddr, UdpSocket};
use std::time::{Duration, Instant};

use netarena::net::codec;
use netarena::net::protocol::ServerMsg;
use support::process::{finish, headless, num, start_server};

/// Distinct flood sources: more than the server's rate-limit table holds.
const SOURCES: u32 = 20_000;
/// The server's limit on challenges per host: a burst of 40, then 20 per second.
const CHALLENGE_BURST: usize = 40;
const CHALLENGES_PER_SEC: f64 = 20.0;

fn source(i: u32) -> Ipv4Addr {
    // 127.1.0.0 upwards; never 127.0.0.1 (the real client) nor 127.0.0.2 (the victim).
    Ipv4Addr::from(0x7f01_0000 + i)
}

/// Counts the challenges already waiting for `socket`, without waiting.
fn answers_now(socket: &UdpSocket) -> usize {
    socket.set_nonblocking(true).unwrap();
    let n = answers(socket);
    socket.set_nonblocking(false).unwrap();
    n
}

/// Counts the challenges for `socket` until none comes for its read timeout.
fn answers(socket: &UdpSocket) -> usize {
    let mut buf = [0u8; 2048];
    let mut n = 0;
    while let Ok((len, _)) = socket.recv_from(&mut buf) {
        n += usize::from(matches!(
            codec::decode_server(&buf[..len]),
            Ok(ServerMsg::Challenge(_))
        ));
    }
    n
}

#[test]
fn a_flood_from_many_addresses_neither_locks_out_a_player_nor_frees_a_limited_address() {
    let server = start_server(&[]);
    let to = SocketAddr::from(([127, 0, 0, 1], server.port));
    let mut request = Vec::new();
    codec::connect_request(
        "mallory",
        None,
        netarena::net::protocol::SessionKey::random(),
        &mut request,
    )
    .unwrap();

    // An address that spends its whole burst and is then limited.
    let limited = UdpSocket::bind("127.0.0.2:0").unwrap();
    limited
        .set_read_timeout(Some(Duration::from_millis(30)))
        .unwrap();
    for _ in 0..CHALLENGE_BURST + 20 {
        let _ = limited.send_to(&request, to);
    }
    let burst = answers(&limited);
    assert!(
        (CHALLENGE_BURST..=CHALLENGE_BURST + 1).contains(&burst),
        "the burst was {burst} challenges, not {CHALLENGE_BURST}"
    );

    let start = Instant::now();
    let (client, report) = headless(server.port, "alice", "6", &["--seed", "3"]);
    let mut limited_answers = 0;
    for i in 0..SOURCES {
        match UdpSocket::bind((source(i), 0)) {
            Ok(s) => {
                for _ in 0..2 {
                    let _ = s.send_to(&request, to);
                }
            }
            Err(e) => panic!("cannot bind {}: {e}", source(i)),
        }
        // The limited address keeps asking all through the flood.
        if i % 50 == 0 {
            let _ = limited.send_to(&request, to);
            limited_answers += answers_now(&limited);
        }
        // Paced so that the server reads every datagram instead of its socket dropping them.
        if i % 100 == 0 {
            std::thread::sleep(Duration::from_millis(1));
        }
    }
    limited_answers += answers(&limited);
    let flood_secs = start.elapsed().as_secs_f64();
    // What it earns by waiting, and no more: each reset would give it a whole burst at once.
    let earned = (flood_secs * CHALLENGES_PER_SEC).ceil() as usize + 1;
    assert!(
        limited_answers <= earned,
        "the limited address got {limited_answers} challenges in {flood_secs:.2} s \
         (it earns {earned}): the flood reset its limit"
    );

    let r = finish(client, report);
    let seconds = num(&r, "seconds");
    assert!(
        num(&r, "snapshots_received") > 15.0 * seconds,
        "the real client did not play through the flood: {r}"
    );
}
