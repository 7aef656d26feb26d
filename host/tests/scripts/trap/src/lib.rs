//! Test script: logs `alive F` every frame and panics at frame 3.

use script::Script;

struct Trap;

impl Script for Trap {
    fn entrypoint() -> Self {
        script::update::subscribe();
        Trap
    }

    fn on_update(&mut self) {
        let frame = script::time::frame();
        script::log::info(&format!("alive {frame}"));
        if frame == 3 {
            panic!("boom at frame {frame}");
        }
    }
}

script::export!(Trap);
