//! Async script work: host timers, events, cancellation on drop, and
//! leak-freedom, driven through the `tasks` test script.

mod common;

use std::sync::Arc;

use game_host::input::ScriptMessage;
use game_host::jobs::JobDelivery;
use game_host::log::MemoryLog;
use game_host::{Event, Runtime, RuntimeConfig};
use game_host_terrain::Terrain;
use uuid::Uuid;

/// Sends a command to the test script; it runs at the start of the next frame.
fn cmd(runtime: &mut Runtime, payload: &str) {
    runtime.input().event(Event::Message(ScriptMessage {
        channel: "cmd".into(),
        payload: payload.into(),
    }));
}

/// The messages logged so far that start with `prefix`.
fn said(log: &MemoryLog, prefix: &str) -> Vec<String> {
    log.messages()
        .into_iter()
        .filter(|m| m.starts_with(prefix))
        .collect()
}

fn start() -> (Runtime, Arc<MemoryLog>, Uuid) {
    let engine = common::engine();
    let tasks = common::load(&engine, "tasks");
    let (mut runtime, log) = common::runtime();
    let id = runtime.spawn(&tasks).unwrap();
    (runtime, log, id)
}

#[test]
fn timers_join_select_and_until_complete_at_exact_frames() {
    let (mut runtime, log, _) = start();
    runtime.run_frames(1);
    cmd(&mut runtime, "join"); // runs at frame 2: waits 3 and 5 frames
    cmd(&mut runtime, "select"); // 5-frame timer vs key Q
    cmd(&mut runtime, "seconds 0.5"); // 30 frames at 60 Hz
    cmd(&mut runtime, "seconds 0.01"); // less than a frame: the next frame
    cmd(&mut runtime, "until 12");
    runtime.run_frames(40);

    assert_eq!(said(&log, "joined"), ["joined at frame 7"]);
    assert_eq!(said(&log, "select"), ["select timer at frame 7"]);
    assert_eq!(
        said(&log, "waited"),
        ["waited 0.0167 at frame 3", "waited 0.5000 at frame 32"]
    );
    assert_eq!(said(&log, "until"), ["until at frame 12"]);

    // select: the key wins when it comes first, and the timer is withdrawn.
    cmd(&mut runtime, "select"); // frame 42
    runtime
        .input()
        .event_at(44, Event::KeyPressed(game_host::Key::Q));
    let cancelled = runtime.inspect().wait_stats().cancelled;
    runtime.run_frames(10);
    assert_eq!(said(&log, "select key"), ["select key at frame 44"]);
    assert_eq!(runtime.inspect().wait_stats().cancelled, cancelled + 1);
}

#[test]
fn dropping_tasks_withdraws_their_waits_on_the_host() {
    let (mut runtime, log, id) = start();
    cmd(&mut runtime, "spawn-waits");
    runtime.run_frames(1);
    assert_eq!(said(&log, "spawned"), ["spawned at frame 1"]);

    // The control listener plus a timer, an event wait and a motion.
    let waits = runtime.inspect().pending_waits(id);
    let kinds: Vec<&str> = waits.iter().map(|w| w.what.as_str()).collect();
    assert_eq!(waits.len(), 4, "{kinds:?}");
    assert!(kinds.iter().any(|w| w.starts_with("listener message(cmd)")));
    assert!(
        kinds
            .iter()
            .any(|w| w.starts_with("timer due at frame 60001"))
    );
    assert!(kinds.iter().any(|w| w.starts_with("event key-pressed(q)")));
    assert!(kinds.iter().any(|w| w.starts_with("motion of entity 1")));
    // Each wait belongs to its own task.
    let mut tasks: Vec<u32> = waits.iter().map(|w| w.task).collect();
    tasks.dedup();
    assert_eq!(tasks.len(), 4);

    runtime.run_frames(5);
    let walker = common::transform(&runtime, "walker").position;
    assert!(walker.x > 0.0, "the motion runs: {walker}");

    cmd(&mut runtime, "drop-waits");
    let before = runtime.inspect().wait_stats();
    runtime.run_frames(1);
    assert_eq!(said(&log, "dropped"), ["dropped at frame 7"]);
    let after = runtime.inspect().wait_stats();
    assert_eq!(after.cancelled - before.cancelled, 3);
    let left: Vec<String> = runtime
        .inspect()
        .pending_waits(id)
        .into_iter()
        .map(|w| w.what)
        .collect();
    assert_eq!(left, ["listener message(cmd)"]);

    // The walker stopped where it was; nothing fires later.
    let stopped = common::transform(&runtime, "walker").position;
    runtime
        .input()
        .event_at(20, Event::KeyPressed(game_host::Key::Q));
    runtime.run_frames(30);
    assert_eq!(common::transform(&runtime, "walker").position, stopped);
    assert!(said(&log, "q pressed").is_empty());
}

