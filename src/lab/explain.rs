//! One line saying what a switch change does, as the learner should now see it.

use super::Lab;
use crate::client::input::Action;

/// What `action` just did to client `n` (0-based), in words; None for keys with
/// nothing to explain.
pub(crate) fn explain(lab: &Lab, n: usize, action: Action) -> Option<String> {
    let c = lab.clients.get(n)?;
    let s = c.driver.session().switches();
    let overlays = c.driver.app().overlays();
    let rtt = c.driver.session().stats().rtt_ms;
    let on = |b: bool| if b { "on" } else { "off" };
    let what = match action {
        Action::TogglePrediction if s.prediction => {
            "prediction on: its @ moves the moment a key is pressed".to_owned()
        }
        Action::TogglePrediction => {
            format!("prediction off: its @ now waits one round trip (~{rtt:.0} ms) before it moves")
        }
        Action::ToggleReconciliation if !s.prediction => {
            "reconciliation needs prediction: press p first".to_owned()
        }
        Action::ToggleReconciliation if s.reconciliation => {
            "reconciliation on: when the server disagrees, the prediction is corrected".to_owned()
        }
        Action::ToggleReconciliation => {
            "reconciliation off: mispredictions stay, its @ can drift from the server".to_owned()
        }
        Action::ToggleInterpolation if s.interpolation => {
            "interpolation on: others glide between snapshots, drawn a little in the past"
                .to_owned()
        }
        Action::ToggleInterpolation => {
            "interpolation off: others jump from snapshot to snapshot".to_owned()
        }
        Action::ToggleExtrapolation if s.extrapolation => {
            "extrapolation on: others are guessed forward to now, and overshoot when they turn"
                .to_owned()
        }
        Action::ToggleExtrapolation => {
            "extrapolation off: others are drawn where they really were, a little in the past"
                .to_owned()
        }
        Action::ToggleSmoothing if s.smoothing => {
            "smoothing on: corrections blend in over a moment".to_owned()
        }
        Action::ToggleSmoothing => "smoothing off: corrections snap at once".to_owned(),
        Action::CycleGhosts => match (s.ghosts.server(), s.ghosts.trail()) {
            (false, _) => "ghosts off".to_owned(),
            (true, false) => {
                "ghosts: where the newest snapshot has everyone (o: itself, lower case: others)"
                    .to_owned()
            }
            (true, true) => "ghosts + trail: the snapshots waiting to be interpolated".to_owned(),
        },
        Action::ToggleLagCompensation => format!(
            "lag-compensation boxes {}: ▢ where the server tested a rail hit, ◆ where the target was",
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
            "network now {} each way ({})",
            c.driver.app().conditions().summary(),
            c.profile
        ),
        _ => return None,
    };
    Some(format!(" client {}: {what}", c.number))
}
