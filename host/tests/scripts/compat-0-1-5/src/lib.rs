//! Test script: binds the frozen `wit/v0.1/` (the last 0.1 release) with
//! wit-bindgen directly, world `game-script`, as the last 0.1 SDK did, and
//! uses what 0.2 changed: `on-update(id, clock)` for two update ids, the
//! reserved wake message and `take-wakes`, `entities.id-of`, the clock by
//! call (`runtime.frame`), and the state hand-over.
//!
//! It spawns `old15`. Update id 1 moves it one unit along x (through
//! `entity`, by the id `id-of` gave); update id 2 checks the clock it came
//! with against `runtime.frame()`. A `wait-frames` timer every 10 frames
//! moves it one unit along y. Its state is the number of timer wakes,
//! handed over on a hot-swap.

wit_bindgen::generate!({
    path: "../../../../wit/v0.1",
    world: "game-script",
});

use std::cell::Cell;

use game::engine::tasks::{self, WakeData};
use game::engine::types::Vec3;
use game::engine::{entities, entity, runtime, scene};

/// Token of the one timer wait.
const TIMER: u64 = 1;
/// The reserved wake message.
const WAKE: u32 = u32::MAX;

thread_local! {
    static WAKES: Cell<u32> = const { Cell::new(0) };
}

fn start() {
    runtime::subscribe_update(1);
    runtime::subscribe_update(2);
    tasks::wait_frames(TIMER, 10);
}

fn old() -> u32 {
    entities::id_of(&scene::find("old15").expect("spawned in entrypoint"))
}

struct Old;

impl Guest for Old {
    fn entrypoint() {
        scene::spawn("old15");
        start();
    }

    fn on_message(_id: u32) {
        unreachable!("the host calls on-update when a script exports it");
    }

    fn on_update(id: u32, clock: FrameClock) {
        let old = old();
        let p = entity::position(old);
        match id {
            WAKE => {
                for wake in tasks::take_wakes() {
                    assert_eq!(wake.token, TIMER);
                    assert!(matches!(wake.data, WakeData::Timer(_)));
                    WAKES.set(WAKES.get() + 1);
                    entity::set_position(old, Vec3 { y: p.y + 1.0, ..p });
                    tasks::wait_frames(TIMER, 10);
                }
            }
            1 => entity::set_position(old, Vec3 { x: p.x + 1.0, ..p }),
            2 => assert_eq!(clock.frame, runtime::frame()),
            _ => unreachable!("update id {id} was never subscribed"),
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
