//! Soak: scripts that churn handles, waits, tasks, subscriptions and log
//! lines every frame, for many frames; the host's resident memory must be
//! flat after warm-up. The full run (1,000,000 frames) is `#[ignore]`d:
//! `cargo test --release --test soak -- --ignored --nocapture`.

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use game_host::RuntimeConfig;
use game_host::log::{LogRecord, LogSink};
use game_host::scene::GameScene;

/// Counts log lines instead of keeping them.
#[derive(Default)]
struct CountingLog(AtomicU64);

impl LogSink for CountingLog {
    fn log(&self, _record: LogRecord) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }
}

fn soak(frames: u64) {
    let engine = common::engine();
    let churn = common::load(&engine, "hostile");
    let log = Arc::new(CountingLog::default());
    let mut runtime = game_host::Runtime::new(RuntimeConfig {
        log: log.clone(),
        ..RuntimeConfig::default()
    });
    runtime.scene().lock().unwrap().spawn("hostile:churn");
    for _ in 0..4 {
        runtime.spawn(&churn).unwrap();
    }
    let warm_up = frames / 10;
    runtime.run_frames(warm_up);
    let after_warm_up = common::memory::status_kib("VmRSS");
    let mut highest = after_warm_up;
    let checkpoints = 10;
    for _ in 0..checkpoints {
        runtime.run_frames((frames - warm_up) / checkpoints);
        highest = highest.max(common::memory::status_kib("VmRSS"));
    }
    let end = common::memory::status_kib("VmRSS");
    let stats = runtime.inspect().wait_stats();
    eprintln!(
        "soak: {} frames, 4 churning scripts: RSS {after_warm_up} KiB after warm-up, \
         highest {highest} KiB, {end} KiB at the end; {} log lines, {} waits registered, \
         {} pending",
        runtime.frame(),
        log.0.load(Ordering::Relaxed),
        stats.registered,
        runtime.inspect().wait_stats().pending
    );
    assert!(
        runtime.inspect().errors().is_empty(),
        "{:?}",
        runtime.inspect().errors()
    );
    assert_eq!(runtime.inspect().live_instances(), 4);
    // Each script holds at most 3 sleeping tasks and 1 listener-free timer.
    assert!(
        runtime.inspect().wait_stats().pending <= 4 * 4,
        "{}",
        runtime.inspect().wait_stats().pending
    );
    for info in runtime.inspect().instances() {
        assert_eq!(info.handles.live, 0);
        assert!(info.handles.highest_index < 8, "{:?}", info.handles);
    }
    assert!(
        highest <= after_warm_up + 4096,
        "RSS grew from {after_warm_up} KiB to {highest} KiB"
    );
}

#[test]
fn churning_scripts_keep_host_memory_flat() {
    soak(20_000);
}

#[test]
#[ignore = "a million frames: run by hand (see the file's docs)"]
fn churning_scripts_keep_host_memory_flat_for_a_million_frames() {
    soak(1_000_000);
}
