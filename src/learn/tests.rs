//! Every lesson driven headless: a scripted learner who does what each step asks
//! completes it; one who does something else does not, and the step says why. Every
//! number in the lessons' words is one the lab measured.

use std::time::{Duration, Instant};

use super::lessons::LESSONS;
use super::runner::{Phase, Runner, play};
use super::*;
use crate::client::play::input::Action;
use crate::lab::terminal::Twin;
use crate::sim::world::Buttons;

/// Longest a scripted learner gets for one step, in virtual ms.
const STEP_MS: u64 = 12_000;

/// Lesson `n` at its first step, its lab built (and lab B, for an A/B step).
fn start(n: usize) -> (Runner, Lab, Twin) {
    let t0 = Instant::now();
    let mut lab = Lab::new(&LESSONS[n].scenario.config(), t0).unwrap();
    let mut twin = None;
    let mut runner = Runner::new(n, 0, t0);
    runner.enter(&mut lab, &mut twin).unwrap();
    (runner, lab, twin)
}

/// Every text the learner reads now: what the step said, and what the check says.
fn texts(runner: &Runner) -> Vec<String> {
    let mut out = runner.said.clone();
    match &runner.phase {
        Phase::Doing(why) => out.push(why.clone()),
        Phase::Checked(lines) => out.extend(lines.iter().cloned()),
        _ => {}
    }
    out
}

/// `text` without its measured numbers and its backticked keys and values.
fn unquoted(text: &str) -> String {
    // Its one name with a digit.
    let text = text
        .replace("client 1", "client")
        .replace("Client 1", "Client");
    let mut out = String::new();
    let mut skip = None;
    for c in text.chars() {
        match (skip, c) {
            (None, '⟨') => skip = Some('⟩'),
            (None, '`') => skip = Some('`'),
            (Some(end), c) if c == end => skip = None,
            (None, c) => out.push(c),
            _ => {}
        }
    }
    out
}

/// The panel's rows inside its border at 100x30 with the lesson's two views.
const ROWS_AT_100X30: usize = 9;

/// What the panel shows now fits a 100x30 terminal's panel, 98 columns by 9 rows.
fn assert_fits(runner: &Runner) {
    let lines: Vec<String> = super::coach::paragraphs(runner, None)
        .iter()
        .flat_map(|p| super::coach::wrap(p, 98))
        .collect();
    assert!(
        lines.len() <= ROWS_AT_100X30,
        "lesson {} step {}: {} rows at 100x30: {lines:#?}",
        runner.lesson + 1,
        runner.step + 1,
        lines.len()
    );
}

fn assert_no_own_numbers(runner: &Runner) {
    assert_fits(runner);
    for t in texts(runner) {
        assert!(
            !unquoted(&t).chars().any(|c| c.is_ascii_digit()),
            "lesson {} step {}: a number the lab did not measure in {t:?}",
            runner.lesson + 1,
            runner.step + 1
        );
    }
}

/// Lesson `n` taken by a learner who does what every step asks: each step is checked
/// within its time, and the lesson ends complete.
fn completes(n: usize) {
    let (mut runner, mut lab, mut twin) = start(n);
    for s in 0..LESSONS[n].steps.len() {
        assert_eq!(runner.step, s);
        assert_no_own_numbers(&runner);
        let step = runner.current();
        if step.task.is_none() {
            assert!(
                !runner.go_on(&mut lab, &mut twin).unwrap(),
                "a look step goes on"
            );
            continue;
        }
        assert!(
            runner.go_on(&mut lab, &mut twin).unwrap(),
            "the task runs the world"
        );
        play(&mut runner, &mut lab, &mut twin, step.example, STEP_MS);
        assert!(
            runner.checked(),
            "lesson {} step {}: not checked: {:?}",
            n + 1,
            s + 1,
            runner.phase
        );
        assert_no_own_numbers(&runner);
        let Phase::Checked(lines) = &runner.phase else {
            unreachable!()
        };
        if std::env::var_os("LEARN_SHOW").is_some() {
            eprintln!(
                "L{} S{} SAID {:?}\n  CHECKED {:?}",
                n + 1,
                s + 1,
                runner.said,
                lines
            );
        }
        assert!(
            lines.iter().any(|l| l.contains('⟨')),
            "lesson {} step {}: the check quotes no measurement: {lines:?}",
            n + 1,
            s + 1
        );
        runner.next(&mut lab, &mut twin).unwrap();
    }
    assert_eq!(runner.phase, Phase::Complete);
}

