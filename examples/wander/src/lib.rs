//! Wander: an agent (entity `agent`) walks to pseudo-random points with
//! `move_to` (the host moves it and completes the wait on arrival), then
//! loiters [`LOITER_FRAMES`] frames, forever. Pressing Space switches
//! activity: the wander task is dropped, which cancels its pending motion
//! or loiter timer on the host, and the agent walks home to the origin.
//!
//! Build and run (from the workspace root), pressing Space at frame 200:
//! ```text
//! printf '200 press space\n' > space.txt
//! cargo run --release --bin host -- run examples/wander --frames 400 --input space.txt --list-waits
//! cargo build --release --target wasm32-wasip2 -p wander
//! ```

use std::rc::Rc;

use script::Script;
use script::events::EventFilter;
use script::events::Key;
use script::glam::Vec3;
use script::scene::TransformComponent;

/// Walking speed in units per second.
pub const SPEED: f32 = 4.0;
/// Frames the agent loiters at each point.
pub const LOITER_FRAMES: u32 = 30;
/// Half the side of the square the agent wanders in.
pub const RANGE: f32 = 8.0;

struct Wander;

impl Script for Wander {
    fn entrypoint() -> Self {
        script::task::spawn(brain()).detach();
        Wander
    }
}

/// Wanders until Space, then goes home.
async fn brain() {
    let agent = Rc::new(script::scene::spawn("agent"));
    let wandering = script::task::spawn(wander(agent.clone()));
    script::events::wait_event(EventFilter::KeyPressed(Key::Space)).await;
    script::log::info("space pressed: going home");
    drop(wandering); // cancels its motion or loiter timer on the host
    script::motion::move_to(&agent, Vec3::ZERO, SPEED).await;
    script::log::info("home");
}

async fn wander(agent: Rc<TransformComponent>) {
    let mut rng = XorShift(0x2545_f491);
    loop {
        let target = Vec3::new(rng.range(RANGE), 0.0, rng.range(RANGE));
        script::log::info(&format!("walking to [{:.2}, {:.2}]", target.x, target.z));
        script::motion::move_to(&agent, target, SPEED).await;
        script::log::info("loitering");
        script::time::wait_frames(LOITER_FRAMES).await;
    }
}

/// A tiny deterministic generator, so every run wanders the same way.
struct XorShift(u32);

impl XorShift {
    /// A value in `[-range, range]`.
    fn range(&mut self, range: f32) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 17;
        self.0 ^= self.0 << 5;
        (self.0 as f32 / u32::MAX as f32) * 2.0 * range - range
    }
}

script::export!(Wander);
