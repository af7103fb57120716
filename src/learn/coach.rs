//! The course in the lab's terminal front end: the course's keys (`ui::keys::LEARN`),
//! the lesson's words as a panel under the lanes, measured numbers in bold, and the
//! learner's progress saved at every step.

use std::time::Instant;

use ratatui::crossterm::event::KeyEvent;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

use super::lessons::LESSONS;
use super::progress::Progress;
use super::runner::{Phase, Runner};
use crate::lab::terminal::{Coach, Twin};
use crate::lab::{Lab, compare};
use crate::ui::keys::{self, Learn};
use crate::ui::lab::Panel;

/// The widest the lesson's panel gets: lines longer than this are hard to read.
const MAX_WIDTH: u16 = 118;
/// The narrowest the lesson's panel gets to leave room beside it.
const MIN_BESIDE: u16 = 90;

/// A learner taking the course in the terminal.
pub(crate) struct Course<'p> {
    runner: Runner,
    progress: &'p mut Progress,
    entered: bool,
    /// A pause or resume the last key asked for.
    pause: Option<bool>,
    /// What went wrong building a step's lab, shown in the panel.
    error: Option<String>,
}

impl<'p> Course<'p> {
    pub(crate) fn new(
        lesson: usize,
        step: usize,
        base: Instant,
        progress: &'p mut Progress,
    ) -> Course<'p> {
        Course {
            runner: Runner::new(lesson, step, base),
            progress,
            entered: false,
            pause: None,
            error: None,
        }
    }

    /// Notes where the learner is, and saves it (a failure to save is shown, not fatal).
    fn note(&mut self) {
        let r = &self.runner;
        let last = r.step + 1 == r.lesson().steps.len();
        if r.phase == Phase::Complete || (last && r.checked()) {
            self.progress.completed(r.lesson);
        }
        match r.phase {
            Phase::Complete if r.lesson + 1 < LESSONS.len() => {
                self.progress.reached(r.lesson + 1, 0);
            }
            Phase::Complete => {}
            _ => self.progress.reached(r.lesson, r.step),
        }
        if let Err(e) = self.progress.save() {
            self.error = Some(format!("{e:#}"));
        }
    }

    fn entered(&mut self, result: anyhow::Result<()>) {
        if let Err(e) = result {
            self.error = Some(format!("{e:#}"));
        }
        self.pause = Some(true);
        self.note();
    }

    fn key(&mut self, k: Learn, lab: &mut Lab, twin: &mut Twin) {
        match k {
            Learn::Next if self.runner.phase == Phase::Complete => self.skip(lab, twin),
            Learn::Next => match self.runner.go_on(lab, twin) {
                Ok(run) => {
                    self.pause = Some(!run);
                    self.note();
                }
                Err(e) => self.error = Some(format!("{e:#}")),
            },
            Learn::Back => {
                let r = self.runner.back(lab, twin);
                self.entered(r);
            }
            Learn::Repeat => {
                let r = self.runner.enter(lab, twin);
                self.entered(r);
            }
            Learn::Skip => self.skip(lab, twin),
        }
    }

    /// On to the next lesson (or, after the last, the first again).
    fn skip(&mut self, lab: &mut Lab, twin: &mut Twin) {
        let next = (self.runner.lesson + 1) % LESSONS.len();
        let base = lab.now();
        self.runner = Runner::new(next, 0, base);
        let r = self.runner.enter(lab, twin);
        self.entered(r);
    }

    /// The panel's title.
    fn title(&self) -> String {
        let r = &self.runner;
        format!(
            "lesson {}/{}: {} · step {}/{}",
            r.lesson + 1,
            LESSONS.len(),
            r.lesson().title,
            r.step + 1,
            r.lesson().steps.len()
        )
    }
}

impl Coach for Course<'_> {
    fn on_key(&mut self, key: &KeyEvent, lab: &mut Lab, twin: &mut Twin) -> bool {
        let Some(k) = keys::learn_key(key) else {
            return false;
        };
        self.key(k, lab, twin);
        true
    }

    fn watch(&mut self, lab: &mut Lab, twin: &mut Twin) -> Option<bool> {
        if !self.entered {
            self.entered = true;
            let r = self.runner.enter(lab, twin);
            self.entered(r);
        }
        if self.runner.observe(lab, twin) {
            self.pause = Some(true);
            self.note();
        }
        self.pause.take()
    }

    fn panels(&self, _lab: &Lab, width: u16) -> Vec<Panel> {
        // An A/B step leaves room beside it for the panel of figures that differ, where
        // the lesson's text still reads well.
        let beside = width.saturating_sub(compare::DIFFERENCES_WIDTH);
        let width = match self.runner.current().compare {
            Some(_) if beside >= MIN_BESIDE => beside,
            _ => width,
        }
        .min(MAX_WIDTH);
        let inner = usize::from(width.saturating_sub(2)).max(20);
        let lines = paragraphs(&self.runner, self.error.as_deref())
            .iter()
            .flat_map(|p| wrap(p, inner))
            .map(|l| styled(&l))
            .collect();
        vec![Panel {
            title: self.title(),
            lines,
            width,
            whole: true,
            ..Panel::default()
        }]
    }

    fn reminder(&self) -> String {
        format!(
            " {} · q quit · ? lab keys",
            keys::hints(keys::LEARN).join(" · ")
        )
    }
}

