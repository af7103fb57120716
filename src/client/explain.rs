//! One line saying what a switch change just did, as the player should now see it. The
//! game shows it on its bottom line, the lab on its own; the numbers in it (the round
//! trip, the network conditions) are the session's, measured, never constants.

use super::dials;
use super::play::input::Action;
use crate::client::driver::Driver;

/// What `action` just did to the client `driver` runs, `whose` naming its player
/// ("your" in the game, "its" in the lab); None for keys with nothing to explain.
pub(crate) fn explain(driver: &Driver, action: Action, whose: &str) -> Option<String> {
    let s = driver.session().switches();
    let overlays = driver.app().overlays();
    let rtt = driver.session().stats().rtt_ms;
    let on = |b: bool| if b { "on" } else { "off" };
    let text = match action {
        Action::TogglePrediction if s.prediction => {
            format!("prediction on: {whose} @ moves the moment a key is pressed")
        }
        Action::TogglePrediction => {
            format!("prediction off: {whose} @ now waits a round trip (~{rtt:.0} ms) to move")
        }
        Action::ToggleReconciliation if !s.prediction => {
            "reconciliation needs prediction: press p first".to_owned()
        }
        Action::ToggleReconciliation if s.reconciliation => {
            "reconciliation on: a misprediction is corrected to the server's".to_owned()
        }
        Action::ToggleReconciliation => {
            format!("reconciliation off: {whose} @ may drift from the server's")
        }
        Action::ToggleInterpolation if s.interpolation => {
            "interpolation on: others glide between snapshots, a little late".to_owned()
        }
        Action::ToggleInterpolation => {
            "interpolation off: others jump from snapshot to snapshot".to_owned()
        }
        // Dead reckoning projects others from the newest snapshot by half the round
        // trip plus the time since it came: the estimated present (`ClientSession::
        // render_tick`); without it they are a one-way trip and the delay behind.
        Action::ToggleExtrapolation if s.extrapolation => format!(
            "extrapolation on: others guessed to now, +½ RTT (~{:.0} ms)",
            rtt / 2.0
        ),
        Action::ToggleExtrapolation if s.interpolation => format!(
            "extrapolation off: others drawn ~{:.0} ms behind now",
            rtt / 2.0 + driver.session().interp_delay_secs() * 1000.0
        ),
        Action::ToggleExtrapolation => format!(
            "extrapolation off: others at each snapshot, ½ RTT (~{:.0} ms) late",
            rtt / 2.0
        ),
        Action::ToggleSmoothing if s.smoothing => {
            "smoothing on: corrections blend in over a moment".to_owned()
        }
        Action::ToggleSmoothing => "smoothing off: corrections snap at once".to_owned(),
        Action::CycleGhosts => match (s.ghosts.server(), s.ghosts.trail()) {
            (false, _) => "ghosts off".to_owned(),
            (true, false) => "ghosts: the newest snapshot (o: you, a-z: others)".to_owned(),
            (true, true) => "ghosts + trail: • the snapshots waiting to be drawn".to_owned(),
        },
        Action::ToggleLagCompensation => format!(
            "lag comp. boxes {}: ▢ rail tested here, ◆ target really was",
            on(overlays.lag_compensation)
        ),
        Action::ToggleStats => format!("network stats {}", on(overlays.stats)),
        Action::SelectWeapon(w) => {
            format!("weapon: {}", if w == 0 { "blaster" } else { "rail" })
        }
        Action::LagUp
        | Action::LagDown
        | Action::CycleJitter
        | Action::CycleLoss
        | Action::CycleProfile => format!(
            "network now {} each way",
            driver.app().conditions().summary()
        ),
        Action::NextDial | Action::PreviousDial => {
            let d = dials::DIALS[driver.app().dial()];
            let now = (d.show)((d.get)(&driver.settings()));
            format!("dial: {} ({now}); [ ] turn it down / up", d.name)
        }
        _ => return None,
    };
    Some(text)
}

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use super::*;
    use crate::client::netcode::session::ClientSession;
    use crate::client::play::app::App;
    use crate::net::conditioner::Conditions;

    fn driver() -> Driver {
        let now = Instant::now();
        let session = ClientSession::on_duel(1, now);
        let app = App::new(Conditions::default());
        Driver::new(session, app, now)
    }

    /// Every switch key explains itself in words that fit the 80-column game's bottom
    /// line beside "net clean", and the round trip named is the one measured.
    #[test]
    fn every_switch_explains_itself_in_one_short_line() {
        let mut d = driver();
        let keys = [
            Action::TogglePrediction,
            Action::TogglePrediction,
            Action::ToggleReconciliation,
            Action::ToggleReconciliation,
            Action::ToggleInterpolation,
            Action::ToggleInterpolation,
            Action::ToggleExtrapolation,
            Action::ToggleExtrapolation,
            Action::ToggleSmoothing,
            Action::ToggleSmoothing,
            Action::CycleGhosts,
            Action::CycleGhosts,
            Action::CycleGhosts,
            Action::ToggleLagCompensation,
            Action::ToggleStats,
            Action::SelectWeapon(1),
            Action::LagUp,
            Action::CycleLoss,
        ];
        let mut seen = Vec::new();
        for key in keys {
            d.handle(key);
            let text = explain(&d, key, "your").expect("explained");
            assert!(text.chars().count() <= 66, "{} long: {text}", text.len());
            seen.push(text);
        }
        let rtt = format!("~{:.0} ms", d.session().stats().rtt_ms);
        assert!(
            seen[0].starts_with("prediction off") && seen[0].contains(&rtt),
            "{seen:?}"
        );
        assert!(seen[1].starts_with("prediction on"), "{seen:?}");
        assert!(seen[16].contains("25ms"), "{seen:?}");
        assert_eq!(explain(&d, Action::OpenChat, "your"), None);
    }
}
