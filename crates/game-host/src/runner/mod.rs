//! When frames run: one pacing policy ([`Pacing`]) and the headless runner.
//! The window runner, which draws, is in `game-host-render`.

mod headless;
mod pacing;

pub use headless::HeadlessRunner;
pub use pacing::{MAX_CATCH_UP_STEPS, Pacing};
