//! Runs frames of one script for profiling the dispatch path:
//! `valgrind --tool=callgrind target/release/examples/profile_dispatch
//! target/wasm32-wasip2/release/test_noop.wasm 100000` (instructions per
//! frame are reproducible where wall time is not). Arguments: the component
//! (`host/tests/scripts/noop`, built for wasm32-wasip2) and the number of
//! frames (default 100,000). Further arguments name entities to spawn
//! before the script starts (the peers script picks its mode from them,
//! e.g. `peers:kept` or `peers:behaviours:10000`), for profiling other
//! paths. To count only the frames, not compiling the script:
//! `--toggle-collect='<game_host::runtime::Runtime>::step'`. With `spawn:N` in
//! place of the number of frames it spawns and despawns the script N times
//! instead, for profiling instantiation
//! (`--toggle-collect='<game_host::runtime::Runtime>::spawn'
//! --toggle-collect='<game_host::runtime::Runtime>::despawn'`). Compiled script
//! functions show as `???` addresses; the run writes `/tmp/perf-PID.map`,
//! which names them (see `docs/benchmarks.md`). Deadlines stay on but
//! long, since valgrind runs a call some fifty times slower. With
//! `PROFILE_PORTABLE_FLOATS=1` in the environment, NaN canonicalisation and
//! deterministic relaxed SIMD are on (`EngineOptions::deterministic_floats`),
//! to measure what they cost (`docs/determinism.md`). With
//! `PROFILE_GRANTS='[default] writes = ["*"]'` (a grants file's TOML), the
//! script runs under those grants, to measure what checking them costs.
//! With `PROFILE_INSTANCES=N`, N instances of the script run (on one frame
//! thread), to see what grows with their count (`perf record`: valgrind
//! cannot reserve the pool's address space for that many).

use std::sync::Arc;
use std::time::{Duration, Instant};

use game_host::limits::ScriptLimits;
use game_host::log::MemoryLog;
use game_host::scene::GameScene;
use game_host::sync::LockExt;
use game_host::{EngineOptions, GrantFile, GrantPolicy, Runtime, RuntimeConfig, ScriptEngine};

fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .expect("usage: profile_dispatch SCRIPT.wasm [FRAMES | spawn:N] [ENTITY...]");
    let count = args.next().unwrap_or_else(|| "100000".into());
    let (spawns, frames): (Option<u64>, u64) = match count.strip_prefix("spawn:") {
        Some(n) => (Some(n.parse().expect("a number of spawns")), 0),
        None => (None, count.parse().expect("a number of frames")),
    };
    let instances: u32 = std::env::var("PROFILE_INSTANCES")
        .ok()
        .map_or(1, |n| n.parse().expect("PROFILE_INSTANCES: a number"));
    let engine = ScriptEngine::new(EngineOptions {
        cache_dir: None,
        // With several instances, room for 20,000 whatever their count, as
        // `benches/capacity.rs` has, so that every count runs the same
        // compiled code (bounds checked: see `EngineOptions`); one instance
        // keeps the small pool valgrind can reserve.
        max_instances: if instances > 1 { 20_100 } else { 4 },
        // Deadlines stay compiled in, as by default, but long: under
        // valgrind a call runs some fifty times slower than it would.
        limits: ScriptLimits {
            update_deadline: Some(Duration::from_secs(60)),
            start_deadline: Duration::from_secs(60),
            ..ScriptLimits::default()
        },
        perf_map: true,
        deterministic_floats: std::env::var_os("PROFILE_PORTABLE_FLOATS").is_some(),
        ..EngineOptions::default()
    })?;
    let noop = engine.load_file(path.as_ref())?;
    let grants = match std::env::var("PROFILE_GRANTS") {
        Ok(text) => {
            GrantPolicy::new(toml::from_str::<GrantFile>(&text)?).map_err(anyhow::Error::msg)?
        }
        Err(_) => GrantPolicy::default(),
    };
    let mut runtime = Runtime::new(RuntimeConfig {
        log: Arc::new(MemoryLog::new()),
        grants,
        frame_threads: if instances > 1 { 1 } else { 0 },
        ..RuntimeConfig::default()
    });
    for marker in args {
        runtime.scene().lock_unpoisoned().spawn(&marker);
    }
    if let Some(spawns) = spawns {
        let (mut spawning, mut despawning) = (Duration::ZERO, Duration::ZERO);
        for _ in 0..spawns {
            let started = Instant::now();
            let id = runtime.spawn(&noop)?;
            let spawned = Instant::now();
            runtime.despawn(id);
            spawning += spawned - started;
            despawning += spawned.elapsed();
        }
        let n = spawns.max(1) as u32;
        println!(
            "{spawns} spawns and despawns: spawn {:?}, despawn {:?} each",
            spawning / n,
            despawning / n
        );
    }
    for _ in 0..instances {
        runtime.spawn(&noop)?;
    }
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
