//! Rust, Python and JavaScript scripts side by side: the spinning cube
//! written in each (`examples/spinning-cube`, `benches/scripts/cube.py`,
//! `benches/scripts/cube.js`). Python and JavaScript twice: live (what
//! `host run` does: the language's runtime built and compiled once, the
//! script's sources as data) and built (what `host build` ships: one
//! component per script, as every run did before the live path).
//!
//! Printed once, before the timed groups, per row:
//! - first start: nothing cached (for live scripts the runtime is built
//!   with the tool and compiled; for built ones the script is);
//! - warm start: `ScriptSource::load` on a new engine whose caches are full;
//! - edit -> swapped: a comment appended to the source, then load and
//!   `Runtime::hot_swap` on a running instance, with the engine warm (what
//!   `--watch` does after its file events; for Rust, cargo recompiling the
//!   crate);
//! - component size and memory per live instance (RSS growth over 32).
//!
//! Timed by criterion: one frame of the spinning-cube update, and spawn +
//! despawn of an instance.
//!
//! Run with `cargo bench -p game-host-cli --bench languages` (needs componentize-py
//! and componentize-js on PATH).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use game_host::log::MemoryLog;
use game_host::{EngineOptions, Runtime, RuntimeConfig, ScriptComponent, ScriptEngine};
use game_host_build::{BuildOutput, ScriptSource};

#[path = "../tests/common/memory.rs"]
mod memory;

const INSTANCES: usize = 32;

fn path(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(relative)
}

/// How a row's script reaches the engine.
#[derive(Clone, Copy, PartialEq)]
enum How {
    /// `ScriptSource::load`: a crate built by cargo, Python and
    /// JavaScript on their live runtimes.
    Load,
    /// `ScriptSource::build` then `load_bytes`: one component per script.
    Built,
}

/// The rows: name, source, path.
fn rows() -> [(&'static str, PathBuf, How); 5] {
    [
        ("rust", path("examples/spinning-cube"), How::Load),
        (
            "python, live",
            path("host/benches/scripts/cube.py"),
            How::Load,
        ),
        (
            "javascript, live",
            path("host/benches/scripts/cube.js"),
            How::Load,
        ),
        (
            "python, built",
            path("host/benches/scripts/cube.py"),
            How::Built,
        ),
        (
            "javascript, built",
            path("host/benches/scripts/cube.js"),
            How::Built,
        ),
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

fn load(source: &ScriptSource, how: How, engine: &ScriptEngine) -> ScriptComponent {
    match how {
        How::Load => source.load(engine, BuildOutput::Capture).expect("load"),
        How::Built => {
            let (name, bytes) = source
                .build(BuildOutput::Capture, engine.cache_dir())
                .expect("build");
            engine.load_bytes(&name, &bytes).expect("compile")
        }
    }
}

/// A copy of a Python or JavaScript source in `dir`, a comment appended
/// `edits` times; for the crate, its `src/lib.rs` touched so that cargo
/// builds it again.
fn edited(source: &Path, dir: &Path, edits: usize) -> ScriptSource {
    if source.is_dir() {
        let lib = source.join("src/lib.rs");
        let file = std::fs::OpenOptions::new()
            .write(true)
            .open(&lib)
            .expect("lib.rs");
        file.set_modified(std::time::SystemTime::now())
            .expect("touch");
        return ScriptSource::new(source).expect("source");
    }
    let comment = match source.extension().and_then(|e| e.to_str()) {
        Some("py") => "# an edit",
        _ => "// an edit",
    };
    let text = std::fs::read_to_string(source).expect("source");
    let copy = dir.join(source.file_name().expect("a file"));
    std::fs::write(
        &copy,
        format!("{text}{}", format!("\n{comment}").repeat(edits)),
    )
    .expect("copy");
    ScriptSource::new(&copy).expect("source")
}

/// Measures each row once; returns the components.
fn costs() -> Vec<(&'static str, ScriptComponent)> {
    let cache = tempfile::tempdir().expect("temp dir");
    let edits = tempfile::tempdir().expect("temp dir");
    println!("| script | first start | warm start | edit -> swapped | size | RSS per instance |");
    println!("| --- | ---: | ---: | ---: | ---: | ---: |");
    let mut components = Vec::new();
    for (row, source_path, how) in rows() {
        let source = ScriptSource::new(&source_path).expect("source");
        // Nothing cached: no build cache, no compile cache, a new engine.
        let started = Instant::now();
        load(&source, how, &engine(None));
        let first = started.elapsed();

        // Fill the caches, then start on a new engine as a new run would.
        load(&source, how, &engine(Some(cache.path().to_owned())));
        let warm = engine(Some(cache.path().to_owned()));
        let started = Instant::now();
        let component = load(&source, how, &warm);
        let warm_start = started.elapsed();

        // An edit, swapped into a running instance (median of 3).
        let mut runtime = runtime();
        let id = runtime.spawn(&component).expect("spawn");
        runtime.run_frames(2);
        let swaps: Vec<Duration> = (1..=3)
            .map(|edit| {
                let changed = edited(&source_path, edits.path(), edit);
                let started = Instant::now();
                let next = load(&changed, how, &warm);
                runtime.hot_swap(id, &next).expect("swap");
                started.elapsed()
            })
            .collect();
        let swap = median(swaps);

        let mut runtime = runtime_with_one(&component);
        let before = memory::status_kib("VmRSS");
        for _ in 0..INSTANCES {
            runtime.spawn(&component).expect("spawn");
        }
        runtime.run_frames(2);
        let per_instance =
            (memory::status_kib("VmRSS").saturating_sub(before)) as f64 / INSTANCES as f64;
        println!(
            "| {row} | {:.2} s | {:.0} ms | {:.0} ms | {:.1} MB | {:.0} KiB |",
            first.as_secs_f64(),
            warm_start.as_secs_f64() * 1e3,
            swap.as_secs_f64() * 1e3,
            component.size() as f64 / 1e6,
            per_instance
        );
        components.push((row, component));
    }
    components
}

/// A runtime with one instance of `component` run for two frames, so the
/// next instances measure what each adds.
fn runtime_with_one(component: &ScriptComponent) -> Runtime {
    let mut runtime = runtime();
    runtime.spawn(component).expect("warm-up instance");
    runtime.run_frames(2);
    runtime
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn languages(c: &mut Criterion) {
    let components = costs();
    let mut group = c.benchmark_group("languages");
    for (language, component) in &components {
        let mut runtime = runtime();
        runtime.spawn(component).expect("spawn");
        group.bench_function(
            format!("spinning_cube_frame/{}", language.replace(", ", "_")),
            |b| b.iter(|| runtime.step()),
        );
    }
    for (language, component) in &components {
        let mut runtime = runtime();
        group.bench_function(
            format!("spawn_despawn/{}", language.replace(", ", "_")),
            |b| {
                b.iter(|| {
                    let id = runtime.spawn(component).expect("spawn");
                    runtime.despawn(id);
                })
            },
        );
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
