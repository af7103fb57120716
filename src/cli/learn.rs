//! `netarena learn`: the course's list, a lesson started, or the learner's place
//! resumed; its progress kept in the XDG state directory (or where `--progress` or
//! `$NETARENA_LEARN_PROGRESS` says).

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicUsize};

use anyhow::{Context, bail};

use netarena::learn::{self, Progress};

use super::args::LearnArgs;
use super::signals::finish;

/// The variable that points the progress file elsewhere (tests, a shared machine).
const ENV: &str = "NETARENA_LEARN_PROGRESS";

/// Where progress is kept: `--progress`, else `$NETARENA_LEARN_PROGRESS`, else
/// `learn.txt` in the XDG state directory (`~/.local/state/netarena` on Linux; the local
/// data directory where there is no state directory).
fn progress_path(flag: Option<PathBuf>) -> anyhow::Result<PathBuf> {
    if let Some(p) = flag {
        return Ok(p);
    }
    if let Some(p) = std::env::var_os(ENV).filter(|p| !p.is_empty()) {
        return Ok(PathBuf::from(p));
    }
    let dirs = directories::ProjectDirs::from("", "", "netarena")
        .context("no home directory to keep progress in: give --progress FILE")?;
    let dir = dirs.state_dir().unwrap_or_else(|| dirs.data_local_dir());
    Ok(dir.join("learn.txt"))
}

/// The lessons, numbered, each with the articles it draws on and whether it is done.
fn list(progress: &Progress) -> String {
    let mut out =
        String::from("netarena learn: guided lessons in the lab that check what you do\n\n");
    for (n, (title, articles, _)) in learn::lessons().iter().enumerate() {
        let mark = if progress.done.contains(&n) {
            "done"
        } else {
            "    "
        };
        out.push_str(&format!(
            "{:>3}. [{mark}] {title}\n{}",
            n + 1,
            articles
                .iter()
                .map(|a| format!("       from {a}\n"))
                .collect::<String>()
        ));
    }
    out.push_str(
        "\n`netarena learn N` starts lesson N; `netarena learn` resumes where you were.\n",
    );
    out.push_str("In a lesson: o go on, b back, e again, End skip, q quit (progress is kept).\n");
    out
}

pub(crate) fn run(
    args: LearnArgs,
    stop: &AtomicBool,
    signal: &AtomicUsize,
) -> anyhow::Result<ExitCode> {
    let path = progress_path(args.progress)?;
    let mut progress = Progress::load(&path)?;
    let steps = learn::step_counts();
    let (lesson, step) = match (args.lesson, progress.at) {
        _ if args.list => {
            print!("{}", list(&progress));
            return Ok(ExitCode::SUCCESS);
        }
        (Some(n), _) => {
            if n == 0 || n > steps.len() {
                bail!(
                    "there is no lesson {n}: the lessons are 1 to {}",
                    steps.len()
                );
            }
            if args.step == 0 || args.step > steps[n - 1] {
                match steps[n - 1] {
                    1 => bail!("lesson {n} has one step"),
                    count => bail!("lesson {n} has steps 1 to {count}"),
                }
            }
            (n - 1, args.step - 1)
        }
        (None, Some((n, s))) if n < steps.len() => {
            let s = s.min(steps[n] - 1);
            eprintln!(
                "resuming lesson {} step {}; `netarena learn {}` starts it over, `netarena learn --list` lists them",
                n + 1,
                s + 1,
                n + 1
            );
            (n, s)
        }
        (None, _) => {
            print!("{}", list(&progress));
            return Ok(ExitCode::SUCCESS);
        }
    };
    let cap = (args.fps_cap > 0).then_some(args.fps_cap);
    let theme = args.theme.resolve();
    let outcome = learn::run(lesson, step, &mut progress, cap, theme, stop);
    if let Some((n, s)) = progress.at {
        println!(
            "progress kept in {}: lesson {} step {} next ({} of {} lessons done)",
            path.display(),
            n + 1,
            s + 1,
            progress.done.len(),
            steps.len()
        );
    }
    finish(outcome, signal)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The list numbers every lesson, names its articles, and marks the ones done.
    #[test]
    fn the_list_marks_lessons_done() {
        let mut p = Progress::default();
        p.done.insert(1);
        let text = list(&p);
        let count = learn::lessons().len();
        assert!(count >= 8);
        assert!(text.contains("  1. [    ] Latency"), "{text}");
        assert!(text.contains("  2. [done] Prediction"), "{text}");
        assert!(text.contains(&format!("{count:>3}. ")), "{text}");
        // Articles by title and where they appeared, never by a file name of ours.
        assert!(
            text.contains("from \"Improved Latency Handling\" (chapter 8 of Multiplayer"),
            "{text}"
        );
        assert!(!text.contains("improved-latency-handling"), "{text}");
    }

    /// Issue 30: a lesson of one step said "lesson 3 has steps 1 to 1".
    #[test]
    fn a_step_past_the_last_names_the_steps() {
        let steps = learn::step_counts();
        let progress = std::env::temp_dir().join(format!("netarena-learn-{}", std::process::id()));
        let said = |lesson: usize| {
            use clap::Parser;
            let argv = ["netarena", "learn", &lesson.to_string(), "--step", "99"];
            let progress = ["--progress", progress.to_str().unwrap()];
            let cli = super::super::args::Cli::parse_from(argv.iter().chain(&progress));
            let super::super::args::Subcmd::Learn(args) = cli.command else {
                unreachable!("learn parses as learn")
            };
            let stop = AtomicBool::new(false);
            let signal = AtomicUsize::new(0);
            run(args, &stop, &signal)
                .expect_err("no step 99")
                .to_string()
        };
        let one = steps
            .iter()
            .position(|&c| c == 1)
            .expect("a lesson of one step");
        assert_eq!(said(one + 1), format!("lesson {} has one step", one + 1));
        let more = steps.iter().position(|&c| c > 1).expect("a lesson of more");
        assert_eq!(
            said(more + 1),
            format!("lesson {} has steps 1 to {}", more + 1, steps[more])
        );
        assert!(!progress.exists());
    }

    #[test]
    fn the_flag_beats_the_variable() {
        let p = progress_path(Some(PathBuf::from("/x/p.txt"))).unwrap();
        assert_eq!(p, PathBuf::from("/x/p.txt"));
    }
}
