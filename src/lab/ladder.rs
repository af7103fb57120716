//! The ladder's model: one client's link logs ([`Crossing`]s both ways) and the
//! server's ticks, laid on a window of time rows as arrows (`ui::ladder` draws them).
//! Every datagram of the window is one arrow from the row it was sent on to the row it
//! arrived on, on one time axis, so a datagram that overtook another crosses it; a
//! lost one stops half way; a duplicate's second copy is a second arrow.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use ratatui::text::Line;

use super::follow::{self, Follow, Tick};
use super::wire::{Carried, Crossing};
use super::{Lab, LabClient};
use crate::net::conditioner::Conditions;
use crate::ui::Theme;
use crate::ui::lab::Panel;
use crate::ui::ladder::{Arrow, End, LadderView, Mark};

/// Rows the lab builds; a panel shorter than this shows the newest (the bottom ones).
pub(crate) const ROWS: usize = 40;

/// The time rows: `rows` of `row` each, the last ending at `end`; times are shown
/// from `start`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Window {
    pub(crate) start: Instant,
    pub(crate) end: Instant,
    pub(crate) rows: usize,
    pub(crate) row: Duration,
}

impl Window {
    /// The top row's start: the bottom row holds `end`, the lab's now (a millisecond
    /// past it is the bottom row's end, as the lab's clock steps by milliseconds).
    fn top(&self) -> Instant {
        (self.end + Duration::from_millis(1))
            .checked_sub(self.row * self.rows as u32)
            .unwrap_or(self.start)
    }

    /// Rows from the top to `at` (negative before it).
    fn at(&self, at: Instant) -> f64 {
        let top = self.top();
        let secs = match at.checked_duration_since(top) {
            Some(d) => d.as_secs_f64(),
            None => -(top - at).as_secs_f64(),
        };
        secs / self.row.as_secs_f64()
    }
}

/// A row as long as whole server ticks, so a round trip of the slower way's delay
/// and jitter spans about a dozen rows (one tick a row on a quick link).
pub(crate) fn row_length(tick: Duration, up: &Conditions, down: &Conditions) -> Duration {
    let way = |c: &Conditions| u64::from(c.latency_ms) + u64::from(c.jitter_ms);
    let trip = Duration::from_millis(way(up) + way(down));
    let ticks = (trip.as_secs_f64() / 16.0 / tick.as_secs_f64())
        .ceil()
        .max(1.0);
    tick * ticks as u32
}

/// What the ladder highlights: the crossings of the followed life, and marks on the
/// columns (made, applied, reconciled).
#[derive(Clone, Debug, Default)]
pub(crate) struct Highlight {
    pub(crate) crossings: Vec<Crossing>,
    /// (when, on the server's column, glyph).
    pub(crate) marks: Vec<(Instant, bool, char)>,
}

/// What a datagram's arrow is labelled with: `#412-415` commands, `t812 a415` a
/// snapshot's tick and ack.
pub(crate) fn label(carried: Carried) -> String {
    match carried {
        Carried::Input { first, last, .. } if first == last => format!("#{last}"),
        Carried::Input { first, last, .. } => format!("#{first}-{last}"),
        Carried::Snapshot { tick, ack } => format!("t{tick} a{ack}"),
        Carried::Roster => "roster".into(),
        Carried::Other => "?".into(),
    }
}

