//! A fault relay: a UDP forwarder with its own sockets between real clients and a real
//! server, which can black the link out (both ways) on command. It also watches what
//! passes, the way a packet capture would: the newest command seq each input packet
//! carries going up, and each snapshot's acknowledged seq and server queue coming down,
//! so a test can measure the commands in flight without asking the client. Sessions are
//! sealed: it reads them with the keys the clients append to the test-only key log
//! ([`super::process::KEY_LOG`]), as a packet capture reads TLS with `SSLKEYLOGFILE`.

use std::collections::HashMap;
use std::net::{SocketAddr, UdpSocket};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use netarena::net::codec;
use netarena::net::protocol::{ClientMsg, ServerMsg};

/// What the relay saw of one datagram it forwarded (or dropped).
#[derive(Clone, Copy, Debug)]
pub enum Seen {
    /// An input packet going up, with the newest command seq it carries.
    Input {
        last_seq: u32,
    },
    /// A snapshot coming down: the low 16 bits of the acknowledged seq (as sent), how
    /// many of the client's commands wait in the server's queue, and how many
    /// snapshots the server has held back for the link's rate in all.
    Snapshot {
        ack16: u16,
        /// The acknowledgement came as its low 8 bits (`SnapshotDelta::near`).
        near: bool,
        queued: u8,
        withheld_total: u32,
    },
    /// A client's goodbye going up, and the server's answer coming down.
    Leave,
    Left,
}

#[derive(Default)]
struct Shared {
    /// The link is down (both ways) until then.
    blackout_until: Option<Instant>,
    /// When the first datagram from a client arrived.
    first: Option<Instant>,
    /// Everything seen, forwarded or not, with when and whether it was forwarded.
    log: Vec<(Instant, Seen, bool)>,
    dropped: u64,
    /// Client `Leave`s still to drop (a lost goodbye).
    drop_leaves: u32,
    /// Share of input packets and snapshots dropped at random (no rate limit, no
    /// delay), and the state of the generator that draws it.
    loss: f64,
    draw: u64,
}

pub struct FaultRelay {
    front: SocketAddr,
    shared: Arc<Mutex<Shared>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl FaultRelay {
    /// A relay on loopback in front of the server at `server`.
    pub fn start(server: SocketAddr) -> FaultRelay {
        let front = UdpSocket::bind("127.0.0.1:0").unwrap();
        front.set_nonblocking(true).unwrap();
        let addr = front.local_addr().unwrap();
        let shared = Arc::new(Mutex::new(Shared::default()));
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let (shared, stop) = (shared.clone(), stop.clone());
            std::thread::spawn(move || forward(front, server, &shared, &stop))
        };
        FaultRelay {
            front: addr,
            shared,
            stop,
            thread: Some(thread),
        }
    }

    /// Where clients should send.
    pub fn addr(&self) -> SocketAddr {
        self.front
    }

    /// Drops everything, both ways, for `length` from now.
    pub fn blackout(&self, length: Duration) {
        self.shared.lock().unwrap().blackout_until = Some(Instant::now() + length);
    }

    /// Drops `share` of the input packets and snapshots, each way, at random: a lossy
    /// path with no rate limit and no queue.
    pub fn random_loss(&self, share: f64) {
        let mut sh = self.shared.lock().unwrap();
        sh.loss = share;
        sh.draw = 0x9e37_79b9_7f4a_7c15;
    }

    /// The most snapshots the server said it had held back, among those that passed.
    pub fn withheld(&self) -> u32 {
        let shared = self.shared.lock().unwrap();
        shared
            .log
            .iter()
            .filter_map(|&(_, seen, _)| match seen {
                Seen::Snapshot { withheld_total, .. } => Some(withheld_total),
                _ => None,
            })
            .max()
            .unwrap_or(0)
    }

    /// Drops the next `n` `Leave`s going up.
    pub fn drop_leaves(&self, n: u32) {
        self.shared.lock().unwrap().drop_leaves = n;
    }

    /// How many datagrams of a kind passed, forwarded or not: (forwarded, dropped).
    pub fn count(&self, kind: fn(&Seen) -> bool) -> (usize, usize) {
        let shared = self.shared.lock().unwrap();
        let of = |forwarded: bool| {
            shared
                .log
                .iter()
                .filter(|(_, s, f)| *f == forwarded && kind(s))
                .count()
        };
        (of(true), of(false))
    }

    /// When the first client datagram arrived (None before).
    pub fn first_datagram(&self) -> Option<Instant> {
        self.shared.lock().unwrap().first
    }

    /// Datagrams dropped so far, by blackouts and random loss.
    pub fn dropped(&self) -> u64 {
        self.shared.lock().unwrap().dropped
    }

