//! Frame-loop benchmarks, measured side by side in one run:
//!
//! - `dispatch`: one frame with 1 and with 100 instances whose `on-message`
//!   does nothing (the bare cost of a host-to-guest call through the runtime);
//! - `spinning_cube`: one frame of the spinning-cube example vs the same
//!   update written natively against the scene;
//! - `instantiate`: spawn + despawn of an instance (InstancePre, entrypoint,
//!   teardown) with the pooling allocator vs on-demand allocation;
//! - `load`: loading a component from the compile cache vs compiling it;
//! - `deadlines`: the same frames with CPU deadlines (epoch checks compiled
//!   in, a deadline set per call) and without: 100 no-op updates, the
//!   spinning cube, and `fib(25)` by recursion (compute-heavy guest code).
//!
//! Run with `cargo bench -p game-host-cli --bench frame`.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use game_host::limits::ScriptLimits;
use game_host::log::MemoryLog;
use game_host::{EngineOptions, Runtime, RuntimeConfig, ScriptComponent, ScriptEngine};
use game_host_build::{BuildOutput, build_script_crate};
use glam::Quat;

fn script(dir: &str) -> PathBuf {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(dir);
    build_script_crate(&path, BuildOutput::Capture).expect("build script")
}

fn engine(pooling: bool, cache_dir: Option<PathBuf>) -> ScriptEngine {
    engine_with(pooling, cache_dir, ScriptLimits::default())
}

fn engine_with(pooling: bool, cache_dir: Option<PathBuf>, limits: ScriptLimits) -> ScriptEngine {
    ScriptEngine::new(EngineOptions {
        cache_dir,
        pooling,
        max_instances: 256,
        extensions: Vec::new(),
        game: None,
        limits,
        perf_map: false,
        deterministic_floats: true,
        debug_info: false,
    })
    .expect("engine")
}

fn runtime() -> Runtime {
    // A memory log that nobody reads would grow; these scripts log nothing
    // per frame, so it stays small.
    Runtime::new(RuntimeConfig {
        hz: 60.0,
        log: Arc::new(MemoryLog::new()),
        ..RuntimeConfig::default()
    })
}

fn load(engine: &ScriptEngine, path: &Path) -> ScriptComponent {
    engine.load_file(path).expect("load")
}

fn dispatch(c: &mut Criterion) {
    let noop = script("host/tests/scripts/noop");
    let engine = engine(true, None);
    let component = load(&engine, &noop);
    let mut group = c.benchmark_group("dispatch");
    for instances in [1u64, 100] {
        let mut runtime = runtime();
        for _ in 0..instances {
            runtime.spawn(&component).unwrap();
        }
        group.throughput(Throughput::Elements(instances));
        group.bench_function(format!("noop_on_message_x{instances}"), |b| {
            b.iter(|| runtime.step())
        });
    }
    group.finish();
}

fn spinning_cube(c: &mut Criterion) {
    let cube = script("examples/spinning-cube");
    let engine = engine(true, None);
    let component = load(&engine, &cube);
    let mut group = c.benchmark_group("spinning_cube");

    let mut runtime = runtime();
    runtime.spawn(&component).unwrap();
    group.bench_function("wasm_update", |b| b.iter(|| runtime.step()));

    // The same per-frame work done natively on the core's own scene (not
    // through the `GameScene` seam): find the cube, rotate it.
    let native = std::sync::Mutex::new(game_host::Scene::with_default_cube());
    let dt = 1.0f32 / 60.0;
    group.bench_function("native_update", |b| {
        b.iter(|| {
            let mut scene = native.lock().unwrap();
            let id = scene.find(black_box("cube")).unwrap();
            let t = scene.transform_mut(id).unwrap();
            let delta = Quat::from_rotation_y(std::f32::consts::FRAC_PI_2 * black_box(dt));
            t.rotation = (delta * t.rotation).normalize();
        })
    });
    group.finish();
}

fn instantiate(c: &mut Criterion) {
    let noop = script("host/tests/scripts/noop");
    let mut group = c.benchmark_group("instantiate");
    for (name, pooling) in [("pooling", true), ("on_demand", false)] {
        let engine = engine(pooling, None);
        let component = load(&engine, &noop);
        let mut runtime = runtime();
        group.bench_function(format!("spawn_despawn_{name}"), |b| {
            b.iter(|| {
                let id = runtime.spawn(&component).unwrap();
                runtime.despawn(id);
            })
        });
    }
    group.finish();
}

fn load_component(c: &mut Criterion) {
    let cube = script("examples/spinning-cube");
    let bytes = std::fs::read(&cube).unwrap();
    let cache = tempfile::tempdir().unwrap();
    let cached = engine(true, Some(cache.path().to_owned()));
    cached.load_bytes("spinning-cube", &bytes).unwrap(); // fill the cache
    let uncached = engine(true, None);

    let mut group = c.benchmark_group("load");
    group.bench_function("from_cache", |b| {
        b.iter(|| cached.load_bytes("spinning-cube", &bytes).unwrap())
    });
    group.sample_size(10);
    group.bench_function("compile", |b| {
        b.iter(|| uncached.load_bytes("spinning-cube", &bytes).unwrap())
    });
    group.finish();
}

fn deadlines(c: &mut Criterion) {
    let scripts = [
        ("noop_x100", script("host/tests/scripts/noop"), 100),
        ("spinning_cube", script("examples/spinning-cube"), 1),
        ("fib25", script("host/tests/scripts/fib"), 1),
    ];
    let mut group = c.benchmark_group("deadlines");
    for (limits_name, limits) in [
        ("with_deadlines", ScriptLimits::default()),
        ("without", ScriptLimits::unlimited()),
    ] {
        let engine = engine_with(true, None, limits);
        for (name, path, instances) in &scripts {
            let component = load(&engine, path);
            let mut runtime = runtime();
            for _ in 0..*instances {
                runtime.spawn(&component).unwrap();
            }
            group.bench_function(format!("{name}_{limits_name}"), |b| {
                b.iter(|| runtime.step())
            });
            assert!(
                runtime.inspect().errors().is_empty(),
                "{:?}",
                runtime.inspect().errors()
            );
        }
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    targets = dispatch, spinning_cube, instantiate, load_component, deadlines
}
criterion_main!(benches);
