//! Test script: everything a script can read of the machine it runs on,
//! written into the scene, so two runs with the same seed and input must
//! give the same scene.
//!
//! - `entrypoint` spawns `key-K` for K in 0..16 in the iteration order of a
//!   `HashMap` (seeded from WASI random numbers), and `random` at x = a
//!   number drawn from `RandomState`.
//! - Every frame, `walker` takes a step drawn from a generator seeded with
//!   WASI random numbers, and `clock` moves to x = `SystemTime::now()` and
//!   y = `Instant` seconds since `entrypoint`.
//! - Each key press moves `walker` up by 10.
//! - `nan` sits at x = 0.0 / 0.0, computed at run time: the NaN's bits show
//!   whether the engine canonicalises NaNs.

use std::cell::Cell;
use std::collections::HashMap;
use std::hash::{BuildHasher, RandomState};
use std::rc::Rc;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use script::Script;
use script::events::EventFilter;
use script::glam::Vec3;
use script::scene::TransformComponent;
use script::scene::TransformExt;

struct Determinism {
    clock: TransformComponent,
    walker: TransformComponent,
    rng: u64,
    started: Instant,
    presses: Rc<Cell<u32>>,
}

impl Script for Determinism {
    fn entrypoint() -> Self {
        let order: HashMap<u32, ()> = (0..16).map(|k| (k, ())).collect();
        for k in order.keys() {
            script::scene::spawn(&format!("key-{k}"));
        }
        let rng = RandomState::new().hash_one(0x5eed_u64) | 1;
        script::scene::spawn("random").set_translation(Vec3::new((rng >> 40) as f32, 0.0, 0.0));
        let (zero, also_zero) = std::hint::black_box((0.0f32, 0.0f32));
        script::scene::spawn("nan").set_translation(Vec3::new(zero / also_zero, 0.0, 0.0));
        let presses = Rc::new(Cell::new(0));
        let counted = presses.clone();
        script::task::spawn(async move {
            loop {
                script::events::wait_event(EventFilter::AnyKeyPressed).await;
                counted.set(counted.get() + 1);
            }
        })
        .detach();
        script::update::subscribe();
        Determinism {
            clock: script::scene::spawn("clock"),
            walker: script::scene::spawn("walker"),
            rng,
            started: Instant::now(),
            presses,
        }
    }

    fn on_update(&mut self) {
        // xorshift64
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        let step = (self.rng % 1000) as f32 / 1000.0 - 0.5;
        let at = self.walker.translation();
        self.walker.set_translation(Vec3::new(
            at.x + step,
            self.presses.get() as f32 * 10.0,
            0.0,
        ));
        let wall = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default()
            .as_secs_f32();
        let monotonic = self.started.elapsed().as_secs_f32();
        self.clock.set_translation(Vec3::new(wall, monotonic, 0.0));
    }
}

script::export!(Determinism);
