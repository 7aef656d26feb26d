//! Entity behaviours: one script spawns 5,000 entities with one host call
//! and attaches an [`Orbit`] behaviour to each. Every frame the host makes
//! one call into the script, which runs all 5,000 behaviours and sends
//! their transforms back in one batch.
//!
//! ```sh
//! cargo run --release --bin host -- run examples/swarm --headless --frames 120 --dump-scene swarm.json
//! ```
//!
//! In `swarm.json`, the `swarm` entities sit on ten rings around the cube.

use script::behaviour::{self, Behaviour};
use script::entities::{self, Transform};
use script::glam::{Quat, Vec3};
use script::prelude::*;
use script::time::FrameClock;

/// Entities in the swarm.
const COUNT: u32 = 5_000;

/// Circles the world's Y axis at `radius`, `speed` radians per second,
/// facing the way it goes.
struct Orbit {
    radius: f32,
    height: f32,
    angle: f32,
    speed: f32,
}

impl Behaviour for Orbit {
    fn update(&mut self, transform: &mut Transform, clock: &FrameClock) {
        self.angle += self.speed * clock.delta_time;
        let (sin, cos) = self.angle.sin_cos();
        transform.position = Vec3::new(cos * self.radius, self.height, sin * self.radius);
        transform.rotation = Quat::from_rotation_y(-self.angle);
        transform.scale = Vec3::splat(0.05);
    }
}

struct Swarm;

impl Script for Swarm {
    fn entrypoint() -> Self {
        let ids = entities::spawn_many("swarm", COUNT);
        behaviour::attach_all(&ids, |i, _| {
            let ring = (i % 10) as f32;
            Orbit {
                radius: 2.0 + ring * 0.5,
                height: (i % 7) as f32 * 0.2 - 0.6,
                angle: i as f32 * 0.618,
                speed: 1.0 / (1.0 + ring * 0.25),
            }
        });
        script::log::info(&format!("{} behaviours attached", behaviour::count()));
        Swarm
    }
}

script::export!(Swarm);
