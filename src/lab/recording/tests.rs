//! A whole lab recorded and replayed: the same report, the same screens, its
//! checkpoints holding the re-run to the recording.

use std::path::PathBuf;

use ratatui::Terminal;
use ratatui::backend::TestBackend;

use super::*;
use crate::lab::dials::DIALS;
use crate::lab::headless;
use crate::lab::view::{self, Controls};
use crate::ui;

fn temp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!(
        "netarena-labrec-{}-{name}.narec",
        std::process::id()
    ))
}

/// Two clients (`bad` then `lan`), one walker, seeded; client 1 on keys.
fn config() -> LabConfig {
    let mut c = crate::lab::tests::config(2, 0, 7);
    c.walkers = 1;
    c.keyboard = 1;
    c
}

/// Records `config()` for 6 s of lab time with a key held from 1.5 s to 3 s, a dial
/// turned at 2.5 s and a switch key at 4 s; the file and the live lab's report.
fn record(name: &str) -> (PathBuf, headless::LabReport) {
    let (path, report, _) = record_live(name);
    (path, report)
}

/// [`record`], and the live lab as it ended.
fn record_live(name: &str) -> (PathBuf, headless::LabReport, Lab) {
    record_with(name, None)
}

/// [`record_live`], client 1 turned to the variable rate at `fps` frames a second at
/// 1 s if given.
fn record_with(name: &str, fps: Option<u32>) -> (PathBuf, headless::LabReport, Lab) {
    let path = temp(name);
    let config = config();
    let t0 = Instant::now();
    let mut lab = Lab::new(&config, t0).unwrap();
    let journal = Journal::create(&path).unwrap();
    lab.record_lab(journal, &LabStart::of(&config, Some((160, 45)), Vec::new()))
        .unwrap();
    let ms = |n: u64| t0 + Duration::from_millis(n);
    // Frames at a terminal's odd times, as the live lab runs: not whole milliseconds.
    let mut at = Duration::ZERO;
    let (mut turned, mut switched, mut varied) = (false, false, false);
    while at < Duration::from_secs(6) {
        at += Duration::from_micros(16_667);
        lab.run_until(t0 + at);
        lab.frame();
        if let Some(fps) = fps.filter(|_| at.as_millis() >= 1000 && !varied) {
            varied = true;
            let rate = DIALS
                .iter()
                .position(|d| d.flag == "--command-rate")
                .unwrap();
            lab.set_dial(rate, 0, fps);
        }
        if (1500..3000).contains(&at.as_millis()) {
            lab.hold(0, Buttons::RIGHT.union(Buttons::DOWN));
        } else {
            lab.hold(0, Buttons::empty());
        }
        if at.as_millis() >= 2500 && !turned {
            turned = true;
            let input_rate = DIALS.iter().position(|d| d.flag == "--input-rate").unwrap();
            lab.set_dial(input_rate, 1, 60);
        }
        if at.as_millis() >= 4000 && !switched {
            switched = true;
            lab.act(0, Action::ToggleReconciliation);
        }
    }
    lab.run_until(ms(6000));
    let report = headless::report(&lab, config.server.seed);
    lab.finish_lab_recording("time up", &report).unwrap();
    (path, report, lab)
}

/// Issue 24: a whole-lab recording replays headless to the same report, field by field
/// (every client), and every checkpoint (server world, sessions, wire log) agrees.
#[test]
fn a_lab_recording_replays_to_the_same_report() {
    let (path, live) = record("report");
    let mut replay = LabReplay::load(&path).unwrap();
    let _ = std::fs::remove_file(&path);
    assert!(replay.file.stopped.is_none(), "{:?}", replay.file.stopped);
    assert!(
        replay.file.checks.len() >= 6,
        "{}",
        replay.file.checks.len()
    );
    let wire: usize = replay.file.checks.iter().map(|c| c.wire.len()).sum();
    let sent: u64 = live
        .clients
        .iter()
        .map(|c| c.link_up.sent + c.link_down.sent)
        .sum();
    assert!(wire as u64 > sent, "the walker's datagrams are logged too");
    let again = headless::replayed(&mut replay);
    assert_eq!(replay.diverged(), None);
    let (a, b) = (
        serde_json::to_value(&live).unwrap(),
        serde_json::to_value(&again).unwrap(),
    );
    for (n, (x, y)) in a["clients"]
        .as_array()
        .unwrap()
        .iter()
        .zip(b["clients"].as_array().unwrap())
        .enumerate()
    {
        for (field, value) in x.as_object().unwrap() {
            assert_eq!(Some(value), y.get(field), "client {}'s {field}", n + 1);
        }
    }
    assert_eq!(a, b);
    let (ended, recorded) = replay.file.end.clone().unwrap();
    assert_eq!(ended, "time up");
    assert_eq!(
        recorded,
        serde_json::to_string(&again).unwrap(),
        "as written"
    );
}

