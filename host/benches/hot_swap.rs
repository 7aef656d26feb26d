//! Hot-swap measurements, printed as a table (run with
//! `cargo bench -p game-host-cli --bench hot_swap`):
//!
//! - the pause on the frame thread during `Runtime::hot_swap`, for a component
//!   already instantiated once (warm) and for a freshly compiled one (cold);
//! - the time from a component file being rewritten to the new code running,
//!   through the watcher, the background compile and the next frame;
//! - frames missed by a real-time 60 Hz loop while swaps happen every second.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use game_host::log::MemoryLog;
use game_host::{EngineOptions, Runtime, RuntimeConfig, ScriptEngine};
use game_host_build::{BuildOutput, HotSwapper, SwapOutcome, build_script_crate};

fn build(dir: &str) -> PathBuf {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(dir);
    build_script_crate(&path, BuildOutput::Capture).expect("build")
}

fn runtime() -> Runtime {
    Runtime::new(RuntimeConfig {
        log: Arc::new(MemoryLog::new()),
        ..RuntimeConfig::default()
    })
}

fn stats(mut samples: Vec<Duration>) -> String {
    samples.sort();
    let mean = samples.iter().sum::<Duration>() / samples.len() as u32;
    let p50 = samples[samples.len() / 2];
    let max = samples[samples.len() - 1];
    format!(
        "mean {mean:>10.1?}  p50 {p50:>10.1?}  max {max:>10.1?}  (n={})",
        samples.len()
    )
}

fn pause(engine: &ScriptEngine, bytes: &[u8]) {
    let a = engine.load_bytes("cube", bytes).unwrap();
    let b = engine.load_bytes("cube", bytes).unwrap();
    let mut runtime = runtime();
    let id = runtime.spawn(&a).unwrap();
    runtime.hot_swap(id, &b).unwrap(); // b's first instantiation
    let mut warm = Vec::new();
    for i in 0..500 {
        runtime.step();
        let next = if i % 2 == 0 { &a } else { &b };
        warm.push(runtime.hot_swap(id, next).unwrap().pause);
    }
    println!("swap pause, warm component        {}", stats(warm));

    let mut cold = Vec::new();
    for _ in 0..20 {
        let fresh = engine.load_bytes("cube", bytes).unwrap(); // compiled, never instantiated
        runtime.step();
        cold.push(runtime.hot_swap(id, &fresh).unwrap().pause);
    }
    println!("swap pause, freshly compiled      {}", stats(cold));

    let mut prepared = Vec::new();
    for _ in 0..20 {
        let fresh = engine.load_bytes("cube", bytes).unwrap();
        fresh.warm_up().unwrap(); // what the hot-swap build thread does
        runtime.step();
        prepared.push(runtime.hot_swap(id, &fresh).unwrap().pause);
    }
    println!("swap pause, compiled + warmed up  {}", stats(prepared));
}

/// Writes `bytes` to `path` the way a build does (temporary file, rename).
fn write(path: &Path, bytes: &[u8]) {
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, bytes).unwrap();
    std::fs::rename(&tmp, path).unwrap();
}

/// A runtime running `versions[0]` from a watched file in a fresh directory.
struct Watched {
    _dir: tempfile::TempDir,
    file: PathBuf,
    runtime: Runtime,
    swapper: HotSwapper,
}

fn watched(engine: &Arc<ScriptEngine>, versions: &[Vec<u8>; 2]) -> Watched {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("script.wasm");
    std::fs::write(&file, &versions[0]).unwrap();
    let mut runtime = runtime();
    let id = runtime.spawn(&engine.load_file(&file).unwrap()).unwrap();
    let mut swapper = HotSwapper::new(engine.clone()).unwrap();
    swapper.watch(&file, vec![id]).unwrap();
    Watched {
        _dir: dir,
        file,
        runtime,
        swapper,
    }
}

fn latency(engine: &Arc<ScriptEngine>, versions: &[Vec<u8>; 2]) {
    let Watched {
        _dir,
        file,
        mut runtime,
        mut swapper,
    } = watched(engine, versions);
    let dt = Duration::from_secs_f64(runtime.dt());
    let mut samples = Vec::new();
    for i in 1..=10 {
        std::thread::sleep(Duration::from_millis(300));
        let changed = Instant::now();
        write(&file, &versions[i % 2]);
        loop {
            let swapped = swapper
                .apply(&mut runtime)
                .into_iter()
                .any(|o| matches!(o, SwapOutcome::Swapped { .. }));
            runtime.step();
            if swapped {
                samples.push(changed.elapsed());
                break;
            }
            std::thread::sleep(dt);
        }
    }
    println!("file change -> new code running   {}", stats(samples));
}

fn missed_frames(engine: &Arc<ScriptEngine>, versions: &[Vec<u8>; 2]) {
    const SECONDS: u64 = 6;
    let Watched {
        _dir,
        file,
        mut runtime,
        mut swapper,
    } = watched(engine, versions);

    // Rewrite the file once a second from another thread, as an editor would.
    let done = Arc::new(AtomicBool::new(false));
    let writer = {
        let (done, file, versions) = (done.clone(), file.clone(), versions.clone());
        std::thread::spawn(move || {
            let mut i = 1;
            while !done.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_secs(1));
                write(&file, &versions[i % 2]);
                i += 1;
            }
        })
    };

    // A real-time loop: frame n is due at start + n * dt; a frame that starts
    // a whole frame late is a missed frame.
    let dt = Duration::from_secs_f64(runtime.dt());
    let start = Instant::now();
    let (mut missed, mut worst, mut swaps) = (0, Duration::ZERO, 0);
    for n in 0..SECONDS * 60 {
        let due = start + dt * n as u32;
        let now = Instant::now();
        if now < due {
            std::thread::sleep(due - now);
        }
        let late = Instant::now().saturating_duration_since(due);
        worst = worst.max(late);
        if late >= dt {
            missed += 1;
        }
        swaps += swapper
            .apply(&mut runtime)
            .iter()
            .filter(|o| matches!(o, SwapOutcome::Swapped { .. }))
            .count();
        runtime.step();
    }
    done.store(true, Ordering::Relaxed);
    writer.join().unwrap();
    println!(
        "real time 60 Hz, {SECONDS} s: {swaps} swaps, {missed} frames missed, latest frame start {worst:.1?} after its due time"
    );
}

fn main() {
    // `cargo bench` passes `--bench`; a filter argument selects nothing here.
    let engine = Arc::new(
        ScriptEngine::new(EngineOptions {
            cache_dir: None,
            ..EngineOptions::default()
        })
        .unwrap(),
    );
    let cube = std::fs::read(build("examples/spinning-cube")).unwrap();
    let counter = std::fs::read(build("host/tests/scripts/counter")).unwrap();
    pause(&engine, &cube);
    let versions = [cube, counter];
    latency(&engine, &versions);
    missed_frames(&engine, &versions);
}
