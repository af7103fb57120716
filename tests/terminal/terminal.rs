//! Whole-program tests: the real `netarena` binary played in a real terminal (tmux).
//!
//! Each test starts its own tmux server (see `support/tmux.rs`), so the tests run in
//! parallel without seeing each other, and a guard kills that server and its game when
//! the test ends, passed or panicked. The game runs under `sh -c '...; printf EXIT=$?;
//! stty -a; sleep 60'` so that after it exits the pane shows its exit status and the
//! terminal's modes, which is how we check that raw mode, the alternate screen and the
//! hidden cursor were undone.
//!
//! Waits poll the screen until a generous deadline. Two tests measure time, because
//! their requirements are about time (how soon the '@' moves under prediction, how soon
//! the muzzle flash shows when firing); they take conservative bounds and retry, as
//! explained there. Tests with bots keep in mind that bots fight: they may kill the
//! local player, whose '@' is then gone for two seconds.
//!
//! tmux is required. Without it every test fails with "tmux not found: install tmux to
//! run the terminal tests" and starts nothing.

use crate::support::tmux as term;

use std::net::UdpSocket;
use std::process::Command;
use std::thread::sleep;
use std::time::{Duration, Instant};

use term::{
    SESSION, Tmux, expect_exit_and_sane_terminal, framed, game_pid, game_script,
    quit_and_check_terminal,
};

/// Interval between key presses when "holding" a key: a fast auto-repeat.
const REPEAT: Duration = Duration::from_millis(30);
/// Rows of the default map, `arena`: the HUD sits right above them.
const ARENA_ROWS: usize = 20;
/// Rows of the map `duel` (24x12), where fights start sooner.
const DUEL_ROWS: usize = 12;
/// The terminal size the default map needs: two columns per cell, and its rows plus
/// three lines of chrome (the HUD above, the combat line and the roster below).
const ARENA_NEEDS: &str = "76x23";

// ---------------------------------------------------------------------------------------
// The game
// ---------------------------------------------------------------------------------------

/// A UDP port nobody is using right now.
fn free_port() -> u16 {
    let socket = UdpSocket::bind("127.0.0.1:0").expect("cannot bind a UDP socket");
    socket.local_addr().expect("no local address").port()
}

/// A parsed game screen: the arena rows as characters, so that a character's index in
/// its row is its terminal column ('▒' and '·' are one column wide).
struct Screen {
    /// The HUD line above the arena.
    hud: String,
    /// (terminal row, characters) for each arena row.
    arena: Vec<(usize, Vec<char>)>,
    /// The combat line right below the arena: health, weapon, frags and clock, or
    /// "DEAD, respawning…", or the chat line being typed.
    combat: String,
    /// The roster line below that, the last line of the game's screen.
    roster: String,
}

impl Screen {
    /// The default map's arena below the HUD, if the screen shows the game.
    fn parse(text: &str) -> Option<Screen> {
        Screen::parse_map(text, ARENA_ROWS)
    }

    /// The arena of a map `rows` high below the HUD, if the screen shows the game in
    /// full (a capture taken while the game redraws may show it in part).
    fn parse_map(text: &str, rows: usize) -> Option<Screen> {
        let lines: Vec<&str> = text.lines().collect();
        let hud = lines.iter().position(|l| l.starts_with("FPS"))?;
        let arena: Vec<(usize, Vec<char>)> = lines
            .iter()
            .enumerate()
            .skip(hud + 1)
            .take(rows)
            .map(|(row, line)| (row, line.chars().collect()))
            .collect();
        let complete = arena.len() == rows && arena.iter().all(|(_, l)| l.contains(&'▒'));
        let combat = lines.get(hud + 1 + rows)?.to_string();
        let roster = lines.get(hud + 2 + rows)?.to_string();
        // The roster always ends with the network conditions ("net clean", "net 150ms").
        (complete && roster.contains("net ")).then_some(Screen {
            hud: lines[hud].to_string(),
            arena,
            combat,
            roster,
        })
    }

    /// Every (row, column) in the arena showing `glyph`.
    fn find(&self, glyph: char) -> Vec<(usize, usize)> {
        let mut found = Vec::new();
        for (row, line) in &self.arena {
            for (col, &c) in line.iter().enumerate() {
                if c == glyph {
                    found.push((*row, col));
                }
            }
        }
        found
    }

    /// Where the local player is, if exactly one `@` is in the arena.
    fn local(&self) -> Option<(usize, usize)> {
        match self.find('@')[..] {
            [one] => Some(one),
            _ => None,
        }
    }

    /// The arena rows as text, for searching what overlays write over the arena.
    fn arena_lines(&self) -> impl Iterator<Item = String> + '_ {
        self.arena.iter().map(|(_, l)| l.iter().collect())
    }

    /// Whether the combat line says the local player is alive ("HP 100 ...").
    fn alive(&self) -> bool {
        self.combat.starts_with("HP ")
    }

    /// Whether the combat line says the local player is dead and waiting to respawn.
    fn dead(&self) -> bool {
        self.combat.starts_with("DEAD")
    }
}

/// Waits until the default map's arena is on screen and `ready` accepts it.
fn wait_for_arena<T>(tmux: &Tmux, what: &str, mut ready: impl FnMut(&Screen) -> Option<T>) -> T {
    tmux.wait_for(what, |text| Screen::parse(text).and_then(|s| ready(&s)))
}

/// Holds each key in turn (a press every [`REPEAT`] for up to `per_key`) until `check`
/// accepts a capture taken while the key is held. Returns the key and that capture's
/// result, or Err with the last capture if no key got there.
fn hold_keys_until<T>(
    tmux: &Tmux,
    keys: &[&str],
    per_key: Duration,
    mut check: impl FnMut(&Screen) -> Option<T>,
) -> Result<(String, T), String> {
    let mut last = String::new();
    for key in keys {
        let until = Instant::now() + per_key;
        while Instant::now() < until {
            tmux.type_text(key);
            sleep(REPEAT);
            last = tmux.screen();
            if let Some(found) = Screen::parse(&last).and_then(|s| check(&s)) {
                return Ok((key.to_string(), found));
            }
        }
    }
    Err(last)
}

