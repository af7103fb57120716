//! Replaying a recording: seeking lands on the very state playing from the start
//! reaches, and a what-if re-run with interpolation off draws remote players only where
//! snapshots put them.

use crate::support;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

use netarena::client::Switches;
use netarena::record::player::Player;
use netarena::record::replay::Replayer;
use support::process::{finish, headless, start_server, temp_report};

/// A 4-second headless session against three bots over a lossy, laggy link, recorded
/// once for every test here.
fn recording() -> &'static Path {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| {
        let server = start_server(&["--bots", "3"]);
        let path = temp_report("replay-tests").with_extension("narec");
        let (c, r) = headless(
            server.port,
            "rec",
            "4",
            &[
                "--lag",
                "50",
                "--jitter",
                "10",
                "--loss",
                "5",
                "--seed",
                "3",
                "--record",
                path.to_str().unwrap(),
            ],
        );
        finish(c, r);
        path
    })
}

/// Everything that shows: the report (counts, means, remote players) and where the
/// local and remote players are drawn.
fn state(r: &Replayer) -> String {
    let s = r.session();
    let report = r.report();
    let remotes: Vec<_> = report
        .remote_players
        .iter()
        .map(|p| s.remote_position(p.id, r.instant()))
        .collect();
    format!(
        "{}\n{:?}\n{:?}\n{:?}\n{remotes:?}",
        serde_json::to_string(&report).unwrap(),
        s.predicted(),
        s.server_state(),
        s.latest_tick(),
    )
}

#[test]
fn seeking_reaches_the_state_playing_from_the_start_reaches() {
    let mut seeker = Player::load(recording()).unwrap();
    let end = seeker.duration();
    assert!(end > Duration::from_secs(3), "{end:?}");
    for ms in [3_500u64, 2_345, 700, 3_001, 2_000, 0] {
        let t = Duration::from_millis(ms);
        // From the end, back: this seek starts from a keyframe.
        seeker.seek(end);
        seeker.seek(t);
        let mut player = Player::load(recording()).unwrap();
        player.advance_to(t);
        assert_eq!(seeker.at(), player.at());
        assert_eq!(
            state(seeker.replayer()),
            state(player.replayer()),
            "at {ms} ms"
        );
    }
    // Frame steps are seeks too: back then forward is where we were.
    seeker.seek(Duration::from_millis(2_500));
    seeker.step_frame(true);
    let here = state(seeker.replayer());
    seeker.step_frame(false);
    assert_ne!(state(seeker.replayer()), here);
    seeker.step_frame(true);
    assert_eq!(state(seeker.replayer()), here);
}

/// One frame: the remote players' drawn positions, and whether a snapshot arrived since
/// the frame before.
type Frame = (Vec<Option<(f64, f64)>>, bool);

fn frames(player: &mut Player) -> Vec<Frame> {
    player.seek(Duration::ZERO);
    let mut out = Vec::new();
    let mut snapshots = 0;
    loop {
        let before = player.at();
        player.step_frame(true);
        if player.at() == before {
            return out;
        }
        let r = player.replayer();
        let ids: Vec<_> = r.report().remote_players.iter().map(|p| p.id).collect();
        let drawn = ids
            .iter()
            .map(|&id| r.session().remote_position(id, r.instant()))
            .collect();
        let got = r.session().stats().snapshots_received;
        out.push((drawn, got != snapshots));
        snapshots = got;
    }
}

/// Frames where a remote player moved although no snapshot had arrived.
fn moves_between_snapshots(frames: &[Frame]) -> usize {
    frames
        .windows(2)
        .filter(|w| w[0].0.len() == w[1].0.len() && !w[1].1 && w[0].0 != w[1].0)
        .count()
}

#[test]
fn with_interpolation_off_remote_players_move_only_when_a_snapshot_arrives() {
    let mut player = Player::load(recording()).unwrap();
    let recorded = frames(&mut player);
    assert!(recorded.len() > 100, "{} frames", recorded.len());
    assert!(
        moves_between_snapshots(&recorded) > 20,
        "interpolated players glide between snapshots"
    );
    let off = Switches {
        interpolation: false,
        ..player.switches()
    };
    player.set_what_if(Some(off)).unwrap();
    assert!(!player.switches().interpolation);
    let what_if = frames(&mut player);
    assert_eq!(what_if.len(), recorded.len(), "the same frames, re-run");
    assert_eq!(moves_between_snapshots(&what_if), 0);
}

