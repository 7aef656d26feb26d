//! Test script: each instance spawns its own entity `counter-K` (K = how many
//! counters existed before it), counts its updates in its own memory, writes
//! the count to its entity's x position and logs `tick N`.

use script::Script;
use script::glam::Vec3;
use script::scene::TransformComponent;
use script::scene::TransformExt;

struct Counter {
    count: u32,
    entity: TransformComponent,
}

impl Script for Counter {
    fn entrypoint() -> Self {
        let mut k = 0;
        while script::scene::find(&format!("counter-{k}")).is_some() {
            k += 1;
        }
        let entity = script::scene::spawn(&format!("counter-{k}"));
        script::update::subscribe();
        Counter { count: 0, entity }
    }

    fn on_update(&mut self) {
        self.count += 1;
        self.entity
            .set_translation(Vec3::new(self.count as f32, 0.0, 0.0));
        script::log::info(&format!("tick {}", self.count));
    }
}

script::export!(Counter);
