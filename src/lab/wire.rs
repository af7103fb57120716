//! One client's link in the lab: two link conditioners (commands up, snapshots down)
//! that also remember what is in flight, so the lab can draw every datagram on its way
//! and mark the ones the conditioner dropped.

use std::collections::{HashMap, VecDeque};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::net::conditioner::{Conditioner, Conditions};
use crate::net::protocol::{ClientMsg, ServerMsg};
use crate::ui::lab::LaneDot as Dot;

/// How long a dropped datagram stays marked on its lane.
const LOST_SHOWN: Duration = Duration::from_millis(800);
/// Sent times older than this are forgotten (a datagram is never queued that long).
const FORGET_AFTER: Duration = Duration::from_secs(5);

/// What a datagram on a lane is drawn as: the number of commands an input packet
/// carries (redundancy shows as big numbers after a loss), `S` a snapshot, `E` a
/// snapshot carrying game events, `R` the roster, `?` anything else.
pub(crate) fn up_glyph(msg: &ClientMsg) -> char {
    match msg {
        ClientMsg::Input(p) => match p.command_count() {
            n @ 0..=9 => char::from(b'0' + n as u8),
            _ => '+',
        },
        _ => '?',
    }
}

pub(crate) fn down_glyph(msg: &ServerMsg) -> char {
    match msg {
        ServerMsg::Snapshot(s) if s.events.is_empty() => 'S',
        ServerMsg::Snapshot(_) => 'E',
        ServerMsg::Roster(_) => 'R',
        _ => '?',
    }
}

/// Datagram and byte counts of one direction.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct LaneCounts {
    pub sent: u64,
    pub(crate) delivered: u64,
    pub dropped: u64,
    pub bytes: u64,
    /// Bytes of the datagrams delivered (for the rates; not in the report).
    #[serde(skip)]
    pub(crate) delivered_bytes: u64,
}

/// Datagrams a lane's log keeps: the newest, over a minute of a lab's traffic.
const LOG_KEPT: usize = 8192;

/// One datagram a lane carried, as the link saw it: the lab's ground truth, for tests
/// to hold what a client shows against.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Crossing {
    pub sent: Instant,
    /// When its first copy arrived; None while in flight, or if the link dropped it.
    pub delivered: Option<Instant>,
    /// The link dropped it (a loss, or a full queue).
    pub dropped: bool,
    /// How the lane draws it: commands carried (`0`-`9`, `+`), `S`/`E` a snapshot, `R`
    /// the roster, `?` anything else.
    pub glyph: char,
    pub bytes: usize,
    key: u64,
}

/// One direction of a link.
pub(crate) struct Lane {
    cond: Conditioner,
    sent: HashMap<u64, (Instant, char)>,
    lost: VecDeque<(Instant, char, f64)>,
    traffic: LaneCounts,
    log: VecDeque<Crossing>,
}

fn key(bytes: &[u8]) -> u64 {
    let mut h = DefaultHasher::new();
    bytes.hash(&mut h);
    h.finish()
}

impl Lane {
    pub(crate) fn new(conditions: Conditions, seed: u64) -> Lane {
        Lane {
            cond: Conditioner::new(conditions, seed),
            sent: HashMap::new(),
            lost: VecDeque::new(),
            traffic: LaneCounts::default(),
            log: VecDeque::new(),
        }
    }

    pub(crate) fn conditions(&self) -> &Conditions {
        self.cond.conditions()
    }

    /// The newest datagrams this lane carried, oldest first.
    pub(crate) fn log(&self) -> &VecDeque<Crossing> {
        &self.log
    }

    pub(crate) fn set_conditions(&mut self, c: Conditions) {
        self.cond.set_conditions(c);
    }

    pub(crate) fn traffic(&self) -> LaneCounts {
        self.traffic
    }

