use std::net::SocketAddr;
use std::time::{Duration, Instant};

use super::headless;
use super::*;
use crate::server::InputBuffer;
use crate::sim::map::Map;

pub(crate) fn config(clients: usize, bots: u16, seed: u64) -> LabConfig {
    let mut server = ServerConfig::new(Map::builtin("duel").unwrap());
    server.bots = bots;
    server.seed = seed;
    LabConfig {
        server,
        profiles: ["bad", "lan", "wifi", "mobile"][..clients]
            .iter()
            .map(|s| (*s).to_owned())
            .collect(),
        walkers: 0,
        keyboard: 0,
    }
}

#[test]
fn seeded_runs_repeat_exactly() {
    let c = config(3, 2, 5);
    let a = serde_json::to_string(&headless::run(&c, 3.0, None).unwrap()).unwrap();
    let b = serde_json::to_string(&headless::run(&c, 3.0, None).unwrap()).unwrap();
    assert_eq!(a, b);
    let other = serde_json::to_string(&headless::run(&config(3, 2, 6), 3.0, None).unwrap());
    assert_ne!(a, other.unwrap(), "another seed, another run");
}

#[test]
fn clients_play_through_their_links() {
    let t0 = Instant::now();
    let mut lab = Lab::new(&config(2, 1, 1), t0).unwrap();
    lab.run_until(t0 + Duration::from_secs(2));
    assert_eq!(lab.server().world().tick, 120);
    for n in 0..2 {
        let s = lab.session(n);
        assert!(s.stats().snapshots_received > 20, "{n} {:?}", s.stats());
        assert!(s.stats().commands_sent > 90, "{n}");
    }
    // The bad link: about 300 ms round trip; the LAN one: a few ms.
    assert!(lab.session(0).stats().rtt_ms > 250.0);
    assert!(lab.session(1).stats().rtt_ms < 40.0);
    lab.step_tick();
    assert_eq!(lab.server().world().tick, 121);
}

#[test]
fn bad_configs_are_refused_in_one_line() {
    let mut c = config(2, 0, 1);
    c.profiles[1] = "dialup".into();
    let e = Lab::new(&c, Instant::now()).err().unwrap().to_string();
    assert!(e.contains("unknown network profile \"dialup\""), "{e}");
    c.profiles = vec!["lan".into(); 5];
    let e = Lab::new(&c, Instant::now()).err().unwrap().to_string();
    assert!(e.contains("1 to 4 clients"), "{e}");
}

#[test]
fn the_wire_shows_datagrams_in_flight_both_ways() {
    let t0 = Instant::now();
    let mut lab = Lab::new(&config(1, 0, 3), t0).unwrap();
    lab.run_until(t0 + Duration::from_millis(1500));
    let c = &lab.clients[0];
    let (up, down) = (c.up.dots(lab.now()), c.down.dots(lab.now()));
    // 150 ms one way: several input packets and a few snapshots on their way.
    assert!(up.iter().filter(|d| !d.lost).count() >= 3, "{up:?}");
    assert!(down.iter().filter(|d| !d.lost).count() >= 2, "{down:?}");
    // Each input packet carries every command not yet acknowledged: a round trip's worth.
    assert!(up.iter().all(|d| d.glyph == '+'), "{up:?}");
}

