//! The course: one row per lesson, each a scenario and its steps (what a step sets up,
//! says, asks and checks). Every number a text quotes comes from the lab's run, marked
//! with [`measured`]; the values a learner is asked to set are in backticks.

use super::watch::{Memo, Setup, Watch, me, server_cell, walker};
use super::{Act, Judge, Lesson, Say, Scenario, Step, Task, Verdict, measured, measured_f};
use super::{rewind, speed_hack};
use crate::client::play::input::Action;
use crate::lab::Lab;
use crate::lab::dials::{AUTO, DIALS, Value};
use crate::net::conditioner::Conditions;
use crate::sim::world::Buttons;

const R: Buttons = Buttons::RIGHT;
const L: Buttons = Buttons::LEFT;
const U: Buttons = Buttons::UP;
const D: Buttons = Buttons::DOWN;
const NONE: Buttons = Buttons::empty();

/// A learner walking about for a few seconds from `t` ms: right, down, left, up.
macro_rules! walk_from {
    ($t:expr) => {
        [
            ($t, Act::Hold(R)),
            ($t + 500, Act::Hold(D)),
            ($t + 900, Act::Hold(L)),
            ($t + 1400, Act::Hold(U)),
            ($t + 1800, Act::Hold(R)),
            ($t + 2300, Act::Hold(D)),
            ($t + 2700, Act::Hold(L)),
            ($t + 3200, Act::Hold(U)),
            ($t + 3600, Act::Hold(NONE)),
        ]
    };
}

const WALK: [(u64, Act); 9] = walk_from!(100);

/// Walking long enough for a loss or two at a few per cent, then standing.
const LOOP_WALK: [(u64, Act); 17] = {
    let a = walk_from!(100);
    let b = walk_from!(3800);
    [
        a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], b[0], b[1], b[2], b[3], b[4], b[5], b[6],
        b[7], b[8],
    ]
};

fn nothing(_: &mut Lab) {}

fn ok(_: &Setup) -> Result<(), String> {
    Ok(())
}

fn dial_index(name: &str) -> usize {
    DIALS
        .iter()
        .position(|d| d.name == name)
        .expect("a dial of that name")
}

/// Client 1's (or the server's) dial `name` now.
fn dial(lab: &Lab, name: &str) -> Value {
    lab.dial(dial_index(name), 0).unwrap_or_default()
}

fn set(lab: &mut Lab, name: &str, v: Value) {
    lab.set_dial(dial_index(name), 0, v);
}

/// Client 1's link loses this share of its datagrams each way, on a LAN otherwise.
fn lossy(lab: &mut Lab, pct: f64) {
    let mut c = Conditions::profile("lan").unwrap_or_default();
    c.loss_pct = pct;
    lab.set_link(0, c.clone(), c);
}

/// What dial `name` is now, and how to turn it.
fn now_is(setup: &Setup, name: &str, keys: &str, to: &str) -> String {
    let d = &DIALS[dial_index(name)];
    let v = match (name, setup.dial(name)) {
        ("input buffer", 0) => "the credit queue".to_owned(),
        (_, v) => crate::lab::dials::show(d, v),
    };
    format!("the {name} is {}: {}", measured(v), turn(name, keys, to))
}

/// How to turn dial `name` with `keys` to `to`: `k` chooses the next dial, and the
/// bottom line names the one chosen. The first dial is chosen when the lab opens, so
/// for it the keys come first (a `k` would go round every dial).
fn turn(name: &str, keys: &str, to: &str) -> String {
    if name == DIALS[0].name {
        format!(
            "`{keys}` to `{to}`: the {name} is the dial chosen when the lab opens, and after a `k` it is `k` until the bottom line says `dial: {name}` again"
        )
    } else {
        format!("`k` until the bottom line says `dial: {name}`, then `{keys}` to `{to}`")
    }
}

fn rtt(lab: &Lab) -> f64 {
    lab.figures(0).rtt_ms
}

/// The snapshot period, ms.
fn period_ms(lab: &Lab) -> f64 {
    lab.session(0).snapshot_period() * 1000.0
}

fn interp_ms(lab: &Lab) -> f64 {
    lab.session(0).interp_delay_secs() * 1000.0
}

fn glyph(id: crate::sim::world::PlayerId) -> char {
    crate::ui::player_glyph(id)
}

/// "column X, row Y" of a position in cells.
fn cell_text((x, y): (f64, f64)) -> String {
    format!(
        "column {}, row {}",
        measured_f(x.floor(), 0),
        measured_f(y.floor(), 0)
    )
}

/// "column X.x, row Y.y": to tell apart two places in one cell.
fn fine_cell((x, y): (f64, f64)) -> String {
    format!("column {}, row {}", measured_f(x, 1), measured_f(y, 1))
}

fn secs(w: &Watch) -> String {
    measured_f(w.elapsed().as_secs_f64(), 1)
}

/// The judge's answer until the learner has walked a little.
fn walked(w: &Watch) -> Result<(), Verdict> {
    if w.moved < 2.0 {
        return Err(Verdict::NotYet(
            "now walk with `WASD` (the server has hardly moved client 1 yet)".to_owned(),
        ));
    }
    Ok(())
}

// Lesson 1: latency and the dumb client.

fn l1_look(lab: &Lab) -> Vec<String> {
    let me = me(lab);
    let at = server_cell(lab, me).unwrap_or_default();
    let w = walker(lab).map_or('?', glyph);
    vec![
        format!(
            "Client 1 plays over a `bad` link: its round trip measures {} ms (`rtt` on its pane's bottom line, timed by the server echoing the client's own clock). The left view is the server's: the truth. The right view is what client 1's player sees.",
            measured_f(rtt(lab), 0)
        ),
        format!(
            "Client 1 is `{}` at {} of the server view, and `@` in its own; the walker `{w}` strolls on its own.",
            glyph(me),
            cell_text(at)
        ),
    ]
}

fn l1_ask(_: &Lab) -> Vec<String> {
    vec![
        "Make client 1 a dumb client: press `p` (prediction off). Then walk with `WASD` and watch when its `@` moves.".to_owned(),
    ]
}

fn l1_wants(setup: &Setup) -> Result<(), String> {
    if setup.switches.prediction {
        return Err("client 1 still predicts: press `p`".to_owned());
    }
    Ok(())
}