/// The panel's text for where `r` is, unwrapped: each a paragraph.
pub(crate) fn paragraphs(r: &Runner, error: Option<&str>) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(e) = error {
        out.push(format!("! {e}"));
    }
    match &r.phase {
        Phase::Reading => {
            out.extend(r.said.iter().cloned());
            out.push(if r.current().task.is_some() {
                "⏸ `o` to let time run and try it.".to_owned()
            } else {
                "⏸ `o` to go on.".to_owned()
            });
        }
        Phase::Doing(why) => {
            out.extend(r.said.iter().cloned());
            if !why.is_empty() {
                out.push(format!("▶ {why}"));
            }
        }
        Phase::Checked(lines) => {
            out.push("✓ checked.".to_owned());
            out.extend(lines.iter().cloned());
            let last = r.step + 1 == r.lesson().steps.len();
            out.push(if last {
                "⏸ `o` to finish the lesson · `e` this step again".to_owned()
            } else {
                "⏸ `o` next step · `e` this step again".to_owned()
            });
        }
        Phase::Complete if r.lesson + 1 < LESSONS.len() => {
            out.push(
                "✓ Lesson complete. `o` for the next lesson, `q` to quit (progress is kept)."
                    .to_owned(),
            );
        }
        Phase::Complete => {
            out.push("✓ Course complete: every lesson done. `q` to quit.".to_owned());
        }
    }
    out
}

/// The width of text as drawn: the measurement marks take no room.
fn drawn_width(s: &str) -> usize {
    s.chars().filter(|c| !matches!(c, '⟨' | '⟩')).count()
}

/// `text` in lines of at most `width` columns, broken between words.
pub(crate) fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split(' ') {
        if !line.is_empty() && drawn_width(&line) + 1 + drawn_width(word) > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    lines.push(line);
    lines
}

