//! `replay FILE --export trace` of either kind (`record::trace` says what a trace
//! holds): a client's recording through `record::trace`, a whole lab's re-run a
//! millisecond at a time, each client's track fed from a tap on its loop.

use std::cell::RefCell;
use std::collections::HashMap;
use std::io::Write;
use std::path::Path;
use std::rc::Rc;
use std::time::{Duration, Instant};

use serde_json::json;

use super::{LabReplay, is_lab_recording};
use crate::client::ClientConfig;
use crate::client::tap::{LinkTotals, LoopKind, Tap, TapEvent};
use crate::net::protocol::{ServerMsg, Welcome};
use crate::record::trace::{ClientTrack, Events, SERVER, client_trace, us, write_trace};

/// Writes the trace of the recording at `path` (a client's or a whole lab's) to `out`.
pub fn export_trace(path: &Path, out: &mut impl Write) -> anyhow::Result<()> {
    let events = if is_lab_recording(path)? {
        lab_trace(LabReplay::load(path)?)?
    } else {
        client_trace(path)?
    };
    write_trace(events, out)
}

/// What a lab client's tap hands the trace: messages as they arrived.
type Inbox = Rc<RefCell<Vec<(Instant, ServerMsg, usize)>>>;

struct Catch(Inbox);

impl Tap for Catch {
    fn start(&mut self, _: Instant, _: LoopKind, _: &Welcome, _: &ClientConfig) {}
    fn event(&mut self, at: Instant, event: TapEvent<'_>) {
        if let TapEvent::Received { msg, wire_bytes } = event {
            self.0.borrow_mut().push((at, msg.clone(), wire_bytes));
        }
    }
    fn finish(&mut self, _: LinkTotals) {}
}

/// A whole lab's recording, re-run a millisecond at a time.
fn lab_trace(mut replay: LabReplay) -> anyhow::Result<Events> {
    let mut e = Events::default();
    e.name_track(SERVER, "server");
    let clients = replay.lab().client_count();
    let mut inboxes = Vec::new();
    let mut tracks = Vec::new();
    for n in 0..clients {
        let inbox = Inbox::default();
        replay.tap(n, Box::new(Catch(inbox.clone())))?;
        inboxes.push(inbox);
        let profile = &replay.file.start.profiles[n];
        tracks.push(ClientTrack::new(
            n as u32 + 1,
            &format!("client {} ({profile})", n + 1),
            &mut e,
        ));
    }
    // The wire log: when each datagram down was sent, by its lane and arrival; the
    // datagrams each link dropped.
    let mut sent_at = HashMap::new();
    for w in replay.file.checks.iter().flat_map(|c| &c.wire) {
        let client = u32::from(w.lane / 2);
        if (client as usize) < clients && w.dropped {
            let way = if w.lane.is_multiple_of(2) {
                "up"
            } else {
                "down"
            };
            let args = json!({"way": way, "bytes": w.bytes});
            let at = w.sent as f64 / 1e3;
            e.instant(client + 1, "loss", "datagram dropped", at, args);
        }
        if let (1, Some(arrived)) = (w.lane % 2, w.arrived) {
            sent_at.insert((w.lane / 2, arrived, w.bytes), w.sent);
        }
    }
    // When each server tick was made, as the lab ran: the tick rate may change mid-run.
    let mut tick_at: HashMap<u32, f64> = HashMap::new();
    let base = replay.lab().now();
    let end = replay.duration();
    let mut t = Duration::ZERO;
    loop {
        t = (t + Duration::from_millis(1)).min(end);
        replay.advance_to(t);
        let lab = replay.lab();
        tick_at
            .entry(lab.server().world().tick)
            .or_insert_with(|| us(lab.elapsed()));
        for (n, (track, inbox)) in tracks.iter_mut().zip(&inboxes).enumerate() {
            for (at, msg, bytes) in inbox.borrow_mut().drain(..) {
                let arrived = at.saturating_duration_since(base);
                let key = (n as u8, arrived.as_nanos() as u64, bytes as u32);
                let sent = sent_at.get(&key).map_or(us(arrived), |&ns| ns as f64 / 1e3);
                track.received(&msg, sent);
                e.decisions(track, &msg, |tick| {
                    tick_at.get(&tick).copied().unwrap_or_else(|| us(arrived))
                });
            }
            let c = &lab.clients[n];
            let totals = c.totals(0.0);
            track.observe(
                &mut e,
                us(lab.elapsed()),
                c.driver.session(),
                lab.now(),
                (totals.bytes_in, totals.bytes_out),
            );
        }
        if t >= end {
            break;
        }
    }
    let at = us(replay.at());
    for track in &mut tracks {
        track.finish(&mut e, at);
    }
    if let Some(why) = replay.diverged() {
        anyhow::bail!("{why}");
    }
    Ok(e)
}

#[cfg(test)]
#[path = "trace_tests.rs"]
mod tests;