fn l1_judge(w: &Watch, _: &mut Memo) -> Verdict {
    if let Err(v) = walked(w) {
        return v;
    }
    let (Some(key), Some(moved)) = (w.key_at, w.drawn_moved_at) else {
        return Verdict::NotYet("press a key of `WASD` and hold it".to_owned());
    };
    let delay = moved.saturating_duration_since(key).as_secs_f64() * 1000.0;
    if delay < w.rtt_ms / 2.0 {
        return Verdict::Again(format!(
            "the `@` moved {} ms after the key, sooner than a round trip of {} ms allows: it was predicted; press `p` and walk again",
            measured_f(delay, 0),
            measured_f(w.rtt_ms, 0)
        ));
    }
    let tick = 1000.0 / f64::from(w.tick_rate);
    let gap = delay - w.rtt_ms;
    // Waits a round trip does not time: the key for the client's next command, the
    // command for its tick on the server (after the input buffer), the answer for the
    // next snapshot.
    let waits = 2.0 * tick + f64::from(w.buffer_ticks) * tick + w.period_ms;
    let why = if gap >= 0.0 {
        let jitter = if gap > waits {
            format!(
                ", and {} ms this trip's jitter (the link's measures {} ms)",
                measured_f(gap - waits, 0),
                measured_f(w.jitter_ms, 0)
            )
        } else {
            String::new()
        };
        format!(
            "the {} ms more: up to a tick ({} ms) for the key's command, {} ticks in the server's input buffer and up to one more for its tick, up to a snapshot period ({} ms) for the answer's snapshot{jitter}",
            measured_f(gap, 0),
            measured_f(tick, 1),
            measured(w.buffer_ticks),
            measured_f(w.period_ms, 0)
        )
    } else {
        format!(
            "{} ms less: the jittery link carried this key's round trip quicker than the measured one, a median of the last few",
            measured_f(-gap, 0)
        )
    };
    Verdict::Pass(vec![
        format!(
            "Client 1's `@` moved {} ms after your key: a dumb client draws only what the server said, so every step waits for the round trip, which measures {} ms; {why}.",
            measured_f(delay, 0),
            measured_f(w.rtt_ms, 0)
        ),
        format!(
            "Up to {} commands were sent and not yet answered (`pend`). Press `p` again to predict: the next lesson.",
            measured(w.max_pending)
        ),
    ])
}

// Lesson 2: prediction and reconciliation.

fn l2_ask(lab: &Lab) -> Vec<String> {
    vec![
        format!(
            "Walk with `WASD`. Client 1 predicts: it moves its `@` at once with the same rules the server runs, though the server hears of each move about {} ms later. The dumb client of the first lesson was conservative (it showed only what the server confirmed); prediction is optimistic (it shows the move now and corrects it if the server disagrees).",
            measured_f(rtt(lab) / 2.0, 0)
        ),
        "Compare `sent #` on client 1's status line with `acked: c1 #` under the server view: the moves between them are saved, waiting for the server's word. `pend` counts more: it counts from the number acknowledged in the newest snapshot client 1 has, which left the server half a round trip ago, while `acked` is the server's now.".to_owned(),
    ]
}

fn l2_judge(w: &Watch, memo: &mut Memo) -> Verdict {
    if let Err(v) = walked(w) {
        return v;
    }
    let (corr, snaps) = (w.corrections(), w.snapshots());
    if corr * 2 > snaps {
        return Verdict::Again(format!(
            "{} of {} snapshots needed a correction: the prediction disagreed with the server most of the time; walk again",
            measured(corr),
            measured(snaps)
        ));
    }
    memo.keep("pending", f64::from(w.max_pending));
    Verdict::Pass(vec![
        format!(
            "While you walked, up to {} moves were saved and unacknowledged, each under its command number in a ring. Each snapshot acknowledged a number and gave the server's position after it: the client dropped the saved moves up to it and replayed the rest from there.",
            measured(w.max_pending)
        ),
        format!(
            "{} of {} snapshots needed a correction: the replay landed where the prediction already was.",
            measured(corr),
            measured(snaps)
        ),
    ])
}

fn l2_ghost_ask(_: &Lab) -> Vec<String> {
    vec![
        "Press `g` for the ghost: an `o` where the server last had client 1 (a debug switch). Walk again and watch how far it trails your `@`.".to_owned(),
    ]
}

fn l2_ghost_wants(setup: &Setup) -> Result<(), String> {
    if !setup.switches.ghosts.server() {
        return Err("no ghost yet: press `g`".to_owned());
    }
    Ok(())
}

fn l2_ghost_judge(w: &Watch, memo: &mut Memo) -> Verdict {
    if let Err(v) = walked(w) {
        return v;
    }
    let saved = memo
        .get("pending")
        .map_or_else(String::new, |p| format!(" ({} saved moves)", measured(p)));
    // The ghost is where the server had client 1 when it sent the newest snapshot: a
    // round trip behind the key, the commands' wait in the input buffer, and on average
    // half a snapshot period for the snapshot's turn; at most a whole period, and the
    // link's jitter each way (its mean deviation, about half its widest swing, twice).
    let speed = walk_cells_per_sec(w.tick_rate);
    let tick = 1000.0 / f64::from(w.tick_rate);
    let buffer = f64::from(w.buffer_ticks) * tick;
    let typical = speed * (w.rtt_ms + buffer + w.period_ms / 2.0) / 1000.0;
    let longest = speed * (w.rtt_ms + buffer + w.period_ms + tick + 4.0 * w.jitter_ms) / 1000.0;
    if w.max_gap > longest + 0.5 {
        return Verdict::Again(format!(
            "the ghost trailed by {} cells, more than the walk of a round trip, the input buffer, a snapshot period and the jitter ({} cells) explains; walk again",
            measured_f(w.max_gap, 1),
            measured_f(longest, 1)
        ));
    }
    Verdict::Pass(vec![format!(
        "The ghost trailed your `@` by up to {} cells{saved}. At {} cells a second, the round trip of {} ms, {} ms in the server's input buffer and half a snapshot period make {} cells; the longest trail adds the rest of the period ({} ms) and the link's jitter ({} ms): {} cells. That is how far ahead prediction draws you, and what reconciliation keeps honest.",
        measured_f(w.max_gap, 1),
        measured_f(speed, 0),
        measured_f(w.rtt_ms, 0),
        measured_f(buffer, 0),
        measured_f(typical, 1),
        measured_f(w.period_ms, 0),
        measured_f(w.jitter_ms, 0),
        measured_f(longest, 1)
    )])
}

/// How fast a player walks, in cells a second, at this tick rate.
fn walk_cells_per_sec(tick_rate: u16) -> f64 {
    let speed = crate::sim::step::Rulebook::for_tick_rate(tick_rate)
        .movement
        .speed;
    f64::from(speed) * f64::from(tick_rate) / f64::from(crate::sim::map::CELL)
}

// Lesson 3: the correction loop.

/// Lesson 3's link: this loss each way, and enough delay (50 ms each way) that a few
/// commands are always in flight, which is what the correction loop feeds on.
fn far_lossy(lab: &mut Lab, pct: f64) {
    let mut c = Conditions::profile("lan").unwrap_or_default();
    c.loss_pct = pct;
    c.latency_ms = 50;
    lab.set_link(0, c.clone(), c);
    set(lab, "redundancy", 1);
}

fn l3_setup(lab: &mut Lab) {
    far_lossy(lab, 5.0);
}

fn l3_ask(lab: &Lab) -> Vec<String> {
    vec![
        format!(
            "Client 1's link now takes {} ms each way and loses {}% of its packets, and each command rides in {} packet (redundancy): a lost packet takes its commands with it, the server never applies them, and client 1 is corrected (`corr`).",
            measured(lab.link(0, crate::lab::Way::Up).latency_ms),
            measured(lab.link(0, crate::lab::Way::Up).loss_pct),
            measured(dial(lab, "redundancy"))
        ),
        "The movement-corrections article's bug was a client that kept correcting while it moved and stopped only when it stood. Walk until `corr` counts up, then let go of the keys for a second.".to_owned(),
    ]
}

