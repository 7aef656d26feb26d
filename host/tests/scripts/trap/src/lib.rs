//! Test script: logs `alive F` every frame and panics at frame 3.

use script::Script;

struct Trap;

impl Script for Trap {
    fn entrypoint() -> Self {
        script::update::subscribe(0);
        Trap
    }

    fn on_message(&mut self, _id: u32) {
        let frame = script::time::frame();
        script::log::info(&format!("alive {frame}"));
        if frame == 3 {
            panic!("boom at frame {frame}");
        }
    }
}

script::export!(Trap);
