//! `replay FILE --export csv`: one row per command tick of the recording, for people who
//! want to plot it.
//!
//! Rows are 1/60 s slices of recording time. An interactive loop makes each command at
//! a frame, a little after its time, so one made just late falls in the next slice
//! with that slice's own: a row without a command and one with two. Such a command (the
//! one before it two slices back, the slice between without one) is counted in the
//! slice it was late for.

use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

use super::replay::{Replayer, open};

pub(crate) const CSV_HEADER: &str = "time_s,rtt_ms,interp_delay_ms,pending_commands,commands_sent,snapshots_received,snapshots_lost,corrections,bytes_in,bytes_out";

/// Counts at the end of one tick, to take differences from.
#[derive(Default, Clone, Copy)]
struct Totals {
    commands: u64,
    snapshots: u64,
    lost: u64,
    corrections: u64,
    bytes_in: u64,
    bytes_out: u64,
}

fn totals(r: &Replayer) -> Totals {
    let s = r.session().stats();
    let (bytes_in, bytes_out) = r.bytes();
    Totals {
        commands: s.commands_sent,
        snapshots: s.snapshots_received,
        lost: s.snapshots_lost,
        corrections: s.corrections,
        bytes_in,
        bytes_out,
    }
}

/// One row: the state at the end of its slice and what happened within it.
struct Line {
    at: Duration,
    rtt_ms: f64,
    interp_delay_ms: f64,
    pending: u32,
    counts: Totals,
}

/// Re-runs the recording at `path`, writing a CSV row for every command tick; the
/// counting columns are what happened within that tick. Returns the rows written.
pub fn export_csv(path: &Path, out: &mut impl Write) -> anyhow::Result<u64> {
    let (start, mut reader) = open(path)?;
    let tick = Duration::from_secs(1) / u32::from(start.welcome.tick_rate.max(1));
    let first = reader.next_record()?;
    // A clip the ring saved starts at its keyframe: the rows start there too.
    let mut r = Replayer::begin(&start, first.as_ref(), Instant::now(), None)?;
    writeln!(out, "{CSV_HEADER}")?;
    let slot_of = |at: Duration| (at.as_nanos() / tick.as_nanos()) as u64;
    let mut slot = slot_of(r.at());
    let mut rows = Rows {
        before: totals(&r),
        ..Rows::default()
    };
    for record in first.into_iter().map(Ok).chain(reader) {
        let record = record?;
        if let Some(at) = record.at() {
            while slot < slot_of(at) {
                rows.end_slice(out, &r, tick * slot as u32)?;
                slot += 1;
            }
        }
        let had = r.session().stats().commands_sent;
        r.apply(record);
        for _ in had..r.session().stats().commands_sent {
            rows.command(slot);
        }
    }
    rows.end_slice(out, &r, tick * slot as u32)?;
    rows.flush(out)?;
    Ok(rows.written)
}

/// The rows so far: the last slice's is held back a slice, for a late command.
#[derive(Default)]
struct Rows {
    before: Totals,
    held: Option<Line>,
    /// The slice the newest command was counted in.
    last_command: Option<u64>,
    /// Commands made in this slice but counted in the one before.
    moved_back: u64,
    written: u64,
}

impl Rows {
    /// A command made in slice `slot`.
    fn command(&mut self, slot: u64) {
        let late = slot >= 2 && self.last_command == Some(slot - 2);
        match &mut self.held {
            Some(line) if late => {
                line.counts.commands += 1;
                self.moved_back += 1;
                self.last_command = Some(slot - 1);
            }
            _ => self.last_command = Some(slot),
        }
    }

    /// Ends the slice starting `at`: writes the one before, holds this one.
    fn end_slice(
        &mut self,
        out: &mut impl Write,
        r: &Replayer,
        at: Duration,
    ) -> anyhow::Result<()> {
        let s = r.session();
        let now = totals(r);
        let b = self.before;
        let counts = Totals {
            commands: now.commands - b.commands - self.moved_back,
            snapshots: now.snapshots - b.snapshots,
            lost: now.lost - b.lost,
            corrections: now.corrections - b.corrections,
            bytes_in: now.bytes_in - b.bytes_in,
            bytes_out: now.bytes_out - b.bytes_out,
        };
        self.before = now;
        self.moved_back = 0;
        let line = Line {
            at,
            rtt_ms: s.stats().rtt_ms,
            interp_delay_ms: s.interp_delay_secs() * 1000.0,
            pending: s.pending_commands(),
            counts,
        };
        self.flush(out)?;
        self.held = Some(line);
        Ok(())
    }

    fn flush(&mut self, out: &mut impl Write) -> anyhow::Result<()> {
        let Some(l) = self.held.take() else {
            return Ok(());
        };
        let c = l.counts;
        writeln!(
            out,
            "{:.4},{:.2},{:.2},{},{},{},{},{},{},{}",
            l.at.as_secs_f64(),
            l.rtt_ms,
            l.interp_delay_ms,
            l.pending,
            c.commands,
            c.snapshots,
            c.lost,
            c.corrections,
            c.bytes_in,
            c.bytes_out,
        )?;
        self.written += 1;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::player::tests::{start, ticks};
    use super::super::writer::Writer;
    use super::*;

    /// A command made 0.3 ms late every 7th tick (as an interactive loop's are, at its
    /// frames) is still counted in its own tick: every row from the first command to the
    /// last has one.
    #[test]
    fn a_late_command_tick_is_counted_in_its_own_row() {
        let late = |k: u64| Duration::from_micros(if k % 7 == 3 { 600 } else { 0 });
        let mut w = Writer::new(Vec::new()).unwrap();
        w.start(&start()).unwrap();
        for r in ticks(120, late) {
            w.record(&r).unwrap();
        }
        let name = format!("netarena-late-{}.narec", std::process::id());
        let path = std::env::temp_dir().join(name);
        std::fs::write(&path, w.get_ref()).unwrap();
        let mut csv = Vec::new();
        let rows = export_csv(&path, &mut csv);
        let _ = std::fs::remove_file(&path);
        let csv = String::from_utf8(csv).unwrap();
        let commands: String = (csv.lines().skip(1))
            .map(|l| l.split(',').nth(4).unwrap().to_string())
            .collect();
        assert_eq!(rows.unwrap(), csv.lines().count() as u64 - 1);
        // Ticks 0..119, made up to 0.3 ms before the ends of slices 0 to 119.
        assert_eq!(commands, "1".repeat(120), "{commands}");
    }
}