fn l3_judge(w: &Watch, _: &mut Memo) -> Verdict {
    let corr = w.corrections();
    if corr == 0 {
        return Verdict::NotYet("walk with `WASD` until `corr` counts up".to_owned());
    }
    let Some((stood, after)) = w.standing() else {
        return Verdict::NotYet(format!(
            "{} corrections so far: now stand still (let go of the keys)",
            measured(corr)
        ));
    };
    if stood < 1.0 {
        return Verdict::NotYet("keep standing still".to_owned());
    }
    let (sent, lost) = w.packets_up();
    if let Some(looping) = looping(corr, lost) {
        return Verdict::Again(looping);
    }
    Verdict::Pass(vec![
        format!(
            "While you walked, {} of {} input packets were lost, and with them {} commands the server never received (the lane's `lost`); client 1 was corrected {} times, each time replaying the moves after the acknowledged one. Standing still for {} s: {} corrections. No loop.",
            measured(lost),
            measured(sent),
            measured(w.commands_lost()),
            measured(corr),
            measured_f(stood, 1),
            measured(after)
        ),
        "Every command has a number: the server applies each once, and the client replays exactly those not yet acknowledged, so one correction never causes the next. Here the client finds the mismatch, comparing its saved move with each snapshot; the alternative is server-side detection: the client sends where it predicted itself, and the server corrects it only when that is wrong.".to_owned(),
    ])
}

/// The correction loop's mark, or None: more corrections than lost input packets, so
/// some came with no new loss behind them (each correction of the fixed client needs a
/// command the server never got; the loop corrects on every snapshot while it moves).
fn looping(corrections: u64, lost_packets: u64) -> Option<String> {
    (corrections > lost_packets).then(|| {
        format!(
            "{} corrections for {} lost input packets: client 1 was corrected again with no new loss behind it, the correction loop; walk and stand again",
            measured(corrections),
            measured(lost_packets)
        )
    })
}

/// Lab B's setting in lesson 3's A/B step: the article's bug put back.
const LOOP_BUG: &str = "correction-loop=on";

/// Client 1 of the A/B step loses few packets: one loss, then the bug's loop.
fn l3_rare_loss(lab: &mut Lab) {
    far_lossy(lab, 3.0);
}

fn l3_ab_ask(a: &Lab, _: &Lab) -> Vec<String> {
    vec![
        format!(
            "An A/B run (`lab --compare {LOOP_BUG}`): client 1 loses {}% of its input packets in both labs. On the right the article's bug is back: on a correction, client 1 drops the commands in flight instead of replaying them, though the server still applies them.",
            measured(a.link(0, crate::lab::Way::Up).loss_pct)
        ),
        "Walk until `corr` counts up on the right, then let go of the keys for a second."
            .to_owned(),
    ]
}

fn l3_ab_judge(w: &Watch, wb: &Watch, _: &mut Memo) -> Verdict {
    let (corr_b, (_, lost_b)) = (wb.corrections(), wb.packets_up());
    if w.moved < 2.0 || looping(corr_b, lost_b).is_none() {
        return Verdict::NotYet(
            "walk with `WASD` until the right-hand client is corrected more often than it loses packets".to_owned(),
        );
    }
    let Some((stood, _)) = w.standing() else {
        return Verdict::NotYet("now stand still (let go of the keys)".to_owned());
    };
    if stood < 1.0 {
        return Verdict::NotYet("keep standing still".to_owned());
    }
    let corr_a = w.corrections();
    let (_, lost_a) = w.packets_up();
    if let Some(looping) = looping(corr_a, lost_a) {
        return Verdict::Again(format!("on the left: {looping}"));
    }
    Verdict::Pass(vec![format!(
        "Left, as netarena does: {} corrections for {} lost input packets, each one a command the server never got. Right, with the bug: {} corrections for {} lost packets: one correction left the prediction without the commands in flight, the server applied them, so the next snapshot disagreed again, until you stood still. The fix: clear what was in flight from the old guess and replay the unacknowledged commands on the server's state.",
        measured(corr_a),
        measured(lost_a),
        measured(corr_b),
        measured(lost_b)
    )])
}

// Lesson 4: redundancy and loss.

fn l4_setup(lab: &mut Lab) {
    lossy(lab, 20.0);
}

fn l4_ask(lab: &Lab) -> Vec<String> {
    vec![format!(
        "Client 1's link loses {}% of its packets (the red `×` on its lane). Each command rides in {} input packets (redundancy), so a lost packet's commands come in a later one. Turn that down to one copy: {}. Then walk.",
        measured(lab.link(0, crate::lab::Way::Up).loss_pct),
        measured(dial(lab, "redundancy")),
        turn("redundancy", "[", "1")
    )]
}

fn l4_wants(setup: &Setup) -> Result<(), String> {
    match setup.dial("redundancy") {
        1 => Ok(()),
        r => Err(format!(
            "redundancy is {}: {}",
            measured(r),
            turn("redundancy", "[", "1")
        )),
    }
}

fn l4_judge(w: &Watch, memo: &mut Memo) -> Verdict {
    if let Err(v) = walked(w) {
        return v;
    }
    let corr = w.corrections();
    if corr == 0 {
        return Verdict::NotYet("keep walking: no command lost yet".to_owned());
    }
    let (sent, lost) = w.packets_up();
    if lost == 0 {
        return Verdict::Again(format!(
            "{} corrections with no input packet lost: something else disagreed; walk again",
            measured(corr)
        ));
    }
    memo.keep("corrections", corr as f64);
    Verdict::Pass(vec![format!(
        "{} of {} input packets were lost, and with their one copy {} commands the server never received (the lane's `lost`): it never applied those moves, and client 1 was corrected {} times.",
        measured(lost),
        measured(sent),
        measured(w.commands_lost()),
        measured(corr)
    )])
}

fn l4_again_setup(lab: &mut Lab) {
    lossy(lab, 20.0);
    set(lab, "redundancy", 1);
}

fn l4_again_ask(_: &Lab) -> Vec<String> {
    vec!["Now turn the redundancy up (`]`) to `8` or more and walk the same way.".to_owned()]
}

fn l4_again_wants(setup: &Setup) -> Result<(), String> {
    match setup.dial("redundancy") {
        r if r >= 8 => Ok(()),
        r => Err(format!(
            "redundancy is {}: {}",
            measured(r),
            turn("redundancy", "]", "8")
        )),
    }
}

fn l4_again_judge(w: &Watch, memo: &mut Memo) -> Verdict {
    if let Err(v) = walked(w) {
        return v;
    }
    let (sent, lost) = w.packets_up();
    if lost == 0 {
        return Verdict::NotYet("keep walking: nothing lost yet".to_owned());
    }
    let corr = w.corrections();
    if corr > 0 {
        return Verdict::Again(format!(
            "{} corrections: a run of losses longer than the redundancy covers; walk on",
            measured(corr)
        ));
    }
    let before = memo.get("corrections").map_or_else(String::new, |c| {
        format!(" (one copy: {} corrections)", measured(c))
    });
    Verdict::Pass(vec![format!(
        "{} of {} packets lost, {} commands never received, {} corrections{before}: each command rode in {} packets, so the next one to arrive brought the lost ones. Redundant inputs trade a few bytes for loss.",
        measured(lost),
        measured(sent),
        measured(w.commands_lost()),
        measured(corr),
        measured(w.setup.dial("redundancy"))
    )])
}

// Lesson 5: interpolation and the packet period.