// ---------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------

#[test]
fn host_shows_arena_moves_and_quits_cleanly() {
    let port = free_port();
    let tmux = Tmux::start(
        "play",
        100,
        30,
        &game_script(&format!(
            "host --bots 1 --bot-skill 1 --port {port} --fps-cap 200 --name tester"
        )),
    );

    // HUD, walls, one local player, the bot (bots join first: bot-1 is 'A'), the combat
    // line and the roster listing both as the last line.
    wait_for_arena(
        &tmux,
        "the HUD, the arena with '@' and bot 'A', the combat line and a roster listing both",
        |s| {
            let ready = s.hud.contains("RTT")
                && s.find('A').len() == 1
                && s.combat.contains("blaster")
                && s.combat.contains("frags")
                && s.roster.contains("@ tester")
                && s.roster.contains("A bot-1");
            ready.then(|| s.local()).flatten()
        },
    );

    // Hold a direction until '@' moves; a spawn point may have walls on some sides. The
    // bot hunts and shoots (slowly, at skill 1): if it kills us meanwhile, the '@' comes
    // back on a spawn point, which is no proof of movement, so start over.
    enum Seen {
        Moved,
        Died,
    }
    let mut report = String::new();
    for attempt in 1..=3 {
        let start = wait_for_arena(&tmux, "the '@' alive", |s| {
            s.alive().then(|| s.local()).flatten()
        });
        let seen = hold_keys_until(
            &tmux,
            &["d", "a", "s", "w"],
            Duration::from_millis(1500),
            |s| {
                if s.dead() {
                    Some(Seen::Died)
                } else {
                    (s.alive() && s.local().is_some_and(|at| at != start)).then_some(Seen::Moved)
                }
            },
        );
        match seen {
            Ok((_, Seen::Moved)) => break,
            Ok((_, Seen::Died)) => report.push_str(&format!("attempt {attempt}: killed\n")),
            Err(last) => panic!(
                "'@' never left {start:?} while holding d, a, s or w; last screen:\n{}",
                framed(&last)
            ),
        }
        assert!(
            attempt < 3,
            "the bot killed the player before it could be seen moving, 3 times:\n{report}"
        );
    }

    quit_and_check_terminal(&tmux, "q", true);
}

#[test]
fn too_small_terminal_explains_and_recovers_on_resize() {
    let port = free_port();
    let tmux = Tmux::start(
        "small",
        40,
        10,
        &game_script(&format!("host --port {port} --fps-cap 200")),
    );

    // The message is word-wrapped by the game: join the lines before searching.
    tmux.wait_for(
        "a 'too small' message with the size the map needs",
        |text| {
            let words = text.split_whitespace().collect::<Vec<_>>().join(" ");
            (words.contains("too small") && words.contains(ARENA_NEEDS)).then_some(())
        },
    );

    tmux.resize(100, 30);
    wait_for_arena(&tmux, "the arena after enlarging to 100x30", |s| s.local());
    assert!(
        !tmux.screen().contains("too small"),
        "the message should be gone:\n{}",
        framed(&tmux.screen())
    );

    quit_and_check_terminal(&tmux, "q", false);
}

#[test]
fn sigterm_restores_the_terminal() {
    let port = free_port();
    let tmux = Tmux::start(
        "sigterm",
        100,
        30,
        &game_script(&format!("host --port {port} --fps-cap 200")),
    );
    wait_for_arena(&tmux, "the arena", |s| s.local());

    let pid = game_pid(port).unwrap_or_else(|| panic!("no netarena process with --port {port}"));
    let kill = Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .expect("cannot run kill");
    assert!(kill.success(), "kill -TERM {pid} failed");

    // The game catches SIGTERM, restores the terminal and exits with 128 + 15, as a shell
    // reports a command ended by SIGTERM. An uncaught SIGTERM would also give 143, so the
    // real check is the terminal's state.
    expect_exit_and_sane_terminal(&tmux, 143, "after SIGTERM (128 + 15)", true);
}

#[test]
fn server_ghost_trails_the_local_player_under_latency() {
    let port = free_port();
    let tmux = Tmux::start(
        "ghosts",
        100,
        30,
        &game_script(&format!(
            "host --bots 0 --ghosts server --lag 150 --port {port} --fps-cap 200"
        )),
    );
    // The simulated conditions are shown with the HUD or the roster.
    wait_for_arena(
        &tmux,
        "the arena and the simulated latency 'net 150ms'",
        |s| {
            let shown = s.hud.contains("net 150ms") || s.roster.contains("net 150ms");
            shown.then(|| s.local()).flatten()
        },
    );

    // With 300 ms of round trip the predicted '@' runs ahead of where the server last
    // saw it, so the dim 'o' shows on another cell while the key is held.
    let seen = hold_keys_until(
        &tmux,
        &["d", "a", "s", "w"],
        Duration::from_millis(2000),
        |s| {
            let local = s.local()?;
            let ghost = *s.find('o').first()?;
            Some((local, ghost))
        },
    );
    match seen {
        Ok((_, (local, ghost))) => assert_ne!(local, ghost),
        Err(last) => panic!(
            "never saw '@' and its ghost 'o' apart while holding a direction; last \
             screen:\n{}",
            framed(&last)
        ),
    }

    // Esc quits too (q is covered above); wait for it so the guard's hangup never meets
    // a running game.
    quit_and_check_terminal(&tmux, "Escape", true);
}

