//! The lab's line saying what a switch change did to a client: the game's own
//! explanation (`client::explain`), named for the client and, for the network keys,
//! with the lab's name for the link's profile.

use super::Lab;
use crate::client::play::input::Action;

/// What `action` just did to client `n` (0-based), in words; None for keys with
/// nothing to explain.
pub(crate) fn explain(lab: &Lab, n: usize, action: Action) -> Option<String> {
    let c = lab.clients.get(n)?;
    let what = crate::client::explain::explain(&c.driver, action, "its")?;
    let network = matches!(
        action,
        Action::LagUp
            | Action::LagDown
            | Action::CycleJitter
            | Action::CycleLoss
            | Action::CycleProfile
    );
    let profile = if network {
        format!(" ({})", c.profile)
    } else {
        String::new()
    };
    Some(format!(" client {}: {what}{profile}", c.number))
}
