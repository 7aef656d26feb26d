//! Test script: a hostile or broken script, for the sandbox tests. Before
//! spawning it, the test puts an entity named `hostile:MODE` in the scene;
//! the script looks the modes up in `entrypoint` and misbehaves that way
//! (in `entrypoint`, or from the first update on):
//!
//! - `loop-entrypoint`, `loop-update`, `loop-restore`: an endless loop in
//!   that export (`restore-state` runs on a hot-swap);
//! - `memory`: allocates and touches memory without end;
//! - `recursion`: recurses without end;
//! - `waits`, `subscriptions`, `handles`, `entities`, `messages`: asks the
//!   host for timers, update subscriptions, transform handles (kept), entities or sent
//!   messages without end;
//! - `log-lines`, `stdout`: logs short lines / prints 4 KB lines to stdout
//!   without end;
//! - `entities-bulk`: spawns entities 10,000 per call (`entities`) without
//!   end;
//! - `bad-entity-id`: sets the positions of entity 0 (the cube) and of an
//!   id that does not exist (buffered, sent in one `entities` call at the
//!   end of the update); the call fails whole, so the cube stays put;
//! - `bad-entity-write`: sets the position of an id that does not exist
//!   (buffered alone, so sent by one `entity` call);
//! - `bad-entity-read`: reads the rotation of an id that does not exist
//!   (one `entity` call);
//! - `bad-values`: sends two ids with five floats of positions;
//! - `sleep`: calls `std::thread::sleep` for 60 s (a blocking WASI poll);
//! - `ready-timer`: waits on a WASI timer of 0 ns, which is ready at once
//!   (allowed: it does not block), then logs `timer ready`;
//! - `sleep-1ns`: calls `std::thread::sleep` for 1 ns: due in game time,
//!   which does not pass within a frame, so it would block;
//! - `trap-once`: traps in its first update (it logs `started` each time it
//!   starts, for restart tests);
//! - `churn`: not hostile, busy: every frame it fetches and drops a handle,
//!   subscribes again (a no-op on the host), starts a task that sleeps 1-3 frames and logs,
//!   and starts and cancels a long timer (for the soak test).
//!
//! Without a mode it subscribes and logs `tick F` each frame.

// The floods loop until a quota stops them, on purpose.
#![allow(clippy::for_unbounded_range)]

use script::Script;
use script::bindings::game::engine::{events, runtime, tasks};

const MODES: &[&str] = &[
    "loop-entrypoint",
    "loop-update",
    "loop-restore",
    "memory",
    "recursion",
    "waits",
    "subscriptions",
    "handles",
    "entities",
    "messages",
    "log-lines",
    "stdout",
    "entities-bulk",
    "bad-entity-id",
    "bad-entity-write",
    "bad-entity-read",
    "bad-values",
    "trap-once",
    "churn",
    "sleep",
    "ready-timer",
    "sleep-1ns",
];

struct Hostile {
    mode: &'static str,
}

fn mode() -> &'static str {
    MODES
        .iter()
        .copied()
        .find(|mode| script::scene::find(&format!("hostile:{mode}")).is_some())
        .unwrap_or("")
}

/// Recurses until a stack runs out (the test asks for exactly that).
#[allow(unconditional_recursion)]
#[inline(never)]
fn recurse(depth: u64) -> u64 {
    let local = [depth; 16];
    std::hint::black_box(&local);
    recurse(depth + 1) + local[3]
}

fn spin() -> ! {
    let mut n: u64 = 0;
    loop {
        n = std::hint::black_box(n.wrapping_add(1));
    }
}

fn churn(frame: u64) {
    drop(script::scene::cube());
    if frame.is_multiple_of(2) {
        // Subscribed already: the host keeps the one subscription.
        runtime::subscribe_update();
    }
    script::task::spawn(async move {
        script::time::wait_frames((frame % 3 + 1) as u32).await;
        script::log::info("churned");
    })
    .detach();
    drop(script::task::spawn(script::time::wait_seconds(100.0)));
}

impl Script for Hostile {
    fn entrypoint() -> Self {
        let mode = mode();
        script::log::info(&format!("started {mode}"));
        if mode == "loop-entrypoint" {
            spin();
        }
        script::update::subscribe();
        Hostile { mode }
    }

    fn on_update(&mut self) {
        let frame = script::time::frame();
        match self.mode {
            "loop-update" => spin(),
            "memory" => {
                let mut hoard: Vec<Vec<u8>> = Vec::new();
                loop {
                    hoard.push(vec![1; 1 << 20]);
                    std::hint::black_box(&hoard);
                }
            }
            "recursion" => {
                std::hint::black_box(recurse(0));
            }
            "waits" => {
                for token in 1.. {
                    tasks::wait_frames(token, 1_000_000);
                }
            }
            "subscriptions" => loop {
                runtime::subscribe_update();
            },
            "handles" => {
                let mut kept = Vec::new();
                loop {
                    kept.push(script::scene::cube());
                }
            }
            "entities" => loop {
                script::scene::spawn("spam");
            },
            "messages" => loop {
                events::send("spam", "hello");
            },
            "log-lines" => {
                for n in 0.. {
                    script::log::info(&format!("spam {n}"));
                }
            }
            "stdout" => {
                let line = "x".repeat(4096);
                loop {
                    println!("{line}");
                }
            }
            "entities-bulk" => loop {
                script::entities::spawn_many("spam", 10_000);
            },
            "bad-entity-id" => {
                script::entities::set_position(0, script::glam::Vec3::ONE);
                script::entities::set_position(4_000_000_000, script::glam::Vec3::ONE);
            }
            "bad-entity-write" => {
                script::entities::set_position(4_000_000_000, script::glam::Vec3::ONE)
            }
            "bad-entity-read" => {
                script::entities::rotation(4_000_000_000);
            }
            "bad-values" => {
                script::bindings::game::engine::entities::set_positions(&[0, 0], &[1.0; 5]);
            }
            "sleep" => std::thread::sleep(std::time::Duration::from_secs(60)),
            "sleep-1ns" => std::thread::sleep(std::time::Duration::from_nanos(1)),
            "ready-timer" => {
                std::thread::sleep(std::time::Duration::ZERO);
                script::log::info("timer ready");
            }
            "trap-once" => panic!("trap-once fails at frame {frame}"),
            "churn" => churn(frame),
            _ => script::log::info(&format!("tick {frame}")),
        }
    }

    fn save_state(&self) -> Option<Vec<u8>> {
        Some(self.mode.as_bytes().to_vec())
    }

    fn restore_state(state: &[u8]) -> Option<Self> {
        if state == b"loop-restore" {
            spin();
        }
        None
    }
}

script::export!(Hostile);