/// The requirement: with 300 ms of simulated RTT, the '@' moves in the frame
/// right after a key press with prediction on, and not until about one RTT later with
/// prediction off.
///
/// One game with `--lag 150` (150 ms each way on the client's link: 300 ms RTT), bots
/// off so that nothing else moves. Each measurement sends ONE key press and then captures
/// the pane as fast as tmux allows, noting when the '@' first shows on another cell. The
/// game sees no key release in tmux, so one press holds the direction ~550 ms (~5 cells);
/// presses alternate between a direction found free and its opposite, so the player goes
/// back and forth over cells it has just crossed and never runs into a wall.
///
/// What to expect: the first visible step is a quarter to half a cell (two screen columns
/// per cell horizontally), 2-4 ticks at 60 Hz, 30-60 ms of game time. With prediction
/// that is all: ~40-90 ms after the key on an idle machine. Without it the command first
/// crosses the link (150 ms), the server moves the player, the next snapshot (20 Hz, up
/// to 50 ms) crosses back (150 ms): ~330-420 ms.
///
/// Thresholds, from those: on must show movement within 150 ms (half the RTT: a client
/// waiting for any server reply cannot); off must show no movement for 200 ms (the
/// fastest possible server echo is 300 ms, so this leaves 100 ms for slop and still is
/// two thirds of an RTT), and must move within 2 s; and off must come at least 150 ms
/// after on, the difference being the direct test of the requirement. The bounds are
/// taken conservatively on both sides: on's time runs from before send-keys to the end
/// of the first capture showing movement, off's from after send-keys to the start of the
/// last capture still showing the '@' in place.
///
/// A loaded machine only makes captures (a fork of tmux each) and frames late, which
/// delays what on sees but cannot make off's server echo come early; so a failure is
/// retried, up to three measurement pairs, and the test fails only if none passes.
#[test]
#[ignore = "slow tier: .ci/run runs it with --ignored"]
fn prediction_moves_at_once_and_without_it_after_a_round_trip() {
    /// Highest accepted delay to the first visible movement with prediction on.
    const ON_WITHIN: Duration = Duration::from_millis(150);
    /// Lowest accepted time the '@' must stay put with prediction off.
    const OFF_STILL: Duration = Duration::from_millis(200);
    /// Longest wait for any movement with prediction off.
    const OFF_WITHIN: Duration = Duration::from_secs(2);
    /// Least accepted difference between off and on.
    const GAP: Duration = Duration::from_millis(150);
    const ATTEMPTS: usize = 3;

    let port = free_port();
    let tmux = Tmux::start(
        "prediction",
        100,
        30,
        &game_script(&format!(
            "host --bots 0 --lag 150 --port {port} --fps-cap 200"
        )),
    );
    // Wait until the link's RTT has been measured, so the clock and the snapshots are
    // flowing at the simulated latency before anything is timed.
    wait_for_arena(
        &tmux,
        "the arena, '+pred' and an RTT of about 300 ms",
        |s| {
            let rtt = hud_rtt_ms(&s.hud)?;
            (s.hud.contains("+pred") && (250..=600).contains(&rtt))
                .then(|| s.local())
                .flatten()
        },
    );

    // Find a free direction: with prediction on, a free direction moves within a second.
    let mut start = settle(&tmux);
    let mut free = None;
    for key in ["d", "a", "s", "w"] {
        if measure_reaction(&tmux, key, start, Duration::from_secs(1)).is_ok() {
            free = Some(key);
            break;
        }
        start = settle(&tmux);
    }
    let Some(free) = free else {
        panic!(
            "'@' did not move after a press of d, a, s or w; the pane shows:\n{}",
            framed(&tmux.screen())
        );
    };
    // The key that goes back over the cells the last press crossed.
    let back = |key: &str| match key {
        "d" => "a",
        "a" => "d",
        "s" => "w",
        _ => "s",
    };
    let mut key = back(free);

    let mut report = String::new();
    for attempt in 1..=ATTEMPTS {
        let from = settle(&tmux);
        let on = measure_reaction(&tmux, key, from, OFF_WITHIN).unwrap_or_else(|last| {
            panic!(
                "prediction on: '@' did not move within {OFF_WITHIN:?} of pressing '{key}' \
                 (the way it just came from); last capture:\n{}",
                framed(&last)
            )
        });
        key = back(key);

        set_prediction(&tmux, false);
        let from = settle(&tmux);
        let off = measure_reaction(&tmux, key, from, OFF_WITHIN).unwrap_or_else(|last| {
            panic!(
                "prediction off: '@' did not move within {OFF_WITHIN:?} of pressing '{key}'; \
                 last capture:\n{}",
                framed(&last)
            )
        });
        key = back(key);
        set_prediction(&tmux, true);

        let line = format!(
            "attempt {attempt}: on: moved by {:?} ({} captures); off: still at {:?}, \
             moved by {:?} ({} captures)\n",
            on.moved_by, on.captures, off.still_until, off.moved_by, off.captures
        );
        eprint!("{line}");
        report.push_str(&line);
        if on.moved_by < ON_WITHIN
            && off.still_until >= OFF_STILL
            && off.still_until >= on.moved_by + GAP
        {
            quit_and_check_terminal(&tmux, "q", true);
            return;
        }
    }
    panic!(
        "with 300 ms RTT, prediction on should move the '@' within {ON_WITHIN:?} of the key \
         press, and off should keep it in place for at least {OFF_STILL:?} and {GAP:?} \
         longer than on; no attempt did:\n{report}"
    );
}

/// When the '@' first showed on another cell after one key press, bounded both ways.
struct Reaction {
    /// The last capture still showing the '@' in place began this long after send-keys
    /// returned: it certainly had not moved before then.
    still_until: Duration,
    /// The first capture showing it moved ended this long after send-keys was started:
    /// it certainly had moved by then.
    moved_by: Duration,
    /// How many captures were taken, for the report (fewer means a slower machine).
    captures: usize,
}