/// The arrows of one way's log that the window shows. `delay` is the way's nominal
/// delay: where a lost datagram's arrow stops (half way), how far one in flight got.
fn arrows(
    log: &VecDeque<Crossing>,
    up: bool,
    delay: Duration,
    w: &Window,
    hl: &Highlight,
) -> Vec<Arrow> {
    let (top, end) = (w.top(), w.end);
    let delay = delay.max(Duration::from_millis(1));
    let mut out = Vec::new();
    // The latest arrival among the datagrams sent before: one arriving earlier overtook.
    let mut latest: Option<Instant> = None;
    for c in log {
        let reordered = matches!((c.delivered, latest), (Some(d), Some(l)) if d < l);
        if let Some(d) = c.delivered {
            latest = Some(latest.map_or(d, |l| l.max(d)));
        }
        let got = end.saturating_duration_since(c.sent).as_secs_f64() / delay.as_secs_f64();
        let (stop, reach, how) = match (c.delivered, c.dropped) {
            (Some(at), _) => (at, 1.0, End::Arrived),
            // The conditioner decides a loss as it is sent; the arrow is drawn on its
            // way for half the delay, then stops with `×`.
            (None, true) if c.sent + delay / 2 <= end => (c.sent + delay / 2, 0.5, End::Lost),
            (None, _) => (end, got.min(0.95), End::InFlight),
        };
        // Only what the window shows: sent by its end, still on its way at its top.
        if c.sent > end || stop.max(c.duplicate.unwrap_or(stop)) < top {
            continue;
        }
        let mut label = label(c.carried);
        if reordered {
            label.push_str(" reord");
        }
        let followed = hl.crossings.contains(c);
        out.push(Arrow {
            up,
            from: w.at(c.sent),
            to: w.at(stop),
            reach,
            end: how,
            label: label.clone(),
            followed,
        });
        if let Some(again) = c.duplicate.filter(|&a| a <= end) {
            out.push(Arrow {
                up,
                from: w.at(c.sent),
                to: w.at(again),
                reach: 1.0,
                end: End::Duplicate,
                label,
                followed,
            });
        }
    }
    out
}

/// The ladder of one client's link over the window `w`: its `up` and `down` logs,
/// the server's `ticks`, each way's nominal delay, what to highlight.
pub(crate) fn build<'a>(
    up: &VecDeque<Crossing>,
    down: &VecDeque<Crossing>,
    ticks: impl Iterator<Item = &'a Tick>,
    delays: (Duration, Duration),
    w: &Window,
    hl: &Highlight,
) -> LadderView {
    let top = w.top();
    let times = (0..w.rows)
        .map(|r| {
            let at = top + w.row * r as u32;
            format!("{:.3}", at.saturating_duration_since(w.start).as_secs_f64())
        })
        .collect();
    let mut tick_rows = vec![None; w.rows];
    for t in ticks.filter(|t| t.at >= top && t.at <= w.end) {
        let r = (w.at(t.at).floor() as usize).min(w.rows.saturating_sub(1));
        tick_rows[r].get_or_insert(t.tick);
    }
    let mut arrows = arrows(up, true, delays.0, w, hl);
    arrows.extend(self::arrows(down, false, delays.1, w, hl));
    let marks = hl
        .marks
        .iter()
        .filter(|(at, _, _)| *at >= top && *at <= w.end)
        .map(|&(at, server, glyph)| Mark {
            row: w.at(at).min(w.rows as f64 - 0.5),
            server,
            glyph,
        })
        .collect();
    LadderView {
        times,
        ticks: tick_rows,
        arrows,
        marks,
    }
}

/// Columns the ladder's panel asks for, borders included.
pub(crate) const PANEL_WIDTH: u16 = 68;
/// Columns the follow listing's panel asks for.
pub(crate) const FOLLOW_WIDTH: u16 = 58;

