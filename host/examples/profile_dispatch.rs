//! Runs frames of one script for profiling the dispatch path:
//! `valgrind --tool=callgrind target/release/examples/profile_dispatch
//! target/wasm32-wasip2/release/test_noop.wasm 100000` (instructions per
//! frame are reproducible where wall time is not). Arguments: the component
//! (`host/tests/scripts/noop`, built for wasm32-wasip2) and the number of
//! frames (default 100,000). Further arguments name entities to spawn
//! before the script starts (the peers script picks its mode from them,
//! e.g. `peers:kept` or `peers:behaviours:10000`), for profiling other
//! paths. To count only the frames, not compiling the script:
//! `--toggle-collect='<host::runtime::Runtime>::step'`. Compiled script
//! functions show as `???` addresses; the run writes `/tmp/perf-PID.map`,
//! which names them (see `docs/benchmarks.md`). Deadlines stay on but
//! long, since valgrind runs a call some fifty times slower.

use std::sync::Arc;
use std::time::Duration;

use host::limits::ScriptLimits;
use host::log::MemoryLog;
use host::sync::LockExt;
use host::{EngineOptions, Runtime, RuntimeConfig, ScriptEngine};

fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .expect("usage: profile_dispatch NOOP.wasm [FRAMES]");
    let frames: u64 = args
        .next()
        .map_or(100_000, |n| n.parse().expect("a number of frames"));
    let engine = ScriptEngine::new(EngineOptions {
        cache_dir: None,
        max_instances: 4,
        // Deadlines stay compiled in, as by default, but long: under
        // valgrind a call runs some fifty times slower than it would.
        limits: ScriptLimits {
            update_deadline: Some(Duration::from_secs(60)),
            start_deadline: Duration::from_secs(60),
            ..ScriptLimits::default()
        },
        perf_map: true,
        ..EngineOptions::default()
    })?;
    let noop = engine.load_file(path.as_ref())?;
    let mut runtime = Runtime::new(RuntimeConfig {
        log: Arc::new(MemoryLog::new()),
        ..RuntimeConfig::default()
    });
    for marker in args {
        runtime.scene().lock_unpoisoned().spawn(&marker);
    }
    runtime.spawn(&noop)?;
    runtime.run_frames(frames);
    println!(
        "{} frames, {} errors",
        runtime.frame(),
        runtime.errors().len()
    );
    for error in runtime.errors() {
        eprintln!("{}", error.report());
    }
    Ok(())
}