/// A line with its measured numbers bold, their marks dropped.
pub(crate) fn styled(line: &str) -> Line<'static> {
    let bold = Style::new().add_modifier(Modifier::BOLD);
    let mut spans = Vec::new();
    let mut rest = line;
    while let Some(open) = rest.find('⟨') {
        spans.push(Span::raw(rest[..open].to_owned()));
        let after = &rest[open + '⟨'.len_utf8()..];
        let close = after.find('⟩').unwrap_or(after.len());
        spans.push(Span::styled(after[..close].to_owned(), bold));
        rest = after.get(close + '⟩'.len_utf8()..).unwrap_or("");
    }
    spans.push(Span::raw(rest.to_owned()));
    Line::from(spans)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::crossterm::event::KeyCode;

    fn press(c: &mut Course<'_>, lab: &mut Lab, code: KeyCode) -> Option<bool> {
        assert!(
            c.on_key(&KeyEvent::from(code), lab, &mut None),
            "{code:?} is the course's"
        );
        c.watch(lab, &mut None)
    }

    /// The course's keys through the coach: the first look pauses; `o` goes on, then
    /// lets time run; `b` goes back; `End` skips to the next lesson; every move is saved
    /// to the progress file; the lab's own keys are left to the lab.
    #[test]
    fn the_keys_walk_the_steps_and_progress_is_saved() {
        let t0 = Instant::now();
        let path = std::env::temp_dir().join(format!("netarena-coach-{}.txt", std::process::id()));
        let _ = std::fs::remove_file(&path);
        let mut progress = Progress::load(&path).unwrap();
        let mut lab = Lab::new(&LESSONS[0].scenario.config(), t0).unwrap();
        let mut c = Course::new(0, 0, t0, &mut progress);
        assert_eq!(
            c.watch(&mut lab, &mut None),
            Some(true),
            "a step starts paused"
        );
        assert!(c.title().ends_with("step 1/2"), "{}", c.title());
        let panel = &c.panels(&lab, 160)[0];
        let bold = panel
            .lines
            .iter()
            .flat_map(|l| &l.spans)
            .filter(|s| s.style.add_modifier.contains(Modifier::BOLD))
            .map(|s| s.content.to_string())
            .collect::<Vec<_>>();
        assert!(
            bold.iter().any(|s| s.parse::<f64>().is_ok()),
            "the measured round trip is drawn bold: {bold:?}"
        );
        assert!(!c.on_key(&KeyEvent::from(KeyCode::Char('p')), &mut lab, &mut None));
        assert_eq!(press(&mut c, &mut lab, KeyCode::Char('o')), Some(true));
        assert!(c.title().ends_with("step 2/2"));
        assert_eq!(
            press(&mut c, &mut lab, KeyCode::PageDown),
            Some(false),
            "runs"
        );
        assert!(matches!(c.runner.phase, Phase::Doing(_)));
        assert_eq!(press(&mut c, &mut lab, KeyCode::Char('b')), Some(true));
        assert!(c.title().ends_with("step 1/2"));
        assert_eq!(press(&mut c, &mut lab, KeyCode::End), Some(true));
        assert!(c.title().starts_with("lesson 2/"), "{}", c.title());
        drop(c);
        let kept = std::fs::read_to_string(&path).unwrap();
        assert!(kept.contains("at 2 1"), "{kept}");
        let _ = std::fs::remove_file(&path);
    }

    /// The screen as the front end draws it with a coach: the lab's views, or on an A/B
    /// step the clients' views of the lab and lab B side by side
    /// (`compare::clients_view`); the coach's panel first.
    fn screen(c: &Course<'_>, a: &Lab, twin: &Twin, w: u16, h: u16) -> String {
        use crate::lab::{compare, view};
        use ratatui::{Terminal, backend::TestBackend};
        let controls = view::Controls {
            selected: 0,
            speed: 1.0,
            paused: true,
            fps: 60.0,
            message: &c.reminder(),
            help: false,
            theme: crate::ui::Theme::Mono,
            follow: None,
            over: crate::lab::view::Over::Nothing,
        };
        let mut v = match twin {
            Some((b, setting)) => compare::clients_view(a, b, setting, &controls),
            None => view::build(a, &controls),
        };
        v.panels.splice(0..0, c.panels(a, w));
        let mut term = Terminal::new(TestBackend::new(w, h)).unwrap();
        term.draw(|f| crate::ui::lab::draw(f, &v)).unwrap();
        let buf = term.backend().buffer();
        (0..h)
            .map(|y| (0..w).map(|x| buf[(x, y)].symbol()).collect::<String>())
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// Lesson 7's A/B step in the terminal: `o` lets both labs run; once checked, the
    /// screen has lab A's views on the left (20 Hz), lab B's on the right (10 Hz), and
    /// the lesson's panel with each lab's measured `remote_motion_cv`, at 160x45 and at
    /// 100x30; at 160x45 the figures that differ beside it, B's column whole. `LEARN_CAPTURE=1` prints the 160x45 screen.
    #[test]
    fn the_ab_step_draws_both_labs_and_the_lesson() {
        let t0 = Instant::now();
        let path =
            std::env::temp_dir().join(format!("netarena-coach-ab-{}.txt", std::process::id()));
        let _ = std::fs::remove_file(&path);
        let mut progress = Progress::load(&path).unwrap();
        let mut lab = Lab::new(&LESSONS[6].scenario.config(), t0).unwrap();
        let mut twin: Twin = None;
        let mut c = Course::new(6, 2, t0, &mut progress);
        assert_eq!(c.watch(&mut lab, &mut twin), Some(true));
        assert!(twin.is_some(), "the A/B step built lab B");
        let reading = screen(&c, &lab, &twin, 160, 45);
        assert!(reading.contains("left A: snapshot-rate=20"), "{reading}");
        assert!(reading.contains("right B: snapshot-rate=10"), "{reading}");
        assert!(c.on_key(&KeyEvent::from(KeyCode::Char('o')), &mut lab, &mut twin));
        assert_eq!(c.watch(&mut lab, &mut twin), Some(false), "both labs run");
        let example = c.runner.current().example;
        super::super::runner::play(&mut c.runner, &mut lab, &mut twin, example, 12_000);
        assert!(
            matches!(c.runner.phase, Phase::Checked(_)),
            "{:?}",
            c.runner.phase
        );
        let cv = |l: &Lab| format!("{:.2}", l.remote_motion_cv(0).expect("measured"));
        let (cv_a, cv_b) = (cv(&lab), cv(&twin.as_ref().unwrap().0));
        assert_ne!(cv_a, cv_b);
        for (w, h) in [(160, 45), (100, 30)] {
            let shot = screen(&c, &lab, &twin, w, h);
            if std::env::var_os("LEARN_CAPTURE").is_some() {
                println!("{w}x{h}:\n{shot}");
            }
            let wants = [
                "lesson 7/10",
                "✓ checked",
                "A: snapshot-rate=20 · client 1",
                "B: snapshot-rate=10 · client 1",
                &cv_a,
                &cv_b,
            ];
            for want in wants {
                assert!(shot.contains(want), "{w}x{h}: no {want:?}:\n{shot}");
            }
            // Beside the lesson where there is room: B's column whole.
            let differ = shot.lines().find(|l| l.contains("snapshots_received"));
            assert_eq!(differ.is_some(), w == 160, "{w}x{h}:\n{shot}");
            if let Some(row) = differ {
                let (_, figures) = row.split_once("snapshots_received").unwrap();
                let numbers = figures
                    .split_whitespace()
                    .filter(|f| f.parse::<f64>().is_ok())
                    .count();
                assert_eq!(numbers, 3, "A, B and B/A: {row}");
            }
        }
        drop(c);
        let _ = std::fs::remove_file(&path);
    }

    /// Every step of every lesson, as it opens, at 80x24, 80x30, 90x27 (where it was cut
    /// or missing) and 100x30: each line of the
    /// panel (the step's text and its prompt, wrapped) is on screen whole, and the
    /// prompt is the last of them; at 80x12 one line says what size the step needs.
    #[test]
    fn every_step_and_its_prompt_are_whole_at_80x24_and_100x30() {
        let t0 = Instant::now();
        let path =
            std::env::temp_dir().join(format!("netarena-coach-sizes-{}.txt", std::process::id()));
        let mut progress = Progress::load(&path).unwrap();
        let text = |l: &Line<'_>| {
            l.spans
                .iter()
                .map(|s| s.content.as_ref())
                .collect::<String>()
        };
        for (n, lesson) in LESSONS.iter().enumerate() {
            for step in 0..lesson.steps.len() {
                let mut lab = Lab::new(&lesson.scenario.config(), t0).unwrap();
                let mut twin: Twin = None;
                let mut c = Course::new(n, step, t0, &mut progress);
                assert_eq!(c.watch(&mut lab, &mut twin), Some(true));
                assert!(c.error.is_none(), "{}: {:?}", c.title(), c.error);
                for (w, h) in [(80, 24), (80, 30), (90, 27), (100, 30)] {
                    let shot = screen(&c, &lab, &twin, w, h);
                    let lines = &c.panels(&lab, w)[0].lines;
                    let prompt = text(lines.last().unwrap());
                    assert!(prompt.contains("`o`"), "{}: {prompt}", c.title());
                    for line in lines {
                        let line = text(line);
                        assert!(
                            shot.contains(line.trim_end()),
                            "{} at {w}x{h}: {line:?} is not whole on screen:\n{shot}",
                            c.title()
                        );
                    }
                }
                let small = screen(&c, &lab, &twin, 80, 12);
                assert!(
                    small.starts_with("Too small: this step needs 80x"),
                    "{}: {small}",
                    c.title()
                );
                assert!(
                    small.lines().nth(1).is_some_and(|l| l.trim().is_empty()),
                    "one line: {small}"
                );
                drop(c);
            }
        }
        let _ = std::fs::remove_file(&path);
    }

    /// The stats overlay (`n`) on a lesson's duel map is whole at 100x30 and 80x24: its
    /// rows of traffic, prediction and interpolation, each whole, and the lagometer,
    /// drawn over what it needs beside and under the 12-row pane, not cut to it.
    #[test]
    fn the_stats_overlay_is_whole_on_duel() {
        use crate::client::play::input::Action;
        let t0 = Instant::now();
        let path =
            std::env::temp_dir().join(format!("netarena-coach-stats-{}.txt", std::process::id()));
        let mut progress = Progress::load(&path).unwrap();
        let mut lab = Lab::new(&LESSONS[1].scenario.config(), t0).unwrap();
        let mut c = Course::new(1, 0, t0, &mut progress);
        assert_eq!(c.watch(&mut lab, &mut None), Some(true));
        assert_eq!(lab.server().game().map().name(), "duel");
        lab.act(0, Action::ToggleStats);
        for (w, h) in [(100, 30), (80, 24)] {
            let shot = screen(&c, &lab, &None, w, h);
            let rows = [
                "net stats (n)",
                "RTT ",
                "loss ",
                "cmds sent ",
                "pending ",
                "corrections ",
                "shots mispredicted ",
                "server decisions ",
                "delay ",
                "frames extrapolated ",
                "lagometer ",
                "RTT≤",
            ];
            for row in rows {
                assert!(shot.contains(row), "{w}x{h}: no {row:?}:\n{shot}");
            }
            // Each row whole: its last figure and the box's border after it.
            let box_row = |needle: &str| {
                let line = shot.lines().find(|l| l.contains(needle)).unwrap();
                let after = &line[line.find(needle).unwrap()..];
                assert!(after.contains('│'), "{w}x{h}: {needle:?} cut: {line}");
            };
            for needle in ["max ", "server decisions ", "underruns ", "late"] {
                box_row(needle);
            }
        }
        drop(c);
        let _ = std::fs::remove_file(&path);
    }
}
