//! Test script: binds the frozen copy of `game:engine@0.1.3` in `wit/` (the
//! release before the batched `entities` API and the `on-update` export),
//! as a script built against that release would, and uses the parts of it
//! that changed around it: the per-frame `on-message`, the frame clock by
//! call, a host timer through `tasks`, and the state hand-over.
//!
//! It spawns `old13`, moves it one unit along x per update, and every 10
//! frames (a `wait-frames` timer) one unit along y. Its state is the
//! number of timer wakes, handed over on a hot-swap.

wit_bindgen::generate!({
    path: "wit",
    world: "stateful-script",
});

use std::cell::Cell;

use game::engine::tasks::{self, WakeData};
use game::engine::{runtime, scene, types::Vec3};

/// Token of the one timer wait.
const TIMER: u64 = 1;
/// The reserved wake message.
const WAKE: u32 = u32::MAX;

thread_local! {
    static WAKES: Cell<u32> = const { Cell::new(0) };
}

fn start() {
    runtime::subscribe_update(0);
    tasks::wait_frames(TIMER, 10);
}

struct Old;

impl Guest for Old {
    fn entrypoint() {
        scene::spawn("old13");
        start();
    }

    fn on_message(id: u32) {
        let old = scene::find("old13").expect("spawned in entrypoint");
        let p = old.position();
        if id == WAKE {
            for wake in tasks::take_wakes() {
                assert_eq!(wake.token, TIMER);
                assert!(matches!(wake.data, WakeData::Timer(_)));
                WAKES.set(WAKES.get() + 1);
                old.set_position(Vec3 { y: p.y + 1.0, ..p });
                tasks::wait_frames(TIMER, 10);
            }
        } else {
            // The clock by call, as before 0.1.4.
            assert_eq!(p.x as u64 + 1, runtime::frame());
            old.set_position(Vec3 { x: p.x + 1.0, ..p });
        }
    }

    fn save_state() -> Option<Vec<u8>> {
        Some(WAKES.get().to_le_bytes().to_vec())
    }

    fn restore_state(state: Vec<u8>) {
        WAKES.set(u32::from_le_bytes(state.try_into().expect("4 bytes")));
        start();
    }
}

export!(Old);
