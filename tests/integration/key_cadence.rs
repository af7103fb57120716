//! Keys that make commands at once, at any phase of the command tick, keep prediction
//! exact and the commands within the server's one-a-tick budget: a keyboard client in
//! the lab (the real server, a conditioned in-memory link, one virtual clock) mashing
//! keys at uneven intervals never mispredicts and never gets ahead of real time.

use std::time::{Duration, Instant};

use netarena::lab::{Lab, LabConfig};
use netarena::server::ServerConfig;
use netarena::sim::map::Map;
use netarena::sim::world::Buttons;

const KEYS: [Buttons; 6] = [
    Buttons::LEFT,
    Buttons::RIGHT,
    Buttons::UP,
    Buttons::DOWN,
    Buttons::empty(),
    Buttons::FIRE,
];

fn lab(profile: &str, t0: Instant) -> Lab {
    let mut server = ServerConfig::new(Map::builtin("duel").unwrap());
    server.seed = 7;
    let config = LabConfig {
        server,
        profiles: vec![profile.to_owned()],
        walkers: 0,
        correction: Default::default(),
        keyboard: 1,
        tuning: Default::default(),
    };
    Lab::new(&config, t0).unwrap()
}

#[test]
fn mashed_keys_at_any_phase_keep_prediction_exact_and_the_rate_real() {
    for profile in ["off", "mobile"] {
        let t0 = Instant::now();
        let mut lab = lab(profile, t0);
        lab.run_until(t0 + Duration::from_millis(500));
        // A key change every 1 to 40 ms, at no fixed phase of the 16.7 ms tick.
        let mut rng = 12345u64;
        let mut at = lab.now();
        let end = t0 + Duration::from_secs(12);
        while at < end {
            rng = rng
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            at += Duration::from_millis(1 + (rng >> 33) % 40);
            lab.run_until(at);
            lab.hold(0, KEYS[(rng >> 20) as usize % KEYS.len()]);
        }
        lab.hold(0, Buttons::empty());
        lab.run_until(end + Duration::from_secs(2));
        let stats = lab.session(0).stats();
        assert_eq!(stats.corrections, 0, "{profile}: {stats:?}");
        // One command a tick from the first at t0, plus at most one made early.
        let ticks = lab.elapsed().as_secs_f64() * 60.0;
        let made = stats.commands_sent as f64;
        assert!(
            made <= ticks.floor() + 2.0 && made >= ticks - 10.0,
            "{profile}: {made} commands in {ticks} ticks"
        );
        assert_eq!(lab.server().refusals().total(), 0, "{profile}");
    }
}