/// The ladder of `client`'s link up to now, and, when something is followed, the
/// listing of its life (the ladder highlights its arrows).
pub(crate) fn panels(
    lab: &Lab,
    client: &LabClient,
    follow: Option<Follow>,
    theme: Theme,
) -> (Panel, Option<Panel>) {
    let (up, down) = (client.up.conditions(), client.down.conditions());
    let row = row_length(lab.tick, up, down);
    let w = Window {
        start: lab.start,
        end: lab.now(),
        rows: ROWS,
        row,
    };
    let delay = |c: &Conditions| Duration::from_millis(u64::from(c.latency_ms));
    let mut hl = Highlight::default();
    let mut listing = None;
    if let Some(f) = follow
        && let Some(c) = lab.clients.get(f.client())
    {
        let (title, lines) = match f {
            Follow::Command { seq, .. } => {
                let life = follow::command(&c.trail, c.up.log(), c.down.log(), seq);
                hl = life_highlight(&life);
                let title = format!("follow client {} command #{seq}", c.number);
                (title, follow::command_lines(&life, lab.start))
            }
            Follow::Snapshot { after, .. } => {
                match follow::snapshot(&c.trail, c.down.log(), after) {
                    Some(life) => {
                        hl.crossings.push(life.crossing);
                        let title = format!("follow client {} snapshot t{}", c.number, life.tick);
                        (title, follow::snapshot_lines(&life, lab.start))
                    }
                    None => (
                        format!("follow client {} snapshot", c.number),
                        vec!["waiting for the next snapshot to be sent".to_owned()],
                    ),
                }
            }
        };
        if c.number != client.number {
            hl = Highlight::default();
        }
        listing = Some(Panel {
            title,
            lines: lines.into_iter().map(Line::from).collect(),
            width: FOLLOW_WIDTH,
            ..Panel::default()
        });
    }
    let view = build(
        client.up.log(),
        client.down.log(),
        client.trail.ticks(),
        (delay(up), delay(down)),
        &w,
        &hl,
    );
    let ladder = Panel {
        title: format!(
            "ladder: client {} ◀▶ server, {} ms a row, f follows",
            client.number,
            row.as_millis()
        ),
        lines: crate::ui::ladder::lines(&view, PANEL_WIDTH - 2, theme),
        width: PANEL_WIDTH,
        tail: true,
        ..Panel::default()
    };
    (ladder, listing)
}

