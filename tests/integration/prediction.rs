//! Client-side prediction against the real server state machine, under latency.

use crate::support;

use std::time::Duration;

use netarena::client::play::brain::Wander;
use netarena::net::conditioner::Conditions;
use netarena::sim::map::{CELL, Map};
use netarena::sim::world::{Buttons, PlayerState};
use support::{Solo, lag};

fn wander(
    seed: u64,
) -> impl FnMut(&netarena::client::netcode::session::ClientSession) -> netarena::sim::world::Buttons
{
    let mut brain = Wander::new(seed);
    move |c| match c.predicted() {
        Some(me) => brain.next(&me).buttons,
        None => Default::default(),
    }
}

#[test]
fn predictions_equal_the_server_for_every_acked_seq() {
    let map = Map::builtin("arena").unwrap();
    let mut s = Solo::new(map, 0, lag(100, 20, 5.0), lag(100, 20, 5.0));
    s.run(Duration::from_secs(30), wander(3));

    assert!(
        s.acks().len() > 400,
        "snapshots arrived: {}",
        s.acks().len()
    );
    let mut compared = 0;
    for &(_, ack, server) in s.acks() {
        if ack == 0 {
            continue;
        }
        let predicted = s.predicted_at(ack).expect("we made every acked seq");
        assert_eq!(predicted, server, "prediction for seq {ack}");
        compared += 1;
    }
    assert!(compared > 400);
    let stats = s.client().stats();
    assert_eq!(stats.corrections, 0);
    assert!(stats.commands_sent > 1700, "{}", stats.commands_sent);
    // With 200 ms RTT, about 12 commands are in flight at any time.
    assert!(
        s.client().pending_commands() >= 6,
        "{}",
        s.client().pending_commands()
    );
    assert!(
        s.client().pending_commands() <= 40,
        "{}",
        s.client().pending_commands()
    );
}

#[test]
fn a_teleport_is_one_server_decision_and_converges() {
    let map = Map::builtin("arena").unwrap();
    let far = map.spawns()[map.spawns().len() - 1];
    let mut s = Solo::new(map, 0, lag(75, 0, 0.0), lag(75, 0, 0.0));
    s.run(Duration::from_secs(3), wander(5));
    assert_eq!(s.client().stats().corrections, 0);

    let me = s.client().player_id();
    let target = PlayerState::at_cell(far.0, far.1);
    s.server_mut().teleport(me, target);
    let acks_before = s.acks().len();
    s.run(Duration::from_secs(5), wander(6));

    let stats = s.client().stats();
    assert_eq!(
        (stats.corrections, stats.server_decisions),
        (0, 1),
        "a teleport is the server's decision, not a misprediction"
    );

    // Once the commands made before the correction have been acknowledged (half a
    // second is over three RTTs), every snapshot agrees with the replayed prediction.
    let after: Vec<_> = s.acks()[acks_before..].iter().skip(10).collect();
    assert!(after.len() > 50);
    for &&(_, ack, server) in &after {
        assert_eq!(
            s.predicted_at(ack),
            Some(server),
            "seq {ack} after the teleport"
        );
    }
    // The drawn position has converged on the prediction (smoothing is over).
    let predicted = s.client().predicted().unwrap();
    let server_now = s.server().world().get(me).unwrap();
    let gap = f64::from(predicted.x - server_now.x).hypot(f64::from(predicted.y - server_now.y));
    assert!(
        gap / f64::from(CELL) < 3.0,
        "prediction is a few ticks ahead, not lost: {gap}"
    );
}

