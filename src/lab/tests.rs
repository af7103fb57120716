//! The lab's stepping and frames: seeded runs repeat exactly, dials turned at the same
//! ticks repeat too, each dial takes effect, and the screen at several sizes.

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
    // These tests' figures are the credit queue's (the lab's default is the adaptive
    // buffer; the tests of it set it).
    server.input_buffer = InputBuffer::Credit;
    LabConfig {
        server,
        profiles: ["bad", "lan", "wifi", "mobile"][..clients]
            .iter()
            .map(|s| (*s).to_owned())
            .collect(),
        walkers: 0,
        correction: Default::default(),
        keyboard: 0,
        tuning: Default::default(),
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

/// A lab link was the same both ways: `UP/DOWN` gives each way its own profile, and
/// the lane and the RTT show it (half the RTT is then neither way's delay).
#[test]
fn an_asymmetric_profile_sets_each_way() {
    let t0 = Instant::now();
    let mut c = config(1, 0, 3);
    c.profiles[0] = "lan/mobile".into();
    let mut lab = Lab::new(&c, t0).unwrap();
    assert_eq!(lab.link(0, Way::Up), Conditions::profile("lan").unwrap());
    assert_eq!(
        lab.link(0, Way::Down),
        Conditions::profile("mobile").unwrap()
    );
    lab.run_until(t0 + Duration::from_secs(3));
    let f = lab.figures(0);
    assert_eq!(f.lane_links, ["1ms".to_owned(), "50ms ±25 2%".to_owned()]);
    assert!(
        (40.0..90.0).contains(&f.rtt_ms),
        "1 ms up + about 50 down: {f:?}"
    );
    c.profiles[0] = "lan/dialup".into();
    let e = Lab::new(&c, t0).err().unwrap().to_string();
    assert!(e.contains("\"lan/dialup\""), "{e}");
}

#[test]
fn the_wire_shows_datagrams_in_flight_both_ways() {
    let t0 = Instant::now();
    let mut lab = Lab::new(&config(1, 0, 3), t0).unwrap();
    lab.run_until(t0 + Duration::from_millis(1500));
    let c = &lab.clients[0];
    let span = wire::span(&c.up, &c.down);
    let (up, down) = (c.up.dots(lab.now(), span), c.down.dots(lab.now(), span));
    // 150 ms one way: several input packets and a few snapshots on their way.
    let flying = |d: &&crate::ui::lab::LaneDot| !d.lost && !d.arrived;
    assert!(up.iter().filter(flying).count() >= 3, "{up:?}");
    assert!(down.iter().filter(flying).count() >= 2, "{down:?}");
    // Each input packet carries every command not yet acknowledged: a round trip's
    // worth, ten and more, its count drawn whole (it was `+`).
    let counts = up.iter().filter(|d| !d.lost).map(|d| d.mark.parse::<u32>());
    assert!(counts.clone().all(|n| n.is_ok_and(|n| n >= 10)), "{up:?}");
}

/// Issue 23: the server view's `acked: c1 #1722` (a seq) stood beside the client's
/// `pend 22` (a count), and learners were told to compare them without the client's
/// own seq anywhere. The client's status gives its newest seq: sent minus pending is
/// the seq the client knows acknowledged, at most the server's.
#[test]
fn a_clients_status_gives_its_newest_seq_to_compare_with_the_servers_ack() {
    let t0 = Instant::now();
    let mut lab = Lab::new(&config(1, 0, 3), t0).unwrap();
    lab.run_until(t0 + Duration::from_millis(1500));
    let controls = view::Controls {
        selected: 0,
        speed: 1.0,
        paused: true,
        fps: 0.0,
        message: "",
        help: false,
        theme: crate::ui::Theme::Auto,
        follow: None,
        over: view::Over::Nothing,
    };
    let v = view::build(&lab, &controls);
    let s = lab.session(0);
    let (sent, pend) = (s.latest_seq(), s.pending_commands());
    assert!(pend > 0 && sent > pend, "{sent} {pend}");
    let status = &v.panes[1].status;
    assert!(
        status.contains(&format!("sent #{sent} pend {pend} ")),
        "{status}"
    );
    let acked = format!("c1 #{}", lab.clients[0].server_ack);
    assert!(v.panes[0].status.contains(&acked), "{}", v.panes[0].status);
    assert!(sent - pend <= lab.clients[0].server_ack);
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
        follow: None,
        over: view::Over::Nothing,
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
    // The tick rate turned twice on the way (issue 23): the clients learn it over their
    // links, so their recordings hold it and replay it.
    let tick_rate = dials::DIALS.iter().position(|d| d.name == "tick rate");
    let mut turns = vec![(25, 128), (10, 30)];
    while lab.elapsed() < Duration::from_secs(40) {
        if let Some(&(secs, rate)) = turns.last()
            && lab.elapsed() >= Duration::from_secs(secs)
        {
            lab.set_dial(tick_rate.unwrap(), 0, rate).unwrap();
            turns.pop();
        }
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
        assert_eq!(lab.session(n).tick_rate(), 128.0);
        eprintln!(
            "client {}: {} corrections {:?}",
            n + 1,
            live.stats.corrections,
            live.stats.corrections_by_cause
        );
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

/// Runs a two-client lab for 4 s, making each change (server tick, dial, client, value)
/// when the server reaches its tick; the report as JSON.
fn run_with_dials(changes: &[(u32, usize, usize, dials::Value)]) -> String {
    let c = config(2, 1, 3);
    let t0 = Instant::now();
    let mut lab = Lab::new(&c, t0).unwrap();
    for &(tick, d, n, v) in changes {
        while lab.server().world().tick < tick {
            lab.step_tick();
        }
        assert!(lab.set_dial(d, n, v).is_some(), "dial {d} for client {n}");
        assert_eq!(lab.dial(d, n), Some(v), "dial {d} took its value");
    }
    lab.run_until(t0 + Duration::from_secs(4));
    serde_json::to_string(&headless::report(&lab, 3)).unwrap()
}

/// Issue 23: a dial changed mid-run keeps the run exact, and does change it.
#[test]
fn dials_turned_at_the_same_ticks_repeat_exactly() {
    let dial = |name: &str| dials::DIALS.iter().position(|d| d.name == name).unwrap();
    let changes = [
        (60, dial("snapshot rate"), 0, 10),
        (90, dial("interpolation delay"), 0, 30),
        (120, dial("redundancy"), 1, 2),
        (150, dial("input rate"), 0, 15),
        (180, dial("lag compensation"), 0, 0),
        (200, dial("rewind bound"), 0, 100),
        (210, dial("extrapolation limit"), 1, 50),
        (220, dial("input buffer"), 0, 2),
        (230, dial("correction style"), 1, 2),
        // 60 -> 30 Hz at tick 240 (4 s in is then tick 300), then 128 Hz at tick 270.
        (240, dial("tick rate"), 0, 30),
        (270, dial("tick rate"), 0, 128),
    ];
    let a = run_with_dials(&changes);
    assert_eq!(a, run_with_dials(&changes));
    assert_ne!(a, run_with_dials(&[]), "the dials changed nothing");
}

/// The headless lab (two bot clients on `lan` and `wifi`, a bot) with the tick rate
/// turned 60 -> 30 Hz at 5 s and 30 -> 128 Hz at 10 s, to 15 s: 300 + 150 + 640
/// ticks, the same report twice, and no correction that is not named.
#[test]
fn a_headless_lab_across_tick_rate_changes_repeats_exactly() {
    let dial = dials::DIALS
        .iter()
        .position(|d| d.name == "tick rate")
        .unwrap();
    let run = || {
        let mut c = config(2, 1, 11);
        c.profiles = vec!["lan".to_owned(), "wifi".to_owned()];
        let t0 = Instant::now();
        let mut lab = Lab::new(&c, t0).unwrap();
        lab.run_until(t0 + Duration::from_secs(5));
        assert_eq!(lab.server().world().tick, 300);
        lab.set_dial(dial, 0, 30).unwrap();
        lab.run_until(t0 + Duration::from_secs(10));
        assert_eq!(lab.server().world().tick, 300 + 150);
        lab.set_dial(dial, 0, 128).unwrap();
        lab.run_until(t0 + Duration::from_secs(15));
        headless::report(&lab, 11)
    };
    let report = run();
    assert_eq!(report.server.ticks, 300 + 150 + 640);
    for c in &report.clients {
        let r = &c.report;
        eprintln!(
            "client {} ({}): {} corrections {:?}, {} snapshots, {} lost",
            c.client,
            c.profile,
            r.stats.corrections,
            r.stats.corrections_by_cause,
            r.stats.snapshots_received,
            r.stats.snapshots_lost
        );
        assert_eq!(
            r.stats.corrections_by_cause.get("unknown"),
            None,
            "{:?}",
            r.stats
        );
    }
    let json = |r| serde_json::to_string(&r).unwrap();
    assert_eq!(json(report), json(run()));
}

/// Issue 23: the tick rate turned mid-run, as a teacher would (60 -> 30 Hz at 2 s, 30
/// -> 128 Hz at 4 s), on a walker 60 ms from the server and an observer on `lan`. The
/// server makes 2 s of ticks at each rate (120 + 60 + 256); the walker keeps its 9
/// cells a second on the server at every rate; both clients learn the rate over their
/// links and follow it (rules, snapshot period, command rate: the server's input queue
/// stays short); the observer's clock keeps the server's seconds across the changes
/// (read as `tick / rate` it was off by -2.6 to +2.0 s); and the walker's prediction is
/// corrected once per change, for the commands made at one rate and applied at the
/// other, named for that cause, and never for anything else.
#[test]
fn the_tick_rate_dial_switches_the_server_and_its_clients_coherently() {
    use crate::sim::map::CELL;
    let dial = dials::DIALS
        .iter()
        .position(|d| d.name == "tick rate")
        .unwrap();
    let t0 = Instant::now();
    let mut lab = walker_and_observer(t0, (2, 1));
    let sixty = Conditions {
        latency_ms: 60,
        ..Conditions::default()
    };
    lab.set_link(0, sixty.clone(), sixty);
    lab.set_link(
        1,
        Conditions::profile("lan").unwrap(),
        Conditions::profile("lan").unwrap(),
    );
    let walker = lab.session(0).player_id();
    let walk = |n: usize, _: &ClientSession, _| {
        Command::moving(if n == 0 {
            Buttons::RIGHT
        } else {
            Buttons::empty()
        })
    };
    let at = |ms: u64| t0 + Duration::from_millis(ms);
    let (mut speeds, mut clock) = (Vec::new(), Vec::new());
    // The walker's speed on the server from `from` to `to`; and every millisecond from
    // 1 s in, how far the observer's estimate of the server's clock is from the truth
    // (the lab's time: its server ticks on the lab's clock), in seconds.
    let mut measure = |lab: &mut Lab, from: u64, to: u64| {
        let mut x0 = None;
        while lab.now() < at(to) {
            lab.run_with(lab.now() + Duration::from_millis(1), walk);
            if lab.now() >= at(from) {
                x0.get_or_insert(lab.server().world().get(walker).unwrap().x);
            }
            if lab.now() >= at(1000) {
                let truth = (lab.now() - t0).as_secs_f64();
                clock.push(lab.session(1).server_secs(lab.now()).unwrap() - truth);
            }
        }
        let x1 = lab.server().world().get(walker).unwrap().x;
        let cells = f64::from(x1 - x0.unwrap()) / f64::from(CELL);
        speeds.push(cells / ((to - from) as f64 / 1000.0));
    };
    measure(&mut lab, 1000, 2000);
    assert_eq!(lab.server().world().tick, 120);
    let text = lab.set_dial(dial, 0, 30).unwrap();
    assert!(
        text.contains(
            "tick rate 30 Hz: one tick every 33.3 ms; snapshots asked 20 Hz = every tick -> 30 Hz"
        ),
        "{text}"
    );
    measure(&mut lab, 2500, 4000);
    assert_eq!(lab.server().world().tick, 180);
    let text = lab.set_dial(dial, 0, 128).unwrap();
    assert!(
        text.contains("tick rate 128 Hz: one tick every 7.8 ms"),
        "{text}"
    );
    measure(&mut lab, 4500, 6000);
    assert_eq!(lab.server().world().tick, 120 + 60 + 256);
    for (rate, speed) in [60, 30, 128].iter().zip(&speeds) {
        assert!((speed - 9.0).abs() < 0.15, "{speed} cells/s at {rate} Hz");
    }
    // The observer's clock keeps the server's seconds across both changes: a few
    // snapshot periods off at most (it still eases from the `bad` link it started on).
    let (least, most) = clock
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), &x| (a.min(x), b.max(x)));
    assert!(
        least > -0.1 && most < 0.05,
        "the clock {least} s to {most} s off"
    );
    let interval = lab.server().snapshot_interval();
    assert_eq!(interval, 6, "20 Hz snapshots at 128 Hz: every 6 ticks");
    for n in 0..2 {
        let s = lab.session(n);
        assert_eq!(s.tick_rate(), 128.0, "client {n} follows the rate");
        assert!((s.snapshot_period() - 6.0 / 128.0).abs() < 1e-12);
        let queued = lab.server().input_buffer(s.player_id()).unwrap().queued;
        assert!(
            queued <= 3,
            "client {n}: {queued} commands wait on the server"
        );
    }
    let stats = lab.session(0).stats();
    eprintln!(
        "walker: {} corrections {:?} (largest {:.3} cells); observer: {} {:?}; speeds {speeds:?}; clock {least:.3} to {most:.3} s off",
        stats.corrections,
        stats.corrections_by_cause,
        stats.max_correction_cells,
        lab.session(1).stats().corrections,
        lab.session(1).stats().corrections_by_cause
    );
    assert_eq!(stats.corrections, 2, "{:?}", stats.corrections_by_cause);
    assert_eq!(stats.corrections_by_cause.get("tick_rate"), Some(&2));
    assert!(
        stats
            .last_correction_cause
            .contains("the server changed its tick rate (30 -> 128 Hz)"),
        "{}",
        stats.last_correction_cause
    );
}

/// A bolt in flight when the tick rate changes (60 -> 30 Hz 0.1 s into its flight,
/// then 128 Hz) is drawn by a watching client where the server has it at every tick:
/// the client's flight, one point a tick, is made again at the new pace from where the
/// bolt was. Kept as made at 60 Hz it crawled on at half the speed after the change.
#[test]
fn a_bolt_in_flight_is_drawn_where_the_server_has_it_across_tick_rate_changes() {
    use std::collections::BTreeMap;
    let dial = dials::DIALS
        .iter()
        .position(|d| d.name == "tick rate")
        .unwrap();
    let t0 = Instant::now();
    let mut lab = walker_and_observer(t0, (2, 1));
    let fire = |n: usize, _: &ClientSession, now: Instant| {
        let shoot = n == 0 && (500..517).contains(&(now - t0).as_millis());
        Command {
            buttons: if shoot {
                Buttons::FIRE
            } else {
                Buttons::empty()
            },
            weapon: 0,
            aim: 0,
        }
    };
    // The server's bolt after each tick of its flight, by its age then; and the path
    // the observer draws it along, as it stands last.
    let (mut truth, mut born, mut drawn) = (BTreeMap::new(), None, Vec::new());
    for (until, rate) in [(600, Some(30)), (900, Some(128)), (2500, None)] {
        while lab.now() < t0 + Duration::from_millis(until) {
            let next = lab.next_tick;
            lab.run_with(next, fire);
            if let Some(p) = lab.server().game().projectiles().first() {
                // The server counts a bolt's flight from the last change: its birth
                // is the tick it was first seen on, before any.
                let born = *born.get_or_insert(p.born);
                truth.insert(lab.server().world().tick - born, (p.x, p.y));
            }
            if let Some(f) = lab.session(1).combat().flights().first() {
                drawn.clone_from(&f.path);
            }
        }
        if let Some(rate) = rate {
            lab.set_dial(dial, 0, rate).unwrap();
        }
    }
    assert!(truth.len() > 40, "the bolt flew {} ticks", truth.len());
    for (&age, &at) in &truth {
        assert_eq!(
            drawn.get(age as usize),
            Some(&at),
            "{age} ticks into its flight"
        );
    }
}

/// The input-buffer dial changes how the server applies a client's commands from the
/// next tick (a lan client's pairs become one a tick), and the correction-style dial
/// reaches the chosen client's session; each explains itself in numbers.
#[test]
fn the_input_buffer_and_correction_dials_take_effect() {
    let dial = |name: &str| dials::DIALS.iter().position(|d| d.name == name).unwrap();
    let mut c = config(1, 0, 2);
    c.profiles = vec!["lan".to_owned()];
    let t0 = Instant::now();
    let mut lab = Lab::new(&c, t0).unwrap();
    lab.run_until(t0 + Duration::from_secs(2));
    let id = lab.session(0).player_id();
    let pairs = lab.server().input_buffer(id).unwrap();
    assert_eq!(pairs.target, 0, "the credit queue at the start");
    let text = lab.set_dial(dial("input buffer"), 0, 2).unwrap();
    assert!(text.contains("2 ticks = 33 ms"), "{text}");
    lab.run_until(t0 + Duration::from_secs(4));
    let even = lab.server().input_buffer(id).unwrap();
    assert_eq!(even.target, 2);
    assert!(even.applied.iter().all(|&n| n == 1), "{:?}", even.applied);
    let text = lab.set_dial(dial("correction style"), 0, 2).unwrap();
    assert!(text.contains("projective velocity blending"), "{text}");
    assert_eq!(
        lab.session(0).correction(),
        crate::client::CorrectionStyle::Blend
    );
}

/// The snapshot-rate dial reaches the server and every client: at 5 Hz, 5 snapshots a
/// second arrive on a clean link, and a fixed interpolation delay of 3 periods settles
/// at 3 x 200 ms.
#[test]
fn the_snapshot_rate_and_interpolation_dials_take_effect() {
    let mut c = config(1, 0, 1);
    c.profiles = vec!["lan".to_owned()];
    let t0 = Instant::now();
    let mut lab = Lab::new(&c, t0).unwrap();
    lab.run_until(t0 + Duration::from_secs(1));
    let snapshot = dials::DIALS
        .iter()
        .position(|d| d.name == "snapshot rate")
        .unwrap();
    let text = lab.set_dial(snapshot, 0, 5).unwrap();
    assert!(
        text.contains("snapshots 5 Hz: one every 12 ticks = 200 ms"),
        "{text}"
    );
    assert!(text.contains("2 x 200 ms = 400 ms"), "{text}");
    let interp = dials::DIALS
        .iter()
        .position(|d| d.name == "interpolation delay")
        .unwrap();
    let text = lab.set_dial(interp, 0, 30).unwrap();
    assert!(
        text.contains("3 x 200 ms snapshot period = 600 ms"),
        "{text}"
    );
    lab.run_until(t0 + Duration::from_secs(2));
    let before = lab.session(0).stats().snapshots_received;
    lab.run_until(t0 + Duration::from_secs(12));
    let got = lab.session(0).stats().snapshots_received - before;
    assert!((49..=51).contains(&got), "{got} snapshots in 10 s at 5 Hz");
    let delay = lab.session(0).interp_delay_secs();
    assert!((delay - 0.6).abs() < 0.01, "interpolation delay {delay}");
}

/// The server's dials reach the match that tests the shots, within their bounds, and
/// each explains itself with the numbers it makes.
#[test]
fn server_dials_reach_the_match_within_bounds() {
    let dial = |name: &str| dials::DIALS.iter().position(|d| d.name == name).unwrap();
    let t0 = Instant::now();
    let mut lab = Lab::new(&config(1, 0, 1), t0).unwrap();
    let text = lab.set_dial(dial("lag compensation"), 0, 0).unwrap();
    assert!(text.contains("lag compensation off"), "{text}");
    assert!(!lab.server().game().config.lag_compensation);
    let text = lab.set_dial(dial("rewind bound"), 0, 5000).unwrap();
    assert_eq!(lab.server().game().config.max_rewind_ms, 1000, "{text}");
    lab.set_dial(dial("lag compensation"), 0, 1).unwrap();
    let text = lab.set_dial(dial("rewind bound"), 0, 100).unwrap();
    assert!(
        text.contains("up to 100 ms latency + 2 x 50 ms interpolation = 200 ms old are rewound"),
        "{text}"
    );
    // No more snapshots than ticks.
    lab.set_dial(dial("snapshot rate"), 0, 120).unwrap();
    assert_eq!(lab.dial(dial("snapshot rate"), 0), Some(60));
    assert_eq!(lab.server().snapshot_interval(), 1);
    // A client's dial names the client, and counts copies: each command in two
    // packets, so a packet carries its new commands and the previous packet's.
    lab.set_dial(dial("input rate"), 0, 15).unwrap();
    let text = lab.set_dial(dial("redundancy"), 0, 2).unwrap();
    assert!(text.starts_with(" client 1: redundancy 2 copies"), "{text}");
    assert!(
        text.contains("(8 commands a packet at 4 new); a lost packet is made good"),
        "{text}"
    );
    assert_eq!(lab.set_dial(dial("redundancy"), 3, 2), None, "no client 4");
}

/// The extrapolation-limit dial bounds the guess past the newest snapshot: at 0 ms a
/// client drawing others past its newest snapshot holds them still instead of
/// carrying them on.
#[test]
fn the_extrapolation_limit_dial_bounds_the_guess() {
    let frames = |limit| {
        let mut c = config(2, 0, 4);
        c.profiles = vec!["lan".to_owned(), "lan".to_owned()];
        // Half a snapshot period behind the server: past the newest snapshot often.
        c.tuning.interp_ratio = Some(0.5);
        c.tuning.extrapolation_limit_ms = limit;
        let t0 = Instant::now();
        let mut lab = Lab::new(&c, t0).unwrap();
        lab.run_until(t0 + Duration::from_secs(4));
        let s = lab.session(0).stats();
        (s.frames_extrapolated, s.frames_held)
    };
    let (auto_extrapolated, _) = frames(None);
    let (none, held) = frames(Some(0));
    assert!(auto_extrapolated > 0, "nothing to bound on this link");
    assert_eq!(none, 0);
    assert!(held > 0);
}

/// A corridor 68 cells long: room to walk straight for seconds.
fn corridor() -> Map {
    let wall = "#".repeat(72);
    let row = |s: char| format!("#{s}{}{s}#", ".".repeat(68));
    let rows = [wall.clone(), row('S'), row('.'), row('S'), wall];
    Map::parse("corridor", &rows.join("\n")).unwrap()
}

/// What an observer on the `bad` link drew of a walker on a clean one.
struct Watched {
    /// While the walker walked straight: how far behind the server's present (its
    /// position at its last tick, plus its velocity times the time since) the walker
    /// was drawn, in ms of its walking.
    behind_ms: Vec<f64>,
    /// After it stopped: the drawn x, in cells, every millisecond from the one before
    /// the observer took in the first snapshot showing it stopped (the correction's
    /// start), and the x it stopped at.
    settled: Vec<f64>,
    stopped_at: f64,
}

/// A scripted lab on the corridor: client 1 (the walker) on a clean link, placed at
/// `walker_at` 100 ms in, and client 2 (the observer) on `bad` (150 ms each way, ±40 ms,
/// 5% loss) at cell (2, 3).
fn walker_and_observer(t0: Instant, walker_at: (u16, u16)) -> Lab {
    use crate::sim::world::PlayerState;
    let bad = Conditions::profile("bad").unwrap();
    let client = |name: &str, link: &Conditions, seeds, ms| ScriptedClient {
        name: name.into(),
        up: link.clone(),
        down: link.clone(),
        seeds,
        first_command: Duration::from_millis(ms),
    };
    let clients = [
        client("walker", &Conditions::default(), (1, 2), 5),
        client("observer", &bad, (3, 4), 11),
    ];
    let mut server = ServerConfig::new(corridor());
    // The seed and the queue these tests' figures were taken with.
    server.seed = 1;
    server.input_buffer = InputBuffer::Credit;
    let mut lab = Lab::scripted(server, &clients, t0).unwrap();
    lab.run_until(t0 + Duration::from_millis(100));
    let walker = lab.session(0).player_id();
    let observer = lab.session(1).player_id();
    lab.server_mut()
        .teleport(walker, PlayerState::at_cell(walker_at.0, walker_at.1));
    lab.server_mut()
        .teleport(observer, PlayerState::at_cell(2, 3));
    lab
}

/// Client 1 walks right along the corridor for 4 s then stops, on a clean link; client
/// 2 watches on the `bad` profile (150 ms each way, ±40 ms, 5% loss), its session set
/// up by `observe`.
fn watch_a_walker(observe: impl FnOnce(&mut Driver)) -> Watched {
    use crate::sim::world::Buttons;
    let t0 = Instant::now();
    let mut lab = walker_and_observer(t0, (2, 1));
    let walker = lab.session(0).player_id();
    let ms = |n: u64| Duration::from_millis(n);
    observe(&mut lab.clients[1].driver);
    lab.run_until(t0 + ms(2000));
    let cells = |x: f64| x / f64::from(crate::sim::map::CELL);
    let mut watched = Watched {
        behind_ms: Vec::new(),
        settled: Vec::new(),
        stopped_at: 0.0,
    };
    let tick_ms = lab.tick.as_secs_f64() * 1000.0;
    // Walking: measured from 1.5 s in, when the walk is old news everywhere.
    for i in 0..4000 {
        let walk = |n: usize, _: &ClientSession, _| {
            Command::moving(if n == 0 {
                Buttons::RIGHT
            } else {
                Buttons::empty()
            })
        };
        lab.run_with(lab.now() + ms(1), walk);
        let server = lab.server().world().get(walker).unwrap();
        let drawn = lab.session(1).remote_position(walker, lab.now()).unwrap();
        if i >= 1500 && server.vx > 0 {
            let last_tick = lab.next_tick - lab.tick;
            let since = (lab.now() - last_tick).as_secs_f64() * 1000.0 / tick_ms;
            let present = f64::from(server.x) + f64::from(server.vx) * since;
            watched
                .behind_ms
                .push((present - drawn.0) / f64::from(server.vx) * tick_ms);
        }
    }
    // Stopped: the first snapshot that shows it still starts the correction.
    let stop_seen = |s: &ClientSession| s.latest().and_then(|l| find_player(l, walker));
    let mut before = 0.0;
    for _ in 0..1500 {
        lab.run_with(lab.now() + ms(1), |_, _, _| Command::default());
        let drawn = cells(lab.session(1).remote_position(walker, lab.now()).unwrap().0);
        if watched.settled.is_empty() && stop_seen(lab.session(1)).is_some_and(|p| p.vx == 0) {
            // Where it was drawn the moment before.
            watched.settled.push(before);
        }
        if !watched.settled.is_empty() {
            watched.settled.push(drawn);
        }
        before = drawn;
    }
    let stopped = lab.server().world().get(walker).unwrap();
    watched.stopped_at = cells(f64::from(stopped.x));
    watched
}

fn find_player(
    s: &crate::net::protocol::Snapshot,
    id: u8,
) -> Option<crate::sim::world::PlayerState> {
    s.players.iter().find(|p| p.id == id).map(|p| p.state)
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

/// Dead reckoning drew remote players "at the present" from the newest snapshot plus
/// the time since it arrived, leaving out the half round trip it took to come: on the
/// `bad` link a walker was drawn 131 ms behind the server's present (interpolated, 279
/// ms). Extrapolated to the estimated present, it is drawn within a few ms of it.
#[test]
fn dead_reckoning_draws_a_walker_at_the_servers_present() {
    let interpolated = watch_a_walker(|_| {});
    let extrapolated = watch_a_walker(|d| {
        d.set_switches(Switches {
            extrapolation: true,
            ..Switches::default()
        })
    });
    let (i, e) = (mean(&interpolated.behind_ms), mean(&extrapolated.behind_ms));
    eprintln!("behind the server's present on bad: interpolated {i:.1} ms, extrapolated {e:.1} ms");
    assert!(interpolated.behind_ms.len() > 2000 && extrapolated.behind_ms.len() > 2000);
    assert!(i > 150.0, "interpolation draws the past: {i:.1} ms");
    assert!(
        e.abs() < 15.0,
        "dead reckoning is {e:.1} ms behind the present"
    );
    // The extrapolation limit bounds it: 50 ms past the newest snapshot at most, it
    // stands that far ahead of a snapshot half a round trip old and more.
    let bounded = watch_a_walker(|d| {
        d.set_switches(Switches {
            extrapolation: true,
            ..Switches::default()
        });
        let mut t = d.session().tuning();
        t.extrapolation_limit_ms = Some(50);
        d.session_mut().set_tuning(t);
    });
    let b = mean(&bounded.behind_ms);
    eprintln!("with the extrapolation limit at 50 ms: {b:.1} ms behind");
    assert!(b > 100.0 && b < i, "held at the limit: {b:.1} ms");
}

/// When the walker stops, dead reckoning has drawn it past the stop by about half a
/// round trip of walking; the snapshot that shows it still disagrees. Each correction
/// style brings the drawn walker back onto the stop without overshooting it by more
/// than a tenth of a cell and settles within half a second; smooth and blend never jump
/// more than a tenth of a cell in a millisecond, where snap (the only style before)
/// jumps the whole error at once.
#[test]
fn each_correction_style_settles_on_a_stop_without_overshoot() {
    use crate::client::CorrectionStyle;
    for style in [
        CorrectionStyle::Snap,
        CorrectionStyle::Smooth,
        CorrectionStyle::Blend,
    ] {
        let w = watch_a_walker(|d| {
            d.set_switches(Switches {
                extrapolation: true,
                ..Switches::default()
            });
            d.set_correction(style);
        });
        let error: Vec<f64> = w.settled.iter().map(|x| x - w.stopped_at).collect();
        assert!(error.len() > 1000, "{style:?}: the stop was seen");
        let start = error[0];
        let jump = error
            .windows(2)
            .map(|p| (p[1] - p[0]).abs())
            .fold(0.0, f64::max);
        let beyond = error.iter().fold(0.0, |m: f64, e| m.max(e - start));
        let under = error.iter().fold(0.0, |m: f64, e| m.max(-e));
        let late = error[500..].iter().fold(0.0, |m: f64, e| m.max(e.abs()));
        eprintln!(
            "{style:?}: error at the stop {start:.2} cells, largest jump {jump:.3} cells/ms, \
             beyond {beyond:.3}, overshoot {under:.3}, after 0.5 s {late:.4}"
        );
        assert!(
            start > 0.5,
            "{style:?}: dead reckoning ran past the stop: {start}"
        );
        assert!(beyond < 0.1 && under < 0.1, "{style:?}: {beyond} {under}");
        assert!(late < 0.01, "{style:?}: settled: {late}");
        match style {
            CorrectionStyle::Snap => assert!(jump > 0.5, "snap jumps: {jump}"),
            _ => assert!(jump < 0.1, "{style:?} glides: {jump}"),
        }
    }
}

/// The extrapolation key said "others guessed forward" (and the guide "to the present")
/// while nothing added the half round trip; it now names the half of the round trip
/// measured, and with it off, how far behind the present interpolation draws.
#[test]
fn extrapolation_explains_itself_with_half_the_measured_round_trip() {
    let t0 = Instant::now();
    let mut lab = Lab::new(&config(1, 0, 1), t0).unwrap();
    lab.run_until(t0 + Duration::from_secs(2));
    let rtt = lab.session(0).stats().rtt_ms;
    assert!(rtt > 250.0, "the bad link: {rtt}");
    lab.act(0, Action::ToggleExtrapolation);
    let on = explain::explain(&lab, 0, Action::ToggleExtrapolation).unwrap();
    let half = format!("+½ RTT (~{:.0} ms)", rtt / 2.0);
    assert!(on.contains("to now") && on.contains(&half), "{on}");
    lab.act(0, Action::ToggleExtrapolation);
    let off = explain::explain(&lab, 0, Action::ToggleExtrapolation).unwrap();
    let behind = rtt / 2.0 + lab.session(0).interp_delay_secs() * 1000.0;
    assert!(
        off.contains(&format!("~{behind:.0} ms behind now")),
        "{off}"
    );
}

/// The correction styles compared on the `bad` link, watching a walker (on a clean
/// link) that picks a new direction every 150 ms for 20 s: the default, smooth, never
/// jumps and is drawn closer to the server's position than blend, the other style that
/// never jumps; snap jumps at every disagreement. (`--nocapture` prints the figures.)
#[test]
fn the_default_correction_never_jumps_and_strays_least_of_those_that_do_not() {
    use crate::client::CorrectionStyle;
    use crate::sim::world::Buttons;
    let cell = f64::from(crate::sim::map::CELL);
    let watch = |style: CorrectionStyle| {
        let t0 = Instant::now();
        let mut lab = walker_and_observer(t0, (30, 2));
        let walker = lab.session(0).player_id();
        let ms = |n: u64| Duration::from_millis(n);
        lab.clients[1].driver.set_switches(Switches {
            extrapolation: true,
            ..Switches::default()
        });
        lab.clients[1].driver.set_correction(style);
        lab.run_until(t0 + ms(2000));
        let (mut distance, mut jumps, mut last) = (0.0, 0, None);
        let mut seed = 12_345_u64;
        let mut keys = Buttons::empty();
        let ways = [
            Buttons::RIGHT,
            Buttons::LEFT,
            Buttons::UP,
            Buttons::DOWN,
            Buttons::empty(),
        ];
        let steps = 20_000;
        for i in 0..steps {
            if i % 150 == 0 {
                seed = seed
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                keys = ways[(seed >> 33) as usize % ways.len()];
            }
            let held = |n: usize, _: &ClientSession, _| {
                Command::moving(if n == 0 { keys } else { Buttons::empty() })
            };
            lab.run_with(lab.now() + ms(1), held);
            let server = lab.server().world().get(walker).unwrap();
            let d = lab.session(1).remote_position(walker, lab.now()).unwrap();
            let (dx, dy) = (f64::from(server.x) - d.0, f64::from(server.y) - d.1);
            distance += dx.hypot(dy) / cell;
            if let Some((x, y)) = last {
                let moved: f64 = (d.0 - x) / cell;
                // A walker covers 0.009 cells a millisecond.
                if moved.hypot((d.1 - y) / cell) > 0.1 {
                    jumps += 1;
                }
            }
            last = Some(d);
        }
        let mean = distance / f64::from(steps);
        eprintln!(
            "{style:?}: {mean:.3} cells from the server's position on average, {jumps} jumps"
        );
        (mean, jumps)
    };
    let snap = watch(CorrectionStyle::Snap);
    let smooth = watch(CorrectionStyle::Smooth);
    let blend = watch(CorrectionStyle::Blend);
    assert_eq!(CorrectionStyle::default(), CorrectionStyle::Smooth);
    assert!(snap.1 > 100, "snap jumps: {snap:?}");
    assert_eq!((smooth.1, blend.1), (0, 0));
    assert!(smooth.0 < blend.0, "{smooth:?} {blend:?}");
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

/// At a snapshot a second and 128 ticks a second, acks came 128 commands apart while
/// the client let at most 64 wait: the own player stood still 9-10 s of 20 with a key
/// held (`commands_held`). A working link now holds it back well under a second.
#[test]
fn long_snapshot_periods_do_not_freeze_the_own_player() {
    for seed in [1, 4, 7] {
        let mut c = config(2, 0, seed);
        c.walkers = 1;
        c.server.tick_rate = 128;
        c.server.snapshot_rate = 1;
        let report = headless::run(&c, 20.0, None).unwrap();
        for r in &report.clients {
            let s = &r.report.stats;
            let frozen = (s.commands_held + s.commands_skipped) as f64 / 128.0;
            assert!(
                frozen < 1.0,
                "seed {seed}, client {} ({}): frozen {frozen:.2} s of 20",
                r.client,
                r.profile
            );
        }
    }
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
        follow: None,
        over: view::Over::Nothing,
    }
}

/// A profile name may carry its jitter mode (`bad:independent`), each way of an
/// `UP/DOWN` pair its own; an unknown mode is refused in one line.
#[test]
fn a_profile_may_name_its_jitter_mode() {
    use crate::net::conditioner::JitterMode;
    let mut c = config(2, 0, 3);
    c.profiles = vec!["bad:independent".into(), "lan/mobile:independent".into()];
    c.validate().unwrap();
    let lab = Lab::new(&c, Instant::now()).unwrap();
    let mode = |n, way| lab.link(n, way).jitter_mode;
    assert_eq!(mode(0, Way::Up), JitterMode::Independent);
    assert_eq!(mode(0, Way::Down), JitterMode::Independent);
    assert_eq!(mode(1, Way::Up), JitterMode::Ordered);
    assert_eq!(mode(1, Way::Down), JitterMode::Independent);
    assert_eq!(lab.clients[0].profile, "bad:independent");
    c.profiles = vec!["bad:netem".into()];
    let e = c.validate().unwrap_err().to_string();
    assert!(
        e.contains("unknown network profile") && !e.contains('\n'),
        "{e}"
    );
}
