//! Spinning cube: rotates the default scene's cube about the Y axis at
//! [`ANGULAR_SPEED`] radians per second of game time (a quarter turn a second).
//!
//! `entrypoint` subscribes to the update message; every update rotates the
//! cube by `ANGULAR_SPEED * delta_time` about world Y.
//!
//! Build and run (from the workspace root):
//! ```text
//! cargo run --release -p host -- run examples/spinning-cube
//! cargo build --release --target wasm32-wasip2 -p spinning-cube
//! (cd examples/spinning-cube && cargo component build --release)
//! ```

use script::glam::Quat;
use script::{Script, TransformExt};

/// Radians per second about world Y.
pub const ANGULAR_SPEED: f32 = std::f32::consts::FRAC_PI_2;

/// The id this script subscribes its per-frame update with.
const UPDATE: u32 = 0;

struct SpinningCube {
    angular_speed: f32,
}

impl Script for SpinningCube {
    fn entrypoint() -> Self {
        script::subscribe_update(UPDATE);
        script::info("spinning cube started");
        SpinningCube {
            angular_speed: ANGULAR_SPEED,
        }
    }

    fn on_message(&mut self, id: u32) {
        if id != UPDATE {
            return;
        }
        let angle = self.angular_speed * script::delta_time();
        script::cube_transform().rotate(Quat::from_rotation_y(angle));
    }
}

script::export!(SpinningCube);