#[test]
fn the_csv_export_has_a_row_per_tick_whose_counts_add_up_to_the_report() {
    let mut csv = Vec::new();
    let rows = netarena::record::export::export_csv(recording(), &mut csv).unwrap();
    let text = String::from_utf8(csv).unwrap();
    let mut lines = text.lines();
    let header: Vec<_> = lines.next().unwrap().split(',').collect();
    assert_eq!(header[0], "time_s");
    let body: Vec<Vec<f64>> = lines
        .map(|l| l.split(',').map(|v| v.parse().unwrap()).collect())
        .collect();
    assert_eq!(body.len() as u64, rows);
    let player = Player::load(recording()).unwrap();
    let ticks = player.duration().as_secs_f64() * 60.0;
    assert!(
        (body.len() as f64 - ticks).abs() <= 2.0,
        "{} rows",
        body.len()
    );
    let column = |name: &str| {
        let i = header.iter().position(|h| *h == name).unwrap();
        body.iter().map(|r| r[i]).sum::<f64>()
    };
    let mut end = player;
    end.seek(end.duration());
    let report = end.replayer().report();
    assert_eq!(column("commands_sent"), report.stats.commands_sent as f64);
    assert_eq!(
        column("snapshots_received"),
        report.stats.snapshots_received as f64
    );
    assert_eq!(column("corrections"), report.stats.corrections as f64);
    assert!(column("bytes_in") > 0.0 && column("bytes_out") > 0.0);
}

/// Loads, seeks and rewrites a recording and prints what each costs: this file's own, or
/// the one at $NETARENA_RECORDING (a long one, for the guide's figures:
/// `NETARENA_RECORDING=FILE cargo test --release --test integration measure_recording --
/// --nocapture`). What the recorder writes, record by record, reads back as the same
/// records.
#[test]
fn measure_recording() {
    use std::time::Instant;
    let given = std::env::var("NETARENA_RECORDING").ok();
    let path = given.as_deref().map_or(recording(), Path::new);
    let bytes = std::fs::metadata(path).unwrap().len();
    let t = Instant::now();
    let mut player = Player::load(path).unwrap();
    let load = t.elapsed();
    let minutes = player.duration().as_secs_f64() / 60.0;
    println!(
        "{:.1} min, {bytes} bytes: {:.0} KiB per minute; loaded and indexed in {:.0} ms",
        minutes,
        bytes as f64 / 1024.0 / minutes,
        load.as_secs_f64() * 1e3
    );
    let mut worst = Duration::ZERO;
    let mut total = Duration::ZERO;
    let n = 200u32;
    for i in 0..n {
        // Scattered times, forwards and backwards.
        let ms = (u64::from(i) * 7_919_993) % player.duration().as_millis() as u64;
        let t = Instant::now();
        player.seek(Duration::from_millis(ms));
        let took = t.elapsed();
        worst = worst.max(took);
        total += took;
    }
    println!(
        "seek: mean {:.2} ms, worst {:.2} ms over {n} seeks",
        total.as_secs_f64() * 1e3 / f64::from(n),
        worst.as_secs_f64() * 1e3
    );
    // Writing every record again (what the recorder does as they happen) against
    // re-running the client loop on them.
    let (start, reader) = netarena::record::replay::open(path).unwrap();
    let records: Vec<_> = reader.map(Result::unwrap).collect();
    let frames = records
        .iter()
        .filter(|r| matches!(r, netarena::record::Record::Ticks { .. }))
        .count();
    let copy = temp_report("replay-measure").with_extension("narec");
    let sink = std::fs::File::create(&copy).unwrap();
    let mut w = netarena::record::Writer::new(std::io::BufWriter::new(sink)).unwrap();
    let t = Instant::now();
    w.start(&start).unwrap();
    for r in &records {
        w.record(r).unwrap();
    }
    w.flush().unwrap();
    let write = t.elapsed();
    let (copied_start, reader) = netarena::record::replay::open(&copy).unwrap();
    let copied: Vec<_> = reader.map(Result::unwrap).collect();
    let _ = std::fs::remove_file(&copy);
    assert!(copied_start == start, "the rewritten start differs");
    assert!(copied == records, "the rewritten records differ");
    let mut r = Replayer::new(&start, Instant::now()).unwrap();
    let t = Instant::now();
    for rec in records {
        r.apply(rec);
    }
    let run = t.elapsed();
    println!(
        "recording costs {:.2} us per frame ({frames} frames); the loop body without drawing takes {:.2} us per frame",
        write.as_secs_f64() * 1e6 / frames as f64,
        run.as_secs_f64() * 1e6 / frames as f64
    );
}