/// Every task step of lesson `n` taken by a learner who does `wrong` instead: none is
/// checked, and each says why.
fn refuses(n: usize, wrong: &[(u64, Act)]) {
    let (mut runner, mut lab, mut twin) = start(n);
    for s in 0..LESSONS[n].steps.len() {
        runner.step = s;
        runner.enter(&mut lab, &mut twin).unwrap();
        if runner.current().task.is_none() {
            continue;
        }
        runner.go_on(&mut lab, &mut twin).unwrap();
        play(&mut runner, &mut lab, &mut twin, wrong, 6000);
        let Phase::Doing(why) = &runner.phase else {
            panic!(
                "lesson {} step {}: checked though the learner did else: {:?}",
                n + 1,
                s + 1,
                runner.phase
            );
        };
        assert!(
            !why.is_empty(),
            "lesson {} step {}: no reason",
            n + 1,
            s + 1
        );
        assert_no_own_numbers(&runner);
    }
}

/// A learner who presses a switch no step asks for and stands still.
const IDLE: &[(u64, Act)] = &[(100, Act::Do(Action::ToggleSmoothing))];

macro_rules! lesson_tests {
    ($($name:ident $n:literal,)*) => {
        $(
            mod $name {
                #[test]
                fn completes_when_the_learner_does_as_asked() {
                    super::completes($n);
                }

                #[test]
                fn does_not_when_the_learner_does_something_else() {
                    super::refuses($n, super::IDLE);
                }
            }
        )*
    };
}

lesson_tests! {
    latency 0,
    prediction 1,
    correction_loop 2,
    redundancy 3,
    interpolation 4,
    dead_reckoning 5,
    rates 6,
    input_buffer 7,
    lag_compensation 8,
    projectiles 9,
}

const WALKING: [(u64, Act); 6] = [
    (100, Act::Hold(Buttons::RIGHT)),
    (600, Act::Hold(Buttons::DOWN)),
    (1000, Act::Hold(Buttons::LEFT)),
    (1500, Act::Hold(Buttons::UP)),
    (1900, Act::Hold(Buttons::RIGHT)),
    (2400, Act::Hold(Buttons::empty())),
];

/// A scripted learner: what it does, ms after the step's world starts.
type Script = Vec<(u64, Act)>;

/// A learner who turns a dial part of the way, or the wrong one, is told what is
/// missing: walking without the redundancy up; interpolation off at the old snapshot
/// rate; the rewind bound not low enough.
#[test]
fn half_done_is_not_done() {
    let cases: [(usize, usize, Script, &str); 3] = [
        (
            3,
            1,
            {
                let mut s = vec![(50, Act::Dial("redundancy", 4))];
                s.extend(WALKING);
                s
            },
            "redundancy is",
        ),
        (
            4,
            1,
            vec![(100, Act::Do(Action::ToggleInterpolation))],
            "snapshots come at",
        ),
        (
            8,
            1,
            vec![
                (100, Act::Dial("rewind bound", 100)),
                (200, Act::Hold(Buttons::FIRE)),
            ],
            "rewind bound is",
        ),
    ];
    for (n, s, script, why) in cases {
        let (mut runner, mut lab, mut twin) = start(n);
        runner.step = s;
        runner.enter(&mut lab, &mut twin).unwrap();
        runner.go_on(&mut lab, &mut twin).unwrap();
        play(&mut runner, &mut lab, &mut twin, &script, 5000);
        match &runner.phase {
            Phase::Doing(said) => assert!(said.contains(why), "{said}"),
            other => panic!("lesson {} step {}: {other:?}", n + 1, s + 1),
        }
    }
}

