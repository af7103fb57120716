//! Lesson 9: lag compensation and its bound: its steps' words and checks.

use super::*;

pub(super) fn l9_ask(_: &Lab) -> Vec<String> {
    vec![
        "Press `2` for the rail gun, then hit the walker: when it is in line with you (a row, a column or a diagonal, no wall between), face it (`Shift` and a direction) and press `space`. Watch the server view.".to_owned(),
    ]
}

pub(super) fn lag_comp_on(setup: &Setup) -> Result<(), String> {
    if setup.dial("lag compensation") == 0 {
        return Err(format!(
            "lag compensation is off: {}",
            turn("lag compensation", "]", "on")
        ));
    }
    Ok(())
}

pub(super) fn rail_ms(w: &Watch, ticks: u16) -> f64 {
    f64::from(ticks) * 1000.0 / f64::from(w.tick_rate)
}

pub(super) fn l9_judge(w: &Watch, memo: &mut Memo) -> Verdict {
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

pub(super) fn rail(lab: &mut Lab) {
    lab.act(0, Action::SelectWeapon(1));
}

pub(super) fn l9_bound_ask(_: &Lab) -> Vec<String> {
    vec![format!(
        "Now set the rewind bound to nothing ({}), and fire again.",
        turn("rewind bound", "[", "0 ms")
    )]
}

pub(super) fn l9_bound_wants(setup: &Setup) -> Result<(), String> {
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

pub(super) fn l9_bound_judge(w: &Watch, memo: &mut Memo) -> Verdict {
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
