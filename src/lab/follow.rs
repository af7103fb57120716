//! Follow one command (or one snapshot) through the lab: the article's sequence
//! diagram told for one datagram's cargo. A client's [`Trail`] notes, on the lab's one
//! clock, when each command was made, what the server had applied after each of its
//! ticks, what each snapshot did when the client took it in, and which snapshots
//! remote players were drawn between; with the links' logs ([`Crossing`]) that is the
//! whole life of a command (made, sent in packets, arrived, waited in the server's
//! buffer, applied, acknowledged, reconciled) or of a snapshot (sent, arrived,
//! buffered, interpolated), exact to the millisecond.

use std::collections::VecDeque;
use std::time::Instant;

use super::wire::{Carried, Crossing};
use crate::client::netcode::session::{ClientSession, DrawnFrom};
use crate::sim::world::Buttons;

/// Entries each of a trail's logs keeps: over a minute of a client's commands.
const KEPT: usize = 4096;

/// What a client's session did with one snapshot when it took it in.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Receipt {
    pub(crate) tick: u32,
    pub(crate) at: Instant,
    /// The newest command seq it acknowledged.
    pub(crate) ack: u32,
    /// Commands after the ack the prediction replayed on the server's state (0 when
    /// the ack was old news).
    pub(crate) replayed: u32,
    /// The correction it made, in cells (None: the prediction agreed).
    pub(crate) correction: Option<f64>,
    /// It went into the interpolation buffer.
    pub(crate) buffered: bool,
    /// The buffer held a newer snapshot when it came (reordering, or a duplicate).
    pub(crate) late: bool,
}

/// One server tick as one client's commands saw it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Tick {
    pub(crate) tick: u32,
    pub(crate) at: Instant,
    /// The newest of this client's command seqs applied once the tick had run.
    pub(crate) applied: u32,
}

/// What the lab notes of one client for following its commands and snapshots.
#[derive(Default)]
pub(crate) struct Trail {
    /// Commands made: (seq, when, the keys held if a person made it).
    made: VecDeque<(u32, Instant, Option<Buttons>)>,
    ticks: VecDeque<Tick>,
    receipts: VecDeque<Receipt>,
    /// Snapshot ticks remote players were drawn between: (tick, first and last frame).
    drawn: VecDeque<(u32, Instant, Instant)>,
    /// When frames were drawn (the terminal lab's; a headless lab draws none).
    frames: VecDeque<Instant>,
}

fn keep<T>(log: &mut VecDeque<T>, item: T) {
    if log.len() == KEPT {
        log.pop_front();
    }
    log.push_back(item);
}

impl Trail {
    /// Commands `after + 1..=session.latest_seq()` were made at `now`.
    pub(crate) fn made(
        &mut self,
        after: u32,
        session: &ClientSession,
        now: Instant,
        keys: Option<Buttons>,
    ) {
        for seq in after + 1..=session.latest_seq() {
            keep(&mut self.made, (seq, now, keys));
        }
    }

    /// The server ran `tick` at `now`, after which `applied` was its newest command.
    pub(crate) fn server_ticked(&mut self, tick: u32, now: Instant, applied: u32) {
        keep(
            &mut self.ticks,
            Tick {
                tick,
                at: now,
                applied,
            },
        );
    }

    /// The session took in the snapshot of `tick` at `now`; `corrections_before` is
    /// the session's newest correction's time before it did.
    pub(crate) fn received(
        &mut self,
        tick: u32,
        now: Instant,
        session: &ClientSession,
        acked_before: u32,
        correction_before: Option<Instant>,
    ) {
        let ack = session.acked_seq();
        let correction = session
            .last_correction()
            .filter(|(at, _)| Some(*at) != correction_before && *at == now)
            .map(|(_, c)| c.cells);
        keep(
            &mut self.receipts,
            Receipt {
                tick,
                at: now,
                ack,
                replayed: if ack > acked_before {
                    session.latest_seq().saturating_sub(ack)
                } else {
                    0
                },
                correction,
                buffered: session.buffered().any(|b| b.tick == tick),
                late: session.buffered().any(|b| b.tick > tick),
            },
        );
    }