/// Presses `key` once and captures the pane as fast as possible until the '@' is no
/// longer at `from`; Err with the last capture if that takes longer than `limit`.
fn measure_reaction(
    tmux: &Tmux,
    key: &str,
    from: (usize, usize),
    limit: Duration,
) -> Result<Reaction, String> {
    let sending = Instant::now();
    tmux.type_text(key);
    let sent = Instant::now();
    let mut still_until = Duration::ZERO;
    let mut captures = 0;
    loop {
        let begun = Instant::now();
        let text = tmux.screen();
        let ended = Instant::now();
        captures += 1;
        // A capture taken while the game redraws may show no '@' or two: skip it.
        match Screen::parse(&text).and_then(|s| s.local()) {
            Some(at) if at != from => {
                return Ok(Reaction {
                    still_until,
                    moved_by: ended - sending,
                    captures,
                });
            }
            Some(_) => still_until = begun.saturating_duration_since(sent),
            None => {}
        }
        if ended - sending > limit {
            return Err(text);
        }
    }
}

/// Waits until the '@' has stayed on one cell for half a second (longer than the time
/// a server correction takes to arrive) and returns that cell.
fn settle(tmux: &Tmux) -> (usize, usize) {
    const STILL: Duration = Duration::from_millis(500);
    let mut last: Option<((usize, usize), Instant)> = None;
    wait_for_arena(tmux, "the '@' to stand still for 500 ms", |s| {
        let at = s.local()?;
        match last {
            Some((was, since)) if was == at => (since.elapsed() >= STILL).then_some(at),
            _ => {
                last = Some((at, Instant::now()));
                None
            }
        }
    })
}

/// Presses `p` and waits for the HUD to show the new state of prediction.
/// The switch explains itself on the bottom line, beside the network conditions; with
/// prediction off it names the round trip the HUD shows.
fn set_prediction(tmux: &Tmux, on: bool) {
    let (want, other, says) = if on {
        ("+pred", "-pred", "prediction on: your @ moves the moment")
    } else {
        (
            "-pred",
            "+pred",
            "prediction off: your @ now waits a round trip (~",
        )
    };
    tmux.type_text("p");
    wait_for_arena(
        tmux,
        &format!("'{want}' in the HUD and '{says}' on the bottom line after pressing p"),
        |s| {
            let switched = s.hud.contains(want) && !s.hud.contains(other);
            (switched && s.roster.starts_with(says)).then_some(())
        },
    );
}

/// The RTT the HUD shows ("RTT 301ms"), in ms.
fn hud_rtt_ms(hud: &str) -> Option<u32> {
    let rest = &hud[hud.find("RTT")? + 3..];
    rest.trim_start().split("ms").next()?.trim().parse().ok()
}

