//! A scattering relay: a UDP forwarder with its own sockets between one real client and
//! a real server that delays every datagram on its own, latency ± jitter drawn uniformly
//! each time, so datagrams overtake one another as on a network of many paths (netem's
//! jitter without rate control), and may lose a share of them. It reads nothing it
//! forwards; it logs each datagram's way and fate (how long it really held it, or that
//! it dropped it), which is the truth an RTT and a loss figure are checked against.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::net::{SocketAddr, UdpSocket};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

/// One datagram held: when it is due, its order of arrival, whether it goes up (client
/// to server), when it arrived, its bytes.
type Held = (Instant, u64, bool, Instant, Vec<u8>);

#[derive(Default)]
struct Log {
    /// Each datagram forwarded: up or down, and how long the relay held it.
    held: Vec<(bool, Duration)>,
    /// Datagrams that left before one that arrived ahead of them, each way.
    overtook: [u64; 2],
    /// Datagrams dropped, each way (up, down).
    dropped: [u64; 2],
}

pub struct ScatterRelay {
    front: SocketAddr,
    log: Arc<Mutex<Log>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl ScatterRelay {
    /// A relay on loopback in front of the server at `server`, holding each datagram
    /// `latency_ms` ± `jitter_ms` (uniform), each way.
    pub fn start(server: SocketAddr, latency_ms: u32, jitter_ms: u32, seed: u64) -> ScatterRelay {
        ScatterRelay::lossy(server, latency_ms, jitter_ms, 0.0, seed)
    }

    /// As [`ScatterRelay::start`], dropping each datagram with chance `loss_pct` %.
    pub fn lossy(
        server: SocketAddr,
        latency_ms: u32,
        jitter_ms: u32,
        loss_pct: f64,
        seed: u64,
    ) -> ScatterRelay {
        let front = UdpSocket::bind("127.0.0.1:0").unwrap();
        front.set_nonblocking(true).unwrap();
        let back = UdpSocket::bind("127.0.0.1:0").unwrap();
        back.set_nonblocking(true).unwrap();
        let addr = front.local_addr().unwrap();
        let log = Arc::new(Mutex::new(Log::default()));
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let (log, stop) = (log.clone(), stop.clone());
            let fates = (
                f64::from(latency_ms),
                f64::from(jitter_ms),
                loss_pct / 100.0,
            );
            std::thread::spawn(move || scatter(front, back, server, fates, seed, &log, &stop))
        };
        ScatterRelay {
            front: addr,
            log,
            stop,
            thread: Some(thread),
        }
    }

    /// Where the client should send.
    pub fn addr(&self) -> SocketAddr {
        self.front
    }

    /// The mean time the relay held the datagrams going `up` (or down), in ms, and how
    /// many it forwarded that way.
    pub fn mean_ms(&self, up: bool) -> (f64, usize) {
        let log = self.log.lock().unwrap();
        let way: Vec<f64> = log
            .held
            .iter()
            .filter(|(u, _)| *u == up)
            .map(|(_, d)| d.as_secs_f64() * 1000.0)
            .collect();
        (way.iter().sum::<f64>() / way.len().max(1) as f64, way.len())
    }

    /// Datagrams that left before one that arrived ahead of them: (up, down).
    pub fn overtaken(&self) -> (u64, u64) {
        let log = self.log.lock().unwrap();
        (log.overtook[0], log.overtook[1])
    }

    /// The share of the datagrams going `up` (or down) that the relay dropped, in %.
    pub fn loss_pct(&self, up: bool) -> f64 {
        let log = self.log.lock().unwrap();
        let way = usize::from(!up);
        let forwarded = log.held.iter().filter(|(u, _)| *u == up).count() as f64;
        let dropped = log.dropped[way] as f64;
        100.0 * dropped / (dropped + forwarded).max(1.0)
    }
}

impl Drop for ScatterRelay {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn scatter(
    front: UdpSocket,
    back: UdpSocket,
    server: SocketAddr,
    (latency, jitter, loss): (f64, f64, f64),
    seed: u64,
    log: &Mutex<Log>,
    stop: &AtomicBool,
) {
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let mut client = None;
    let mut held: BinaryHeap<Reverse<Held>> = BinaryHeap::new();
    let mut buf = vec![0u8; 65_536];
    let mut order = 0u64;
    // The newest arrival order forwarded each way, to count overtakers.
    let mut sent_newest = [0u64; 2];
    while !stop.load(Ordering::Relaxed) {
        let now = Instant::now();
        let mut hold = |up: bool, bytes: &[u8], order: &mut u64| {
            if loss > 0.0 && rng.random::<f64>() < loss {
                log.lock().unwrap().dropped[usize::from(!up)] += 1;
                return;
            }
            let ms = (latency + jitter * (2.0 * rng.random::<f64>() - 1.0)).max(0.0);
            *order += 1;
            let due = now + Duration::from_secs_f64(ms / 1000.0);
            held.push(Reverse((due, *order, up, now, bytes.to_vec())));
        };
        while let Ok((n, from)) = front.recv_from(&mut buf) {
            client = Some(from);
            hold(true, &buf[..n], &mut order);
        }
        while let Ok((n, from)) = back.recv_from(&mut buf) {
            if from == server {
                hold(false, &buf[..n], &mut order);
            }
        }
        let now = Instant::now();
        while held.peek().is_some_and(|Reverse(h)| h.0 <= now) {
            let Reverse((_, order, up, arrived, bytes)) = held.pop().unwrap();
            let sent = if up {
                back.send_to(&bytes, server).is_ok()
            } else {
                client.is_some_and(|c| front.send_to(&bytes, c).is_ok())
            };
            if sent {
                let mut log = log.lock().unwrap();
                log.held.push((up, now.saturating_duration_since(arrived)));
                let way = usize::from(!up);
                if order < sent_newest[way] {
                    log.overtook[way] += 1;
                }
                sent_newest[way] = sent_newest[way].max(order);
            }
        }
        std::thread::sleep(Duration::from_micros(200));
    }
}