/// A lab recording whose client 1 turned to the variable rate (144 frames a second) at
/// 1 s replays to the same report, with no divergence: the dial is in the journal.
#[test]
fn a_variable_rate_lab_recording_replays_to_the_same_report() {
    let (path, live, lab) = record_with("variable", Some(144));
    assert_eq!(lab.session(0).frame_rate(), Some(144));
    let mut replay = LabReplay::load(&path).unwrap();
    let _ = std::fs::remove_file(&path);
    let again = headless::replayed(&mut replay);
    assert_eq!(replay.diverged(), None);
    assert_eq!(
        serde_json::to_value(&live).unwrap(),
        serde_json::to_value(&again).unwrap()
    );
}

/// A re-run that does not do what the recording did is caught at the first
/// checkpoint after, and said with its time.
#[test]
fn a_changed_input_is_caught_as_a_divergence() {
    let (path, _) = record("diverge");
    let mut file = read(&path).unwrap();
    let _ = std::fs::remove_file(&path);
    let held = file
        .inputs
        .iter()
        .position(|(_, i)| matches!(i, Input::Hold { buttons, .. } if *buttons != Buttons::empty()))
        .unwrap();
    file.inputs.remove(held);
    let mut replay = LabReplay::new(file).unwrap();
    replay.run_to_end();
    let why = replay.diverged().expect("diverged");
    assert!(
        why.starts_with("the re-run differs from the recording at 2.000 s"),
        "{why}"
    );
}

fn screen(lab: &Lab) -> ratatui::buffer::Buffer {
    let mut term = Terminal::new(TestBackend::new(160, 45)).unwrap();
    let controls = Controls {
        selected: 0,
        speed: 1.0,
        paused: true,
        fps: 60.0,
        message: " replay",
        help: false,
        theme: ui::Theme::Dark,
        follow: None,
        over: view::Over::Nothing,
    };
    term.draw(|f| ui::lab::draw(f, &view::build(lab, &controls)))
        .unwrap();
    term.backend().buffer().clone()
}

/// Seeking to a time shows the same screen as playing up to it, frame by frame; and
/// seeking back (which starts the lab again) too.
#[test]
fn seek_shows_the_screen_playing_shows() {
    let (path, _) = record("seek");
    let file = read(&path).unwrap();
    let _ = std::fs::remove_file(&path);
    let target = Duration::from_millis(3250);
    let mut played = LabReplay::new(read_again(&file)).unwrap();
    let mut at = Duration::ZERO;
    while at < target {
        at = (at + Duration::from_millis(16)).min(target);
        played.advance_to(at);
    }
    let mut sought = LabReplay::new(read_again(&file)).unwrap();
    sought.seek(Duration::from_millis(5000)).unwrap();
    sought.seek(target).unwrap();
    assert_eq!(played.at(), sought.at());
    let (a, b) = (screen(played.lab()), screen(sought.lab()));
    assert_eq!(a, b);
    insta::assert_snapshot!(format!("{}", buffer_text(&b)));
}

fn read_again(file: &LabFile) -> LabFile {
    LabFile {
        start: file.start.clone(),
        inputs: file.inputs.clone(),
        checks: file.checks.clone(),
        end: file.end.clone(),
        stopped: None,
    }
}

