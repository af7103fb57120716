//! `replay FILE --export csv`: one row per command tick of the recording, for people who
//! want to plot it.

use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

use super::replay::{Replayer, open};

pub const CSV_HEADER: &str = "time_s,rtt_ms,interp_delay_ms,pending_commands,commands_sent,snapshots_received,snapshots_lost,corrections,bytes_in,bytes_out";

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

/// Re-runs the recording at `path`, writing a CSV row for every command tick; the
/// counting columns are what happened within that tick. Returns the rows written.
pub fn export_csv(path: &Path, out: &mut impl Write) -> anyhow::Result<u64> {
    let (start, mut reader) = open(path)?;
    let tick = Duration::from_secs(1) / u32::from(start.welcome.tick_rate.max(1));
    let first = reader.next_record()?;
    // A clip the ring saved starts at its keyframe: the rows start there too.
    let mut r = Replayer::begin(&start, first.as_ref(), Instant::now(), None)?;
    writeln!(out, "{CSV_HEADER}")?;
    let mut slot = (r.at().as_nanos() / tick.as_nanos()) as u64;
    let mut before = totals(&r);
    let mut rows = 0;
    for record in first.into_iter().map(Ok).chain(reader) {
        let record = record?;
        if let Some(at) = record.at() {
            let now_slot = (at.as_nanos() / tick.as_nanos()) as u64;
            while slot < now_slot {
                before = row(out, &r, tick * slot as u32, before)?;
                slot += 1;
                rows += 1;
            }
        }
        r.apply(record);
    }
    row(out, &r, tick * slot as u32, before)?;
    Ok(rows + 1)
}

fn row(out: &mut impl Write, r: &Replayer, at: Duration, before: Totals) -> anyhow::Result<Totals> {
    let s = r.session();
    let now = totals(r);
    writeln!(
        out,
        "{:.4},{:.2},{:.2},{},{},{},{},{},{},{}",
        at.as_secs_f64(),
        s.stats().rtt_ms,
        s.interp_delay_secs() * 1000.0,
        s.pending_commands(),
        now.commands - before.commands,
        now.snapshots - before.snapshots,
        now.lost - before.lost,
        now.corrections - before.corrections,
        now.bytes_in - before.bytes_in,
        now.bytes_out - before.bytes_out,
    )?;
    Ok(now)
}
