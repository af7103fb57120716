//! The replay screen: its keys, help box, combat line, status line and messages, drawn
//! at 80 columns and more; playing on from a clip's keyframe; correction paths.

use std::time::{Duration, Instant};

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::KeyCode;

use super::super::control::{on_key, play, what_if};
use super::super::keys::Do;
use crate::client::Switch;

use super::*;
use crate::client::driver::Driver;
use crate::client::play::app::App;
use crate::net::conditioner::Conditions;
use crate::net::delta;
use crate::net::protocol::{PlayerSnap, ServerMsg, Snapshot, SnapshotHeader};
use crate::sim::map::Map;
use crate::sim::world::{Buttons, PlayerState};

fn snapshot(tick: u32, ack_seq: u32, state: PlayerState) -> ServerMsg {
    let snap = Snapshot {
        header: SnapshotHeader {
            tick,
            ack_seq,
            ..Default::default()
        },
        players: vec![PlayerSnap { id: 0, state }],
    };
    ServerMsg::Snapshot(delta::encode(&snap, None))
}

/// A clip the way F8 saves one: a keyframe taken halfway through 6 s of a headless
/// session (at about 3 s), then the records after it.
fn clip() -> Player {
    use super::super::tests::{Live, clip_from_half, read};
    use crate::client::tap::LoopKind;
    let mut live = Live::new(2, LoopKind::Headless);
    live.run(Duration::from_secs(6));
    let (start, records) = read(&live.finish());
    let (start, records) = read(&clip_from_half(&start, &records));
    Player::new(start, records, None).unwrap()
}

/// The screen drawn at `width` x `height`, one line per row.
fn screen(player: &Player, v: &Viewer, width: u16, height: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal.draw(|f| render(f, player, v)).unwrap();
    let buf = terminal.backend().buffer();
    let mut out = String::new();
    for y in 0..height {
        for x in 0..width {
            out.push_str(buf[(x, y)].symbol());
        }
        out.push('\n');
    }
    out
}

/// The status line (the first of the timeline strip).
fn status_line(screen: &str) -> &str {
    screen
        .lines()
        .find(|l| l.contains(" / ") && (l.contains("paused") || l.contains("playing")))
        .unwrap_or_else(|| panic!("no status line:\n{screen}"))
}

/// Issue 21: `?` did nothing in replay. It opens a box listing every replay key (from
/// the one table), and `?` or Esc closes it; Esc with no box open quits.
#[test]
fn question_mark_shows_the_replay_keys() {
    let mut player = clip();
    let mut v = Viewer::new(&player, Instant::now(), String::new());
    assert!(!screen(&player, &v, 100, 34).contains("replay keys"));
    assert_eq!(
        on_key(&mut player, &mut v, KeyCode::Char('?')).unwrap(),
        Some(Do::Help)
    );
    let shown = screen(&player, &v, 100, 34);
    assert!(shown.contains("replay keys"), "{shown}");
    for b in BINDINGS {
        assert!(
            shown.contains(b.label) && shown.contains(b.does),
            "{}:\n{shown}",
            b.label
        );
    }
    insta::assert_snapshot!("replay_help_80x30", screen(&player, &v, 80, 30));
    on_key(&mut player, &mut v, KeyCode::Esc).unwrap();
    assert!(!v.help, "Esc closes the box first");
    assert_eq!(
        on_key(&mut player, &mut v, KeyCode::Esc).unwrap(),
        Some(Do::Quit)
    );
    on_key(&mut player, &mut v, KeyCode::Char('?')).unwrap();
    on_key(&mut player, &mut v, KeyCode::Char('?')).unwrap();
    assert!(!v.help);
}

/// Issue 21: the combat line said `space fire ... t chat ... ? help` in replay, where
/// space pauses. It lists replay's keys, `? keys` kept last.
#[test]
fn the_combat_line_shows_the_replay_keys() {
    let player = clip();
    let v = Viewer::new(&player, Instant::now(), String::new());
    for width in [80, 100, 140] {
        let shown = screen(&player, &v, width, 34);
        let combat = shown
            .lines()
            .find(|l| l.contains("frags"))
            .unwrap_or_else(|| panic!("no combat line:\n{shown}"));
        assert!(combat.trim_end().ends_with("? keys"), "{combat}");
        assert!(combat.contains("space pause"), "{combat}");
        assert!(
            !combat.contains("fire") && !combat.contains("chat"),
            "{combat}"
        );
    }
}

