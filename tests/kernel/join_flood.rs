//! A flood of connect requests forged from a victim's address, from another process's
//! point of view: sockets of their own on the victim's address and 1,000 other ports,
//! 3,000 a second. The victim, the real client on that address, still joins in time.

use std::net::{SocketAddr, UdpSocket};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use netarena::net::codec;
use netarena::net::secure::ClientHandshake;

use crate::support::process::{finish, headless, num, start_server};
use crate::support::retry::{in_time, retry};

const PER_SEC: u32 = 3000;

// 3,000 forged connects a second from the victim's address stopped it joining ("is a
// netarena server running there?"): they drained its host's bucket.
#[test]
#[ignore = "slow tier: .ci/run runs it with --ignored"]
fn a_flood_forged_from_a_victims_address_does_not_stop_it_joining() {
    retry("a join under a forged flood from its address", |_| {
        let server = start_server(&[]);
        let to = SocketAddr::from(([127, 0, 0, 1], server.port));
        let mut request = Vec::new();
        let hello = ClientHandshake::new().hello();
        codec::connect_request("mallory", None, hello, &mut request).unwrap();
        let sockets: Vec<UdpSocket> = (0..1000)
            .map(|_| UdpSocket::bind("127.0.0.1:0").unwrap())
            .collect();
        let stop = AtomicBool::new(false);
        std::thread::scope(|s| {
            let flood = s.spawn(|| {
                let start = Instant::now();
                let mut sent = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    let due = (start.elapsed().as_secs_f64() * f64::from(PER_SEC)) as u64;
                    while sent < due {
                        let _ = sockets[sent as usize % sockets.len()].send_to(&request, to);
                        sent += 1;
                    }
                    std::thread::sleep(Duration::from_millis(1));
                }
                sent as f64 / start.elapsed().as_secs_f64()
            });
            // The flood is under way before the victim asks.
            std::thread::sleep(Duration::from_millis(500));
            let asked = Instant::now();
            let (mut client, report) = headless(server.port, "victim", "2", &[]);
            // The flood's requests carry no cookie, so never join: the join line is
            // the victim's.
            let joined = server.wait_for_line("join", Duration::from_secs(6));
            let took = asked.elapsed();
            let status = client.wait().unwrap();
            stop.store(true, Ordering::Relaxed);
            let rate = flood.join().unwrap();
            assert!(status.success(), "the victim could not join: {status}");
            let r = finish(client, report);
            eprintln!(
                "flood {rate:.0}/s; joined in {took:?} ({joined:?}), played {} s",
                num(&r, "seconds")
            );
            assert_eq!(r["joined"], true, "the victim could not join: {r}");
            assert!(joined.is_some_and(|l| l.contains("victim")));
            // Well inside the client's own 5 s connect timeout, which its success
            // already implies: a few retries (250 ms each) at most.
            in_time(took < Duration::from_secs(2) && rate >= 2500.0, || {
                format!("joined in {took:?} under {rate:.0}/s")
            })
        })
    });
}