    /// Notes which snapshots the session draws remote players between in the frame
    /// drawn at `now`.
    pub(crate) fn frame(&mut self, session: &ClientSession, now: Instant) {
        if self.frames.back() != Some(&now) {
            keep(&mut self.frames, now);
        }
        if let Some(DrawnFrom::Between { from, to, .. }) = session.drawn_from(now) {
            for tick in [from, to] {
                match self.drawn.iter_mut().rev().find(|(t, _, _)| *t == tick) {
                    Some(d) => d.2 = now,
                    None => keep(&mut self.drawn, (tick, now, now)),
                }
            }
        }
    }

    /// The server's ticks as this client's commands saw them, oldest first.
    pub(crate) fn ticks(&self) -> impl DoubleEndedIterator<Item = &Tick> {
        self.ticks.iter()
    }
}

/// What to follow, as chosen by a key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Follow {
    /// Client `client`'s (0-based) command `seq`.
    Command { client: usize, seq: u32 },
    /// The first snapshot sent to client `client` after `after`.
    Snapshot { client: usize, after: Instant },
}

impl Follow {
    pub(crate) fn client(self) -> usize {
        match self {
            Follow::Command { client, .. } | Follow::Snapshot { client, .. } => client,
        }
    }

    /// What `f` follows after `now` (the live lab's and a lab replay's one cycle):
    /// client `n`'s next command, then (again) its next snapshot, then nothing.
    pub(crate) fn next(now: Option<Follow>, lab: &super::Lab, n: usize) -> Option<Follow> {
        match now {
            Some(Follow::Command { .. }) => Some(Follow::Snapshot {
                client: n,
                after: lab.now(),
            }),
            Some(Follow::Snapshot { .. }) => None,
            None => Some(Follow::Command {
                client: n,
                seq: lab.session(n).latest_seq() + 1,
            }),
        }
    }

    /// The bottom line's words for what `f` now follows.
    pub(crate) fn said(now: Option<Follow>) -> String {
        match now {
            Some(Follow::Command { client, seq }) => format!(
                " following client {}'s command #{seq} (f: its next snapshot)",
                client + 1
            ),
            Some(Follow::Snapshot { client, .. }) => format!(
                " following the next snapshot to client {} (f: stop)",
                client + 1
            ),
            None => " following nothing".to_owned(),
        }
    }
}

/// The life of one command, as far as it has got.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct CommandLife {
    pub(crate) seq: u32,
    /// When it was made, and the keys held if a person made it.
    pub(crate) made: Option<(Instant, Option<Buttons>)>,
    /// Every input packet that carried it (redundancy), oldest first.
    pub(crate) packets: Vec<Crossing>,
    /// When the first copy reached the server.
    pub(crate) arrived: Option<Instant>,
    /// The server tick that applied it, and when it ran.
    pub(crate) applied: Option<Tick>,
    /// Ticks it waited in the server's input buffer: ticks run after it arrived and
    /// before the one that applied it.
    pub(crate) waited: Option<u32>,
    /// The first snapshot sent whose ack covers it.
    pub(crate) acked_in: Option<Crossing>,
    /// The client's taking in of the first snapshot whose ack covers it.
    pub(crate) reconciled: Option<Receipt>,
    /// The first frame drawn after that: the reconciled prediction on screen.
    pub(crate) drawn: Option<Instant>,
}

/// The life of one snapshot, as far as it has got.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct SnapshotLife {
    pub(crate) crossing: Crossing,
    pub(crate) tick: u32,
    pub(crate) receipt: Option<Receipt>,
    /// The first and last frame that drew remote players between it and a neighbour.
    pub(crate) drawn: Option<(Instant, Instant)>,
}

/// Command `seq`'s life from the trail and the two links' logs.
pub(crate) fn command(
    trail: &Trail,
    up: &VecDeque<Crossing>,
    down: &VecDeque<Crossing>,
    seq: u32,
) -> CommandLife {
    let made = trail
        .made
        .iter()
        .find(|(s, _, _)| *s == seq)
        .map(|&(_, at, keys)| (at, keys));
    let packets: Vec<Crossing> = up
        .iter()
        .filter(|c| matches!(c.carried, Carried::Input { first, last, .. } if first <= seq && seq <= last))
        .copied()
        .collect();
    let arrived = packets.iter().filter_map(|c| c.delivered).min();
    let applied = trail.ticks.iter().find(|t| t.applied >= seq).copied();
    let waited = match (arrived, applied) {
        (Some(arrived), Some(applied)) => Some(
            trail
                .ticks
                .iter()
                .filter(|t| t.at >= arrived && t.tick < applied.tick)
                .count() as u32,
        ),
        _ => None,
    };
    let acked_in = down
        .iter()
        .find(|c| matches!(c.carried, Carried::Snapshot { ack, .. } if ack >= seq))
        .copied();
    let reconciled = trail.receipts.iter().find(|r| r.ack >= seq).copied();
    let drawn = reconciled.and_then(|r| trail.frames.iter().find(|&&f| f >= r.at).copied());
    CommandLife {
        seq,
        made,
        packets,
        arrived,
        applied,
        waited,
        acked_in,
        reconciled,
        drawn,
    }
}