fn l5_look(lab: &Lab) -> Vec<String> {
    let s = lab.session(0);
    let Some(w) = walker(lab) else {
        return vec!["The walker has not joined.".to_owned()];
    };
    let truth = server_cell(lab, w).unwrap_or_default();
    let drawn = s.remote_position(w, lab.now()).unwrap_or_default();
    let cell = f64::from(crate::sim::map::CELL);
    let drawn = (drawn.0 / cell, drawn.1 / cell);
    vec![
        format!(
            "The walker `{}`: the server has it at {} (left view); client 1 draws it at {} (right view), {} cells behind: where it was {} ms ago, client 1's interpolation delay.",
            glyph(w),
            fine_cell(truth),
            fine_cell(drawn),
            measured_f((truth.0 - drawn.0).hypot(truth.1 - drawn.1), 1),
            measured_f(interp_ms(lab), 0)
        ),
        format!(
            "Client 1 draws others between two snapshots it already has. A snapshot comes every {} ms (the packet period), so it stays more than one period behind; {} snapshots are buffered ahead of what it draws now.",
            measured_f(period_ms(lab), 0),
            measured(s.buffered_ahead(lab.now()))
        ),
    ]
}

fn l5_off_ask(_: &Lab) -> Vec<String> {
    vec![format!(
        "Press `i` to turn client 1's interpolation off, and lower the snapshot rate to `5 Hz` or less ({}). Watch the walker in client 1's view.",
        turn("snapshot rate", "[", "5 Hz")
    )]
}

fn l5_off_wants(setup: &Setup) -> Result<(), String> {
    if setup.switches.interpolation {
        return Err("client 1 still interpolates: press `i`".to_owned());
    }
    match setup.dial("snapshot rate") {
        r if r <= 5 => Ok(()),
        r => Err(format!(
            "snapshots come at {} Hz: {}",
            measured(r),
            turn("snapshot rate", "[", "5 Hz")
        )),
    }
}

fn l5_off_judge(w: &Watch, memo: &mut Memo) -> Verdict {
    let Some(cv) = w.motion_cv else {
        return Verdict::NotYet("waiting for the walker to walk straight".to_owned());
    };
    if cv < 0.8 {
        return Verdict::NotYet(format!(
            "the walker's drawn speed varies by {} of its mean: not jumpy yet",
            measured_f(cv, 2)
        ));
    }
    memo.keep("cv_off", cv);
    Verdict::Pass(vec![format!(
        "The walker jumped: its drawn speed varied by {} of its mean over {} s (`remote_motion_cv`; `0` is even). It stood still for {} ms between snapshots, then jumped to the newest.",
        measured_f(cv, 2),
        secs(w),
        measured_f(w.period_ms, 0)
    )])
}

fn slow_snapshots(lab: &mut Lab) {
    set(lab, "snapshot rate", 5);
}

fn l5_short_ask(_: &Lab) -> Vec<String> {
    vec![format!(
        "Snapshots come slowly now, and interpolation is back on. Set the interpolation delay to half a period ({}): then there is often no next snapshot to move toward.",
        turn("interpolation delay", "[", "0.5 x period")
    )]
}

fn l5_short_wants(setup: &Setup) -> Result<(), String> {
    match setup.dial("interpolation delay") {
        v if v <= 5 => Ok(()),
        _ => Err(now_is(setup, "interpolation delay", "[", "0.5 x period")),
    }
}

fn l5_short_judge(w: &Watch, _: &mut Memo) -> Verdict {
    let dry = w.underruns();
    if dry == 0 {
        return Verdict::NotYet("watching for interpolation to run dry".to_owned());
    }
    Verdict::Pass(vec![format!(
        "Interpolation ran dry {} times in {} s: drawing {} ms behind, it passed the newest snapshot before the next came ({} ms apart), and had one snapshot, not two, to draw from. One full period behind is the least that always has two.",
        measured(dry),
        secs(w),
        measured_f(w.interp_ms, 0),
        measured_f(w.period_ms, 0)
    )])
}

fn short_delay(lab: &mut Lab) {
    slow_snapshots(lab);
    set(lab, "interpolation delay", 5);
}

fn l5_long_ask(_: &Lab) -> Vec<String> {
    vec![format!(
        "Now raise the interpolation delay to two periods or more ({}).",
        turn("interpolation delay", "]", "2.0 x period")
    )]
}

fn l5_long_wants(setup: &Setup) -> Result<(), String> {
    match setup.dial("interpolation delay") {
        v if v >= 20 => Ok(()),
        _ => Err(now_is(setup, "interpolation delay", "]", "2.0 x period")),
    }
}

fn l5_long_judge(w: &Watch, _: &mut Memo) -> Verdict {
    let dry = w.underruns();
    let target = f64::from(w.setup.dial("interpolation delay")) / 10.0 * w.period_ms;
    if dry > 0 && w.interp_ms < 0.95 * target {
        return Verdict::Again(format!(
            "ran dry {} times while the delay eased up ({} ms of {} ms so far, a step each snapshot): watching again from now",
            measured(dry),
            measured_f(w.interp_ms, 0),
            measured_f(target, 0)
        ));
    }
    if dry > 0 {
        return Verdict::Again(format!(
            "ran dry {} times at {} ms behind: the delay is still too short",
            measured(dry),
            measured_f(w.interp_ms, 0)
        ));
    }
    let cv = w
        .motion_cv
        .map_or_else(|| "not measured".to_owned(), |cv| measured_f(cv, 2));
    Verdict::Pass(vec![format!(
        "Dry {} times in {} s; the walker's drawn speed varies by {cv}. Two periods behind, a third snapshot is usually on its way: one late or lost still leaves two to draw between (the movement-corrections article keeps three). The price: others are drawn {} ms in the past.",
        measured(dry),
        secs(w),
        measured_f(w.interp_ms, 0)
    )])
}

// Lesson 6: dead reckoning and correction styles.

fn l6_ask(lab: &Lab) -> Vec<String> {
    vec![format!(
        "Press `x`: dead reckoning. Client 1 then draws the walker where its last known velocity puts it now, not {} ms in the past. Watch it overshoot when the walker turns.",
        measured_f(interp_ms(lab), 0)
    )]
}

fn extrapolating(setup: &Setup) -> Result<(), String> {
    if !setup.switches.extrapolation {
        return Err("client 1 does not extrapolate: press `x`".to_owned());
    }
    Ok(())
}

fn l6_judge(w: &Watch, _: &mut Memo) -> Verdict {
    let (guessed, all) = w.frames_extrapolated();
    if guessed == 0 {
        return Verdict::NotYet("no frame extrapolated yet".to_owned());
    }
    Verdict::Pass(vec![format!(
        "{} of {} frames drew the walker guessed forward; the guess was up to {} cells from where the server had it. Each snapshot corrects the guess: how the drawing gets there is the correction style.",
        measured(guessed),
        measured(all),
        measured_f(w.walker_gap, 1)
    )])
}

fn dead_reckoning(lab: &mut Lab) {
    lab.act(0, Action::ToggleExtrapolation);
}

fn l6_snap_ask(_: &Lab) -> Vec<String> {
    vec![format!(
        "Dead reckoning is on. Set the correction style to snap ({}): a wrong guess jumps onto the snapshot.",
        turn("correction style", "[", "snap")
    )]
}

fn style_wants(setup: &Setup, want: Value, name: &str) -> Result<(), String> {
    extrapolating(setup)?;
    if setup.dial("correction style") != want {
        return Err(format!(
            "`k` to the correction style, then turn it to `{name}`"
        ));
    }
    Ok(())
}

