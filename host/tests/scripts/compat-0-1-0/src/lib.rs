//! Test script: binds the frozen copy of `game:engine@0.1.0` in `wit/` (as a
//! script released against that version would) and moves an entity `old`
//! one unit along x per frame.

wit_bindgen::generate!({
    path: "wit",
    world: "script",
});

use game::engine::{runtime, scene, types::Vec3};

struct Old;

impl Guest for Old {
    fn entrypoint() {
        scene::spawn("old");
        runtime::subscribe_update(0);
    }

    fn on_message(_id: u32) {
        let old = scene::find("old").expect("spawned in entrypoint");
        let p = old.position();
        old.set_position(Vec3 { x: p.x + 1.0, ..p });
    }
}

export!(Old);