/// A command's crossings and its marks: `●` made, `◆` applied, `✓` reconciled.
fn life_highlight(life: &follow::CommandLife) -> Highlight {
    let mut hl = Highlight::default();
    hl.crossings.extend(life.packets.iter().copied());
    hl.crossings.extend(life.acked_in);
    if let Some((at, _)) = life.made {
        hl.marks.push((at, false, '●'));
    }
    if let Some(t) = life.applied {
        hl.marks.push((t.at, true, '◆'));
    }
    if let Some(r) = life.reconciled {
        hl.marks.push((r.at, false, '✓'));
    }
    hl
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lab::tests::config;
    use crate::ui::ladder::lines;

    const ROW: Duration = Duration::from_millis(25);

    /// A `bad` lab made worse: a third of the datagrams may overtake, a tenth come
    /// twice, so a few seconds hold losses, duplicates and reordered pairs.
    fn worse_lab(t0: Instant, secs: u64) -> Lab {
        let mut lab = Lab::new(&config(1, 0, 11), t0).unwrap();
        let c = Conditions {
            reorder_pct: 30.0,
            dup_pct: 10.0,
            ..Conditions::profile("bad").unwrap()
        };
        lab.set_link(0, c.clone(), c);
        lab.run_until(t0 + Duration::from_secs(secs));
        lab
    }

    /// Rows from `top` to `at`, negative before it.
    fn rows_from(top: Instant, at: Instant) -> f64 {
        let secs = if at >= top {
            (at - top).as_secs_f64()
        } else {
            -(top - at).as_secs_f64()
        };
        secs / ROW.as_secs_f64()
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-6
    }

    /// Issue 24: the ladder's arrows are the links' own log: every datagram of the
    /// window once, from the row it was sent on to the row it arrived on, a loss
    /// stopping with `×`, a duplicate's second copy a second arrow, and a datagram that
    /// overtook another crossing it.
    #[test]
    fn the_ladders_arrows_are_the_links_log() {
        let t0 = Instant::now();
        let lab = worse_lab(t0, 7);
        let c = &lab.clients[0];
        let w = Window {
            start: t0,
            end: lab.now(),
            rows: 80,
            row: ROW,
        };
        let top = lab.now() + Duration::from_millis(1) - ROW * 80;
        let delay = Duration::from_millis(150);
        let view = build(
            c.up.log(),
            c.down.log(),
            c.trail.ticks(),
            (delay, delay),
            &w,
            &Highlight::default(),
        );
        let (mut lost, mut dups, mut crossed) = (0, 0, 0);
        for (up, log) in [(true, c.up.log()), (false, c.down.log())] {
            let arrows: Vec<&Arrow> = view
                .arrows
                .iter()
                .filter(|a| a.up == up && a.end != End::Duplicate)
                .collect();
            // Every datagram whose arrow reaches into the window: sent by its end,
            // arrived (or stopped) after its top.
            let shown: Vec<&Crossing> = log
                .iter()
                .filter(|c| {
                    let stop = match (c.delivered, c.dropped) {
                        (Some(at), _) => at,
                        (None, true) => (c.sent + delay / 2).min(lab.now()),
                        (None, false) => lab.now(),
                    };
                    c.sent <= lab.now() && stop.max(c.duplicate.unwrap_or(stop)) >= top
                })
                .collect();
            assert_eq!(arrows.len(), shown.len(), "up {up}");
            let sent_inside = log.iter().filter(|c| c.sent >= top).count();
            // Enough datagrams in the window to mean something (about 20 since the seal
            // made each snapshot 18 bytes longer and the server holds more of them back
            // on this reordering link).
            assert!(sent_inside >= 15, "{sent_inside}");
            for (a, c) in arrows.iter().zip(&shown) {
                assert!(close(a.from, rows_from(top, c.sent)), "{a:?} {c:?}");
                assert!(a.label.starts_with(&label(c.carried)), "{a:?} {c:?}");
                match (c.delivered, c.dropped) {
                    (Some(at), _) => {
                        assert_eq!(a.end, End::Arrived, "{c:?}");
                        assert!(close(a.to, rows_from(top, at)), "{a:?} {c:?}");
                    }
                    (None, true) if c.sent + delay / 2 <= lab.now() => {
                        assert_eq!(a.end, End::Lost);
                        lost += 1;
                    }
                    // Lost, but not yet drawn stopping.
                    (None, _) => assert_eq!(a.end, End::InFlight),
                }
            }
            let copies: Vec<f64> = shown
                .iter()
                .filter_map(|c| c.duplicate)
                .map(|at| rows_from(top, at))
                .collect();
            let drawn: Vec<f64> = view
                .arrows
                .iter()
                .filter(|a| a.up == up && a.end == End::Duplicate)
                .map(|a| a.to)
                .collect();
            assert_eq!(drawn.len(), copies.len());
            assert!(drawn.iter().zip(&copies).all(|(a, b)| close(*a, *b)));
            dups += copies.len();
            // Each pair where the later sent arrived first: their arrows cross.
            for (i, a) in shown.iter().enumerate() {
                for (j, b) in shown.iter().enumerate().skip(i + 1) {
                    if let (Some(da), Some(db)) = (a.delivered, b.delivered)
                        && db < da
                    {
                        let (x, y) = (arrows[i], arrows[j]);
                        assert!(x.from < y.from && x.to > y.to, "{x:?} {y:?}");
                        assert!(y.label.ends_with(" reord"), "{y:?}");
                        crossed += 1;
                    }
                }
            }
        }
        assert!(
            lost > 0 && dups > 0 && crossed > 0,
            "{lost} {dups} {crossed}"
        );
        // The server's ticks, each on its row: the first tick of each row marked.
        let ticks: Vec<&Tick> = c.trail.ticks().filter(|t| t.at >= top).collect();
        for (r, mark) in view.ticks.iter().enumerate() {
            let first = ticks
                .iter()
                .find(|t| rows_from(top, t.at).floor() as usize == r)
                .map(|t| t.tick);
            assert_eq!(*mark, first, "row {r}");
        }
    }

    /// The ladder's panel for a fixed third of a second of the `bad` lab above.
    #[test]
    fn the_ladder_of_a_short_window() {
        let t0 = Instant::now();
        let lab = worse_lab(t0, 3);
        let c = &lab.clients[0];
        let w = Window {
            start: t0,
            end: lab.now(),
            rows: 14,
            row: ROW,
        };
        let delay = Duration::from_millis(150);
        let view = build(
            c.up.log(),
            c.down.log(),
            c.trail.ticks(),
            (delay, delay),
            &w,
            &Highlight::default(),
        );
        let text: Vec<String> = lines(&view, PANEL_WIDTH - 2, Theme::Auto)
            .iter()
            .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
            .collect();
        insta::assert_snapshot!(text.join("\n"));
    }
}
