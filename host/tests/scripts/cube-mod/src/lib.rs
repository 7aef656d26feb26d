//! Test script: a mod as a stranger might write it. It spawns an entity of
//! its own (`mod-own`) and, every frame, turns it half a radian about y and
//! moves it to (1, 2, 3), sends `hello` on channel `chat`, and moves the
//! game's own `cube` to (9, 9, 9). The SDK buffers the writes: the turn
//! goes alone (the move, another kind, sends it), and the two moves go in
//! one batch at the end of the update.

use script::Script;
use script::glam::{Quat, Vec3};
use script::scene::{TransformComponent, TransformExt};

struct CubeMod {
    own: TransformComponent,
}

impl Script for CubeMod {
    fn entrypoint() -> Self {
        script::update::subscribe();
        CubeMod {
            own: script::scene::spawn("mod-own"),
        }
    }

    fn on_update(&mut self) {
        self.own.set_orientation(Quat::from_rotation_y(0.5));
        self.own.set_translation(Vec3::new(1.0, 2.0, 3.0));
        script::events::send("chat", "hello");
        if let Some(cube) = script::scene::find("cube") {
            cube.set_translation(Vec3::splat(9.0));
        }
    }
}

script::export!(CubeMod);
