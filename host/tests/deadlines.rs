//! CPU deadlines judge a call by the CPU time of its own thread, not by the
//! wall clock: with more CPU-burning threads than the machine has cores, a
//! frame thread descheduled in the middle of a 2 µs update is never blamed,
//! while an endless loop beside it is still stopped. Whether the machine is
//! busy changes how long the test takes, not what it finds.

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use game_host::limits::ScriptLimits;
use game_host::scene::GameScene;
use game_host::{EngineOptions, RuntimeConfig, ScriptEngine};

/// Threads that burn CPU until dropped.
struct Hogs {
    stop: Arc<AtomicBool>,
    threads: Vec<JoinHandle<()>>,
}

impl Hogs {
    fn start(count: usize) -> Hogs {
        let stop = Arc::new(AtomicBool::new(false));
        let threads = (0..count)
            .map(|_| {
                let stop = stop.clone();
                std::thread::spawn(move || {
                    let mut n = 0u64;
                    while !stop.load(Ordering::Relaxed) {
                        n = std::hint::black_box(n.wrapping_add(1));
                    }
                })
            })
            .collect();
        Hogs { stop, threads }
    }
}

impl Drop for Hogs {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        for thread in self.threads.drain(..) {
            let _ = thread.join();
        }
    }
}

const INSTANCES: usize = 200;
const FRAMES: u64 = 3_000;

#[test]
fn innocent_scripts_on_a_busy_machine_are_never_stopped_and_a_loop_still_is() {
    let engine = ScriptEngine::new(EngineOptions {
        cache_dir: Some(common::cache_dir()),
        max_instances: INSTANCES as u32 + 1,
        limits: ScriptLimits {
            // The tightest deadline a game would set: a wall-clock deadline
            // this short stops innocent calls whenever the thread is
            // descheduled mid-call.
            update_deadline: Some(Duration::from_millis(1)),
            ..ScriptLimits::default()
        },
        ..EngineOptions::default()
    })
    .unwrap();
    let cube = common::load(&engine, "spinning-cube");
    let hostile = common::load(&engine, "hostile");
    let (mut runtime, _log) = common::runtime_with(RuntimeConfig::default());
    runtime.scene().lock().unwrap().spawn("hostile:loop-update");
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let hogs = Hogs::start(2 * cores);
    let cubes: Vec<_> = (0..INSTANCES)
        .map(|_| runtime.spawn(&cube).unwrap())
        .collect();
    let looping = runtime.spawn(&hostile).unwrap();
    runtime.run_frames(FRAMES);
    drop(hogs);

    let errors = runtime.inspect().errors();
    assert_eq!(
        errors.len(),
        1,
        "innocent scripts were stopped: {errors:#?}"
    );
    assert_eq!(errors[0].instance, looping);
    assert!(
        errors[0]
            .cause
            .contains("ran past its CPU deadline of 1 ms"),
        "{}",
        errors[0]
    );
    assert_eq!(runtime.inspect().live_instances(), INSTANCES);
    for id in cubes {
        assert_eq!(runtime.inspect().instance(id).unwrap().calls, FRAMES + 1);
    }
}
