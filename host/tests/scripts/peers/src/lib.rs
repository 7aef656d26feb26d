//! Benchmark script for `benches/peers.rs`. Its mode comes from the scene:
//!
//! - an entity named `peers:kept`: the spinning cube, keeping its
//!   `TransformComponent` handle in the script's state instead of fetching
//!   it every update;
//! - an entity named `peers:many`: spawns 10,000 entities in `entrypoint`,
//!   keeps their handles, and every update sets each one's position to
//!   `(i, frame, 0)`.

use script::Script;
use script::glam::Quat;
use script::scene::{TransformComponent, TransformExt};

/// Radians per second about world Y, as the spinning-cube example.
const ANGULAR_SPEED: f32 = std::f32::consts::FRAC_PI_2;
/// Entities moved by `peers:many`.
pub const MANY: usize = 10_000;

enum Peers {
    Kept(TransformComponent),
    Many(Vec<TransformComponent>),
    Idle,
}

impl Script for Peers {
    fn entrypoint() -> Self {
        script::update::subscribe(0);
        if script::scene::find("peers:kept").is_some() {
            Peers::Kept(script::scene::cube())
        } else if script::scene::find("peers:many").is_some() {
            Peers::Many(
                (0..MANY)
                    .map(|i| script::scene::spawn(&format!("e{i}")))
                    .collect(),
            )
        } else {
            Peers::Idle
        }
    }

    fn on_message(&mut self, _id: u32) {
        match self {
            Peers::Kept(cube) => {
                cube.rotate(Quat::from_rotation_y(
                    ANGULAR_SPEED * script::time::delta_time(),
                ));
            }
            Peers::Many(entities) => {
                let frame = script::time::frame() as f32;
                for (i, entity) in entities.iter().enumerate() {
                    entity.set_translation(script::glam::Vec3::new(i as f32, frame, 0.0));
                }
            }
            Peers::Idle => {}
        }
    }
}

script::export!(Peers);
