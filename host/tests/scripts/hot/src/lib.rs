//! Test script: every update calls `hot_loop`, a loop of about a million
//! integer steps (about 1.5 ms), and moves its own entity `hot` by the result, so
//! a profile of it has `hot_loop` on most of its samples.

use script::Script;
use script::glam::Vec3;
use script::scene::{TransformComponent, TransformExt};

struct Hot {
    entity: TransformComponent,
    seed: u64,
}

/// The hot function: a xorshift loop the optimiser cannot remove.
#[inline(never)]
fn hot_loop(mut x: u64, steps: u32) -> u64 {
    for _ in 0..steps {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
    }
    x
}

impl Script for Hot {
    fn entrypoint() -> Self {
        script::update::subscribe();
        Hot {
            entity: script::scene::spawn("hot"),
            seed: 88_172_645_463_325_252,
        }
    }

    fn on_update(&mut self) {
        self.seed = hot_loop(self.seed, 1_000_000);
        let x = (self.seed % 1000) as f32 / 1000.0;
        self.entity.set_translation(Vec3::new(x, 0.0, 0.0));
    }
}

script::export!(Hot);