/// A lag spike delivers a burst of commands; the server applies one per tick, so without
/// care the backlog would stay as input delay forever. The client slows its command
/// clock while the server reports a backlog, and the delay drains away.
#[test]
fn a_backlog_after_a_lag_spike_drains() {
    let map = Map::builtin("arena").unwrap();
    let mut s = Solo::new(map, 0, lag(5, 0, 0.0), lag(5, 0, 0.0));
    // Mean pending commands over a second, sampled every 10 ms.
    let mean_pending = |s: &mut Solo, seed: u64| {
        let mut brain = wander(seed);
        let mut sum = 0;
        for _ in 0..100 {
            s.run(Duration::from_millis(10), &mut brain);
            sum += s.client().pending_commands();
        }
        f64::from(sum) / 100.0
    };
    s.run(Duration::from_secs(2), wander(8));
    let calm = mean_pending(&mut s, 7);
    // 400 ms of lag on the way up, then gone: the delayed commands arrive in a burst.
    s.set_conditions(lag(400, 0, 0.0), lag(5, 0, 0.0));
    s.run(Duration::from_secs(2), wander(9));
    s.set_conditions(lag(5, 0, 0.0), lag(5, 0, 0.0));
    let after_spike = mean_pending(&mut s, 10);
    // The client holds commands past a round trip unacknowledged and skips a backlog
    // (issue 22), so the spike leaves less than it did (12 and more), but some.
    assert!(
        after_spike > calm + 5.0,
        "the spike left a backlog: {calm} -> {after_spike}"
    );
    s.run(Duration::from_secs(10), wander(11));
    let drained = mean_pending(&mut s, 12);
    assert!(
        drained <= calm + 2.0,
        "backlog drained: {calm} -> {after_spike} -> {drained}"
    );
    assert_eq!(
        s.client().stats().corrections,
        0,
        "and the prediction never disagreed"
    );
}

/// Under 5% reordering the RTT read about 10% short: a datagram that overtook others had
/// come a shorter way, and its echo was taken like any other. The estimate now follows
/// the median of the last samples.
#[test]
fn rtt_holds_under_reordering() {
    for reorder_pct in [5.0, 10.0] {
        let way = Conditions {
            latency_ms: 95,
            reorder_pct,
            ..Conditions::default()
        };
        let mut s = Solo::new(Map::builtin("arena").unwrap(), 0, way.clone(), way);
        let mut samples = Vec::new();
        for _ in 0..40 {
            s.run(Duration::from_millis(500), |_| Buttons::empty());
            samples.push(s.client().stats().rtt_ms);
        }
        // The first seconds settle; then every reading is the true 190 ms within 3%.
        for rtt in &samples[4..] {
            assert!(
                (rtt - 190.0).abs() <= 0.03 * 190.0,
                "{reorder_pct}% reordering: RTT {rtt:.1} ms against 190: {samples:.0?}"
            );
        }
    }
}

/// At 30% snapshot loss the interpolation delay stayed at two snapshot periods, and a
/// run of two or more lost snapshots (one in eleven) ran it dry: about 40 underruns in
/// 30 s. It now grows with the recent loss, and shrinks back when the link heals.
#[test]
fn interpolation_delay_bridges_loss_and_returns_after_healing() {
    let map = Map::builtin("arena").unwrap();
    let mut s = Solo::new(map, 2, lag(20, 0, 0.0), lag(20, 0, 30.0));
    s.run(Duration::from_secs(30), wander(4));
    let underruns = s.client().stats().underruns;
    let lossy_delay = s.client().interp_delay_secs();
    // 30% loss is past the server's congestion threshold (a fifth of a second's
    // snapshots), so it also holds snapshots back; the delay follows the period they
    // really come at. Measured: 10 (41 before issue 22; 6 with no congestion control).
    assert!(
        underruns <= 12,
        "{underruns} underruns in 30 s at 30% loss, delay {lossy_delay:.3} s"
    );
    s.set_conditions(lag(20, 0, 0.0), lag(20, 0, 0.0));
    s.run(Duration::from_secs(15), wander(5));
    let healed = s.client().interp_delay_secs();
    eprintln!("30% loss: {underruns} underruns, delay {lossy_delay:.3} s; healed: {healed:.3} s");
    assert!(
        healed < 0.11,
        "delay {healed:.3} s after 15 s of a clean link (lossy: {lossy_delay:.3} s)"
    );
}
