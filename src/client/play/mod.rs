//! The player's side of the loop: keys become buttons and `input::Action`s through
//! one binding table (`input`), an action changes the player's state in an
//! `app::App` (aim, weapon, chat, overlays, switches), and a `brain` plays in a
//! human's place (bots, tests, benchmarks).

pub mod app;
pub mod brain;
pub mod input;
