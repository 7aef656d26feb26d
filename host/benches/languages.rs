//! Rust, Python and JavaScript scripts side by side: the spinning cube
//! written in each (`examples/spinning-cube`, `benches/scripts/cube.py`,
//! `benches/scripts/cube.js`), built by the host.
//!
//! Printed once, before the timed groups: build time (componentize-py /
//! componentize-js / cargo, nothing cached), component size, load time cold
//! (compiling) and from the compile cache, and memory per live instance
//! (RSS growth over 32 instances). Timed by criterion: one frame of the
//! spinning-cube update, and spawn + despawn of an instance.
//!
//! Run with `cargo bench -p host --bench languages` (needs componentize-py
//! and componentize-js on PATH).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use host::log::MemoryLog;
use host::{
    BuildOutput, EngineOptions, Runtime, RuntimeConfig, ScriptComponent, ScriptEngine, ScriptSource,
};

#[path = "../tests/common/memory.rs"]
mod memory;

const INSTANCES: usize = 32;

fn path(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(relative)
}

/// The three spinning cubes: language and source.
fn sources() -> [(&'static str, PathBuf); 3] {
    [
        ("rust", path("examples/spinning-cube")),
        ("python", path("host/benches/scripts/cube.py")),
        ("javascript", path("host/benches/scripts/cube.js")),
    ]
}

fn engine(cache_dir: Option<PathBuf>) -> ScriptEngine {
    ScriptEngine::new(EngineOptions {
        cache_dir,
        max_instances: 256,
        ..EngineOptions::default()
    })
    .expect("engine")
}

fn runtime() -> Runtime {
    Runtime::new(RuntimeConfig {
        hz: 60.0,
        log: Arc::new(MemoryLog::new()),
        ..RuntimeConfig::default()
    })
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

/// Builds, loads and measures each language once; returns the components.
fn costs() -> Vec<(&'static str, ScriptComponent)> {
    let cache = tempfile::tempdir().expect("temp dir");
    let uncached = engine(None);
    let cached = engine(Some(cache.path().to_owned()));
    println!("| language | build | size | load, compiling | load, cached | RSS per instance |");
    println!("| --- | ---: | ---: | ---: | ---: | ---: |");
    let mut components = Vec::new();
    for (language, source) in sources() {
        let source = ScriptSource::new(&source).expect("source");
        let started = Instant::now();
        // No cache directory: the Python and JavaScript builds run afresh.
        let (name, bytes) = source.build(BuildOutput::Capture, None).expect("build");
        let build = started.elapsed();

        let started = Instant::now();
        uncached.load_bytes(&name, &bytes).expect("compile");
        let cold = started.elapsed();
        cached.load_bytes(&name, &bytes).expect("fill the cache");
        let warm = median(
            (0..5)
                .map(|_| {
                    let started = Instant::now();
                    cached.load_bytes(&name, &bytes).expect("load");
                    started.elapsed()
                })
                .collect(),
        );
        let component = cached.load_bytes(&name, &bytes).expect("load");

        let mut runtime = runtime();
        runtime.spawn(&component).expect("warm-up instance");
        runtime.run_frames(2);
        let before = memory::status_kib("VmRSS");
        for _ in 0..INSTANCES {
            runtime.spawn(&component).expect("spawn");
        }
        runtime.run_frames(2);
        let per_instance =
            (memory::status_kib("VmRSS").saturating_sub(before)) as f64 / INSTANCES as f64;
        println!(
            "| {language} | {:.1} s | {:.1} MB | {:.2} s | {:.1} ms | {:.0} KiB |",
            build.as_secs_f64(),
            bytes.len() as f64 / 1e6,
            cold.as_secs_f64(),
            warm.as_secs_f64() * 1e3,
            per_instance
        );
        components.push((language, component));
    }
    components
}

fn languages(c: &mut Criterion) {
    let components = costs();
    let mut group = c.benchmark_group("languages");
    for (language, component) in &components {
        let mut runtime = runtime();
        runtime.spawn(component).expect("spawn");
        group.bench_function(format!("spinning_cube_frame/{language}"), |b| {
            b.iter(|| runtime.step())
        });
    }
    for (language, component) in &components {
        let mut runtime = runtime();
        group.bench_function(format!("spawn_despawn/{language}"), |b| {
            b.iter(|| {
                let id = runtime.spawn(component).expect("spawn");
                runtime.despawn(id);
            })
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    targets = languages
}
criterion_main!(benches);
