//! The lab's meters, one panel: every client's lagometer side by side (how its frames
//! were drawn, how its snapshots came: on time, late, lost, held back by the server for
//! the link's rate), and the bytes per second each way of its link by kind, so delta
//! compression shows: a player standing still costs its snapshot next to nothing.
//!
//! The lagometers are each client's own (`client::netcode::lagometer`, drawn by the
//! stats overlay's code). The bytes are counted as datagrams go onto the links, each
//! split by what its parts take as the codec writes them
//! (`net::wire_snapshot::parts`), the rest of the datagram being headers: the kinds of
//! a datagram add up to its size exactly.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use ratatui::text::{Line, Span};
use serde::Serialize;

use super::Lab;
use crate::net::codec::encoded_len;
use crate::net::protocol::{ClientMsg, ServerMsg};
use crate::net::wire_snapshot;
use crate::ui::lab::Panel;
use crate::ui::{DrawMode, LagSlice, Role, Theme, lagometer_lines};

/// Columns of each lagometer, one a slice of the client's lagometer: the last 2.4 s.
const COLUMNS: usize = 48;
/// The client's lagometer's slice (`client::netcode::lagometer`), for the title.
const SLICE_MS: usize = 50;
/// The panel's width, its border included.
const WIDTH: u16 = COLUMNS as u16 + 2;
/// The rates are what crossed in the last second.
const RATE_WINDOW: Duration = Duration::from_secs(1);

/// Bytes a client's link carried down (every datagram sent, lost ones too), by kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct DownBytes {
    /// Snapshots' players: departed, new, the delta masks and values.
    pub players: u64,
    /// Snapshots' blaster projectile births and ends.
    pub projectiles: u64,
    /// Snapshots' other game events (status, rails, kills, chat, ...).
    pub events: u64,
    /// Roster pages' entries.
    pub roster: u64,
    /// The rest of snapshots and roster pages: message kind, flags, tick, acks, own
    /// body, echo, counts, event framing, page numbers.
    pub headers: u64,
    /// Any other message, whole.
    pub other: u64,
}

/// Bytes a client's link carried up (every datagram sent, lost ones too), by kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct UpBytes {
    /// Input packets' command runs (every unacknowledged command, the redundancy).
    pub commands: u64,
    /// The rest of input packets: the seal, seqs, acks, clock, RTT.
    pub headers: u64,
    /// Any other message (chat, leave), whole.
    pub other: u64,
}

impl DownBytes {
    /// `msg`, `len` bytes on the wire, by kind.
    fn of(msg: &ServerMsg, len: usize) -> DownBytes {
        let len = len as u64;
        let mut b = match msg {
            ServerMsg::Snapshot(d) => {
                let p = wire_snapshot::parts(d);
                DownBytes {
                    players: p.players as u64,
                    projectiles: p.projectiles as u64,
                    events: p.events as u64,
                    ..DownBytes::default()
                }
            }
            ServerMsg::Roster(page) => DownBytes {
                roster: encoded_len(&page.entries) as u64,
                ..DownBytes::default()
            },
            _ => {
                return DownBytes {
                    other: len,
                    ..DownBytes::default()
                };
            }
        };
        b.headers = len.saturating_sub(b.total());
        b
    }

    pub fn total(&self) -> u64 {
        self.players + self.projectiles + self.events + self.roster + self.headers + self.other
    }

    fn kinds(&self) -> [u64; 6] {
        [
            self.players,
            self.projectiles,
            self.events,
            self.roster,
            self.headers,
            self.other,
        ]
    }

    fn add(&mut self, o: &DownBytes) {
        *self = DownBytes {
            players: self.players + o.players,
            projectiles: self.projectiles + o.projectiles,
            events: self.events + o.events,
            roster: self.roster + o.roster,
            headers: self.headers + o.headers,
            other: self.other + o.other,
        };
    }
}

impl UpBytes {
    /// `msg` (before its seal), `len` bytes on the wire sealed, by kind.
    fn of(msg: &ClientMsg, len: usize) -> UpBytes {
        let len = len as u64;
        match msg {
            ClientMsg::Input(p) => {
                let commands = encoded_len(&p.runs) as u64;
                UpBytes {
                    commands,
                    headers: len.saturating_sub(commands),
                    other: 0,
                }
            }
            _ => UpBytes {
                other: len,
                ..UpBytes::default()
            },
        }
    }

    pub fn total(&self) -> u64 {
        self.commands + self.headers + self.other
    }

    fn kinds(&self) -> [u64; 3] {
        [self.commands, self.headers, self.other]
    }