/// The lab screen as text, after `secs` of a seeded run.
fn screen(width: u16, height: u16, clients: usize, secs: u64) -> String {
    let buf = screen_buffer(
        width,
        height,
        clients,
        secs,
        crate::ui::Theme::default(),
        false,
    );
    (0..height)
        .map(|y| {
            let row: String = (0..width).map(|x| buf[(x, y)].symbol()).collect();
            row.trim_end().to_owned()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The lab screen after `secs` of a seeded run, drawn in `theme`.
fn screen_buffer(
    width: u16,
    height: u16,
    clients: usize,
    secs: u64,
    theme: crate::ui::Theme,
    help: bool,
) -> ratatui::buffer::Buffer {
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;

    let t0 = Instant::now();
    let mut lab = Lab::new(&config(clients, 0, 5), t0).unwrap();
    lab.run_until(t0 + Duration::from_secs(secs));
    lab.frame();
    let controls = view::Controls {
        selected: 1,
        speed: 1.0,
        paused: true,
        fps: 60.0,
        message: " client 2: prediction off: its @ now waits one round trip",
        help,
        theme,
    };
    let view = view::build(&lab, &controls);
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal.draw(|f| crate::ui::lab::draw(f, &view)).unwrap();
    terminal.backend().buffer().clone()
}

/// The lab's panes, lanes, clock and message keep the palette's rule in every theme
/// (see `ui::theme::assert_readable`).
#[test]
fn the_lab_keeps_to_the_palette_in_every_theme() {
    use crate::ui::Theme;
    for theme in [Theme::Auto, Theme::Dark, Theme::Light, Theme::Mono] {
        for help in [false, true] {
            let buf = screen_buffer(160, 45, 3, 2, theme, help);
            crate::ui::theme::assert_readable(&buf, theme, "lab");
        }
    }
}

#[test]
fn lab_layout_at_160x45() {
    let s = screen(160, 45, 2, 3);
    assert!(s.contains("server ·") && s.contains("client 1 =") && s.contains("client 2 ="));
    insta::assert_snapshot!(s);
}

#[test]
fn lab_layout_at_100x30() {
    let s = screen(100, 30, 2, 3);
    assert!(s.contains("server ·") && s.contains("client 2 ="));
    insta::assert_snapshot!(s);
}

#[test]
fn too_small_a_terminal_says_the_size_needed() {
    let s = screen(40, 12, 2, 0);
    assert!(s.contains("the lab needs 36x"), "{s}");
}

/// Client 1 and 2 played by keys as in a terminal (frames at uneven intervals, keys
/// changing, a switch toggled), recorded, and re-run: each replay reports what the lab
/// does for that client.
#[test]
fn keyboard_clients_recorded_in_the_lab_replay_exactly() {
    use crate::record::recorder::Recorder;
    use crate::record::replay::replay_headless;
    use crate::sim::world::Buttons;

    let mut c = config(2, 3, 9);
    c.server.bot_skill = 5;
    c.keyboard = 2;
    let t0 = Instant::now();
    let mut lab = Lab::new(&c, t0).unwrap();
    let files: Vec<_> = (1..=2)
        .map(|n| {
            let name = format!("netarena-{}-lab-keys-{n}.narec", std::process::id());
            std::env::temp_dir().join(name)
        })
        .collect();
    for (n, f) in files.iter().enumerate() {
        let tap = Box::new(Recorder::create(f).unwrap());
        lab.record(n, tap, Some((160, 45))).unwrap();
    }
    let keys = [
        Buttons::RIGHT,
        Buttons::empty(),
        Buttons::LEFT.union(Buttons::FIRE),
        Buttons::DOWN,
        Buttons::UP.union(Buttons::RIGHT),
    ];
    let mut step = 7_919_u64;
    let mut i = 0;
    while lab.elapsed() < Duration::from_secs(40) {
        // Frames 0.5 to 23.5 ms apart, as a terminal draws them.
        step = (step * 7_907 + 13) % 23_000 + 500;
        lab.hold(0, keys[i / 37 % 5]);
        lab.hold(1, keys[i / 53 % 5]);
        let until = lab.now() + Duration::from_micros(step);
        lab.run_until(until);
        lab.frame();
        if i % 700 == 350 {
            lab.act(1, Action::TogglePrediction);
        }
        i += 1;
    }
    lab.finish_recordings().unwrap();
    let report = headless::report(&lab, 9);
    for (n, f) in files.iter().enumerate() {
        let replay = replay_headless(f).unwrap();
        let _ = std::fs::remove_file(f);
        assert_eq!(replay.diverged, 0);
        let mut live = report.clients[n].report.clone();
        assert!(live.stats.commands_sent > 2000, "{live:?}");
        live.ended = replay.report.ended.clone();
        assert_eq!(
            serde_json::to_value(&replay.report).unwrap(),
            serde_json::to_value(&live).unwrap(),
            "client {}",
            n + 1
        );
    }
}

/// Switching prediction off names the round trip the client measured on its link (about
/// 300 ms on the bad one), not a constant; the network keys name the lab's profile.
#[test]
fn a_switch_explains_itself_with_the_measured_round_trip() {
    let t0 = Instant::now();
    let mut lab = Lab::new(&config(2, 0, 1), t0).unwrap();
    lab.run_until(t0 + Duration::from_secs(2));
    for n in 0..2 {
        lab.act(n, Action::TogglePrediction);
        let text = explain::explain(&lab, n, Action::TogglePrediction).unwrap();
        let rtt = lab.session(n).stats().rtt_ms;
        let want = format!(
            " client {}: prediction off: its @ now waits a round trip (~{rtt:.0} ms)",
            n + 1
        );
        assert!(text.starts_with(&want), "{text}");
    }
    assert!(lab.session(0).stats().rtt_ms > 250.0);
    lab.act(1, Action::CycleProfile);
    let text = explain::explain(&lab, 1, Action::CycleProfile).unwrap();
    assert!(
        text.contains("network now") && text.ends_with(')'),
        "{text}"
    );
}

/// A test's client: its commands come from the script, what it took in and predicted is
/// logged, the server is the test's to act on (here a player joined by hand), and its
/// link can change each way.
#[test]
fn a_scripted_client_is_logged_and_its_link_set_each_way() {
    let t0 = Instant::now();
    let lan = Conditions::profile("lan").unwrap();
    let client = ScriptedClient {
        name: "solo".into(),
        up: lan.clone(),
        down: lan.clone(),
        seeds: (1, 2),
        first_command: Duration::from_millis(5),
    };
    let config = ServerConfig::new(Map::builtin("duel").unwrap());
    assert!(Lab::scripted(config.clone(), &[], t0).is_err());
    let mut lab = Lab::scripted(config, &[client], t0).unwrap();
    let other: SocketAddr = "10.9.9.9:9".parse().unwrap();
    lab.server_mut()
        .join_in_process(t0, other, "other")
        .unwrap();
    let mut made = 0;
    lab.run_with(t0 + Duration::from_secs(2), |n, _, _| {
        assert_eq!(n, 0);
        made += 1;
        Command::moving(Buttons::RIGHT)
    });
    let stats = lab.session(0).stats();
    // Made a command a tick (the first few before a snapshot arrived do not count).
    assert!(made >= 119 && stats.commands_sent > 110, "{made} {stats:?}");
    // 120 ticks, a snapshot every third: 40 at most.
    let ticks = u64::from(lab.server().world().tick);
    assert!(
        stats.snapshots_received <= ticks / 3 + 1 && stats.snapshots_received > 30,
        "{stats:?}"
    );
    assert_eq!((lab.undecodable(0), stats.undecodable_snapshots), (0, 0));
    let acks = lab.acks(0);
    assert!(acks.len() > 30 && acks.windows(2).all(|w| w[0].0 < w[1].0));
    let mut compared = 0;
    for &(_, ack, state) in acks.iter().filter(|a| a.1 > 0) {
        assert_eq!(lab.predicted_at(0, ack), Some(state), "seq {ack}");
        compared += 1;
    }
    assert!(compared > 30);
    assert_eq!(lab.session(0).stats().corrections, 0);
    let (acks_before, made_before) = (acks.len(), lab.session(0).latest_seq());
    // Every command lost on the way up: nothing new is acknowledged.
    let lossy = Conditions {
        loss_pct: 100.0,
        ..lan.clone()
    };
    lab.set_link(0, lossy, lan);
    assert_eq!(lab.clients[0].profile, "custom");
    lab.run_with(t0 + Duration::from_secs(3), |_, _, _| Command::default());
    assert!(lab.session(0).latest_seq() > made_before);
    assert!(lab.session(0).server_ack_seq() <= made_before);
    assert!(lab.acks(0).len() > acks_before, "snapshots still come down");
}

/// Issue 23: on a clean LAN the credit queue applied each input packet's two commands
/// at once, so every other client drew a walker at 12 and 6 cells/s in turn (true 9): a
/// `remote_motion_cv` of about 0.33. A jitter buffer applies one a tick: at most 0.15.
#[test]
fn a_jitter_buffer_draws_a_walker_evenly() {
    let cv = |buffer: InputBuffer| {
        let mut c = config(2, 0, 7);
        c.profiles = vec!["lan".to_owned(), "lan".to_owned()];
        c.walkers = 1;
        c.server.input_buffer = buffer;
        let report = headless::run(&c, 8.0, None).unwrap();
        let cvs: Vec<f64> = report
            .clients
            .iter()
            .map(|r| r.remote_motion_cv.expect("the walker walked straight"))
            .collect();
        (cvs, report)
    };
    let (credit, report) = cv(InputBuffer::Credit);
    let applied = report.clients[0].input_buffer.figures.applied;
    assert!(
        applied.contains(&2),
        "the credit queue applies pairs: {applied:?}"
    );
    for buffer in [InputBuffer::Fixed(2), InputBuffer::Adaptive] {
        let (buffered, report) = cv(buffer);
        for (n, (&on, &off)) in buffered.iter().zip(&credit).enumerate() {
            assert!(on <= 0.15, "{buffer}, client {}: {on}", n + 1);
            assert!(
                off > on + 0.1,
                "{buffer}, client {}: credit {off}, {on}",
                n + 1
            );
        }
        let figures = report.clients[0].input_buffer.figures;
        assert_eq!(figures.target, 2, "{buffer}");
        assert_eq!(figures.applied, [1; 8], "{buffer}");
        assert_eq!(figures.dropped, 0, "{buffer}");
    }
    assert!(credit.iter().all(|&c| c > 0.25), "{credit:?}");
}

/// Each lane ends in the server's input buffer for its client: queued over depth, the
/// last ticks' applied counts, late and dropped commands, the client's clock.
#[test]
fn each_lane_shows_its_clients_input_buffer() {
    let t0 = Instant::now();
    let mut c = config(2, 0, 5);
    c.profiles = vec!["lan".to_owned(), "lan".to_owned()];
    c.server.input_buffer = InputBuffer::Fixed(2);
    let mut lab = Lab::new(&c, t0).unwrap();
    lab.run_until(t0 + Duration::from_secs(3));
    let lanes = view::build(&lab, &controls()).lanes;
    for lane in &lanes {
        assert!(
            lane.buffer.ends_with("/2 1111 late 0 drop 0 even"),
            "{}",
            lane.buffer
        );
    }
    c.server.input_buffer = InputBuffer::Credit;
    let mut lab = Lab::new(&c, t0).unwrap();
    lab.run_until(t0 + Duration::from_secs(3));
    let lane = &view::build(&lab, &controls()).lanes[0];
    assert!(lane.buffer.contains("/0 "), "{}", lane.buffer);
    assert!(lane.buffer.contains('2'), "pairs: {}", lane.buffer);
    // Turned on mid-run, as a dial would: one a tick from then on.
    lab.server_mut().set_input_buffer(InputBuffer::Fixed(2));
    lab.run_until(t0 + Duration::from_secs(4));
    let lane = &view::build(&lab, &controls()).lanes[0];
    assert!(lane.buffer.contains("/2 1111 "), "{}", lane.buffer);
}

fn controls() -> view::Controls<'static> {
    view::Controls {
        selected: 0,
        speed: 1.0,
        paused: false,
        fps: 60.0,
        message: "",
        help: false,
        theme: crate::ui::Theme::default(),
    }
}