    /// Sends `bytes` to `to` at `now`, drawn as `glyph`; true when the conditioner
    /// dropped it.
    pub(crate) fn push(&mut self, now: Instant, to: SocketAddr, bytes: &[u8], glyph: char) -> bool {
        let (queued, dropped) = (self.cond.queued(), self.cond.stats().dropped);
        self.cond.push(now, to, bytes);
        self.traffic.sent += 1;
        self.traffic.bytes += bytes.len() as u64;
        let lost = self.cond.stats().dropped > dropped;
        if self.log.len() == LOG_KEPT {
            self.log.pop_front();
        }
        self.log.push_back(Crossing {
            sent: now,
            delivered: None,
            dropped: self.cond.queued() <= queued,
            glyph,
            bytes: bytes.len(),
            key: key(bytes),
        });
        if lost {
            self.traffic.dropped += 1;
            // Where along the lane it "fell": spread out, the same in every run.
            let at = 0.25 + 0.5 * (self.traffic.sent * 37 % 100) as f64 / 100.0;
            self.lost.push_back((now, glyph, at));
        } else if self.cond.queued() > queued {
            self.sent.insert(key(bytes), (now, glyph));
        }
        while self
            .lost
            .front()
            .is_some_and(|(t, ..)| now > *t + LOST_SHOWN)
        {
            self.lost.pop_front();
        }
        if self.sent.len() > 4096 {
            self.sent.retain(|_, (t, _)| now < *t + FORGET_AFTER);
        }
        lost
    }

    /// Hands every datagram due at `now` to `deliver`.
    pub(crate) fn drain(&mut self, now: Instant, mut deliver: impl FnMut(SocketAddr, &[u8])) {
        let (sent, traffic, log) = (&mut self.sent, &mut self.traffic, &mut self.log);
        self.cond.drain_due(now, |to, bytes| {
            traffic.delivered += 1;
            traffic.delivered_bytes += bytes.len() as u64;
            let k = key(bytes);
            sent.remove(&k);
            // The newest datagram with these bytes still on its way (a duplicate's
            // second copy finds none).
            if let Some(c) = log
                .iter_mut()
                .rev()
                .find(|c| c.key == k && c.delivered.is_none() && !c.dropped)
            {
                c.delivered = Some(now);
            }
            deliver(to, bytes);
        });
    }

    /// What is on the lane at `now`: datagrams in flight, and recent losses.
    pub(crate) fn dots(&self, now: Instant) -> Vec<Dot> {
        let mut dots: Vec<Dot> = self
            .cond
            .in_flight()
            .filter_map(|(due, bytes)| {
                let (sent, glyph) = *self.sent.get(&key(bytes))?;
                let total = due.saturating_duration_since(sent).as_secs_f64();
                let gone = now.saturating_duration_since(sent).as_secs_f64();
                let progress = if total > 0.0 { gone / total } else { 1.0 };
                Some(Dot {
                    progress: progress.clamp(0.0, 1.0),
                    glyph,
                    lost: false,
                })
            })
            .collect();
        dots.extend(
            self.lost
                .iter()
                .filter(|(t, ..)| now <= *t + LOST_SHOWN)
                .map(|&(_, glyph, at)| Dot {
                    progress: at,
                    glyph,
                    lost: true,
                }),
        );
        // Drawn in order: the nearest-to-arrival last, so it is on top.
        dots.sort_by(|a, b| a.progress.total_cmp(&b.progress));
        dots
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn datagrams_move_along_and_losses_are_marked() {
        let t0 = Instant::now();
        let to: SocketAddr = "10.0.0.1:1".parse().unwrap();
        let c = Conditions {
            latency_ms: 100,
            ..Conditions::default()
        };
        let mut lane = Lane::new(c, 1);
        lane.push(t0, to, b"one", '1');
        let dots = lane.dots(t0 + Duration::from_millis(50));
        assert_eq!(dots.len(), 1);
        assert!((dots[0].progress - 0.5).abs() < 1e-9, "{dots:?}");
        let mut got = Vec::new();
        lane.drain(t0 + Duration::from_millis(100), |_, b| got.push(b.to_vec()));
        assert_eq!(got, vec![b"one".to_vec()]);
        assert!(lane.dots(t0 + Duration::from_millis(100)).is_empty());

        lane.set_conditions(Conditions {
            loss_pct: 100.0,
            ..Conditions::default()
        });
        lane.push(t0, to, b"two", '2');
        let dots = lane.dots(t0 + Duration::from_millis(10));
        assert_eq!(dots.len(), 1);
        assert!(dots[0].lost && dots[0].glyph == '2');
        assert!(
            lane.dots(t0 + Duration::from_secs(1)).is_empty(),
            "forgotten"
        );
        assert_eq!(lane.traffic().dropped, 1);
    }
}
