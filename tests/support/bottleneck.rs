//! A thin link between one client and a server, built from nothing in the crate: a UDP
//! forwarder with its own sockets whose each direction is a serial link of a fixed rate
//! fed by a small drop-tail queue, as a home router's uplink or `tc tbf` is. A datagram
//! that arrives while the queue holds `queue_bytes` already is dropped; the one at the
//! head leaves after its bytes have taken their time on the wire. Bytes are counted as
//! `tc tbf` on an Ethernet or veth device counts them: each datagram's payload, its
//! IPv4 and UDP headers and the frame header (it counted payload alone, so its
//! "12 kbit/s" carried 40 % more snapshots than a real 12 kbit/s link).
//!
//! It stands for the real network in tests of congestion: whatever the project's own
//! conditioner does, this relay holds what a real bottleneck would.

use std::collections::VecDeque;
use std::net::{SocketAddr, UdpSocket};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// What a datagram takes on the link besides its payload: IPv4 (20 bytes) and UDP (8)
/// headers and an Ethernet frame header (14). The relay listens on IPv4 loopback.
const FRAMING: usize = 20 + 8 + 14;

/// What one direction carried (bytes as the link counts them, framing included).
#[derive(Clone, Copy, Debug, Default)]
pub struct DirectionCounts {
    /// Datagrams and bytes offered to the link.
    pub offered: u64,
    pub offered_bytes: u64,
    /// Delivered at the far end.
    pub carried: u64,
    pub carried_bytes: u64,
    /// Dropped at the tail of the full queue.
    pub dropped: u64,
    /// Seconds the carried datagrams spent from offer to delivery, summed (queue wait
    /// and their own time on the wire).
    pub delay_secs: f64,
}

impl DirectionCounts {
    /// Mean time from offer to delivery of a carried datagram, in ms.
    pub fn mean_delay_ms(&self) -> f64 {
        1000.0 * self.delay_secs / self.carried.max(1) as f64
    }
}

/// Both directions: `up` from the client to the server, `down` back.
#[derive(Clone, Copy, Debug, Default)]
pub struct Counts {
    pub up: DirectionCounts,
    pub down: DirectionCounts,
}

/// One direction: a drop-tail queue in front of a serial link.
struct Link {
    rate_bytes_per_sec: f64,
    queue_bytes: usize,
    queue: VecDeque<(Instant, Vec<u8>)>,
    queued: usize,
    /// When the link finishes sending the datagram at the head, once it started.
    busy_until: Option<Instant>,
    counts: DirectionCounts,
}

impl Link {
    fn new(kbps: u32, queue_bytes: usize) -> Link {
        Link {
            rate_bytes_per_sec: f64::from(kbps) * 1000.0 / 8.0,
            queue_bytes,
            queue: VecDeque::new(),
            queued: 0,
            busy_until: None,
            counts: DirectionCounts::default(),
        }
    }

    fn offer(&mut self, now: Instant, bytes: &[u8]) {
        let wire = bytes.len() + FRAMING;
        self.counts.offered += 1;
        self.counts.offered_bytes += wire as u64;
        if self.queued + wire > self.queue_bytes {
            self.counts.dropped += 1;
            return;
        }
        self.queued += wire;
        self.queue.push_back((now, bytes.to_vec()));
        if self.busy_until.is_none() {
            self.start(now);
        }
    }

    fn start(&mut self, now: Instant) {
        self.busy_until = self.queue.front().map(|(_, d)| {
            now + Duration::from_secs_f64((d.len() + FRAMING) as f64 / self.rate_bytes_per_sec)
        });
    }

    /// Datagrams whose last bit has left by `now`.
    fn due(&mut self, now: Instant, mut deliver: impl FnMut(&[u8])) {
        while let Some(done) = self.busy_until.filter(|&t| t <= now) {
            let Some((offered, d)) = self.queue.pop_front() else {
                break;
            };
            self.counts.delay_secs += (done - offered).as_secs_f64();
            self.queued -= d.len() + FRAMING;
            self.counts.carried += 1;
            self.counts.carried_bytes += (d.len() + FRAMING) as u64;
            deliver(&d);
            // The next datagram starts when this one finished (the link never idles
            // while something waits), not when we noticed.
            self.busy_until = None;
            if !self.queue.is_empty() {
                self.start(done);
            }
        }
    }
}

/// The relay, running on its own thread until dropped.
pub struct Bottleneck {
    /// Where the client should send: the relay's client-facing address.
    pub addr: SocketAddr,
    stop: Arc<AtomicBool>,
    counts: Arc<Mutex<Counts>>,
    thread: Option<JoinHandle<()>>,
}

impl Bottleneck {
    /// A link of `kbps` each way with a `queue_bytes` drop-tail queue, in front of the
    /// server at `server`, for one client.
    pub fn start(server: SocketAddr, kbps: u32, queue_bytes: usize) -> Bottleneck {
        let front = UdpSocket::bind("127.0.0.1:0").unwrap();
        let back = UdpSocket::bind("127.0.0.1:0").unwrap();
        front.set_nonblocking(true).unwrap();
        back.set_nonblocking(true).unwrap();
        let addr = front.local_addr().unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let counts = Arc::new(Mutex::new(Counts::default()));
        let thread = {
            let (stop, counts) = (stop.clone(), counts.clone());
            std::thread::spawn(move || {
                let mut up = Link::new(kbps, queue_bytes);
                let mut down = Link::new(kbps, queue_bytes);
                let mut client: Option<SocketAddr> = None;
                let mut buf = vec![0u8; 65_536];
                while !stop.load(Ordering::Relaxed) {
                    let now = Instant::now();
                    while let Ok((n, from)) = front.recv_from(&mut buf) {
                        client = Some(from);
                        up.offer(now, &buf[..n]);
                    }
                    while let Ok((n, _)) = back.recv_from(&mut buf) {
                        down.offer(now, &buf[..n]);
                    }
                    let now = Instant::now();
                    up.due(now, |d| {
                        let _ = back.send_to(d, server);
                    });
                    if let Some(client) = client {
                        down.due(now, |d| {
                            let _ = front.send_to(d, client);
                        });
                    }
                    *counts.lock().unwrap() = Counts {
                        up: up.counts,
                        down: down.counts,
                    };
                    // A millisecond is ~1.5 bytes at 12 kbit/s: fine enough.
                    std::thread::sleep(Duration::from_millis(1));
                }
            })
        };
        Bottleneck {
            addr,
            stop,
            counts,
            thread: Some(thread),
        }
    }

    pub fn counts(&self) -> Counts {
        *self.counts.lock().unwrap()
    }
}

impl Drop for Bottleneck {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