/// Issue 21: the status line was cut at 100 columns (`| what-`). At 80 columns and
/// more it holds what fits, whole words only, the time and state always.
#[test]
fn the_status_line_gives_way_at_80_columns() {
    let mut player = clip();
    let mut v = Viewer::new(&player, Instant::now(), String::new());
    what_if(&mut player, &mut v, Some(Switch::Prediction)).unwrap();
    v.message = "a message long enough that it cannot fit beside everything else".into();
    for width in [60, 80, 100, 120] {
        let line = status(&player, &v, width);
        assert!(line.chars().count() <= width, "{width}: {line}");
        assert!(
            line.contains("playing 1x") || line.contains("paused 1x"),
            "{line}"
        );
        assert!(line.contains(&clock(player.duration())), "{line}");
        for word in line.split_whitespace() {
            let whole = word.trim_end_matches('…');
            let full = status(&player, &v, 1000);
            assert!(full.contains(whole), "{width}: {word:?} is cut in {line}");
        }
    }
    let at_80 = status(&player, &v, 80);
    assert!(at_80.contains("what-if -pred"), "{at_80}");
    insta::assert_snapshot!("replay_status_80", at_80);
    let shown = screen(&player, &v, 80, 30);
    assert_eq!(status_line(&shown).trim_end(), at_80.trim_end());
}

/// Issue 21: `no more corrections` stayed after stepping back. A key clears the
/// message of the key before, and a message goes by itself after a few seconds.
#[test]
fn a_message_goes_when_the_state_changes() {
    let mut player = clip();
    let t0 = Instant::now();
    let mut v = Viewer::new(&player, t0, String::new());
    on_key(&mut player, &mut v, KeyCode::Char('C')).unwrap();
    assert!(v.message.contains("no more corrections"));
    on_key(&mut player, &mut v, KeyCode::Char(',')).unwrap();
    assert_eq!(v.message, "");
    let shown = screen(&player, &v, 80, 30);
    assert!(!status_line(&shown).contains("corrections"), "{shown}");
    // A message left alone goes after a while.
    v.say("re-simulated in 3 ms".into(), t0);
    play(&mut player, &mut v, t0 + Duration::from_secs(1));
    assert!(!v.message.is_empty());
    play(&mut player, &mut v, t0 + MESSAGE_SHOWN);
    assert_eq!(v.message, "");
}

#[test]
fn a_clip_plays_on_from_its_keyframe_at_once() {
    let mut player = clip();
    let from = player.at();
    assert!(from > Duration::from_secs(2), "{from:?}");
    let t0 = Instant::now();
    let mut v = Viewer::new(&player, t0, String::new());
    play(&mut player, &mut v, t0 + Duration::from_millis(500));
    let moved = player.at() - from;
    assert!(moved > Duration::from_millis(450), "{moved:?}");
    // After a what-if re-run and a speed change it plays on from there too.
    what_if(&mut player, &mut v, Some(Switch::Interpolation)).unwrap();
    on_key(&mut player, &mut v, KeyCode::Char('+')).unwrap();
    let at = player.at();
    play(
        &mut player,
        &mut v,
        Instant::now() + Duration::from_millis(200),
    );
    assert!(player.at() - at > Duration::from_millis(250), "1.5x");
}

/// `c` with no correction that way leaves playback as it was (playing or paused);
/// one found pauses on it.
#[test]
fn a_failed_correction_jump_does_not_pause() {
    let mut player = clip();
    let mut v = Viewer::new(&player, Instant::now(), String::new());
    on_key(&mut player, &mut v, KeyCode::Char('C')).unwrap();
    assert!(!v.paused && v.message.contains("no more corrections"));
    v.paused = true;
    on_key(&mut player, &mut v, KeyCode::Char('C')).unwrap();
    assert!(v.paused);
}