fn l6_snap_judge(w: &Watch, memo: &mut Memo) -> Verdict {
    if w.walker_jumps == 0 {
        return Verdict::NotYet(
            "no jump yet: watch the walker turn while it is guessed forward".to_owned(),
        );
    }
    memo.keep("jumps", w.walker_jumps as f64);
    Verdict::Pass(vec![format!(
        "With snap, the walker's drawing jumped {} times in {} s (half a cell or more at once), each time onto a snapshot that disagreed with the guess, which was off by up to {} cells.",
        measured(w.walker_jumps),
        secs(w),
        measured_f(w.walker_gap, 1)
    )])
}

fn snapping(lab: &mut Lab) {
    dead_reckoning(lab);
    set(lab, "correction style", 0);
}

fn l6_blend_ask(_: &Lab) -> Vec<String> {
    vec!["Now turn the correction style up (`]`) to `blend`.".to_owned()]
}

fn l6_blend_judge(w: &Watch, memo: &mut Memo) -> Verdict {
    if let Some(snap) = memo.get("jumps")
        && w.walker_jumps as f64 >= snap
    {
        return Verdict::Again(format!(
            "blend jumped {} times, as often as snap ({}): watching again",
            measured(w.walker_jumps),
            measured(snap)
        ));
    }
    let snap = memo.get("jumps").map_or_else(
        || "not measured in this run".to_owned(),
        |j| format!("{} jumps", measured(j)),
    );
    Verdict::Pass(vec![format!(
        "With blend, the same walker on the same path: {} jumps in {} s (snap: {snap}), off by up to {} cells. Snap moves the position at once; smooth closes the gap but its speed jumps; blend (projective velocity blending) changes neither at once: the second-order correction of the latency article.",
        measured(w.walker_jumps),
        secs(w),
        measured_f(w.walker_gap, 1)
    )])
}

// Lesson 7: tick rate, frame rate, update rate.

fn l7_look(lab: &Lab) -> Vec<String> {
    let secs = lab.elapsed().as_secs_f64().max(0.001);
    let tick = lab.server().world().tick;
    let snaps = lab.session(0).stats().snapshots_received as f64;
    vec![
        format!(
            "Three rates. The tick rate: the server ran {} ticks in {} s, {} a second (the top line counts them); each tick is one step of the rules for everyone. The lab's tick-rate dial (`k`) changes it live.",
            measured(tick),
            measured_f(secs, 1),
            measured_f(f64::from(tick) / secs, 0)
        ),
        format!(
            "The frame rate (`fps`, top line) is how often this screen is drawn: many frames may fall between two ticks. The update rate is how often snapshots come: client 1 received {} a second.",
            measured_f(snaps / secs, 0)
        ),
    ]
}

fn l7_snap_ask(_: &Lab) -> Vec<String> {
    vec![format!(
        "Set the snapshot rate, the update rate, to ten a second: {}.",
        turn("snapshot rate", "[", "10 Hz")
    )]
}

fn l7_snap_wants(setup: &Setup) -> Result<(), String> {
    match setup.dial("snapshot rate") {
        10 => Ok(()),
        r => Err(format!(
            "the snapshot rate is {} Hz: {}",
            measured(r),
            turn("snapshot rate", "[ ]", "10 Hz")
        )),
    }
}

fn l7_snap_judge(w: &Watch, _: &mut Memo) -> Verdict {
    let n = w.snapshots();
    let t = w.ticks();
    let s = w.elapsed().as_secs_f64();
    if n == 0 {
        return Verdict::NotYet("no snapshot yet".to_owned());
    }
    let asked = f64::from(w.setup.dial("snapshot rate"));
    if (n as f64 / s - asked).abs() > 0.3 * asked {
        return Verdict::Again(format!(
            "{} snapshots a second came, not the {} asked: watching again",
            measured_f(n as f64 / s, 1),
            measured(asked)
        ));
    }
    Verdict::Pass(vec![format!(
        "Client 1 received {} snapshots in {} s, {} a second, while the server ran {} ticks: one snapshot every {} ticks. Fewer updates cost less bandwidth and draw others further in the past (interpolation delay now {} ms).",
        measured(n),
        measured_f(s, 1),
        measured_f(n as f64 / s, 1),
        measured(t),
        measured_f(f64::from(t) / n as f64, 1),
        measured_f(w.interp_ms, 0)
    )])
}

fn l7_input_ask(_: &Lab) -> Vec<String> {
    vec![format!(
        "Set client 1's input rate to ten packets a second ({}), and walk with `WASD`.",
        turn("input rate", "[", "10 Hz")
    )]
}

fn l7_input_wants(setup: &Setup) -> Result<(), String> {
    match setup.dial("input rate") {
        10 => Ok(()),
        r => Err(format!(
            "client 1's input rate is {} Hz: {}",
            measured(r),
            turn("input rate", "[", "10 Hz")
        )),
    }
}

fn l7_input_judge(w: &Watch, _: &mut Memo) -> Verdict {
    if let Err(v) = walked(w) {
        return v;
    }
    let (sent, _) = w.packets_up();
    let cmds = w.commands();
    if sent == 0 {
        return Verdict::NotYet("no input packet yet".to_owned());
    }
    let rate = sent as f64 / w.elapsed().as_secs_f64().max(0.001);
    let asked = f64::from(w.setup.dial("input rate"));
    if rate > 1.5 * asked + 3.0 {
        return Verdict::Again(format!(
            "{} input packets a second went, far above the {} asked (key changes go at once, but not that many): watching again",
            measured_f(rate, 1),
            measured(asked)
        ));
    }
    let (n, text) = applied_text(w);
    let buffer = match w.setup.dial("input buffer") {
        0 => "the credit queue applies a packet's commands as they come, so they land together",
        _ => {
            "its input buffer holds them and applies one a tick, catching a late one up with a second on a tick"
        }
    };
    Verdict::Pass(vec![format!(
        "Client 1 sent {} input packets in {} s carrying {} commands: still one command a tick, batched about {} to a packet. Keys are sampled once a tick into a command, which alone adds up to a tick of latency; a key change makes the next command at once, so its first step does not wait. The movement-corrections article batches the same way. On the server, of {} ticks {text} (the lane's digits): {buffer}.",
        measured(sent),
        secs(w),
        measured(cmds),
        measured_f(cmds as f64 / sent as f64, 1),
        measured(n)
    )])
}

/// Lab B's setting in lesson 7's A/B step.
const HALF_RATE: &str = "snapshot-rate=10";

fn l7_ab_ask(a: &Lab, b: &Lab) -> Vec<String> {
    vec![
        format!(
            "An A/B run from one seed (`lab --compare {HALF_RATE}`): on the left lab A sends {} snapshots a second, on the right lab B {}; all else is alike. Client 1 draws the walker {} ms in the past on the left, {} ms on the right: interpolation waits for the next snapshot.",
            measured(dial(a, "snapshot rate")),
            measured(dial(b, "snapshot rate")),
            measured_f(interp_ms(a), 0),
            measured_f(interp_ms(b), 0)
        ),
        "Press `i`: your keys act on both labs, so interpolation goes off in both. Watch the walker in the two client views.".to_owned(),
    ]
}

fn interpolation_off(setup: &Setup) -> Result<(), String> {
    if setup.switches.interpolation {
        return Err("client 1 still interpolates: press `i`".to_owned());
    }
    Ok(())
}

