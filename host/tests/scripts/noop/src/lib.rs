//! Test script: subscribes to one update and does nothing with it, so a
//! benchmark measures bare dispatch.

use script::Script;

struct Noop;

impl Script for Noop {
    fn entrypoint() -> Self {
        script::update::subscribe(0);
        Noop
    }

    fn on_message(&mut self, _id: u32) {}
}

script::export!(Noop);
