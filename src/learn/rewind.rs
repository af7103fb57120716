//! Lesson 9's step with dead reckoning on: the client draws others guessed forward,
//! near the present, and its commands name the tick its drawing stands for; the server
//! rewinds to that tick and tests the positions others really had then, never the
//! guess. The rewinding rule of the latency article: the server can rebuild what it
//! sent (what interpolation draws), not what a client guessed.

use super::watch::{Memo, Setup, Watch};
use super::{Lab, Verdict, measured, measured_f};
use crate::client::play::input::Action;

/// The rail in hand and dead reckoning on.
pub(super) fn guessing(lab: &mut Lab) {
    lab.act(0, Action::SelectWeapon(1));
    lab.act(0, Action::ToggleExtrapolation);
}

pub(super) fn ask(_: &Lab) -> Vec<String> {
    vec![
        "Dead reckoning is on (`x`): client 1 draws the walker where its last velocity puts it now, not in the past. Fire the rail at the walker again, and see what the server rewinds to.".to_owned(),
    ]
}

pub(super) fn wants(setup: &Setup) -> Result<(), String> {
    if setup.dial("lag compensation") == 0 {
        return Err("lag compensation is off: `k` to it, then `]`".to_owned());
    }
    if !setup.switches.extrapolation {
        return Err("client 1 does not extrapolate: press `x`".to_owned());
    }
    Ok(())
}

pub(super) fn judge(w: &Watch, _: &mut Memo) -> Verdict {
    let Some(shot) = w.rails.last() else {
        return Verdict::NotYet("fire the rail: `space`".to_owned());
    };
    if shot.rewound_ticks == 0 {
        return Verdict::Again("that shot was not rewound: fire again".to_owned());
    }
    let tick = 1000.0 / f64::from(w.tick_rate);
    let back = f64::from(shot.rewound_ticks) * tick;
    // What interpolation would have made it: a round trip, the interpolation delay,
    // the input buffer. The guess stands for a later tick, so the rewind is shorter.
    let interpolated = w.rtt_ms + w.interp_ms + f64::from(w.buffer_ticks) * tick;
    if back > interpolated + 3.0 * w.period_ms {
        return Verdict::Again(format!(
            "rewound {} ms, further than even the interpolated view's {} ms: fire again",
            measured_f(back, 0),
            measured_f(interpolated, 0)
        ));
    }
    let result = match shot.hit {
        Some(_) => "It hit: where the walker really was at that tick.",
        None => {
            "It missed: aimed at the guess, it was tested where the walker really was at that tick."
        }
    };
    Verdict::Pass(vec![format!(
        "Client 1 drew the walker guessed forward, up to {} cells from where the server had it, and its commands named the tick that drawing stood for. The server rewound {} ticks, {} ms, to that tick (interpolating, client 1 would have been {} ms behind), and tested the positions the walker really had then, not the guess: a server can rebuild the past it sent, which interpolation draws, never a client's guess, so dead reckoning and lag compensation disagree. {result}",
        measured_f(w.walker_gap, 1),
        measured(shot.rewound_ticks),
        measured_f(back, 0),
        measured_f(interpolated, 0)
    )])
}

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use super::*;
    use crate::net::protocol::RailShot;

    fn shot(rewound: u16) -> Watch {
        let mut w = Watch::blank(Instant::now());
        (w.rtt_ms, w.interp_ms, w.buffer_ticks) = (100.0, 150.0, 3);
        w.rails.push(RailShot {
            rewound_ticks: rewound,
            ..RailShot::default()
        });
        w
    }

    #[test]
    fn the_step_needs_dead_reckoning_and_a_rewind_to_the_interpolated_past() {
        let mut s = Setup::default().with("lag compensation", 1);
        assert!(wants(&s).is_err(), "no dead reckoning");
        s.switches.extrapolation = true;
        assert!(wants(&s).is_ok());
        assert!(wants(&Setup::default()).is_err());
        let judge = |w: &Watch| judge(w, &mut Memo::default());
        let none = Watch::blank(Instant::now());
        assert!(matches!(judge(&none), Verdict::NotYet(_)));
        assert!(matches!(judge(&shot(0)), Verdict::Again(_)));
        // 133 ms back at 60 Hz: short of the interpolated view (100 + 150 + 50 ms).
        assert!(matches!(judge(&shot(8)), Verdict::Pass(_)));
        // A second back: further than anything client 1 drew.
        assert!(matches!(judge(&shot(60)), Verdict::Again(_)));
    }
}
