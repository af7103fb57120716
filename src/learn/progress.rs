//! What a learner has done, kept in a small text file (the XDG state directory by
//! default: `netarena learn` finds it) so `learn` resumes: a line `done N` for every
//! lesson completed, and `at N S` for the step last reached (both 1-based).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use anyhow::Context;

/// The learner's progress, and where it is kept.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Progress {
    path: Option<PathBuf>,
    /// Lessons completed (0-based).
    pub done: BTreeSet<usize>,
    /// The lesson and step last reached (0-based).
    pub at: Option<(usize, usize)>,
}

impl Progress {
    /// The progress kept at `path`; none yet if the file does not exist. Lines it does
    /// not understand are skipped.
    pub fn load(path: &Path) -> anyhow::Result<Progress> {
        let mut p = Progress {
            path: Some(path.to_owned()),
            ..Progress::default()
        };
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(p),
            Err(e) => {
                return Err(e).with_context(|| format!("cannot read {}", path.display()));
            }
        };
        for line in text.lines() {
            let words: Vec<usize> = line
                .split_whitespace()
                .skip(1)
                .filter_map(|w| w.parse().ok())
                .filter(|&n| n >= 1)
                .collect();
            match (line.split_whitespace().next(), words.as_slice()) {
                (Some("done"), [n]) => {
                    p.done.insert(n - 1);
                }
                (Some("at"), [n, s]) => p.at = Some((n - 1, s - 1)),
                _ => {}
            }
        }
        Ok(p)
    }

    /// Writes it back (creating its folder), if it has a file.
    pub fn save(&self) -> anyhow::Result<()> {
        let Some(path) = &self.path else {
            return Ok(());
        };
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create {}", dir.display()))?;
        }
        let mut text = String::from("# netarena learn: lessons done and the step reached\n");
        for n in &self.done {
            text.push_str(&format!("done {}\n", n + 1));
        }
        if let Some((n, s)) = self.at {
            text.push_str(&format!("at {} {}\n", n + 1, s + 1));
        }
        std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))
    }

    pub(crate) fn reached(&mut self, lesson: usize, step: usize) {
        self.at = Some((lesson, step));
    }

    pub(crate) fn completed(&mut self, lesson: usize) {
        self.done.insert(lesson);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_survives_a_save_and_a_load() {
        let dir = std::env::temp_dir().join(format!("netarena-progress-{}", std::process::id()));
        let path = dir.join("deep").join("learn.txt");
        let mut p = Progress::load(&path).unwrap();
        assert_eq!(p.at, None);
        p.completed(0);
        p.completed(2);
        p.reached(3, 1);
        p.save().unwrap();
        let back = Progress::load(&path).unwrap();
        assert_eq!(back, p);
        std::fs::write(&path, "done x\nat 0 0\nat 2\ndone 5\n").unwrap();
        let odd = Progress::load(&path).unwrap();
        assert_eq!(odd.done.iter().copied().collect::<Vec<_>>(), [4]);
        assert_eq!(odd.at, None);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
