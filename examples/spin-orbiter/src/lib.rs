//! Spin orbiter: a moon that orbits the origin at radius [`RADIUS`], as
//! fast as its `Spin { speed }` component says (radians per second), read
//! through `game-data` every update. The component is the game's: in
//! `examples/bevy-game` it is a Bevy component the game registers for
//! scripts (Space doubles it there), and the script only reads it. Where
//! the moon has no `Spin` yet (under `host run`, whose scene keeps what
//! scripts insert), the script inserts one at [`SPEED`].
//!
//! The angle survives hot-swaps (`save_state` / `restore_state`).
//!
//! ```text
//! cargo run --release --bin host -- run examples/spin-orbiter examples/spinning-cube
//! cargo run --release -p bevy-game -- examples/spin-orbiter examples/spinning-cube
//! ```

use script::Script;
use script::data::{self, Value};
use script::entities::EntityId;
use script::glam::Vec3;

/// The orbit's radius.
pub const RADIUS: f32 = 3.0;

/// The speed a new `Spin` gets: a quarter orbit a second.
pub const SPEED: f64 = std::f64::consts::FRAC_PI_2;

struct SpinOrbiter {
    moon: EntityId,
    /// Radians travelled along the orbit.
    angle: f32,
}

impl SpinOrbiter {
    fn start(angle: f32) -> Self {
        let moon = script::scene::find("moon")
            .unwrap_or_else(|| script::scene::spawn("moon"))
            .id();
        if !data::has(moon, "Spin") {
            data::insert(moon, "Spin", &[("speed", Value::Number(SPEED))])
                .unwrap_or_else(|e| panic!("the moon cannot spin: {e}"));
        }
        script::update::subscribe();
        let orbiter = SpinOrbiter { moon, angle };
        orbiter.place();
        orbiter
    }

    fn place(&self) {
        let at = Vec3::new(self.angle.cos(), 0.0, self.angle.sin()) * RADIUS;
        script::entities::set_position(self.moon, at);
    }
}

impl Script for SpinOrbiter {
    fn entrypoint() -> Self {
        script::log::info("spin orbiter started");
        SpinOrbiter::start(0.0)
    }

    fn on_update(&mut self) {
        // A game may change the speed at any time, or take `Spin` away.
        let speed = data::number(self.moon, "Spin", "speed").unwrap_or_else(|e| panic!("{e}"));
        self.angle += speed as f32 * script::time::delta_time();
        self.place();
    }

    fn save_state(&self) -> Option<Vec<u8>> {
        Some(self.angle.to_le_bytes().to_vec())
    }

    fn restore_state(state: &[u8]) -> Option<Self> {
        let angle = f32::from_le_bytes(state.try_into().ok()?);
        Some(SpinOrbiter::start(angle))
    }
}

script::export!(SpinOrbiter);