fn l7_ab_judge(w: &Watch, wb: &Watch, _: &mut Memo) -> Verdict {
    let (Some(cv_a), Some(cv_b)) = (w.motion_cv, wb.motion_cv) else {
        return Verdict::NotYet("waiting for the walker to walk straight in both labs".to_owned());
    };
    if cv_b <= cv_a {
        return Verdict::NotYet(format!(
            "the walker's drawn speed varies by {} on the left and {} on the right: not yet more unevenly on the slower side",
            measured_f(cv_a, 2),
            measured_f(cv_b, 2)
        ));
    }
    let which = "the slower updates drew it the more unevenly";
    Verdict::Pass(vec![format!(
        "Without interpolation the walker moves only when a snapshot comes, then stands. Over {} s its drawn speed varied by {} of its mean on the left, a snapshot every {} ms, and by {} on the right, every {} ms (`remote_motion_cv`; `0` is even): {which}. The update rate sets how far apart the steps are.",
        secs(w),
        measured_f(cv_a, 2),
        measured_f(w.period_ms, 0),
        measured_f(cv_b, 2),
        measured_f(wb.period_ms, 0)
    )])
}

// Lesson 8: the server's input buffer and speed hacks.

fn credit(lab: &mut Lab) {
    set(lab, "input buffer", 0);
}

fn l8_ask(_: &Lab) -> Vec<String> {
    vec![
        "The server applies client 1's commands as they come (the credit queue). Walk with `WASD` and watch the right end of its lane: the digits are commands applied on each of the last ticks.".to_owned(),
    ]
}

fn applied_text(w: &Watch) -> (u64, String) {
    let [z, o, t] = w.applied;
    (
        z + o + t,
        format!(
            "{} applied none, {} one, {} two or more",
            measured(z),
            measured(o),
            measured(t)
        ),
    )
}

fn l8_judge(w: &Watch, memo: &mut Memo) -> Verdict {
    if let Err(v) = walked(w) {
        return v;
    }
    let (sent, _) = w.packets_up();
    let (n, text) = applied_text(w);
    if w.applied[0] == 0 || w.applied[2] == 0 {
        return Verdict::NotYet(format!(
            "of {} ticks so far, {text}: no tick without a command and one with two yet",
            measured(n)
        ));
    }
    memo.keep("one", w.applied[1] as f64 / n.max(1) as f64);
    Verdict::Pass(vec![format!(
        "Of {} ticks, {text}: each input packet brings about {} commands at once (batching: {} packets for {} commands), and the credit queue applies them as they come, so on some ticks client 1 takes two steps on the server and on others none, and others see it so. Jitter bunches packets further.",
        measured(n),
        measured_f(w.commands() as f64 / sent.max(1) as f64, 1),
        measured(sent),
        measured(w.commands())
    )])
}

fn l8_buffer_ask(_: &Lab) -> Vec<String> {
    vec![format!(
        "Set the input buffer to three ticks or more ({}), and walk again.",
        turn("input buffer", "]", "3")
    )]
}

fn l8_buffer_wants(setup: &Setup) -> Result<(), String> {
    match setup.dial("input buffer") {
        v if (3..AUTO).contains(&v) => Ok(()),
        _ => Err(now_is(setup, "input buffer", "]", "3")),
    }
}

fn l8_buffer_judge(w: &Watch, memo: &mut Memo) -> Verdict {
    if let Err(v) = walked(w) {
        return v;
    }
    let (n, text) = applied_text(w);
    let one = w.applied[1] as f64 / n.max(1) as f64;
    if one < 0.8 {
        return Verdict::NotYet(format!("of {} ticks so far, {text}", measured(n)));
    }
    let depth = w.setup.dial("input buffer");
    let tick_ms = 1000.0 / f64::from(w.tick_rate);
    let before = memo.get("one").map_or_else(String::new, |b| {
        format!(" (credit queue: {}%)", measured_f(b * 100.0, 0))
    });
    let dropped = w.buffer_dropped;
    Verdict::Pass(vec![format!(
        "Of {} ticks, {text}: {}% with one command{before}. The buffer waits {} ticks, {} ms of latency, to even out arrival. It also stops speed hacks: one command a tick whatever arrives, so a client sending faster than the tick rate gains nothing ({} commands pushed out of a full buffer so far).",
        measured(n),
        measured_f(one * 100.0, 0),
        measured(depth),
        measured_f(f64::from(depth) * tick_ms, 0),
        measured(dropped)
    )])
}

// Lesson 9: lag compensation and its bound.

fn l9_ask(_: &Lab) -> Vec<String> {
    vec![
        "Press `2` for the rail gun, then hit the walker: when it is in line with you (a row, a column or a diagonal, no wall between), face it (`Shift` and a direction) and press `space`. Watch the server view.".to_owned(),
    ]
}

fn lag_comp_on(setup: &Setup) -> Result<(), String> {
    if setup.dial("lag compensation") == 0 {
        return Err(format!(
            "lag compensation is off: {}",
            turn("lag compensation", "]", "on")
        ));
    }
    Ok(())
}

fn rail_ms(w: &Watch, ticks: u16) -> f64 {
    f64::from(ticks) * 1000.0 / f64::from(w.tick_rate)
}

fn l9_judge(w: &Watch, memo: &mut Memo) -> Verdict {
    let Some(shot) = w.rails.last() else {
        return Verdict::NotYet("fire the rail: `2`, then `space`".to_owned());
    };
    if shot.rewound_ticks == 0 {
        return Verdict::Again("that shot was not rewound: fire again".to_owned());
    }
    // A miss shows no tested hitbox against the real position, which is the point.
    if shot.hit.is_none() {
        return Verdict::Again(
            "that shot missed: face the walker (`Shift` and a direction) when it is in line with you, and fire again".to_owned(),
        );
    }
    let back = rail_ms(w, shot.rewound_ticks);
    memo.keep("rewound", back);
    let hit = " It hit what you saw: the server view shows `▢` where the walker was tested and `◆` where it really was.";
    let buffer = rail_ms(w, u16::try_from(w.buffer_ticks).unwrap_or(u16::MAX));
    Verdict::Pass(vec![format!(
        "The server rewound the others {} ticks, {} ms, before testing your shot: about the round trip ({} ms: the snapshot's way down and the shot's way up), the {} ms client 1 draws others behind its newest snapshot, and the {} ms the shot's command waited in the server's input buffer ({} ticks), to within the tick or two a snapshot waits. With dead reckoning (`x`) on, client 1 draws others guessed forward, but the server still rewinds to the interpolated past it would have drawn: a guess is not a view the server can rebuild, so a shot at a guessed position may miss.{hit}",
        measured(shot.rewound_ticks),
        measured_f(back, 0),
        measured_f(w.rtt_ms, 0),
        measured_f(w.interp_ms, 0),
        measured_f(buffer, 0),
        measured(w.buffer_ticks)
    )])
}

fn rail(lab: &mut Lab) {
    lab.act(0, Action::SelectWeapon(1));
}

fn l9_bound_ask(_: &Lab) -> Vec<String> {
    vec![format!(
        "Now set the rewind bound to nothing ({}), and fire again.",
        turn("rewind bound", "[", "0 ms")
    )]
}

fn l9_bound_wants(setup: &Setup) -> Result<(), String> {
    lag_comp_on(setup)?;
    match setup.dial("rewind bound") {
        0 => Ok(()),
        v => Err(format!(
            "the rewind bound is {} ms: {}",
            measured(v),
            turn("rewind bound", "[", "0 ms")
        )),
    }
}

