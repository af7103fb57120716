//! `netarena learn` in a real terminal (tmux): a whole lesson taken at 160x45 as a
//! learner would (read, go on, press the switch asked for, walk, see the check with the
//! numbers measured, finish; progress kept in the file given), and a lesson at 100x30
//! whose panel fits under the views without covering them.

use std::path::PathBuf;
use std::thread::sleep;
use std::time::{Duration, Instant};

use crate::support::tmux as term;

use term::{DEADLINE, Tmux, game_script, quit_and_check_terminal};

/// A progress file of this test's own.
fn progress_file(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("netarena-learn-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir.join("progress.txt")
}

#[test]
#[ignore = "slow tier: .ci/run runs it with --ignored"]
fn a_whole_lesson_is_taken_and_checked_at_160x45() {
    let progress = progress_file("whole");
    let tmux = Tmux::start(
        "learn-whole",
        160,
        45,
        &game_script(&format!("learn 1 --progress {}", progress.display())),
    );
    let first = tmux.wait_for_text("step 1/2");
    assert!(first.contains("Latency and the dumb client"), "{first}");
    assert!(
        first.contains("PAUSED"),
        "a look step stops the world:\n{first}"
    );
    assert!(first.contains("round trip measures"), "{first}");
    tmux.key("o");
    tmux.wait_for_text("step 2/2");
    tmux.key("o");
    tmux.wait_for("time to run", |s| (!s.contains("PAUSED")).then_some(()));
    // Walking before prediction is off is not what was asked: the step says so.
    tmux.key("d");
    tmux.wait_for_text("client 1 still predicts: press `p`");
    tmux.key("p");
    // Walk back and forth until the step is checked.
    let deadline = Instant::now() + DEADLINE;
    let mut checked = None;
    let mut n = 0;
    while Instant::now() < deadline && checked.is_none() {
        tmux.key(if (n / 25) % 2 == 0 { "d" } else { "a" });
        n += 1;
        sleep(Duration::from_millis(20));
        let s = tmux.screen();
        checked = s.contains("✓ checked.").then_some(s);
    }
    let checked = checked.expect("the step was checked while walking");
    eprintln!("{checked}");
    assert!(checked.contains("ms after your key"), "{checked}");
    assert!(
        checked.contains("PAUSED"),
        "the check stops the world:\n{checked}"
    );
    tmux.key("o");
    tmux.wait_for_text("Lesson complete");
    quit_and_check_terminal(&tmux, "q", true);
    let kept = std::fs::read_to_string(&progress).expect("the progress file");
    assert!(kept.contains("done 1"), "{kept}");
    assert!(
        kept.contains("at 2 1"),
        "the next lesson is where to resume: {kept}"
    );
    let _ = std::fs::remove_dir_all(progress.parent().unwrap());
}

#[test]
fn a_lesson_fits_100x30_under_its_views() {
    let progress = progress_file("narrow");
    let tmux = Tmux::start(
        "learn-narrow",
        100,
        30,
        &game_script(&format!("learn 5 --progress {}", progress.display())),
    );
    let screen = tmux.wait_for_text("to go on.");
    let lines: Vec<&str> = screen.lines().collect();
    let row = |needle: &str| {
        lines
            .iter()
            .position(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("{needle:?} not on screen:\n{screen}"))
    };
    let views_end = row("acked: c1");
    let lanes = row("client 1 lan");
    let panel = row("lesson 5/10: Interpolation");
    let text_end = row("to go on.");
    assert!(
        views_end < lanes && lanes < panel && panel < text_end,
        "views, lanes, then the lesson's panel:\n{screen}"
    );
    assert!(screen.contains("snapshots are buffered"), "{screen}");
    // Both views whole: the server's and client 1's borders side by side.
    assert!(lines[views_end + 1].matches('┘').count() == 2, "{screen}");
    assert!(
        lines[panel + 1..].iter().any(|l| l.starts_with('└')),
        "the panel's bottom border:\n{screen}"
    );
    quit_and_check_terminal(&tmux, "q", true);
    let _ = std::fs::remove_dir_all(progress.parent().unwrap());
}

/// Lesson 1 and lesson 7 (a long first step) at 80x24 and 100x30: the step's first
/// lines of each paragraph and its `o` prompt are on screen whole, the panel's bottom
/// border under them; at 80x12 one line says what size the step needs. (Every step at
/// both sizes: `learn::coach`'s `every_step_and_its_prompt_are_whole_at_80x24_and_100x30`.)
#[test]
fn lessons_are_whole_at_80x24_and_100x30() {
    for (w, h) in [(80, 24), (100, 30)] {
        for (lesson, texts) in [
            (1, ["Client 1 plays over a `bad` link", "Client 1 is `"]),
            (7, ["Three rates. The tick rate:", "The frame rate (`fps`"]),
        ] {
            let progress = progress_file(&format!("sizes-{w}-{lesson}"));
            let tmux = Tmux::start(
                &format!("learn-{w}x{h}-{lesson}"),
                w,
                h,
                &game_script(&format!("learn {lesson} --progress {}", progress.display())),
            );
            let screen = tmux.wait_for_text("⏸ `o`");
            let lines: Vec<&str> = screen.lines().collect();
            let prompt = lines.iter().position(|l| l.contains("⏸ `o`")).unwrap();
            assert!(
                lines[prompt].contains("to go on.") || lines[prompt].contains("try it."),
                "{w}x{h} lesson {lesson}: the prompt is cut:\n{screen}"
            );
            assert!(
                lines[prompt + 1..].iter().any(|l| l.starts_with('└')),
                "{w}x{h} lesson {lesson}: the panel's bottom border under the prompt:\n{screen}"
            );
            for text in texts {
                assert!(
                    screen.contains(text),
                    "{w}x{h} lesson {lesson}: no {text:?}:\n{screen}"
                );
            }
            if (w, lesson) == (80, 1) {
                tmux.resize(80, 12);
                let small = tmux.wait_for_text("Too small: this step needs 80x");
                assert!(small.contains("the terminal is 80x12"), "{small}");
            }
            quit_and_check_terminal(&tmux, "q", true);
            let _ = std::fs::remove_dir_all(progress.parent().unwrap());
        }
    }
}
