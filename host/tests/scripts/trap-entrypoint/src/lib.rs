//! Test script: panics in `entrypoint`, after subscribing.

use script::Script;

struct TrapEntrypoint;

impl Script for TrapEntrypoint {
    fn entrypoint() -> Self {
        script::update::subscribe();
        panic!("entrypoint refused to start");
    }

    fn on_update(&mut self) {}
}

script::export!(TrapEntrypoint);
