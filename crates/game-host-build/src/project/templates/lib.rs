//! {{name}}: a moon circles the default scene's cube, which spins.
//!
//!     host run {{name}} --headless --frames 60 --dump-scene scene.json
//!     host run {{name}} --watch     # edit this file while it runs
//!
//! The moon's angle survives hot-swaps through `save_state` /
//! `restore_state`, and a new version finds the moon the old one spawned.

use script::prelude::*;

struct Orbiter {
    moon: TransformComponent,
    angle: f32,
}

impl Orbiter {
    /// Subscribes to the per-frame update and finds the moon (spawned by an
    /// earlier version of this script), or spawns it.
    fn start(angle: f32) -> Self {
        script::update::subscribe(); // on_update() every frame from the next one
        let moon = script::scene::find("moon").unwrap_or_else(|| script::scene::spawn("moon"));
        moon.set_scaling(Vec3::splat(0.4));
        Orbiter { moon, angle }
    }
}

impl Script for Orbiter {
    // Called once when the instance starts; returns the script's state.
    fn entrypoint() -> Self {
        script::log::info("orbiter started");
        Orbiter::start(0.0)
    }

    // Called every frame while subscribed.
    fn on_update(&mut self) {
        let dt = script::time::delta_time();
        self.angle += dt;
        self.moon
            .set_translation(Vec3::new(self.angle.cos(), 0.0, self.angle.sin()) * 3.0);
        script::scene::cube().rotate(Quat::from_rotation_y(dt));
    }

    // Hot-swap: the old version hands its state to the new one.
    fn save_state(&self) -> Option<Vec<u8>> {
        Some(self.angle.to_le_bytes().to_vec())
    }

    fn restore_state(state: &[u8]) -> Option<Self> {
        let angle = f32::from_le_bytes(state.try_into().ok()?);
        Some(Orbiter::start(angle))
    }
}

script::export!(Orbiter);
