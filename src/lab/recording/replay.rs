//! A lab recording re-run: the same deterministic lab, the same inputs at the same
//! times, each checkpoint held against the recording's; the first that differs is
//! named.

use std::path::Path;
use std::time::{Duration, Instant};

use super::super::{Lab, LabConfig, STEP};
use super::{Check, Input, Journal, LabFile, WireLine, final_check, read};

/// A lab recording re-run: the same lab, the same inputs at the same times, each
/// checkpoint held against the recording's.
pub struct LabReplay {
    pub file: LabFile,
    config: LabConfig,
    lab: Lab,
    base: Instant,
    /// The next input to apply.
    next: usize,
    /// Checkpoints compared so far.
    compared: usize,
    diverged: Option<String>,
}

impl LabReplay {
    pub fn load(path: &Path) -> anyhow::Result<LabReplay> {
        LabReplay::new(read(path)?)
    }

    pub fn new(file: LabFile) -> anyhow::Result<LabReplay> {
        let config = file.start.config()?;
        let base = Instant::now();
        let lab = fresh(&config, base)?;
        Ok(LabReplay {
            file,
            config,
            lab,
            base,
            next: 0,
            compared: 0,
            diverged: None,
        })
    }

    /// Hands client `n`'s inputs to `tap` (before the replay ran), as `Lab::record`.
    pub(crate) fn tap(
        &mut self,
        n: usize,
        tap: Box<dyn crate::client::tap::Tap>,
    ) -> anyhow::Result<()> {
        self.lab.record(n, tap, None)
    }

    pub fn lab(&self) -> &Lab {
        &self.lab
    }

    /// Lab time now.
    pub fn at(&self) -> Duration {
        self.lab.elapsed()
    }

    /// How long the recorded lab ran: to its last input; for a file cut short, to its
    /// last checkpoint if that is later (the bots play on the same without inputs).
    pub fn duration(&self) -> Duration {
        let input = self
            .file
            .inputs
            .last()
            .map_or(Duration::ZERO, |(at, _)| *at);
        let check = match (&self.file.end, self.file.checks.last()) {
            (None, Some(c)) => Duration::from_nanos(c.at),
            _ => Duration::ZERO,
        };
        input.max(check)
    }

    /// Where the re-run first differed from the recording, if it did.
    pub fn diverged(&self) -> Option<&str> {
        self.diverged.as_deref()
    }

    pub fn seed(&self) -> u64 {
        self.config.server.seed
    }

    /// Runs forward to `t` of lab time (not past the recording's end), applying every
    /// input up to there. A stretch the recorded clock ran in one go is run in whole
    /// milliseconds, so the lab steps at the same times as when it was recorded.
    pub fn advance_to(&mut self, t: Duration) {
        while let Some((at, input)) = self.file.inputs.get(self.next) {
            let (at, input) = (*at, input.clone());
            if let Input::RunTo = input {
                if at > t {
                    let now = self.lab.elapsed();
                    let whole = (t.saturating_sub(now).as_millis() as u32) * STEP;
                    self.lab.run_until(self.lab.now() + whole);
                    break;
                }
                self.lab.run_until(self.base + at);
            } else if at > t {
                break;
            } else {
                apply(&mut self.lab, &input);
            }
            self.next += 1;
        }
        if self.finished() && self.file.end.is_none() {
            // A file cut short: on to its last checkpoint, in whole milliseconds.
            let to = t.min(self.duration());
            let whole = (to.saturating_sub(self.lab.elapsed()).as_millis() as u32) * STEP;
            self.lab.run_until(self.lab.now() + whole);
        }
        if self.finished() && self.file.end.is_some() {
            final_check(&mut self.lab);
        }
        self.compare();
    }

    /// Seeks to `t`: forward from here, or back by starting the lab again.
    pub fn seek(&mut self, t: Duration) -> anyhow::Result<()> {
        if t < self.at() {
            self.lab = fresh(&self.config, self.base)?;
            self.next = 0;
            self.compared = 0;
        }
        self.advance_to(t);
        Ok(())
    }

    /// Whether every input has been applied.
    pub fn finished(&self) -> bool {
        self.next >= self.file.inputs.len()
    }

