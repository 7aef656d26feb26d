//! Test script: spawns an entity of its own and turns it every frame, at a
//! speed set by its id, after some float work (a few microseconds: a
//! rotation applied 400 times), the way a game object's behaviour spends
//! most of its update on its own computation.

use script::Script;
use script::glam::{Quat, Vec3};
use script::scene::TransformComponent;

struct Own {
    entity: TransformComponent,
    speed: f32,
}

impl Script for Own {
    fn entrypoint() -> Self {
        script::update::subscribe();
        let entity = script::scene::spawn("own");
        let speed = 0.5 + (entity.id() % 7) as f32 * 0.25;
        Own { entity, speed }
    }

    fn on_update(&mut self) {
        let step = Quat::from_rotation_y(self.speed * script::time::delta_time());
        let mut probe = Vec3::X;
        for _ in 0..400 {
            probe = (step * probe).normalize();
        }
        self.entity.rotate(step);
        self.entity.set_position(probe);
    }
}

script::export!(Own);