fn l9_bound_judge(w: &Watch, memo: &mut Memo) -> Verdict {
    let Some(shot) = w.rails.last() else {
        return Verdict::NotYet("fire the rail: `space`".to_owned());
    };
    if shot.rewound_ticks > 0 {
        return Verdict::Again("that shot was still rewound: fire again".to_owned());
    }
    let before = memo.get("rewound").map_or_else(String::new, |ms| {
        format!(" (a step ago it was rewound {} ms)", measured_f(ms, 0))
    });
    Verdict::Pass(vec![format!(
        "Rewound {} ticks{before}: the shot's view was {} ms old (client 1's round trip is {} ms), past the bound of {} ms (no latency, only the two snapshot periods it draws others behind). A shot past the bound is not rewound at all, not even by the bound: the server tested it against the present (Source's `sv_maxunlag` rewinds as far as the bound instead). A target you aimed at had moved on: the shot misses. The bound keeps a laggy player from reaching far into others' past.",
        measured(shot.rewound_ticks),
        measured_f(rail_ms(w, shot.wanted_ticks), 0),
        measured_f(w.rtt_ms, 0),
        measured_f(rail_ms(w, shot.bound_ticks), 0)
    )])
}

// Lesson 10: projectiles, server birth and client flight.

fn l10_ask(_: &Lab) -> Vec<String> {
    vec![
        "Press `1` for the blaster, then `space` to fire. Watch the bolt in both views.".to_owned(),
    ]
}

fn l10_judge(w: &Watch, _: &mut Memo) -> Verdict {
    if w.fired_at.is_none() {
        return Verdict::NotYet("fire the blaster: `1`, then `space`".to_owned());
    }
    let Some(d) = w.bolt_wait_ms() else {
        return Verdict::NotYet("fired: waiting for the server's bolt".to_owned());
    };
    let tick = 1000.0 / f64::from(w.tick_rate);
    let buffer = f64::from(w.born_buffer_ticks) * tick;
    // Half the round trip, and at most the buffer's depth, give or take two ticks and
    // the jitter.
    let explained = w.rtt_ms / 2.0 + buffer;
    let slack = 2.0 * tick + 2.0 * w.jitter_ms + 10.0;
    if d > explained + slack || d + slack < w.rtt_ms / 2.0 {
        return Verdict::Again(format!(
            "the server's bolt was born {} ms after the shot, not within half a round trip ({} ms) and the input buffer's {} ms: fire again",
            measured_f(d, 0),
            measured_f(w.rtt_ms / 2.0, 0),
            measured_f(buffer, 0)
        ));
    }
    let tick = w
        .bolt_born
        .map_or_else(String::new, |t| format!(", at tick {}", measured(t)));
    Verdict::Pass(vec![format!(
        "Your bolt flew in client 1's view at once: client 1 predicts its own bolt, as it predicts its moves (the muzzle flash is a tell, what a game shows for a shot it cannot predict). The server's bolt was born {} ms later, when the command was applied: half the round trip ({} ms) to arrive, then up to the {} ticks ({} ms) the server's input buffer holds{tick}. The server decides where it ends; client 1 drops its own at the server's removal tick. Other players' bolts are the article's server birth, client flight: born on the server, flown by each client (the walker never fires). Bolts move in sub-steps so none skips a wall.",
        measured_f(d, 0),
        measured_f(w.rtt_ms / 2.0, 0),
        measured(w.born_buffer_ticks),
        measured_f(buffer, 0)
    )])
}

const fn look(setup: fn(&mut Lab), lead_ms: u64, say: fn(&Lab) -> Vec<String>) -> Step {
    Step {
        setup,
        lead_ms,
        compare: None,
        say: Say::One(say),
        task: None,
        example: &[],
    }
}

const fn task(
    setup: fn(&mut Lab),
    say: fn(&Lab) -> Vec<String>,
    wants: fn(&Setup) -> Result<(), String>,
    window_ms: u64,
    judge: fn(&Watch, &mut Memo) -> Verdict,
    example: &'static [(u64, Act)],
) -> Step {
    Step {
        setup,
        lead_ms: 2000,
        compare: None,
        say: Say::One(say),
        task: Some(Task {
            wants,
            window_ms,
            judge: Judge::One(judge),
        }),
        example,
    }
}

/// An A/B task: lab B differs in `setting`; the learner's change must be made in both,
/// and the judge sees both.
const fn ab_task(
    setting: &'static str,
    say: fn(&Lab, &Lab) -> Vec<String>,
    wants: fn(&Setup) -> Result<(), String>,
    window_ms: u64,
    judge: fn(&Watch, &Watch, &mut Memo) -> Verdict,
    example: &'static [(u64, Act)],
) -> Step {
    Step {
        setup: nothing,
        lead_ms: 2000,
        compare: Some(setting),
        say: Say::Both(say),
        task: Some(Task {
            wants,
            window_ms,
            judge: Judge::Both(judge),
        }),
        example,
    }
}

const P: Act = Act::Do(Action::TogglePrediction);
const FIRE: Act = Act::Hold(Buttons::FIRE);

/// A learner with the rail who fires when the walker is in line, every 50 ms for 11 s.
const AIMED: [(u64, Act); 220] = {
    let mut script = [(100, Act::Do(Action::SelectWeapon(1))); 220];
    let mut i = 1;
    while i < script.len() {
        script[i] = (300 + 50 * i as u64, Act::FireAtWalker);
        i += 1;
    }
    script
};

/// A learner doing `first` at 100 ms, then walking about from `t` ms.
const fn then_walk(first: Act, t: u64) -> [(u64, Act); 10] {
    let w = walk_from!(t);
    [
        (100, first),
        w[0],
        w[1],
        w[2],
        w[3],
        w[4],
        w[5],
        w[6],
        w[7],
        w[8],
    ]
}

const EX1: [(u64, Act); 10] = then_walk(P, 400);
const EX2: [(u64, Act); 10] = then_walk(Act::Do(Action::CycleGhosts), 400);
const EX3: [(u64, Act); 10] = then_walk(Act::Dial("redundancy", 1), 300);
const EX4: [(u64, Act); 10] = then_walk(Act::Dial("redundancy", 8), 300);
const EX5: [(u64, Act); 10] = then_walk(Act::Dial("input rate", 10), 300);
const EX6: [(u64, Act); 10] = then_walk(Act::Dial("input buffer", 3), 300);