/// The requirement for combat feedback: firing shows the tell at once, Tab shows
/// the scoreboard, and (cheap to add) chat reaches the screen; all in one game with
/// `--lag 150` (300 ms RTT) and no bots, so nothing else moves or shoots.
///
/// The tell is the muzzle flash '✶' the client draws next to the '@' for 150 ms the
/// moment fire is pressed, without waiting for the server. Each measurement sends ONE
/// space and captures the pane as fast as tmux allows until the '✶' shows; the time runs
/// from before send-keys to the end of that capture, so it can only be overestimated. It
/// must be under 150 ms: half the RTT, which no answer from the server can beat (its
/// projectile '*' needs the command to cross the link, a tick and a snapshot to come
/// back: 300 ms or more, which the report shows for comparison). A loaded machine only
/// makes captures and frames late, so a slow measurement is retried, up to three, and
/// the test fails only if none passes. Between shots the test waits out the blaster's
/// 250 ms cooldown, which the client counts itself before it shows another tell.
///
/// The scoreboard and the chat are local drawing and one round trip: plain waits.
#[test]
#[ignore = "slow tier: .ci/run runs it with --ignored"]
fn firing_shows_the_tell_at_once_tab_shows_scores_and_chat_arrives() {
    /// Highest accepted delay from the press to the tell, and to our own bolt, on
    /// screen: half the RTT, which no copy from the server can beat.
    const TELL_WITHIN: Duration = Duration::from_millis(150);
    /// Longest wait for any tell at all.
    const TELL_LIMIT: Duration = Duration::from_secs(2);
    const ATTEMPTS: usize = 3;

    let port = free_port();
    let tmux = Tmux::start(
        "combat",
        100,
        30,
        &game_script(&format!(
            "host --bots 0 --lag 150 --port {port} --fps-cap 200 --name tester"
        )),
    );
    // The link's RTT measured, the player alive and placed: commands are flowing.
    wait_for_arena(
        &tmux,
        "the arena, the combat line and an RTT of about 300 ms",
        |s| {
            let rtt = hud_rtt_ms(&s.hud)?;
            ((250..=600).contains(&rtt) && s.alive() && s.combat.contains("blaster"))
                .then(|| s.local())
                .flatten()
        },
    );

    // --- The tell -----------------------------------------------------------------
    let mut report = String::new();
    let mut passed = false;
    for attempt in 1..=ATTEMPTS {
        // No tell left from a previous shot, then the rest of the blaster's cooldown.
        wait_for_arena(&tmux, "no '✶' on screen before firing", |s| {
            (s.find('✶').is_empty() && s.local().is_some()).then_some(())
        });
        sleep(Duration::from_millis(300));
        let tell = measure_tell(&tmux, TELL_LIMIT).unwrap_or_else(|last| {
            panic!(
                "no '✶' (the muzzle flash tell) within {TELL_LIMIT:?} of pressing space; \
                 last capture:\n{}",
                framed(&last)
            )
        });
        let line = format!(
            "attempt {attempt}: tell shown by {:?} ({} captures); our predicted bolt '*' \
             by {}\n",
            tell.shown_by,
            tell.captures,
            tell.projectile_by
                .map_or_else(|| "(not seen)".to_owned(), |d| format!("{d:?}")),
        );
        eprint!("{line}");
        report.push_str(&line);
        if tell.shown_by < TELL_WITHIN && tell.projectile_by.is_some_and(|d| d < TELL_WITHIN) {
            passed = true;
            break;
        }
    }
    assert!(
        passed,
        "with 300 ms RTT, the '✶' tell and our own predicted bolt '*' should show within \
         {TELL_WITHIN:?} of pressing space; no attempt did:\n{report}"
    );

    // --- The scoreboard -----------------------------------------------------------
    tmux.ok(&["send-keys", "-t", SESSION, "Tab"]);
    let (frags, deaths) = wait_for_arena(
        &tmux,
        "the scoreboard ' scores (Tab) ' with its header and a row for tester",
        |s| {
            let lines: Vec<String> = s.arena_lines().collect();
            let title = lines.iter().any(|l| l.contains(" scores (Tab) "));
            let header = lines.iter().any(|l| {
                let words: Vec<&str> = l
                    .split('│')
                    .flat_map(str::split_whitespace)
                    .filter(|w| !w.contains('▒'))
                    .collect();
                words
                    .windows(4)
                    .any(|w| w == ["player", "frags", "deaths", "ping"])
            });
            let row = lines.iter().find_map(|l| score_row(l, "tester"));
            (title && header).then_some(row).flatten()
        },
    );
    // Nobody else is here, and shots never hit their owner: no frags, no deaths.
    assert_eq!(
        (frags, deaths),
        (0, 0),
        "tester's frags and deaths on the scoreboard:\n{}",
        framed(&tmux.screen())
    );
    tmux.ok(&["send-keys", "-t", SESSION, "Tab"]);
    wait_for_arena(&tmux, "the scoreboard gone after a second Tab", |s| {
        s.arena_lines()
            .all(|l| !l.contains("scores (Tab)") && score_row(&l, "tester").is_none())
            .then_some(())
    });

    // --- Chat -----------------------------------------------------------------------
    // What the typed letters would do outside the editor ('l' cycles simulated loss,
    // 'x' extrapolation) must not happen while typing.
    let (hud_before, net_before) = wait_for_arena(&tmux, "the HUD and roster", |s| {
        Some((switches(&s.hud), net_of(&s.roster)?))
    });
    tmux.type_text("t");
    wait_for_arena(&tmux, "the chat editor 'say: ' on the combat line", |s| {
        s.combat.starts_with("say: ").then_some(())
    });
    tmux.type_text("hello");
    wait_for_arena(&tmux, "'say: hello_' on the combat line", |s| {
        s.combat.starts_with("say: hello_").then_some(())
    });
    tmux.ok(&["send-keys", "-t", SESSION, "Enter"]);
    // Sent to the server and back (one RTT), then drawn at the arena's bottom left.
    wait_for_arena(
        &tmux,
        "'tester: hello' over the arena and the combat line back",
        |s| {
            let shown = s.arena_lines().any(|l| l.contains(" tester: hello "));
            (shown && s.alive()).then_some(())
        },
    );

    // Esc closes the editor without sending, and without quitting the game.
    tmux.type_text("t");
    wait_for_arena(&tmux, "the chat editor open again", |s| {
        s.combat.starts_with("say: _").then_some(())
    });
    tmux.type_text("x");
    wait_for_arena(&tmux, "'say: x_' on the combat line", |s| {
        s.combat.starts_with("say: x_").then_some(())
    });
    tmux.ok(&["send-keys", "-t", SESSION, "Escape"]);
    wait_for_arena(&tmux, "the combat line back after Esc", |s| {
        s.alive().then_some(())
    });
    // Had it been sent, it would be back within a round trip (300 ms): watch for twice
    // that, and the game must still be running all along.
    let watch_until = Instant::now() + Duration::from_millis(800);
    while Instant::now() < watch_until {
        let text = tmux.screen();
        assert!(
            !text.contains("tester: x") && !text.contains("EXIT="),
            "after Esc in the chat editor the game should still run and send nothing:\n{}",
            framed(&text)
        );
        sleep(Duration::from_millis(50));
    }
    let (hud_after, net_after) = wait_for_arena(&tmux, "the HUD and roster", |s| {
        Some((switches(&s.hud), net_of(&s.roster)?))
    });
    assert_eq!(
        (hud_after, net_after),
        (hud_before, net_before),
        "keys typed into chat ('hello', 'x') should not reach the game's switches or the \
         simulated network conditions"
    );

    quit_and_check_terminal(&tmux, "q", true);
}

/// When the tell first showed after one press of fire.
struct Tell {
    /// The first capture showing '✶' ended this long after send-keys was started.
    shown_by: Duration,
    /// How many captures it took, for the report.
    captures: usize,
    /// When our own bolt '*' first showed, if within a second: predicted with the tell,
    /// it flies from the same command.
    projectile_by: Option<Duration>,
}

/// Presses space once and captures the pane as fast as possible until a '✶' shows;
/// Err with the last capture if that takes longer than `limit`. Then keeps watching
/// for up to a second for the server's '*'.
fn measure_tell(tmux: &Tmux, limit: Duration) -> Result<Tell, String> {
    let sending = Instant::now();
    tmux.type_text(" ");
    let mut captures = 0;
    let shown_by = loop {
        let text = tmux.screen();
        let ended = Instant::now();
        captures += 1;
        if Screen::parse(&text).is_some_and(|s| !s.find('✶').is_empty()) {
            break ended - sending;
        }
        if ended - sending > limit {
            return Err(text);
        }
    };
    let mut projectile_by = None;
    while sending.elapsed() < shown_by + Duration::from_secs(1) {
        let text = tmux.screen();
        let ended = Instant::now();
        if Screen::parse(&text).is_some_and(|s| !s.find('*').is_empty()) {
            projectile_by = Some(ended - sending);
            break;
        }
    }
    Ok(Tell {
        shown_by,
        captures,
        projectile_by,
    })
}

/// (frags, deaths) from a scoreboard row for `name` ("│tester   0   0   12ms│"), if
/// `line` holds one.
fn score_row(line: &str, name: &str) -> Option<(i32, i32)> {
    line.split('│').find_map(|cell| {
        let words: Vec<&str> = cell.split_whitespace().collect();
        match words[..] {
            [n, frags, deaths, ping] if n == name => {
                ping.strip_suffix("ms")?.parse::<u32>().ok()?;
                Some((frags.parse().ok()?, deaths.parse().ok()?))
            }
            _ => None,
        }
    })
}

