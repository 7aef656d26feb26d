//! Async benchmarks, side by side in one run:
//!
//! - `sleeping`: one frame with no sleeping tasks vs with 100,000 tasks
//!   sleeping on host timers (the ratio should be close to 1);
//! - `next_frame`: 1,000 tasks each awaiting `next_frame()` every frame
//!   (per-task round trip: timer, wake, poll);
//! - `terrain`: 16 tiles requested and delivered, on the job pool (one
//!   worker per core) vs one worker thread.
//!
//! Run with `cargo bench -p game-host-cli --bench tasks`.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use game_host::input::ScriptMessage;
use game_host::jobs::{JobDelivery, JobWorkers};
use game_host::limits::{Quotas, ScriptLimits};
use game_host::log::MemoryLog;
use game_host::{EngineOptions, Event, Runtime, RuntimeConfig, ScriptComponent, ScriptEngine};
use game_host_build::{BuildOutput, build_script_crate};

fn component(engine: &ScriptEngine) -> ScriptComponent {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scripts/tasks");
    let wasm = build_script_crate(&dir, BuildOutput::Capture).expect("build");
    engine.load_file(&wasm).expect("load")
}

fn runtime(component: &ScriptComponent, workers: JobWorkers) -> Runtime {
    let mut runtime = Runtime::new(RuntimeConfig {
        log: Arc::new(MemoryLog::new()),
        job_workers: Some(workers),
        jobs: JobDelivery::Lockstep,
        // 100,000 sleeping tasks and the control task's own wait: one more
        // than the default quota of pending waits.
        quotas: Quotas {
            waits: 200_000,
            ..Quotas::default()
        },
        ..RuntimeConfig::default()
    });
    runtime.spawn(component).expect("spawn");
    runtime
}

fn cmd(runtime: &mut Runtime, payload: String) {
    runtime.input().event(Event::Message(ScriptMessage {
        channel: "cmd".into(),
        payload,
    }));
}

fn sleeping(c: &mut Criterion, component: &ScriptComponent) {
    let mut group = c.benchmark_group("sleeping");
    let mut idle = runtime(component, JobWorkers::new(1));
    idle.run_frames(2);
    group.bench_function("frame_0_sleeping", |b| b.iter(|| idle.step()));

    let mut busy = runtime(component, JobWorkers::new(1));
    cmd(&mut busy, "sleep 100000".into());
    busy.run_frames(2);
    assert_eq!(
        busy.inspect().wait_stats().pending,
        100_001,
        "{:?}",
        busy.inspect().errors()
    );
    group.bench_function("frame_100k_sleeping", |b| b.iter(|| busy.step()));
    group.finish();
}

fn next_frame(c: &mut Criterion, component: &ScriptComponent) {
    let mut group = c.benchmark_group("next_frame");
    let mut runtime = runtime(component, JobWorkers::new(1));
    cmd(&mut runtime, "next-frame 1000".into());
    runtime.run_frames(2);
    group.throughput(Throughput::Elements(1000));
    group.bench_function("round_trip_x1000", |b| b.iter(|| runtime.step()));
    group.finish();
}

fn terrain(c: &mut Criterion, component: &ScriptComponent) {
    const TILES: u64 = 16;
    let mut group = c.benchmark_group("terrain");
    group.throughput(Throughput::Elements(TILES));
    group.sample_size(20);
    for (name, threads) in [("pool", 0), ("one_thread", 1)] {
        let workers = JobWorkers::new(threads);
        let label = format!("{TILES}_tiles_{name}_{}threads", workers.threads());
        let mut runtime = runtime(component, workers);
        let mut x = 0;
        group.bench_function(label, |b| {
            b.iter(|| {
                // Fresh tiles each time: the cache would answer repeats.
                x += TILES as i32;
                cmd(&mut runtime, format!("tiles {TILES} {x}"));
                runtime.step(); // the script requests the tiles
                runtime.step(); // lockstep: all generated and delivered
            })
        });
    }
    group.finish();
}

fn benches(c: &mut Criterion) {
    // Spawning 100,000 sleeping tasks in one call takes longer than the
    // default 5 ms deadline on a slow machine: the calls get a long one
    // (epoch checks stay compiled in, as by default).
    let engine = ScriptEngine::new(EngineOptions {
        cache_dir: None,
        extensions: vec![game_host_terrain::extension()],
        limits: ScriptLimits {
            update_deadline: Some(Duration::from_secs(5)),
            ..ScriptLimits::default()
        },
        ..EngineOptions::default()
    })
    .expect("engine");
    let component = component(&engine);
    sleeping(c, &component);
    next_frame(c, &component);
    terrain(c, &component);
}

criterion_group! {
    name = tasks;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    targets = benches
}
criterion_main!(tasks);