/// The life of the first snapshot sent after `after`, once one was.
pub(crate) fn snapshot(
    trail: &Trail,
    down: &VecDeque<Crossing>,
    after: Instant,
) -> Option<SnapshotLife> {
    let (crossing, tick) = down.iter().find_map(|c| match c.carried {
        Carried::Snapshot { tick, .. } if c.sent > after => Some((*c, tick)),
        _ => None,
    })?;
    let receipt = crossing
        .delivered
        .and_then(|at| trail.receipts.iter().find(|r| r.tick == tick && r.at == at))
        .copied();
    let drawn = trail
        .drawn
        .iter()
        .find(|(t, _, _)| *t == tick)
        .map(|&(_, a, b)| (a, b));
    Some(SnapshotLife {
        crossing,
        tick,
        receipt,
        drawn,
    })
}

/// Milliseconds from `from` to `to`, signed, for the listing.
fn ms(from: Instant, to: Instant) -> String {
    match to.checked_duration_since(from) {
        Some(d) => format!("+{}ms", d.as_millis()),
        None => format!("-{}ms", (from - to).as_millis()),
    }
}

/// Seconds into the lab, as the clock line shows them.
fn secs(start: Instant, at: Instant) -> String {
    format!("{:.3}s", at.saturating_duration_since(start).as_secs_f64())
}

fn keys_text(keys: Buttons) -> String {
    let names = [
        (Buttons::UP, "up"),
        (Buttons::DOWN, "down"),
        (Buttons::LEFT, "left"),
        (Buttons::RIGHT, "right"),
        (Buttons::FIRE, "fire"),
    ];
    let held: Vec<&str> = names
        .iter()
        .filter(|(b, _)| keys.contains(*b))
        .map(|(_, n)| *n)
        .collect();
    if held.is_empty() {
        "no keys".into()
    } else {
        held.join("+")
    }
}

/// A command's life as lines of text, times from the lab's start and from when it was
/// made.
pub(crate) fn command_lines(life: &CommandLife, start: Instant) -> Vec<String> {
    let mut out = Vec::new();
    let Some((made, keys)) = life.made else {
        out.push(format!("#{}: waiting for it to be made", life.seq));
        return out;
    };
    let t = |at: Instant| format!("{} {}", secs(start, at), ms(made, at));
    let how = keys.map_or_else(|| "by its bot".to_owned(), keys_text);
    out.push(format!("made     {} ({how})", secs(start, made)));
    if life.packets.is_empty() {
        out.push("sent     not yet".into());
    }
    // The first few, then the rest in one line: a bad link's redundancy sends a
    // command in a dozen packets.
    const LISTED: usize = 4;
    for c in life.packets.iter().take(LISTED) {
        let p = match c.carried {
            Carried::Input {
                packet,
                first,
                last,
            } => format!("p{packet} #{first}-{last}"),
            _ => String::new(),
        };
        let fate = match (c.delivered, c.dropped) {
            (Some(at), _) => format!("arrived {}", ms(made, at)),
            (None, true) => "lost ×".into(),
            (None, false) => "in flight".into(),
        };
        out.push(format!("sent     {} {p} {fate}", t(c.sent)));
    }
    if let Some(last) = life.packets.last().filter(|_| life.packets.len() > LISTED) {
        // Of those more: the listed ones say their own fate.
        let lost = life.packets[LISTED..].iter().filter(|c| c.dropped).count();
        out.push(format!(
            "  and {} more to {} (redundancy); {lost} of them lost",
            life.packets.len() - LISTED,
            ms(made, last.sent)
        ));
    }
    match life.arrived {
        Some(at) => out.push(format!("arrived  {} at the server", t(at))),
        None => out.push("arrived  not yet".into()),
    }
    match (life.applied, life.waited) {
        (Some(a), Some(w)) => {
            out.push(format!("waited   {w} tick(s) in the input buffer"));
            out.push(format!("applied  {} tick {}", t(a.at), a.tick));
        }
        (Some(a), None) => out.push(format!("applied  {} tick {}", t(a.at), a.tick)),
        _ => out.push("applied  not yet".into()),
    }
    match life.acked_in {
        Some(c) => {
            let (tick, ack) = match c.carried {
                Carried::Snapshot { tick, ack } => (tick, ack),
                _ => (0, 0),
            };
            out.push(format!(
                "acked    {} in snapshot t{tick} (ack #{ack})",
                t(c.sent)
            ));
            match (c.delivered, c.dropped) {
                (Some(at), _) => out.push(format!("  it arrived {}", t(at))),
                (None, true) => out.push("  it was lost ×: a later one acks".into()),
                (None, false) => out.push("  it is in flight".into()),
            }
        }
        None => out.push("acked    not yet".into()),
    }
    match life.reconciled {
        Some(r) => {
            let fix = match r.correction {
                Some(cells) => format!("corrected {cells:.2} cells"),
                None => "no correction".into(),
            };
            out.push(format!(
                "reconciled {}: replayed {}, {fix}",
                t(r.at),
                r.replayed
            ));
            match life.drawn {
                Some(at) => out.push(format!("drawn    {} in the next frame", t(at))),
                None => out.push("drawn    not yet (no frame since)".into()),
            }
        }
        None => out.push("reconciled not yet".into()),
    }
    out.push("ladder: ● made, ◆ applied, ✓ reconciled".into());
    out
}