/// The HUD's switches ("+pred +rec ..."), the part after its '│'.
fn switches(hud: &str) -> String {
    hud.rsplit('│').next().unwrap_or_default().trim().to_owned()
}

/// The simulated network conditions the roster ends with ("net clean", "net 150ms").
fn net_of(roster: &str) -> Option<String> {
    Some(roster[roster.rfind("net ")?..].trim().to_owned())
}

/// The requirement: a kill shows in the kill feed, "killer [weapon] victim" at
/// the arena's top right. Three sharp bots (skill 5) on the small map `duel` find each
/// other (and the local player) within a few seconds; the test allows 40.
#[test]
#[ignore = "slow tier: .ci/run runs it with --ignored"]
fn kills_show_in_the_kill_feed() {
    const LIMIT: Duration = Duration::from_secs(40);
    let port = free_port();
    let tmux = Tmux::start(
        "killfeed",
        100,
        30,
        &game_script(&format!(
            "host --bots 3 --bot-skill 5 --map duel --port {port} --fps-cap 100 --name tester"
        )),
    );
    let names = ["bot-1", "bot-2", "bot-3", "tester"];
    let started = Instant::now();
    let (row, kill) = tmux.wait_up_to(
        LIMIT,
        "a kill feed line 'killer [rail|blaster] victim' in the arena's top rows",
        Tmux::screen,
        |text| {
            let s = Screen::parse_map(text, DUEL_ROWS)?;
            // The newest four kills, one a row from the arena's top.
            s.arena_lines()
                .take(4)
                .enumerate()
                .find_map(|(row, l)| Some((row, kill_line(&l, &names)?)))
        },
    );
    eprintln!(
        "kill feed: '{kill}' in arena row {row} after {:?}",
        started.elapsed()
    );

    quit_and_check_terminal(&tmux, "q", true);
}

/// "killer [weapon] victim" if `line` ends with one (the feed is drawn over the arena's
/// right end, nothing is right of it), both players among `names`.
fn kill_line(line: &str, names: &[&str]) -> Option<String> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let [.., killer, weapon, victim] = words[..] else {
        return None;
    };
    let known = |n: &str| names.contains(&n);
    (known(killer)
        && known(victim)
        && killer != victim
        && ["[rail]", "[blaster]"].contains(&weapon))
    .then(|| format!("{killer} {weapon} {victim}"))
}

/// Closing the terminal (here: killing the tmux server, which hangs up the pty) must end
/// the game, as a closed terminal window or a dropped ssh session would.
///
/// The hangup sends the game SIGHUP. In a round in five or so (more on a loaded machine)
/// the hangup found the game inside `event::poll`, where crossterm 0.29's event source
/// loops forever on the tty's EOF (crossterm-rs/crossterm#793) and never returns to the
/// stop flag: only the watchdog, 3 s after the signal, ended the game, without writing
/// its report or saying goodbye. Now the loop looks for the hangup itself before
/// crossterm reads, and ends the orderly way: the report is written every round. Ten
/// rounds made that race likely to show (about nine runs in ten).
#[test]
#[ignore = "slow tier: .ci/run runs it with --ignored"]
fn closing_the_terminal_ends_the_game() {
    for round in 0..10 {
        let port = free_port();
        let report =
            std::env::temp_dir().join(format!("netarena-{}-hup{round}.json", std::process::id()));
        let _ = std::fs::remove_file(&report);
        let tmux = Tmux::start(
            &format!("hangup{round}"),
            100,
            30,
            &game_script(&format!(
                "host --port {port} --fps-cap 200 --report {}",
                report.display()
            )),
        );
        wait_for_arena(&tmux, "the arena", |s| s.local());
        // Found before the hangup, so that the wait below cannot pass by not finding it.
        assert!(
            game_pid(port).is_some(),
            "round {round}: no netarena process with --port {port}"
        );
        tmux.ok(&["kill-server"]);
        let closed = Instant::now();
        while let Some(pid) = game_pid(port) {
            assert!(
                closed.elapsed() < Duration::from_secs(5),
                "round {round}: the game (pid {pid}) still runs 5 s after its terminal was \
                 closed; its threads:\n{}",
                describe_threads(pid)
            );
            sleep(Duration::from_millis(50));
        }
        let text = std::fs::read_to_string(&report).unwrap_or_else(|_| {
            panic!("round {round}: no report: the game ended through the watchdog")
        });
        let _ = std::fs::remove_file(&report);
        assert!(
            text.contains("\"ended\": \"stopped by a signal\""),
            "round {round}: {text}"
        );
    }
}

/// One line per thread of `pid`: name, state (R running, S sleeping...), CPU ticks used
/// and the kernel function it waits in, for failure messages about a stuck game.
fn describe_threads(pid: u32) -> String {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return format!("(cannot read /proc/{pid}/task)");
    };
    let mut out = String::new();
    for task in tasks.flatten() {
        let dir = task.path();
        let read = |file: &str| {
            std::fs::read_to_string(dir.join(file))
                .unwrap_or_default()
                .trim()
                .to_owned()
        };
        // stat: "tid (comm) state ... utime stime ..."; comm may hold spaces, so split
        // after its closing parenthesis.
        let stat = read("stat");
        let fields: Vec<&str> = stat
            .rsplit_once(')')
            .map_or(vec![], |(_, rest)| rest.split_whitespace().collect());
        let state = fields.first().copied().unwrap_or("?");
        let cpu: u64 = fields
            .get(11..13)
            .map_or(0, |t| t.iter().filter_map(|v| v.parse::<u64>().ok()).sum());
        out.push_str(&format!(
            "  {} {:<16} state {state} cpu {cpu} ticks, waits in {}\n",
            task.file_name().to_string_lossy(),
            read("comm"),
            read("wchan"),
        ));
    }
    out
}

