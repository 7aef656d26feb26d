//! Test script: binds the frozen copy of `game:engine@0.2.0` in `wit/` (the
//! release before `lifetime` and `game-data`) with wit-bindgen directly, as
//! a script built against 0.2.0 would, so every interface it imports is
//! `@0.2.0` and the host, which provides a newer 0.2.x, must still link it.
//!
//! It spawns `old20` and moves it one unit along x per update (through
//! `entity`, by the id its handle gives), and one unit along y on each wake
//! of a `wait-frames` timer every 10 frames. Its state is the number of
//! timer wakes, handed over on a hot-swap.

wit_bindgen::generate!({
    path: "wit",
    world: "stateful-script",
});

use std::cell::Cell;

use game::engine::tasks;
use game::engine::types::Vec3;
use game::engine::{entity, runtime, scene};

/// Token of the one timer wait.
const TIMER: u64 = 1;

thread_local! {
    static WAKES: Cell<u32> = const { Cell::new(0) };
    static OLD: Cell<u32> = const { Cell::new(0) };
}

fn start() {
    let old = scene::find("old20").unwrap_or_else(|| scene::spawn("old20"));
    OLD.set(old.id());
    runtime::subscribe_update();
    tasks::wait_frames(TIMER, 10);
}

fn moved(by: Vec3) {
    let old = OLD.get();
    let p = entity::position(old);
    let p = Vec3 {
        x: p.x + by.x,
        y: p.y + by.y,
        z: p.z + by.z,
    };
    entity::set_position(old, p);
}

struct Old;

impl Guest for Old {
    fn entrypoint() {
        start();
    }

    fn on_update(_clock: FrameClock) {
        moved(Vec3 {
            x: 1.0,
            y: 0.0,
            z: 0.0,
        });
    }

    fn on_wake(_clock: FrameClock, wakes: Vec<Wake>) {
        for wake in wakes {
            if wake.token == TIMER {
                WAKES.set(WAKES.get() + 1);
                moved(Vec3 {
                    x: 0.0,
                    y: 1.0,
                    z: 0.0,
                });
                tasks::wait_frames(TIMER, 10);
            }
        }
    }

    fn save_state() -> Option<Vec<u8>> {
        Some(WAKES.get().to_le_bytes().to_vec())
    }

    fn restore_state(state: Vec<u8>) {
        let wakes = state.try_into().map(u32::from_le_bytes).unwrap_or(0);
        WAKES.set(wakes);
        start();
    }
}

export!(Old);
