//! Test script: panics in `entrypoint`, after subscribing.

use script::Script;

struct TrapEntrypoint;

impl Script for TrapEntrypoint {
    fn entrypoint() -> Self {
        script::update::subscribe(0);
        panic!("entrypoint refused to start");
    }

    fn on_message(&mut self, _id: u32) {}
}

script::export!(TrapEntrypoint);