fn buffer_text(b: &ratatui::buffer::Buffer) -> String {
    let w = usize::from(b.area.width);
    b.content()
        .chunks(w)
        .map(|row| {
            row.iter()
                .map(|c| c.symbol())
                .collect::<String>()
                .trim_end()
                .to_owned()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A damaged lab recording is a one-line error or is read up to the damage, never a
/// panic: every byte flipped in turn, every length cut.
#[test]
fn a_damaged_lab_recording_is_an_error_not_a_panic() {
    let (path, _) = record("damaged");
    let bytes = std::fs::read(&path).unwrap();
    let _ = std::fs::remove_file(&path);
    let e = parse(&bytes[..5]).unwrap_err().to_string();
    assert_eq!(e, "not a lab recording (it does not start with NALAB)");
    let mut other = bytes.clone();
    other[6] = 99;
    let e = parse(&other).unwrap_err().to_string();
    assert!(e.starts_with("a lab recording of version 99;"), "{e}");
    assert!(!e.contains('\n'));
    let e = parse(&bytes[..12]).unwrap_err().to_string();
    assert!(e.starts_with("damaged at byte 8"), "{e}");
    // A byte changed in the start, in the middle, near the end; each replays to its
    // end (or stops with a line saying why).
    for at in [9, 40, bytes.len() / 3, bytes.len() / 2, bytes.len() - 20] {
        for flip in [0x01u8, 0x80, 0xff] {
            let mut bad = bytes.clone();
            bad[at] ^= flip;
            match parse(&bad) {
                Err(e) => assert!(!e.to_string().contains('\n'), "{e}"),
                Ok(file) => {
                    if let Ok(mut r) = LabReplay::new(file) {
                        r.run_to_end();
                    }
                }
            }
        }
    }
    // A client recording's reader names what it is.
    let e = crate::record::Reader::new(&bytes[..]).err().unwrap();
    assert_eq!(e, crate::record::ReadError::LabRecording);
    assert!(e.to_string().starts_with("a whole lab's recording (NALAB)"));
    let cut = parse(&bytes[..bytes.len() * 2 / 3]).unwrap();
    assert!(cut.stopped.is_some() && cut.end.is_none());
}

/// The playback's keys (the replay's rows of the binding table): → seeks a second on,
/// ← back (the lab started again), `.` a frame on and paused; the bottom line says
/// where it is and that the checkpoints agree.
#[test]
fn playback_keys_seek_and_step() {
    use crate::lab::playback::Playback;
    use ratatui::crossterm::event::{KeyCode, KeyEvent};
    let (path, _) = record("keys");
    let replay = LabReplay::load(&path).unwrap();
    let _ = std::fs::remove_file(&path);
    let mut p = Playback::new(replay, ui::Theme::Dark, Instant::now());
    let press = |p: &mut Playback, code| assert!(!p.key(&KeyEvent::from(code)));
    // Within the millisecond before: the lab steps on the milliseconds of the
    // recorded clock, which ran to a frame's odd times.
    let near = |p: &Playback, want: Duration| {
        let at = p.replay.at();
        assert!(
            at <= want && want - at < Duration::from_millis(1),
            "{at:?} for {want:?}"
        );
    };
    press(&mut p, KeyCode::Right);
    near(&p, Duration::from_secs(1));
    let one = p.replay.at();
    press(&mut p, KeyCode::Right);
    near(&p, one + Duration::from_secs(1));
    let two = p.replay.at();
    press(&mut p, KeyCode::Left);
    near(&p, two - Duration::from_secs(1));
    let one = p.replay.at();
    press(&mut p, KeyCode::Char('.'));
    near(&p, one + Duration::from_micros(16_667));
    press(&mut p, KeyCode::Up);
    press(&mut p, KeyCode::Up);
    // The recorded clock's last run ended just past 6 s, at a frame.
    assert_eq!(
        p.replay.at(),
        p.replay.duration(),
        "to the end, not past it"
    );
    assert!(p.replay.finished());
    let status = p.status();
    assert!(
        status.starts_with(" lab replay 6.000 / 6.000 s · checkpoints agree"),
        "{status}"
    );
    assert!(p.key(&KeyEvent::from(KeyCode::Char('q'))));
}

/// The panel titled `title` of `lab`'s screen drawn with `controls`: its lines.
fn panel_lines(lab: &Lab, controls: &Controls, title: &str) -> Vec<String> {
    let view = view::build(lab, controls);
    let panel = view
        .panels
        .iter()
        .find(|p| p.title == title)
        .unwrap_or_else(|| panic!("no panel {title}"));
    panel.lines.iter().map(ToString::to_string).collect()
}

/// Issue 24: in a lab replay `f` follows a command as the live lab does, and the
/// listing (every time of its life) is the live lab's; a seek back, which starts the
/// lab again, keeps following the same command. Tab chooses the client whose ladder
/// shows; `L` draws the ladder, then the meters, over the views, then nothing.
#[test]
fn a_lab_replay_follows_a_command_as_the_live_lab_did() {
    use crate::lab::follow::Follow;
    use crate::lab::playback::Playback;
    use ratatui::crossterm::event::{KeyCode, KeyEvent};
    let (path, _, live) = record_live("follow");
    let replay = LabReplay::load(&path).unwrap();
    let _ = std::fs::remove_file(&path);
    let mut p = Playback::new(replay, ui::Theme::Dark, Instant::now());
    let press = |p: &mut Playback, c: char| assert!(!p.key(&KeyEvent::from(KeyCode::Char(c))));
    // Paused 1 s in: client 1 holds its keys from 1.5 s, so its next command is one
    // a person made.
    p.key(&KeyEvent::from(KeyCode::Char(' ')));
    p.key(&KeyEvent::from(KeyCode::Right));
    let seq = p.replay.lab().session(0).latest_seq() + 1;
    press(&mut p, 'f');
    assert_eq!(
        p.controls("", 60.0).follow,
        Some(Follow::Command { client: 0, seq })
    );
    // To the end, back (the lab started again), to the end again.
    p.key(&KeyEvent::from(KeyCode::Up));
    p.key(&KeyEvent::from(KeyCode::Left));
    p.key(&KeyEvent::from(KeyCode::Left));
    assert!(p.replay.at() < Duration::from_secs(5));
    p.key(&KeyEvent::from(KeyCode::Up));
    assert!(p.replay.finished());
    assert_eq!(p.replay.diverged(), None);
    let title = format!("follow client 1 command #{seq}");
    let replayed = panel_lines(p.replay.lab(), &p.controls("", 60.0), &title);
    let mut live_controls = p.controls("", 60.0);
    live_controls.follow = Some(Follow::Command { client: 0, seq });
    let lived = panel_lines(&live, &live_controls, &title);
    assert_eq!(replayed, lived);
    for step in [
        "made ",
        "sent ",
        "arrived ",
        "applied ",
        "acked ",
        "reconciled ",
    ] {
        assert!(
            replayed.iter().any(|l| l.starts_with(step)),
            "{step}: {replayed:#?}"
        );
    }
    // `f` again: the next snapshot; again: nothing.
    press(&mut p, 'f');
    assert!(matches!(
        p.controls("", 60.0).follow,
        Some(Follow::Snapshot { client: 0, .. })
    ));
    press(&mut p, 'f');
    assert_eq!(p.controls("", 60.0).follow, None);
    // Tab: client 2's ladder; `L` cycles what is over the views.
    let ladder_of = |p: &Playback| {
        let c = p.controls("", 60.0);
        view::build(p.replay.lab(), &c).panels.iter().find_map(|x| {
            x.title
                .starts_with("ladder: client")
                .then(|| x.title.clone())
        })
    };
    assert!(ladder_of(&p).unwrap().starts_with("ladder: client 1 "));
    p.key(&KeyEvent::from(KeyCode::Tab));
    assert!(ladder_of(&p).unwrap().starts_with("ladder: client 2 "));
    let over = |p: &Playback| {
        let c = p.controls("", 60.0);
        view::build(p.replay.lab(), &c)
            .overlay
            .map(|o| o.title)
            .unwrap_or_default()
    };
    assert_eq!(over(&p), "");
    press(&mut p, 'L');
    assert!(over(&p).starts_with("ladder: client 2 "), "{}", over(&p));
    assert_eq!(ladder_of(&p), None, "not under the lanes too");
    press(&mut p, 'L');
    assert!(over(&p).starts_with("lagometers"), "{}", over(&p));
    press(&mut p, 'L');
    assert_eq!(over(&p), "");
    // The replay's `?` line names them.
    press(&mut p, '?');
    let status = p.status();
    assert!(
        status.contains("Tab choose") && status.contains("f L follow"),
        "{status}"
    );
}