    /// Runs to the end (`headless::replayed` gives the report then).
    pub fn run_to_end(&mut self) {
        self.advance_to(Duration::MAX);
    }

    /// How the recorded lab ended ("time up" if the file does not say).
    pub fn ended(&self) -> &str {
        self.file
            .end
            .as_ref()
            .map_or("time up", |(e, _)| e.as_str())
    }

    /// Holds the checkpoints the re-run made against the recording's.
    fn compare(&mut self) {
        let Some(journal) = &self.lab.journal else {
            return;
        };
        let made = &journal.made;
        while self.compared < made.len() && self.compared < self.file.checks.len() {
            let (ours, theirs) = (&made[self.compared], &self.file.checks[self.compared]);
            if self.diverged.is_none()
                && let Some(why) = difference(theirs, ours)
            {
                self.diverged = Some(format!(
                    "the re-run differs from the recording at {:.3} s: {why}",
                    Duration::from_nanos(theirs.at).as_secs_f64()
                ));
            }
            self.compared += 1;
        }
    }
}

/// A new lab for a replay, keeping its checkpoints.
fn fresh(config: &LabConfig, base: Instant) -> anyhow::Result<Lab> {
    let mut lab = Lab::new(config, base)?;
    lab.journal = Some(Box::new(Journal::in_memory()));
    Ok(lab)
}

/// Applies one recorded input to `lab`.
fn apply(lab: &mut Lab, input: &Input) {
    match input {
        Input::RunTo => {}
        Input::Hold { client, buttons } => lab.hold(usize::from(*client), *buttons),
        Input::Act { client, action } => {
            lab.act(usize::from(*client), *action);
        }
        Input::Dial {
            dial,
            client,
            value,
        } => {
            lab.set_dial(usize::from(*dial), usize::from(*client), *value);
        }
        Input::Link { client, up, down } => {
            if usize::from(*client) < lab.clients.len() {
                lab.set_link(usize::from(*client), up.clone(), down.clone());
            }
        }
        Input::Frame => lab.frame(),
        Input::Size(w, h) => lab.note_size(*w, *h),
    }
}

/// What first differs between a recorded checkpoint and the re-run's, in words.
fn difference(recorded: &Check, rerun: &Check) -> Option<String> {
    let secs = |ns: u64| Duration::from_nanos(ns).as_secs_f64();
    if recorded.at != rerun.at {
        return Some(format!(
            "checkpoint at {:.3} s, re-run's at {:.3} s",
            secs(recorded.at),
            secs(rerun.at)
        ));
    }
    if recorded.tick != rerun.tick {
        return Some(format!(
            "server tick {} recorded, {} re-run",
            recorded.tick, rerun.tick
        ));
    }
    if recorded.world != rerun.world {
        return Some(format!(
            "the server's world at tick {} (positions or standings)",
            recorded.tick
        ));
    }
    if let Some(n) = (0..recorded.clients.len().max(rerun.clients.len()))
        .find(|&n| recorded.clients.get(n) != rerun.clients.get(n))
    {
        return Some(format!(
            "client {}'s session (its counts or prediction)",
            n + 1
        ));
    }
    let lines = recorded.wire.len().max(rerun.wire.len());
    if let Some(i) = (0..lines).find(|&i| recorded.wire.get(i) != rerun.wire.get(i)) {
        let way = |w: &WireLine| {
            format!(
                "{} {} datagram sent at {:.3} s ({}, {} bytes)",
                lane_name(w.lane),
                if w.lane.is_multiple_of(2) {
                    "up"
                } else {
                    "down"
                },
                secs(w.sent),
                match (w.arrived, w.dropped) {
                    (_, true) => "dropped".to_owned(),
                    (Some(a), _) => format!("arrived at {:.3} s", secs(a)),
                    (None, _) => "in flight".to_owned(),
                },
                w.bytes
            )
        };
        let say = |w: Option<&WireLine>| w.map_or_else(|| "none".to_owned(), way);
        return Some(format!(
            "the wire log: recorded {}, re-run {}",
            say(recorded.wire.get(i)),
            say(rerun.wire.get(i))
        ));
    }
    None
}

fn lane_name(lane: u8) -> String {
    format!("link {}", lane / 2 + 1)
}