#[test]
fn unloading_a_script_leaves_no_waits_behind() {
    let (mut runtime, _log, id) = start();
    cmd(&mut runtime, "spawn-waits");
    cmd(&mut runtime, "sleep 100");
    runtime.run_frames(2);
    assert_eq!(runtime.inspect().wait_stats().pending, 104);

    assert!(runtime.despawn(id));
    assert_eq!(runtime.inspect().wait_stats().pending, 0);
    runtime.run_frames(3);
    assert!(runtime.inspect().errors().is_empty());
}

#[test]
fn sleeping_tasks_get_no_calls() {
    let (mut runtime, log, id) = start();
    cmd(&mut runtime, "sleep 10000");
    runtime.run_frames(1);
    assert_eq!(said(&log, "sleeping"), ["sleeping at frame 1"]);
    assert_eq!(runtime.inspect().wait_stats().pending, 10_001);
    let calls = runtime.inspect().instance(id).unwrap().calls;

    runtime.run_frames(600);

    assert_eq!(runtime.inspect().instance(id).unwrap().calls, calls);
    assert_eq!(runtime.inspect().wait_stats().pending, 10_001);
}

#[test]
fn next_frame_wakes_every_frame_with_one_call() {
    let (mut runtime, _log, id) = start();
    cmd(&mut runtime, "next-frame 50");
    runtime.run_frames(1);
    let calls = runtime.inspect().instance(id).unwrap().calls;
    runtime.run_frames(10);
    // 50 tasks woke every frame, delivered in one call per frame.
    assert_eq!(runtime.inspect().instance(id).unwrap().calls, calls + 10);
    assert_eq!(runtime.inspect().wait_stats().pending, 51);
}

#[test]
fn tile_requests_are_deduplicated_and_delivered_at_the_next_frame() {
    let engine = common::engine();
    let tasks = common::load(&engine, "tasks");
    let (mut runtime, log) = common::runtime();
    runtime.spawn(&tasks).unwrap();
    runtime.spawn(&tasks).unwrap();
    // Both instances ask for the same 4 tiles in frame 1.
    cmd(&mut runtime, "tiles 4 100");
    runtime.run_frames(2);

    assert_eq!(
        said(&log, "tiles ready"),
        ["tiles ready at frame 2", "tiles ready at frame 2"]
    );
    let stats = runtime.inspect().job_stats();
    assert_eq!(stats.requests, 8);
    assert_eq!(stats.generated, 4);
    assert_eq!(stats.shared, 4);
    assert_eq!(runtime.inspect().job_outputs::<Terrain>().unwrap().len(), 4);

    // Asking again later is served from the cache.
    cmd(&mut runtime, "tiles 4 100");
    runtime.run_frames(2);
    assert_eq!(runtime.inspect().job_stats().generated, 4);
    assert_eq!(said(&log, "tiles ready").len(), 4);
}

#[test]
fn dropped_tile_requests_are_withdrawn_from_the_job_queue() {
    let engine = common::engine();
    let tasks = common::load(&engine, "tasks");
    let log = Arc::new(MemoryLog::new());
    let mut runtime = Runtime::new(RuntimeConfig {
        log: log.clone(),
        job_threads: 1,
        jobs: JobDelivery::WhenReady,
        ..RuntimeConfig::default()
    });
    let id = runtime.spawn(&tasks).unwrap();
    cmd(&mut runtime, "tiles-drop 64 500");
    runtime.run_frames(2);
    assert_eq!(said(&log, "tiles dropped"), ["tiles dropped at frame 2"]);

    // One worker cannot have made 64 tiles in two frames; the rest were
    // taken off its queue. Only the control listener is left.
    let stats = runtime.inspect().job_stats();
    assert_eq!(stats.requests, 64);
    assert!(stats.withdrawn >= 32, "{stats:?}");
    assert_eq!(runtime.inspect().pending_waits(id).len(), 1);
}
