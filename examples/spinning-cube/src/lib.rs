//! Spinning cube: rotates the default scene's cube about the Y axis at
//! [`ANGULAR_SPEED`] radians per second of game time (a quarter turn a second).
//!
//! `entrypoint` subscribes to the per-frame update; every update rotates the
//! cube by `ANGULAR_SPEED * delta_time` about world Y and adds the angle to
//! the total turned, logging each full turn. The total survives hot-swaps:
//! `save_state` hands it to the next version's `restore_state`. Edit
//! `ANGULAR_SPEED` while the host runs with `--watch` to see it.
//!
//! Build and run (from the workspace root):
//! ```text
//! cargo run --release --bin host -- run examples/spinning-cube
//! cargo run --release --bin host -- run examples/spinning-cube --watch
//! cargo build --release --target wasm32-wasip2 -p spinning-cube
//! ```

use std::f32::consts::TAU;

use script::Script;
use script::glam::Quat;

/// Radians per second about world Y.
pub const ANGULAR_SPEED: f32 = std::f32::consts::FRAC_PI_2;

struct SpinningCube {
    angular_speed: f32,
    /// Radians turned since the first version started.
    turned: f32,
}

impl SpinningCube {
    fn start(turned: f32) -> Self {
        script::update::subscribe();
        SpinningCube {
            angular_speed: ANGULAR_SPEED,
            turned,
        }
    }
}

impl Script for SpinningCube {
    fn entrypoint() -> Self {
        script::log::info("spinning cube started");
        SpinningCube::start(0.0)
    }

    fn on_update(&mut self) {
        let angle = self.angular_speed * script::time::delta_time();
        script::scene::cube().rotate(Quat::from_rotation_y(angle));
        let turns_before = (self.turned / TAU).floor();
        self.turned += angle;
        let turns = (self.turned / TAU).floor();
        if turns > turns_before {
            script::log::info(&format!("turn {turns} complete"));
        }
    }

    fn save_state(&self) -> Option<Vec<u8>> {
        Some(self.turned.to_le_bytes().to_vec())
    }

    fn restore_state(state: &[u8]) -> Option<Self> {
        let turned = f32::from_le_bytes(state.try_into().ok()?);
        script::log::info(&format!(
            "spinning cube swapped in: {turned:.4} rad turned so far"
        ));
        Some(SpinningCube::start(turned))
    }
}

script::export!(SpinningCube);