/// The replay HUD's FPS is the recorded frame rate (a headless recording: a frame
/// per command tick, 60), not 0.
#[test]
fn the_replay_hud_shows_the_recorded_frame_rate() {
    let mut player = clip();
    player.seek(player.at() + Duration::from_secs(2));
    let v = Viewer::new(&player, Instant::now(), String::new());
    let mut terminal = Terminal::new(TestBackend::new(100, 34)).unwrap();
    terminal.draw(|f| render(f, &player, &v)).unwrap();
    let screen: String = (terminal.backend().buffer().content().iter())
        .map(|c| c.symbol())
        .collect();
    let fps = screen.split("FPS").nth(1).expect("an FPS field");
    let fps: f64 = fps.split_whitespace().next().unwrap().parse().unwrap();
    assert!((59.0..=61.0).contains(&fps), "FPS {fps}");
}

/// The server puts us a row lower than we predicted (a push we could not know of):
/// the replay draws our predicted path and the server's, apart.
#[test]
fn a_forced_correction_draws_the_predicted_and_the_servers_path() {
    let t0 = Instant::now();
    let ms = |n: u64| t0 + Duration::from_millis(n);
    let map = Map::builtin("duel").unwrap();
    let (x, y) = map.spawns()[0];
    let spawn = PlayerState::at_cell(x, y);
    let app = App::new(Conditions::default());
    let mut d = Driver::new(ClientSession::on_duel(0, t0), app, t0);
    d.receive(t0, snapshot(1, 0, spawn), 100);
    for n in 0..=170 {
        d.play(ms(n), Buttons::RIGHT, |_| {});
    }
    assert!(d.session().latest_seq() >= 10);
    let below = PlayerState::at_cell(x, y + 1);
    d.receive(ms(171), snapshot(4, 3, below), 100);
    assert_eq!(d.session().stats().corrections, 1);
    let paths = paths_near(d.session(), Duration::from_millis(171)).expect("paths");
    assert_ne!(paths.predicted, paths.server, "{paths:?}");
    assert!(paths.server.iter().all(|p| p.1 > paths.predicted[0].1));
    assert_eq!(paths_near(d.session(), Duration::from_millis(2200)), None);

    // Drawn once the correction's own flash (an `x` and a `+`) has gone.
    let view = d.replay_view(ms(800), 0.0);
    let draw = |with: Option<&CorrectionPaths>| {
        let mut terminal = Terminal::new(TestBackend::new(100, 30)).unwrap();
        terminal
            .draw(|f| {
                let area = f.area();
                ui::draw_in(f, area, &view);
                if let Some(p) = with {
                    draw_correction_paths(f.buffer_mut(), area, &view, p);
                }
            })
            .unwrap();
        terminal.backend().buffer().clone()
    };
    let (plain, marked) = (draw(None), draw(Some(&paths)));
    // What the paths added: both marks, and nothing over the player.
    let added: String = plain
        .content()
        .iter()
        .zip(marked.content())
        .filter(|(a, b)| a.symbol() != b.symbol())
        .map(|(_, b)| b.symbol())
        .collect();
    assert!(added.contains('•'), "predicted marks: {added}");
    assert!(added.contains('+'), "server marks: {added}");
    assert!(!added.contains('@') && marked.content().iter().any(|c| c.symbol() == "@"));
}

/// Issue 23: a dial turned in the recording is said on the replay's bottom line, as
/// recorded and replayed, for as long as the game said it.
#[test]
fn a_recorded_dial_turn_is_said_while_it_is_fresh() {
    let five = Duration::from_secs(5);
    let said = dial_change(
        Some((five, "redundancy 4 copies = 133 ms")),
        five + Duration::from_secs(1),
    );
    assert_eq!(
        said.as_deref(),
        Some("dial turned at 00:05.000 (recorded, replayed): redundancy 4 copies = 133 ms")
    );
    assert_eq!(dial_change(Some((five, "x")), five + MESSAGE_SHOWN), None);
    assert_eq!(dial_change(None, five), None);
}