    fn add(&mut self, o: &UpBytes) {
        *self = UpBytes {
            commands: self.commands + o.commands,
            headers: self.headers + o.headers,
            other: self.other + o.other,
        };
    }
}

/// One way of a link: the bytes so far by kind, and the last second's datagrams.
#[derive(Default)]
struct Way<T> {
    total: T,
    recent: VecDeque<(Instant, T)>,
}

impl<T: Copy + Default> Way<T> {
    fn count(&mut self, now: Instant, kinds: T, add: impl Fn(&mut T, &T)) {
        add(&mut self.total, &kinds);
        self.recent.push_back((now, kinds));
        while self
            .recent
            .front()
            .is_some_and(|(t, _)| now.saturating_duration_since(*t) >= RATE_WINDOW)
        {
            self.recent.pop_front();
        }
    }

    /// What crossed in the last second (or since `since`, when that is less) at `now`,
    /// per second.
    fn per_second<const N: usize>(
        &self,
        now: Instant,
        since: Instant,
        kinds: impl Fn(&T) -> [u64; N],
    ) -> [f64; N] {
        let span = now
            .saturating_duration_since(since)
            .min(RATE_WINDOW)
            .as_secs_f64();
        let mut sum = [0u64; N];
        for (_, k) in self
            .recent
            .iter()
            .filter(|(t, _)| now.saturating_duration_since(*t) < RATE_WINDOW)
        {
            for (s, v) in sum.iter_mut().zip(kinds(k)) {
                *s += v;
            }
        }
        sum.map(|s| if span > 0.0 { s as f64 / span } else { 0.0 })
    }
}

/// What a client's link carried, by kind, each way.
#[derive(Default)]
pub(crate) struct LinkBytes {
    down: Way<DownBytes>,
    up: Way<UpBytes>,
}

impl LinkBytes {
    /// A server message of `len` bytes going down at `now`.
    pub(crate) fn down(&mut self, now: Instant, msg: &ServerMsg, len: usize) {
        self.down
            .count(now, DownBytes::of(msg, len), DownBytes::add);
    }

    /// A client message, `len` bytes sealed, going up at `now`.
    pub(crate) fn up(&mut self, now: Instant, msg: &ClientMsg, len: usize) {
        self.up.count(now, UpBytes::of(msg, len), UpBytes::add);
    }

    /// The bytes so far, down and up.
    pub(crate) fn totals(&self) -> (DownBytes, UpBytes) {
        (self.down.total, self.up.total)
    }
}

/// A lagometer's window in numbers: slices by how their frames were drawn, snapshots by
/// how they came.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct LagCounts {
    /// 50 ms slices whose worst frame was interpolated, extrapolated, held.
    pub(crate) interpolated: u32,
    pub(crate) extrapolated: u32,
    pub(crate) held: u32,
    /// Snapshots that arrived in order.
    pub(crate) on_time: u32,
    /// Snapshots that arrived after a newer one.
    pub(crate) late: u32,
    /// Snapshots found missing and not come late since.
    pub(crate) lost: u32,
    /// Snapshots the server held back for the link's rate.
    pub(crate) suppressed: u32,
}

/// The counts of `slices`. A snapshot found missing in one slice and come late in a
/// later one is late, not lost; so are those it says the server held back.
pub(crate) fn lag_counts(slices: &[LagSlice]) -> LagCounts {
    let mut c = LagCounts::default();
    let (mut dropped, mut unlost) = (0u32, 0u32);
    for s in slices {
        match s.worst {
            Some(DrawMode::Interpolated) => c.interpolated += 1,
            Some(DrawMode::Extrapolated) => c.extrapolated += 1,
            Some(DrawMode::Held) => c.held += 1,
            None => {}
        }
        c.on_time += u32::from(s.snapshots);
        dropped += u32::from(s.dropped);
        c.late += u32::from(s.late);
        unlost += u32::from(s.unlost);
        c.suppressed += u32::from(s.withheld);
    }
    c.lost = dropped.saturating_sub(unlost);
    c
}

/// Client `n`'s (0-based) lagometer slices now, oldest first, as its stats overlay
/// draws them (the last six seconds).
pub(crate) fn slices(lab: &Lab, n: usize) -> Vec<LagSlice> {
    let c = &lab.clients[n];
    c.driver.stats_view(lab.now, c.rates.rates()).slices
}

