//! Test script: subscribes to one update and does nothing with it, so a
//! benchmark measures bare dispatch.

use script::Script;

struct Noop;

impl Script for Noop {
    fn entrypoint() -> Self {
        script::update::subscribe();
        Noop
    }

    fn on_update(&mut self) {}
}

script::export!(Noop);