/// Every lesson, in the course's order.
pub(crate) static LESSONS: &[Lesson] = &[
    Lesson {
        title: "Latency and the dumb client",
        articles: &[
            "improved-latency-handling",
            "prediction-reconciliation-blog",
        ],
        covers: &[
            "the dumb terminal: a client that waits for the server",
            "RTT measured from echoed timestamps",
        ],
        scenario: Scenario {
            profile: "bad",
            seed: 11,
        },
        steps: &[
            look(nothing, 2500, l1_look),
            task(nothing, l1_ask, l1_wants, 2000, l1_judge, &EX1),
        ],
    },
    Lesson {
        title: "Prediction and reconciliation",
        articles: &[
            "prediction-reconciliation-blog",
            "fps-prediction-revisited",
            "improved-latency-handling",
            "tickrate-lerp-prediction-devdoc",
        ],
        covers: &[
            "saved moves, acks with move id and position, replay of the rest",
            "sent vs acked moves",
            "a ring buffer of predicted moves by prediction id",
            "the ghost: a debug switch showing the server's position",
        ],
        scenario: Scenario {
            profile: "bad",
            seed: 12,
        },
        steps: &[
            task(nothing, l2_ask, ok, 2000, l2_judge, &WALK),
            task(
                nothing,
                l2_ghost_ask,
                l2_ghost_wants,
                2000,
                l2_ghost_judge,
                &EX2,
            ),
        ],
    },
    Lesson {
        title: "The correction loop",
        articles: &["player-movement-corrections"],
        covers: &["the correction-loop bug, and why numbered commands and replay avoid it"],
        scenario: Scenario {
            profile: "lan",
            seed: 13,
        },
        steps: &[
            task(l3_setup, l3_ask, ok, 1500, l3_judge, &WALK),
            Step {
                setup: l3_rare_loss,
                lead_ms: 2000,
                compare: Some(LOOP_BUG),
                say: Say::Both(l3_ab_ask),
                task: Some(Task {
                    wants: ok,
                    window_ms: 1500,
                    judge: Judge::Both(l3_ab_judge),
                }),
                example: &LOOP_WALK,
            },
        ],
    },
    Lesson {
        title: "Redundancy and loss",
        articles: &["fps-prediction-revisited"],
        covers: &[
            "redundant inputs: each command rides in several packets, the commands not yet acknowledged",
        ],
        scenario: Scenario {
            profile: "lan",
            seed: 14,
        },
        steps: &[
            task(l4_setup, l4_ask, l4_wants, 2000, l4_judge, &EX3),
            task(
                l4_again_setup,
                l4_again_ask,
                l4_again_wants,
                2000,
                l4_again_judge,
                &EX4,
            ),
        ],
    },
    Lesson {
        title: "Interpolation and the packet period",
        articles: &[
            "improved-latency-handling",
            "player-movement-corrections",
            "tickrate-lerp-prediction-devdoc",
        ],
        covers: &[
            "interpolation between snapshots; the interpolation period is the packet period",
            "why at least two snapshots, and why three are buffered",
            "lerp of cached positions",
        ],
        scenario: Scenario {
            profile: "lan",
            seed: 15,
        },
        steps: &[
            look(nothing, 3000, l5_look),
            task(
                nothing,
                l5_off_ask,
                l5_off_wants,
                3000,
                l5_off_judge,
                &[
                    (100, Act::Do(Action::ToggleInterpolation)),
                    (200, Act::Dial("snapshot rate", 5)),
                ],
            ),
            task(
                slow_snapshots,
                l5_short_ask,
                l5_short_wants,
                3000,
                l5_short_judge,
                &[(100, Act::Dial("interpolation delay", 5))],
            ),
            task(
                short_delay,
                l5_long_ask,
                l5_long_wants,
                3000,
                l5_long_judge,
                &[(100, Act::Dial("interpolation delay", 20))],
            ),
        ],
    },
    Lesson {
        title: "Dead reckoning and correction styles",
        articles: &["improved-latency-handling"],
        covers: &[
            "dead reckoning: extrapolating others along their velocity",
            "three ways to correct: snap, interpolate (smooth), second order (blend)",
        ],
        scenario: Scenario {
            profile: "mobile",
            seed: 16,
        },
        steps: &[
            task(
                nothing,
                l6_ask,
                extrapolating,
                3000,
                l6_judge,
                &[(100, Act::Do(Action::ToggleExtrapolation))],
            ),
            task(
                dead_reckoning,
                l6_snap_ask,
                |setup| style_wants(setup, 0, "snap"),
                4000,
                l6_snap_judge,
                &[(100, Act::Dial("correction style", 0))],
            ),
            task(
                snapping,
                l6_blend_ask,
                |setup| style_wants(setup, 2, "blend"),
                4000,
                l6_blend_judge,
                &[(100, Act::Dial("correction style", 2))],
            ),
        ],
    },
    Lesson {
        title: "Tick rate, frame rate, update rate",
        articles: &[
            "tickrate-lerp-prediction-devdoc",
            "player-movement-corrections",
        ],
        covers: &[
            "tick rate vs frame rate vs update rate (snapshot rate)",
            "input batched into packets (command rate), rate limits",
        ],
        scenario: Scenario {
            profile: "lan",
            seed: 17,
        },
        steps: &[
            look(nothing, 3000, l7_look),
            task(
                nothing,
                l7_snap_ask,
                l7_snap_wants,
                3000,
                l7_snap_judge,
                &[(100, Act::Dial("snapshot rate", 10))],
            ),
            ab_task(
                HALF_RATE,
                l7_ab_ask,
                interpolation_off,
                3000,
                l7_ab_judge,
                &[(100, Act::Do(Action::ToggleInterpolation))],
            ),
            task(
                nothing,
                l7_input_ask,
                l7_input_wants,
                2000,
                l7_input_judge,
                &EX5,
            ),
        ],
    },
    Lesson {
        title: "The server's input buffer and speed hacks",
        articles: &["fps-prediction-revisited"],
        covers: &[
            "a per-client jitter buffer on the server",
            "the same buffer stops speed hacks",
        ],
        scenario: Scenario {
            profile: "wifi",
            seed: 18,
        },
        steps: &[
            task(credit, l8_ask, ok, 2000, l8_judge, &WALK),
            task(
                credit,
                l8_buffer_ask,
                l8_buffer_wants,
                2000,
                l8_buffer_judge,
                &EX6,
            ),
            Step {
                setup: speed_hack::cheat,
                lead_ms: 2000,
                compare: Some(speed_hack::BUFFERED),
                say: Say::Both(speed_hack::ask),
                task: Some(Task {
                    wants: ok,
                    window_ms: 3000,
                    judge: Judge::Both(speed_hack::judge),
                }),
                example: &WALK,
            },
        ],
    },
    Lesson {
        title: "Lag compensation and its bound",
        articles: &[
            "improved-latency-handling",
            "tickrate-lerp-prediction-devdoc",
        ],
        covers: &[
            "server-side rewind for hitscan weapons",
            "the bound on how far back the server rewinds",
        ],
        scenario: Scenario {
            profile: "mobile",
            seed: 19,
        },
        steps: &[
            task(nothing, l9_ask, lag_comp_on, 300, l9_judge, &AIMED),
            task(
                rail,
                l9_bound_ask,
                l9_bound_wants,
                300,
                l9_bound_judge,
                &[
                    (100, Act::Dial("rewind bound", 0)),
                    (200, FIRE),
                    (400, Act::Hold(NONE)),
                ],
            ),
            task(
                rewind::guessing,
                rewind::ask,
                rewind::wants,
                300,
                rewind::judge,
                &[(800, FIRE), (1400, Act::Hold(NONE))],
            ),
        ],
    },
    Lesson {
        title: "Projectiles: server birth, client flight",
        articles: &[
            "tickrate-lerp-prediction-devdoc",
            "improved-latency-handling",
        ],
        covers: &[
            "client-side bullet travel with server birth and removal",
            "several physics steps per tick (bolt sub-steps)",
            "tells that hide latency (the muzzle flash)",
        ],
        scenario: Scenario {
            profile: "bad",
            seed: 20,
        },
        steps: &[task(
            nothing,
            l10_ask,
            ok,
            300,
            l10_judge,
            &[
                (100, Act::Do(Action::SelectWeapon(0))),
                (200, FIRE),
                (300, Act::Hold(NONE)),
            ],
        )],
    },
];

#[cfg(test)]
#[path = "checks_tests.rs"]
mod checks_tests;
