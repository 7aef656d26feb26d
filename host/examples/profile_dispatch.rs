//! Runs frames of one no-op script for profiling the bare dispatch path:
//! `valgrind --tool=callgrind target/release/examples/profile_dispatch
//! target/wasm32-wasip2/release/test_noop.wasm 100000` (instructions per
//! frame are reproducible where wall time is not). Arguments: the no-op
//! component (`host/tests/scripts/noop`, built for wasm32-wasip2) and the
//! number of frames (default 100,000). Further arguments name entities to
//! spawn before the script starts (the peers script picks its mode from
//! them, e.g. `peers:behaviours:10000`), for profiling other paths:
//! `valgrind --tool=callgrind --toggle-collect='host::runtime::Runtime::step'
//! target/release/examples/profile_dispatch
//! target/wasm32-wasip2/release/test_peers.wasm 20 peers:behaviours:10000`.

use std::sync::Arc;

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
    Ok(())
}