/// A snapshot's life as lines of text.
pub(crate) fn snapshot_lines(life: &SnapshotLife, start: Instant) -> Vec<String> {
    let sent = life.crossing.sent;
    let t = |at: Instant| format!("{} {}", secs(start, at), ms(sent, at));
    let ack = match life.crossing.carried {
        Carried::Snapshot { ack, .. } => ack,
        _ => 0,
    };
    let mut out = vec![format!(
        "sent     {} tick {} ack #{ack}, {} bytes",
        secs(start, sent),
        life.tick,
        life.crossing.bytes
    )];
    match (life.crossing.delivered, life.crossing.dropped) {
        (Some(at), _) => out.push(format!("arrived  {}", t(at))),
        (None, true) => {
            out.push("lost ×   the link dropped it".into());
            return out;
        }
        (None, false) => {
            out.push("arrived  not yet (in flight)".into());
            return out;
        }
    }
    if let Some(at) = life.crossing.duplicate {
        out.push(format!("again    {} (a duplicate, ignored)", t(at)));
    }
    match life.receipt {
        Some(r) => {
            let fix = match r.correction {
                Some(cells) => format!("corrected {cells:.2} cells"),
                None => "no correction".into(),
            };
            out.push(format!("its ack  replayed {}, {fix}", r.replayed));
            if !r.buffered {
                out.push(if r.late {
                    "dropped  late: the buffer had a newer one".into()
                } else {
                    "dropped  not buffered".into()
                });
                return out;
            }
            match life.drawn {
                Some((first, _)) => out.push(format!(
                    "buffered {}ms before remote players were drawn from it",
                    first.saturating_duration_since(r.at).as_millis()
                )),
                None => out.push("buffered for interpolation".into()),
            }
        }
        None => out.push("taken in not yet".into()),
    }
    match life.drawn {
        Some((a, b)) => out.push(format!("interpolated from {} to {}", t(a), t(b))),
        None => out.push("interpolated not yet".into()),
    }
    out
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::lab::{Lab, ScriptedClient};
    use crate::net::conditioner::Conditions;
    use crate::server::ServerConfig;
    use crate::sim::map::Map;

    /// Issue 24: following a command gives the tick the server applied it on, the
    /// first snapshot whose ack covers it, every packet that carried it, and the
    /// client's taking in of that ack, all as observed apart from the trail.
    #[test]
    fn a_followed_commands_life_agrees_with_the_server_and_the_links() {
        let t0 = Instant::now();
        // `bad`, losing one datagram in five: redundancy and later acks at work.
        let bad = Conditions {
            loss_pct: 20.0,
            ..Conditions::profile("bad").unwrap()
        };
        let client = ScriptedClient {
            name: "a".into(),
            up: bad.clone(),
            down: bad,
            seeds: (3, 4),
            first_command: Duration::from_millis(7),
        };
        let mut lab = Lab::scripted(
            ServerConfig::new(Map::builtin("duel").unwrap()),
            &[client],
            t0,
        )
        .unwrap();
        let id = lab.session(0).player_id();
        // The server's applied seq after each tick, read from the server itself.
        let mut applied = Vec::new();
        while lab.elapsed() < Duration::from_secs(4) {
            let tick = lab.server().world().tick;
            lab.step_tick();
            lab.frame();
            applied.push((tick, lab.server().applied_seq(id).unwrap()));
        }
        let c = &lab.clients[0];
        let (up, down) = (c.up.log(), c.down.log());
        let (mut lost_packets, mut lost_acks, mut checked) = (0, 0, 0);
        for seq in 1..150 {
            let life = command(&c.trail, up, down, seq);
            let (made, _) = life.made.unwrap();
            let applied_on = applied.iter().find(|(_, a)| *a >= seq).unwrap().0;
            let tick = life.applied.unwrap();
            assert_eq!(tick.tick, applied_on, "#{seq}");
            assert!(tick.applied >= seq);
            // Every packet that carried it, in the order sent, none after.
            let carried: Vec<&Crossing> = up
                .iter()
                .filter(|c| match c.carried {
                    Carried::Input { first, last, .. } => (first..=last).contains(&seq),
                    _ => false,
                })
                .collect();
            assert_eq!(life.packets.iter().collect::<Vec<_>>(), carried);
            assert!(life.packets[0].sent >= made);
            lost_packets += life.packets.iter().filter(|p| p.dropped).count();
            let arrived = life.arrived.unwrap();
            assert!(arrived <= tick.at, "#{seq} applied before it arrived");
            let waited = life.waited.unwrap();
            let ticks_between = applied
                .iter()
                .zip(c.trail.ticks())
                .filter(|((t, _), at)| at.at >= arrived && *t < applied_on)
                .count() as u32;
            assert_eq!(waited, ticks_between);
            // The ack: the first snapshot sent that covers it, sent once it was applied.
            let acked = life.acked_in.unwrap();
            let Carried::Snapshot { ack, tick: snap } = acked.carried else {
                panic!("{acked:?}")
            };
            assert!(ack >= seq && snap > applied_on);
            assert!(acked.sent >= tick.at);
            let before = down.iter().take_while(|d| d.sent < acked.sent);
            assert!(before.into_iter().all(|d| match d.carried {
                Carried::Snapshot { ack, .. } => ack < seq,
                _ => true,
            }));
            // The client took in an ack of it with the snapshot its scripted log
            // noted first.
            let r = life.reconciled.unwrap();
            let noted = lab.acks(0).iter().find(|(_, a, _)| *a >= seq).unwrap();
            assert_eq!(r.tick, noted.0, "#{seq}");
            assert!(r.ack >= seq && r.at >= acked.sent);
            // Drawn by the first frame after (the test draws one after each tick).
            let frame = life.drawn.unwrap();
            assert!(frame >= r.at && frame <= r.at + lab.tick, "#{seq}");
            match acked.delivered {
                Some(at) => assert!(r.at <= at),
                None => lost_acks += 1,
            }
            checked += 1;
        }
        assert_eq!(checked, 149);
        assert!(
            lost_packets > 0 && lost_acks > 0,
            "{lost_packets} {lost_acks}"
        );

        // A followed snapshot: the first sent after the moment chosen, taken in when
        // its link delivered it, drawn from only after that; a lost one, never.
        let snapshots = || {
            down.iter()
                .filter(|d| matches!(d.carried, Carried::Snapshot { .. }))
                .skip_while(|d| d.sent < t0 + Duration::from_millis(1500))
        };
        let arrived = snapshots().find(|d| d.delivered.is_some()).unwrap();
        let lost = snapshots().find(|d| d.dropped).unwrap();
        for d in [arrived, lost] {
            let life = snapshot(&c.trail, down, d.sent - Duration::from_millis(1)).unwrap();
            assert_eq!(&life.crossing, d);
            let Carried::Snapshot { tick, .. } = d.carried else {
                unreachable!()
            };
            assert_eq!(life.tick, tick);
            match d.delivered {
                Some(at) => {
                    let r = life.receipt.unwrap();
                    assert_eq!((r.tick, r.at), (tick, at));
                    let (from, to) = life.drawn.unwrap();
                    assert!(at <= from && from <= to, "drawn only once it arrived");
                }
                None => assert!(life.receipt.is_none() && life.drawn.is_none()),
            }
        }
    }
}