/// A panic on either thread of `host` (the server's or the game loop's) gives the
/// terminal back before the report is printed, and the program exits with 101.
#[test]
fn a_panic_in_any_thread_restores_the_terminal() {
    for site in ["server", "client"] {
        let port = free_port();
        let tmux = Tmux::start(
            &format!("panic-{site}"),
            100,
            30,
            &game_script(&format!(
                "host --port {port} --fps-cap 100 --debug-panic {site}"
            )),
        );
        let history = expect_exit_and_sane_terminal(&tmux, 101, &format!("a {site} panic"), true);
        assert!(
            history.contains("debug panic requested"),
            "the panic report is printed on the restored screen:\n{}",
            framed(&history)
        );
    }
}

/// Starts `netarena ARGS` from an interactive shell (with job control, as a player's
/// would be) in tmux, waits until `ready` accepts the screen, presses Ctrl-Z and checks
/// that the process is stopped with the terminal given back, then types `fg` and waits
/// for `ready` again on the game's screen. Returns the session, still running the game.
fn suspend_and_resume(name: &str, args: &str, ready: impl Fn(&str) -> bool) -> Tmux {
    let tmux = Tmux::start(
        name,
        100,
        30,
        "PS1='shell$ ' exec bash --norc --noprofile -i",
    );
    tmux.wait_for_text("shell$");
    tmux.type_text(&format!("'{}' {args}", env!("CARGO_BIN_EXE_netarena")));
    tmux.key("Enter");
    tmux.wait_for(&format!("`{args}` on screen"), |s| ready(s).then_some(()));
    let pid = match tmux.games()[..] {
        [pid] => pid,
        ref other => panic!("expected one game, found {other:?}"),
    };

    tmux.key("C-z");
    tmux.wait_for(&format!("the shell reporting `{args}` stopped"), |s| {
        (s.contains("Stopped") && s.trim_end().ends_with("shell$")).then_some(())
    });
    // The process state, as `ps -o stat` shows it: T for stopped.
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let state = stat
        .rsplit_once(')')
        .and_then(|(_, rest)| rest.split_whitespace().next())
        .unwrap_or("?")
        .to_owned();
    assert_eq!(
        state, "T",
        "`{args}` should be stopped: /proc/{pid}/stat says {stat}"
    );
    assert_eq!(
        tmux.format("#{alternate_on}"),
        "0",
        "the normal screen is back"
    );
    assert_eq!(tmux.format("#{cursor_flag}"), "1", "the cursor is shown");
    // Raw mode is off: the shell's `stty -a` says so. Its keys (a `t` among them, which
    // opens the game's chat) go to the shell, not to the stopped game.
    tmux.type_text("stty -a");
    tmux.key("Enter");
    let history = tmux.wait_for_in("`stty -a` in the shell", Tmux::history, |h| {
        h.contains("icanon").then(|| h.to_owned())
    });
    term::assert_terminal_restored(&tmux, &history, true);

    tmux.type_text("fg");
    tmux.key("Enter");
    tmux.wait_for(&format!("`{args}` redrawn after fg"), |s| {
        ready(s).then_some(())
    });
    assert_eq!(
        tmux.format("#{alternate_on}"),
        "1",
        "back on the game's screen"
    );
    tmux
}

/// Quits what `suspend_and_resume` started with `key`, then has the shell print the
/// status and modes as `game_script` does, and checks the terminal.
fn quit_from_shell(tmux: &Tmux, key: &str) {
    tmux.key(key);
    sleep(Duration::from_millis(300));
    if tmux.screen().contains("q again to quit") {
        tmux.key(key);
    }
    tmux.wait_for("the game to exit", |_| {
        tmux.games().is_empty().then_some(())
    });
    tmux.type_text("printf 'EXIT=%s\\n' $?; stty -a");
    tmux.key("Enter");
    expect_exit_and_sane_terminal(tmux, 0, &format!("quitting with {key} after fg"), true);
}

/// Ctrl-Z did nothing: the game kept running and what was typed next (`stty -a`, `fg`)
/// went into the game, opened chat and was sent to every player. Now it suspends as any
/// terminal program does: terminal given back, process stopped; `fg` redraws it all.
#[test]
fn ctrl_z_suspends_with_the_terminal_restored_and_fg_resumes() {
    let port = free_port();
    let whole_game =
        |s: &str| Screen::parse(s).is_some_and(|s| s.local().is_some() && s.hud.contains("RTT"));
    let tmux = suspend_and_resume(
        "suspend",
        &format!("host --port {port} --fps-cap 100 --name tester"),
        whole_game,
    );
    let screen = Screen::parse(&tmux.screen()).expect("the game's screen");
    assert!(
        !screen.combat.starts_with("say:"),
        "keys typed while stopped reached the game:\n{}",
        framed(&tmux.screen())
    );
    quit_from_shell(&tmux, "q");
}

/// The lab, the server browser and the replay read keys through the same place: Ctrl-Z
/// suspends them too.
#[test]
#[ignore = "slow tier: .ci/run runs it with --ignored"]
fn ctrl_z_suspends_the_lab_the_browser_and_the_replay() {
    let tmux = suspend_and_resume("suspend-lab", "lab --clients 2", |s| {
        s.contains("server") && s.contains("client 1") && s.contains("client 2")
    });
    quit_from_shell(&tmux, "q");
    drop(tmux);
    let silent = free_port();
    let tmux = suspend_and_resume(
        "suspend-browser",
        &format!("join --scope loopback --discovery-port {silent}"),
        |s| s.contains("games on your network") && s.contains("address:"),
    );
    quit_from_shell(&tmux, "Escape");
    drop(tmux);

    // And the replay, of a second recorded by a headless client.
    let file = record_a_second("suspend");
    let tmux = suspend_and_resume(
        "suspend-replay",
        &format!("replay '{}'", file.display()),
        |s| s.contains('▒') && s.contains("cmds "),
    );
    quit_from_shell(&tmux, "q");
    let _ = std::fs::remove_file(&file);
}

