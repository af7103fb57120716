//! A lab recording read back whole, through the one frame reader
//! (`record::file::FrameReader`): a file cut short or damaged after its start is read
//! up to there and says where; its inputs' times are held to the checkpoints.

use std::fs::File;
use std::io::Read;
use std::path::Path;
use std::time::Duration;

use anyhow::{Context, bail};

use super::{CHECK_EVERY, Check, Input, LabRecord, LabStart};
use crate::record::file::{FrameReader, LAB_MAGIC, ReadError, readable};

/// A lab recording read whole.
#[derive(Debug)]
pub struct LabFile {
    pub start: LabStart,
    /// Every input, at its time (lab time).
    pub inputs: Vec<(Duration, Input)>,
    pub checks: Vec<Check>,
    /// How the lab ended and its report (JSON), unless the file stops before.
    pub end: Option<(String, String)>,
    /// Why reading stopped early (a damaged or cut file), if it did.
    pub stopped: Option<String>,
}

/// Whether the file at `path` is a lab recording (by its first bytes).
pub fn is_lab_recording(path: &Path) -> anyhow::Result<bool> {
    let mut head = [0u8; 6];
    let mut file = File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let mut got = 0;
    while got < head.len() {
        match file.read(&mut head[got..])? {
            0 => break,
            n => got += n,
        }
    }
    Ok(got == head.len() && head == LAB_MAGIC)
}

/// Reads the lab recording at `path`. A file cut short or damaged after its start is
/// read up to there (`stopped` says where); one whose start cannot be read is an error.
pub fn read(path: &Path) -> anyhow::Result<LabFile> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    parse(&bytes).with_context(|| format!("{}", path.display()))
}

/// Reads a lab recording from its bytes.
pub fn parse(bytes: &[u8]) -> anyhow::Result<LabFile> {
    let mut reader = match FrameReader::<_, LabRecord>::new(bytes) {
        Ok(r) => r,
        Err(ReadError::Version { found }) => {
            bail!(
                "a lab recording of version {found}; this netarena reads {}",
                readable()
            )
        }
        Err(_) => bail!("not a lab recording (it does not start with NALAB)"),
    };
    let mut records = Vec::new();
    let mut stopped = None;
    loop {
        match reader.next_entry() {
            Ok(Some((_, r))) => records.push(r),
            Ok(None) => break,
            Err(e) => {
                let (offset, what) = e.parts();
                stopped = Some(format!("damaged at byte {offset}: {what}"));
                break;
            }
        }
    }
    let mut records = records.into_iter();
    let start = match records.next() {
        Some(LabRecord::Start(s)) => *s,
        _ => bail!(
            "{}",
            stopped.unwrap_or_else(|| "the lab recording has no start".to_owned())
        ),
    };
    let mut file = LabFile {
        start,
        inputs: Vec::new(),
        checks: Vec::new(),
        end: None,
        stopped,
    };
    // A checkpoint comes each second: an input much later than the last one is a
    // damaged time (which must not have a replay run the lab for days).
    let latest = |file: &LabFile| {
        let last_check = file.checks.last().map_or(0, |c| c.at);
        Duration::from_nanos(last_check) + CHECK_EVERY * 2
    };
    let mut last = Duration::ZERO;
    for r in records {
        match r {
            LabRecord::Input { at, input } => {
                let at = Duration::from_nanos(at);
                if at < last {
                    file.stopped = Some(format!(
                        "input {} goes back in time ({:?} after {:?})",
                        file.inputs.len(),
                        at,
                        last
                    ));
                    break;
                }
                if at > latest(&file) {
                    file.stopped = Some(format!(
                        "input {} at {:.3} s is past the last checkpoint",
                        file.inputs.len(),
                        at.as_secs_f64()
                    ));
                    break;
                }
                last = at;
                file.inputs.push((at, input));
            }
            LabRecord::Check(c) => {
                // One a second: a later one is a damaged time.
                if Duration::from_nanos(c.at) > latest(&file) {
                    file.stopped = Some(format!(
                        "checkpoint {} is more than a second after the one before",
                        file.checks.len()
                    ));
                    break;
                }
                file.checks.push(c);
            }
            LabRecord::End { ended, report } => file.end = Some((ended, report)),
            LabRecord::Start(_) => {
                file.stopped = Some("a second start record".to_owned());
                break;
            }
        }
    }
    Ok(file)
}