/// The meters panel: a legend, each client's lagometer over the last [`COLUMNS`]
/// slices with its counts, then each client's bytes per second by kind; when that does
/// not fit (three or four clients at 160x45), a line a client: its counts and its bytes
/// per second each way.
pub(crate) fn panel(lab: &Lab, t: Theme) -> Panel {
    let label = t.style(Role::Label);
    let glyph = |g: &'static str, role: Role| Span::styled(g, t.style(role));
    let word = |w: &str| Span::styled(w.to_owned(), label);
    let value = |v: String| Span::styled(v, t.style(Role::Value));
    let heading = |h: String| Span::styled(h, t.style(Role::Heading));
    let frames = [
        ("▀", Role::LagInterp, "interpolated"),
        ("▚", Role::LagExtrap, "extrapolated"),
        ("█", Role::LagHeld, "held"),
    ];
    let snaps = [
        ("▆", Role::LagBar, "on time"),
        ("▆", Role::Warn, "held back"),
        ("!", Role::Warn, "late"),
        ("×", Role::Bad, "lost"),
    ];
    let legend = |head: &str, marks: &[(&'static str, Role, &str)], tail: &str| {
        let mut spans = vec![word(head)];
        for &(g, role, name) in marks {
            spans.extend([glyph(g, role), word(name), word(" ")]);
        }
        spans.push(word(tail));
        Line::from(spans)
    };
    // A client's counts: `▀48 ▚0  █0   ▆47 ▆0  !0  ×1  `.
    let counts = |k: &LagCounts| {
        let mut spans = Vec::new();
        for ((g, role, _), v) in frames.iter().zip([k.interpolated, k.extrapolated, k.held]) {
            spans.extend([glyph(g, *role), value(format!("{v:<3}"))]);
        }
        spans.push(word(" "));
        for ((g, role, _), v) in snaps.iter().zip([k.on_time, k.suppressed, k.late, k.lost]) {
            spans.extend([glyph(g, *role), value(format!("{v:<3}"))]);
        }
        spans
    };
    // Each part rounded to whole bytes, the total their sum: the line adds up.
    let sum = |parts: &[f64], other: f64| {
        let rounded: Vec<u64> = parts.iter().map(|v| v.round() as u64).collect();
        let other = other.round() as u64;
        let mut s: Vec<String> = rounded.iter().map(u64::to_string).collect();
        if other > 0 {
            s.push(format!("other {other}"));
        }
        (rounded.iter().sum::<u64>() + other, s.join(" + "))
    };
    let mut lines = vec![
        legend("frames ", &frames, ""),
        legend("snapshots ", &snaps, ""),
    ];
    let mut bytes = vec![
        Line::default(),
        Line::styled("B/s ↓ = players + proj + events + roster + hdr", label),
        Line::styled("    ↑ = commands + hdr", label),
    ];
    let mut short = Vec::new();
    for (i, c) in lab.clients.iter().enumerate() {
        let all = slices(lab, i);
        let shown = &all[all.len().saturating_sub(COLUMNS)..];
        let k = lag_counts(shown);
        let mut head = vec![heading(format!("c{} {:<7}", c.number, c.profile))];
        head.extend(counts(&k));
        lines.push(Line::from(head));
        lines.extend(lagometer_lines(shown, 2, t));

        let b = &c.bytes;
        let down_kinds = b.down.per_second(lab.now, lab.start, DownBytes::kinds);
        let (down, down_parts) = sum(&down_kinds[..5], down_kinds[5]);
        let up_kinds = b.up.per_second(lab.now, lab.start, UpBytes::kinds);
        let (up, up_parts) = sum(&up_kinds[..2], up_kinds[2]);
        bytes.push(Line::from(vec![
            heading(format!("c{} ", c.number)),
            value(format!("↓ {down} = {down_parts}")),
        ]));
        bytes.push(Line::from(value(format!("   ↑ {up} = {up_parts}"))));

        let mut line = vec![heading(format!("c{} ", c.number))];
        line.extend(counts(&k));
        line.push(value(format!("↓{down} ↑{up}")));
        short.push(Line::from(line));
    }
    lines.extend(bytes);
    let frames_short = [
        ("▀", Role::LagInterp, "interp"),
        ("▚", Role::LagExtrap, "extrap"),
        ("█", Role::LagHeld, "held"),
    ];
    short.push(legend("", &frames_short, " B/s ↓down ↑up"));
    short.push(legend("", &snaps, ""));
    Panel {
        title: format!(
            "lagometers · last {:.1} s · bytes by kind",
            (COLUMNS * SLICE_MS) as f64 / 1000.0
        ),
        lines,
        width: WIDTH,
        short,
        ..Panel::default()
    }
}

#[cfg(test)]
mod tests;