/// A recording of one second of a headless client on a server of its own, in a
/// temporary file named after `name`.
fn record_a_second(name: &str) -> std::path::PathBuf {
    let port = free_port();
    let bin = env!("CARGO_BIN_EXE_netarena");
    let mut server = Command::new(bin)
        .args(["server", "--no-discovery", "--port", &port.to_string()])
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("the server starts");
    let file = std::env::temp_dir().join(format!("netarena-{name}-{}.narec", std::process::id()));
    let joined = Command::new(bin)
        .args([
            "join",
            &format!("127.0.0.1:{port}"),
            "--headless",
            "--seconds",
            "1",
        ])
        .args(["--record", file.to_str().unwrap()])
        .status()
        .expect("the headless client runs");
    let _ = server.kill();
    let _ = server.wait();
    assert!(joined.success(), "the headless client failed");
    file
}

/// Runs `netarena ARGS` in tmux until `ready` accepts the screen, sends it SIGTERM and
/// checks it exits with 128 + 15 and the terminal restored.
fn sigterm_and_check(name: &str, args: &str, ready: impl Fn(&str) -> bool) {
    let tmux = Tmux::start(name, 100, 30, &game_script(args));
    tmux.wait_for(&format!("`{args}` on screen"), |s| ready(s).then_some(()));
    let pid = match tmux.games()[..] {
        [pid] => pid,
        ref other => panic!("expected one game, found {other:?}"),
    };
    let kill = Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .expect("cannot run kill");
    assert!(kill.success(), "kill -TERM {pid} failed");
    expect_exit_and_sane_terminal(&tmux, 143, &format!("`{args}` after SIGTERM"), true);
}

/// Every screen runs in the one terminal shell, which ends on SIGTERM, gives the
/// terminal back and exits with 128 + 15 (the game's own test is above). The replay
/// used to exit 0 after a signal.
#[test]
fn sigterm_restores_the_terminal_in_the_lab_the_browser_and_the_replay() {
    sigterm_and_check("sigterm-lab", "lab --clients 2", |s| {
        s.contains("client 1") && s.contains("client 2")
    });
    let silent = free_port();
    sigterm_and_check(
        "sigterm-browser",
        &format!("join --scope loopback --discovery-port {silent}"),
        |s| s.contains("games on your network") && s.contains("address:"),
    );
    let file = record_a_second("sigterm");
    sigterm_and_check(
        "sigterm-replay",
        &format!("replay '{}'", file.display()),
        |s| s.contains('▒') && s.contains("cmds "),
    );
    let _ = std::fs::remove_file(&file);
}

/// A dedicated server process on `port`, its output read (and dropped) so it never
/// blocks; the returned receiver gets each line.
fn server_on(port: u16) -> (std::process::Child, std::sync::mpsc::Receiver<String>) {
    use std::io::BufRead;
    let mut child = Command::new(env!("CARGO_BIN_EXE_netarena"))
        .args(["server", "--port", &port.to_string(), "--bots", "0"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("server starts");
    let out = std::io::BufReader::new(child.stdout.take().unwrap());
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in out.lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    (child, rx)
}

/// The server the player is on is killed: after 2 s of silence the screen says so;
/// started again on the same port, it sees the player join again by itself and the
/// arena comes back. Before, the client ended 5 s after the kill ("stopped answering").
#[test]
#[ignore = "slow tier: .ci/run runs it with --ignored"]
fn a_silent_server_is_named_and_a_restarted_one_rejoined() {
    let port = free_port();
    let (mut server, _) = server_on(port);
    let tmux = Tmux::start(
        "rejoin",
        100,
        30,
        &game_script(&format!(
            "join 127.0.0.1:{port} --fps-cap 200 --name phoenix"
        )),
    );
    wait_for_arena(&tmux, "the arena", |s| s.local());
    server.kill().unwrap();
    let _ = server.wait();
    tmux.wait_for_text("has not answered for 2 s");
    let (mut again, lines) = server_on(port);
    let deadline = Instant::now() + Duration::from_secs(10);
    let joined = std::iter::from_fn(|| {
        lines
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
            .ok()
    })
    .find(|l| l.contains("join"))
    .expect("the restarted server shows the player");
    assert!(joined.contains("phoenix"), "{joined}");
    wait_for_arena(&tmux, "the arena again, the notice gone", |s| {
        let text = tmux.screen();
        (!text.contains("has not answered"))
            .then(|| s.local())
            .flatten()
    });
    quit_and_check_terminal(&tmux, "q", true);
    let _ = again.kill();
    let _ = again.wait();
}

/// Issue 23: the player's own dials turn live in `host`. `n` shows them in the stats
/// (the chosen one in brackets); `[` turns the interpolation delay down from automatic
/// and the bottom line says what that makes in derived numbers (snapshots 20 a second:
/// 50 ms apart); `k` chooses the input rate and `]` turns it up.
#[test]
fn a_dial_turned_in_host_explains_itself_and_its_figure_changes() {
    let port = free_port();
    let tmux = Tmux::start(
        "dials",
        100,
        30,
        &game_script(&format!(
            "host --bots 1 --bot-skill 1 --port {port} --fps-cap 100 --name tester"
        )),
    );
    wait_for_arena(&tmux, "the HUD and the arena with '@'", |s| {
        (s.hud.contains("RTT") && s.local().is_some()).then_some(())
    });
    tmux.key("n");
    tmux.wait_for_text("[interp auto]");
    tmux.type_text("[");
    tmux.wait_for("the explanation and the new figure", |screen| {
        (screen.contains("interpolation delay 4 x 50 ms snapshot period = 200 ms")
            && screen.contains("[interp 4.0x]"))
        .then_some(())
    });
    tmux.key("k");
    tmux.wait_for_text("dial: input rate (30/s)");
    tmux.type_text("]");
    tmux.wait_for("the input rate turned up", |screen| {
        (screen.contains("input packets 60/s") && screen.contains("[input 60/s]")).then_some(())
    });
    quit_and_check_terminal(&tmux, "q", true);
}