/// A step's words quote the run: the same step on a lab whose link changed says
/// another round trip.
#[test]
fn the_words_change_with_the_run() {
    let (runner, mut lab, _) = start(0);
    let Say::One(say) = runner.current().say else {
        panic!("lesson 1 step 1 is one lab's")
    };
    let before = say(&lab);
    let lan = crate::net::conditioner::Conditions::profile("lan").unwrap();
    lab.set_link(0, lan.clone(), lan);
    let later = lab.now() + Duration::from_secs(3);
    lab.run_until(later);
    let after = say(&lab);
    assert_ne!(before[0], after[0]);
    assert_eq!(unquoted(&before[0]), unquoted(&after[0]));
}

/// The course covers every technique the issue names, each by some lesson.
#[test]
fn the_course_covers_every_technique() {
    let all: String = LESSONS
        .iter()
        .flat_map(|l| l.covers.iter().chain([&l.title]))
        .map(|c| c.to_lowercase())
        .collect::<Vec<_>>()
        .join(" | ");
    for item in [
        "dumb",
        "saved moves",
        "acks",
        "replay",
        "redundan",
        "interpolation",
        "three are buffered",
        "dead reckoning",
        "snap",
        "tick rate",
        "frame rate",
        "update rate",
        "jitter buffer",
        "speed hacks",
        "rewind",
        "bound",
        "server birth",
        "correction-loop",
    ] {
        assert!(all.contains(item), "no lesson covers {item:?}: {all}");
    }
    assert!(LESSONS.len() >= 8);
}

/// The measured figures of a text, in order: what `measured` marked.
fn figures(text: &str) -> Vec<String> {
    text.split('⟨')
        .skip(1)
        .filter_map(|t| t.split_once('⟩').map(|(v, _)| v.to_owned()))
        .collect()
}

/// Lesson 7's A/B step runs two labs, lab B at `snapshot-rate=10`: its words quote
/// each lab's snapshot rate and interpolation delay; a learner who presses `i` is
/// checked with each lab's measured `remote_motion_cv` and snapshot period, A's and
/// B's different; one who turns a dial instead is told to press `i`.
#[test]
fn the_ab_step_runs_both_labs_and_quotes_each() {
    let ab = 6;
    let s = LESSONS[ab]
        .steps
        .iter()
        .position(|s| s.compare.is_some())
        .expect("lesson 7 has an A/B step");
    let (mut runner, mut lab, mut twin) = start(ab);
    runner.step = s;
    runner.enter(&mut lab, &mut twin).unwrap();
    let (b, setting) = twin.as_ref().expect("the A/B step builds lab B");
    assert_eq!(setting.label(), "snapshot-rate=10");
    assert_eq!(b.now(), lab.now(), "one clock");
    let said = figures(&runner.said[0]);
    assert_eq!(said[..2], ["20", "10"], "{:?}", runner.said);
    assert_ne!(said[2], said[3], "interpolation delays: {:?}", runner.said);

    // Something else: a dial turned in both labs, not `i`.
    runner.go_on(&mut lab, &mut twin).unwrap();
    let wrong = [(100, Act::Dial("snapshot rate", 30))];
    play(&mut runner, &mut lab, &mut twin, &wrong, 5000);
    match &runner.phase {
        Phase::Doing(why) => assert!(why.contains("press `i`"), "{why}"),
        other => panic!("checked though `i` was not pressed: {other:?}"),
    }

    runner.enter(&mut lab, &mut twin).unwrap();
    runner.go_on(&mut lab, &mut twin).unwrap();
    let example = runner.current().example;
    play(&mut runner, &mut lab, &mut twin, example, STEP_MS);
    let Phase::Checked(lines) = &runner.phase else {
        panic!("not checked: {:?}", runner.phase)
    };
    let (b, _) = twin.as_ref().unwrap();
    let (cv_a, cv_b) = (
        lab.remote_motion_cv(0).unwrap(),
        b.remote_motion_cv(0).unwrap(),
    );
    assert!(
        !switches_on(&lab) && !switches_on(b),
        "`i` reached both labs"
    );
    let got = figures(&lines[0]);
    // The seconds watched, then A's cv and period, then B's.
    assert_eq!(got[1], format!("{cv_a:.2}"), "{lines:?}");
    assert_eq!(got[3], format!("{cv_b:.2}"), "{lines:?}");
    assert_ne!(got[1], got[3], "A and B drew the walker alike: {lines:?}");
    assert_ne!(got[2], got[4], "A and B had one period: {lines:?}");
    assert_no_own_numbers(&runner);
}