    /// Commands in flight as the relay sees them, sampled at each forwarded snapshot
    /// between `from` and `to`: the newest seq that went up before it minus the seq it
    /// acknowledges (widened against that newest seq).
    pub fn in_flight(&self, from: Instant, to: Instant) -> Vec<u32> {
        let shared = self.shared.lock().unwrap();
        let mut newest = None;
        let mut out = Vec::new();
        for &(at, seen, forwarded) in &shared.log {
            match seen {
                Seen::Input { last_seq } if forwarded => {
                    newest = Some(newest.map_or(last_seq, |n: u32| n.max(last_seq)));
                }
                Seen::Snapshot { ack16, near, .. } if forwarded && at >= from && at < to => {
                    if let Some(newest) = newest {
                        let behind = if near {
                            u16::from((newest as u8).wrapping_sub(ack16 as u8))
                        } else {
                            (newest as u16).wrapping_sub(ack16)
                        };
                        out.push(u32::from(behind));
                    }
                }
                _ => {}
            }
        }
        out
    }

    /// The server's queue for the client, at each forwarded snapshot between `from` and
    /// `to`.
    pub fn queued(&self, from: Instant, to: Instant) -> Vec<u8> {
        let shared = self.shared.lock().unwrap();
        shared
            .log
            .iter()
            .filter_map(|&(at, seen, forwarded)| match seen {
                Seen::Snapshot { queued, .. } if forwarded && at >= from && at < to => Some(queued),
                _ => None,
            })
            .collect()
    }
}

impl Drop for FaultRelay {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Shared {
    /// Whether random loss takes this datagram (xorshift64*, seeded by
    /// [`FaultRelay::random_loss`]).
    fn lose(&mut self) -> bool {
        if self.loss <= 0.0 {
            return false;
        }
        self.draw ^= self.draw >> 12;
        self.draw ^= self.draw << 25;
        self.draw ^= self.draw >> 27;
        let r = self.draw.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11;
        (r as f64 / (1u64 << 53) as f64) < self.loss
    }
}

/// What the relay makes of each datagram, through the key log.
struct Reader(codec::KeyLog);

impl Reader {
    fn seen_up(&mut self, bytes: &[u8]) -> Option<Seen> {
        match self.0.client_msg(bytes) {
            Some(ClientMsg::Input(p)) => Some(Seen::Input {
                last_seq: p.last_seq,
            }),
            Some(ClientMsg::Leave) => Some(Seen::Leave),
            _ => None,
        }
    }

    fn seen_down(&mut self, bytes: &[u8]) -> Option<Seen> {
        match self.0.server_msg(bytes) {
            Some(ServerMsg::Snapshot(s)) => Some(Seen::Snapshot {
                ack16: s.header.ack_seq as u16,
                near: s.near,
                queued: s.header.queued,
                withheld_total: s.header.withheld_total,
            }),
            Some(ServerMsg::Left) => Some(Seen::Left),
            _ => None,
        }
    }
}

/// The relay's loop: one back socket per client address, so the server sees each client
/// as its own sender.
fn forward(front: UdpSocket, server: SocketAddr, shared: &Mutex<Shared>, stop: &AtomicBool) {
    let mut backs: HashMap<SocketAddr, UdpSocket> = HashMap::new();
    let mut buf = vec![0u8; 65_536];
    let mut keys = Reader(codec::KeyLog::new(super::process::key_log()));
    while !stop.load(Ordering::Relaxed) {
        let mut idle = true;
        while let Ok((n, from)) = front.recv_from(&mut buf) {
            idle = false;
            let back = backs.entry(from).or_insert_with(|| {
                let s = UdpSocket::bind("127.0.0.1:0").unwrap();
                s.set_nonblocking(true).unwrap();
                s
            });
            let now = Instant::now();
            let mut sh = shared.lock().unwrap();
            sh.first.get_or_insert(now);
            let mut up = sh.blackout_until.is_none_or(|t| now >= t);
            let seen = keys.seen_up(&buf[..n]);
            if up && matches!(seen, Some(Seen::Leave)) && sh.drop_leaves > 0 {
                sh.drop_leaves -= 1;
                up = false;
            }
            if up && matches!(seen, Some(Seen::Input { .. })) {
                up = !sh.lose();
            }
            if let Some(seen) = seen {
                sh.log.push((now, seen, up));
            }
            if up {
                let _ = back.send_to(&buf[..n], server);
            } else {
                sh.dropped += 1;
            }
        }
        for (client, back) in &backs {
            while let Ok((n, _)) = back.recv_from(&mut buf) {
                idle = false;
                let now = Instant::now();
                let mut sh = shared.lock().unwrap();
                let mut up = sh.blackout_until.is_none_or(|t| now >= t);
                let seen = keys.seen_down(&buf[..n]);
                if up && matches!(seen, Some(Seen::Snapshot { .. })) {
                    up = !sh.lose();
                }
                if let Some(seen) = seen {
                    sh.log.push((now, seen, up));
                }
                if up {
                    let _ = front.send_to(&buf[..n], client);
                } else {
                    sh.dropped += 1;
                }
            }
        }
        if idle {
            std::thread::sleep(Duration::from_micros(500));
        }
    }
}
