//! The lab's inputs and recordings: every input it takes (keys held, actions, link
//! changes, sizes) passes here and is noted for the whole lab's recording
//! (`lab --record`); each client's own recording is started and ended here.

use std::time::Instant;

use anyhow::bail;

use super::{Lab, headless, profile_name, profile_name_each_way, recording};
use crate::client::play::app::Effect;
use crate::client::play::input::Action;
use crate::client::tap::{LoopKind, Tap, TapEvent};
use crate::net::conditioner::Conditions;
use crate::sim::world::Buttons;

impl Lab {
    /// Notes an input for the whole lab's recording, at `at` (the input hook: every
    /// input the lab takes passes here; nothing without `--record`).
    pub(super) fn note(&mut self, input: recording::Input, at: Instant) {
        if let Some(j) = &mut self.journal {
            j.input(at.saturating_duration_since(self.start), input);
        }
    }

    /// Records the whole lab to `journal` from its start, which must not have run yet:
    /// its start (`LabStart`), then every input and a checkpoint each second.
    pub fn record_lab(
        &mut self,
        mut journal: recording::Journal,
        start: &recording::LabStart,
    ) -> anyhow::Result<()> {
        if self.now > self.start {
            bail!("the lab ran before its recording started");
        }
        journal.start(start);
        self.journal = Some(Box::new(journal));
        Ok(())
    }

    /// Ends the whole lab's recording, if any, with how the lab ended and its report.
    pub(crate) fn finish_lab_recording(
        &mut self,
        ended: &str,
        report: &headless::LabReport,
    ) -> anyhow::Result<()> {
        if self.journal.is_none() {
            return Ok(());
        }
        recording::final_check(self);
        let json = serde_json::to_string(report)?;
        self.journal
            .take()
            .map_or(Ok(()), |mut j| j.end(ended, &json))
    }

    /// Hands every input of client `n` (0-based) to `tap` (a recorder) from the start of
    /// its session, which must not have begun: call it before running the lab. With
    /// `size`, the terminal's size is recorded too.
    pub fn record(
        &mut self,
        n: usize,
        mut tap: Box<dyn Tap>,
        size: Option<(u16, u16)>,
    ) -> anyhow::Result<()> {
        let Some(c) = self.clients.get_mut(n) else {
            bail!("the lab has no client {}", n + 1);
        };
        if self.now > c.started.start {
            bail!("client {} started before its recording", c.number);
        }
        let kind = if c.is_bot() {
            LoopKind::Headless
        } else {
            LoopKind::Interactive
        };
        tap.start(c.started.start, kind, &c.started.welcome, &c.started.config);
        // What the lab set before the session started, at the start: it shows lag
        // compensation (see `Lab::new`).
        tap.event(
            c.started.start,
            TapEvent::Action(Action::ToggleLagCompensation),
        );
        if let Some((w, h)) = size {
            tap.event(c.started.start, TapEvent::Size(w, h));
        }
        c.driver.set_tap(tap);
        Ok(())
    }

    /// A new terminal size, for the recordings.
    pub(crate) fn note_size(&mut self, w: u16, h: u16) {
        self.note(recording::Input::Size(w, h), self.now);
        for c in &mut self.clients {
            c.driver.note_size(w, h);
        }
    }

    /// Ends every recording with its link's totals, the ones the report gives; an
    /// error, after all are ended, if one of them stopped on the way.
    pub(crate) fn finish_recordings(&mut self) -> anyhow::Result<()> {
        let seconds = self.elapsed().as_secs_f64();
        let mut failed = None;
        for c in &mut self.clients {
            let totals = c.totals(seconds);
            if let Some(tap) = c.driver.tap_mut() {
                tap.finish(totals);
            }
            failed = failed.or(c.driver.tap_failure());
        }
        failed.map_or(Ok(()), |why| Err(anyhow::anyhow!(why)))
    }

    /// New conditions for client `n`'s link, each way, from now on.
    #[doc(hidden)]
    pub fn set_link(&mut self, n: usize, up: Conditions, down: Conditions) {
        let input = recording::Input::Link {
            client: n as u8,
            up: up.clone(),
            down: down.clone(),
        };
        self.note(input, self.now);
        let c = &mut self.clients[n];
        c.profile = profile_name_each_way(&up, &down);
        c.up.set_conditions(up);
        c.down.set_conditions(down);
    }

    /// Sets the keys client `n` (0-based) holds; ignored for bot-driven clients.
    pub fn hold(&mut self, n: usize, keys: Buttons) {
        if self.clients.get(n).is_some_and(|c| c.held != keys) {
            let input = recording::Input::Hold {
                client: n as u8,
                buttons: keys,
            };
            self.note(input, self.now);
        }
        if let Some(c) = self.clients.get_mut(n) {
            c.held = keys;
        }
    }

    /// A key's action for client `n`: switches reach its session, new conditions its
    /// link, both ways. What is left (quit, chat) comes back.
    /// Ignored before the client's session started (its first few milliseconds).
    pub(crate) fn act(&mut self, n: usize, action: Action) -> Option<Effect> {
        self.note(recording::act(n, action), self.now);
        let c = self.clients.get_mut(n)?;
        if self.now < c.started.start {
            return None;
        }
        match c.driver.handle(action)? {
            Effect::Conditions(cond) => {
                c.profile = profile_name(&cond);
                c.up.set_conditions(cond.clone());
                c.down.set_conditions(cond);
                None
            }
            other => Some(other),
        }
    }
}