fn switches_on(lab: &Lab) -> bool {
    lab.session(0).switches().interpolation
}

/// Every reason a step gave while `script` played for `ms`, in order.
fn reasons(
    runner: &mut Runner,
    lab: &mut Lab,
    twin: &mut Twin,
    script: &[(u64, Act)],
    ms: u64,
) -> Vec<String> {
    let mut seen: Vec<String> = Vec::new();
    for from in (0..ms).step_by(10) {
        let slice: Vec<(u64, Act)> = script
            .iter()
            .filter(|(at, _)| (from..from + 10).contains(at))
            .map(|&(at, a)| (at - from, a))
            .collect();
        play(runner, lab, twin, &slice, 10);
        match &runner.phase {
            Phase::Doing(why) if seen.last() != Some(why) => seen.push(why.clone()),
            Phase::Checked(lines) => panic!("checked: {lines:?}"),
            _ => {}
        }
    }
    seen
}

/// Lesson 3 asked only for corrections while walking and none standing, which is the
/// correction-loop bug's very symptom: it passed with the bug in. With the bug put
/// back (the lab's `correction-loop` switch), its check fails and says why.
#[test]
fn lesson_3_fails_with_the_correction_loop_bug_on() {
    let (mut runner, mut lab, mut twin) = start(2);
    assert!(runner.go_on(&mut lab, &mut twin).unwrap());
    lab.clients[0].driver.set_correction_loop(true);
    let example = LESSONS[2].steps[0].example;
    let said = reasons(&mut runner, &mut lab, &mut twin, example, STEP_MS);
    assert!(
        said.iter().any(|why| why.contains("the correction loop")),
        "{said:#?}"
    );
    assert!(!runner.checked());
}

/// Lesson 5 asks for the snapshot rate, the dial chosen when the lab opens: the step
/// says to turn it, not to press `k` first (which chooses the next dial and sends the
/// learner round all of them).
#[test]
fn lesson_5_turns_the_dial_already_chosen() {
    assert_eq!(crate::lab::dials::DIALS[0].name, "snapshot rate");
    let (mut runner, mut lab, mut twin) = start(4);
    runner.step = 1;
    runner.enter(&mut lab, &mut twin).unwrap();
    let said = runner.said.join(" ");
    assert!(said.contains("snapshot rate"), "{said}");
    assert!(!said.contains("(`k` until"), "{said}");
    assert!(said.contains("`[` to `5 Hz`"), "{said}");
}

/// Lesson 9 step 1 passed on a miss, so a learner might never see the tested hitbox
/// against the real position: a shot fired anywhere (it misses) is not checked and the
/// step says to aim. Step 2's check says what the server did with a shot past the
/// bound: not rewound at all (it said the interpolation was still undone, at 0 ticks).
#[test]
fn lesson_9_asks_for_a_hit_and_says_a_shot_past_the_bound_is_not_rewound() {
    let (mut runner, mut lab, mut twin) = start(8);
    assert!(runner.go_on(&mut lab, &mut twin).unwrap());
    let anywhere = [
        (100, Act::Do(Action::SelectWeapon(1))),
        (800, Act::Hold(Buttons::FIRE)),
        (1400, Act::Hold(Buttons::empty())),
    ];
    play(&mut runner, &mut lab, &mut twin, &anywhere, 4000);
    let fired = lab.rail_verdicts();
    assert!(
        fired.len() == 1 && fired[0].ends_with("· miss"),
        "one shot, a miss: {fired:?}"
    );
    assert!(!runner.checked(), "a miss: {:?}", runner.phase);
    let (mut runner, mut lab, mut twin) = start(8);
    for _ in 0..2 {
        assert!(runner.go_on(&mut lab, &mut twin).unwrap());
        let example = runner.current().example;
        play(&mut runner, &mut lab, &mut twin, example, STEP_MS);
        assert!(runner.checked(), "{:?}", runner.phase);
        if runner.step == 0 {
            runner.next(&mut lab, &mut twin).unwrap();
        }
    }
    let said = texts(&runner).join(" ");
    assert!(said.contains("not rewound at all"), "{said}");
    assert!(
        !said.contains("the interpolation the server always undoes"),
        "{said}"
    );
}
