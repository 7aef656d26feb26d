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
//! With `PROFILE_NO_DEADLINE=1`, calls have no CPU deadline, so no epoch
//! checks are compiled in: what they cost a loop.
//! With `PROFILE_INSTANCES=N`, N instances of the script run (on one frame
//! thread), to see what grows with their count (`perf record`: valgrind
//! cannot reserve the pool's address space for that many). With
//! `PROFILE_PAGES=N` as well, after the frames it runs N more one at a
//! time, each after clearing the pages' referenced bits
//! (`/proc/self/clear_refs`), and prints the memory each kind of mapping
//! had referenced by the frame's end (`/proc/self/smaps`), per frame and
//! per instance: the pages one frame touches, and where they lie.
//! `PROFILE_POOL=N` sizes the engine's pool for N instances (valgrind,
//! which cannot reserve the address space of 20,000, can then run a few:
//! `PROFILE_POOL=4 PROFILE_INSTANCES=3` under `--tool=dhat` shows which
//! heap blocks each instance's frame reads and writes). After the frames it
//! prints their wall time per instance and frame.

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
        // `PROFILE_POOL=N` sizes the pool for N instances instead (valgrind
        // with several instances).
        max_instances: match std::env::var("PROFILE_POOL") {
            Ok(n) => n.parse().expect("PROFILE_POOL: a number of instances"),
            Err(_) if instances > 1 => 20_100,
            Err(_) => 4,
        },
        // Deadlines stay compiled in, as by default, but long: under
        // valgrind a call runs some fifty times slower than it would.
        limits: ScriptLimits {
            update_deadline: match std::env::var_os("PROFILE_NO_DEADLINE") {
                Some(_) => None,
                None => Some(Duration::from_secs(60)),
            },
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
    let started = Instant::now();
    runtime.run_frames(frames);
    let took = started.elapsed();
    if let Ok(counted) = std::env::var("PROFILE_PAGES") {
        let counted = counted.parse().expect("PROFILE_PAGES: a number of frames");
        touched_pages(&mut runtime, counted, instances)?;
    }
    println!(
        "{} frames, {} errors",
        runtime.frame(),
        runtime.inspect().errors().len()
    );
    if frames > 0 && instances > 0 {
        println!(
            "{frames} frames of {instances} instances took {took:?}, {:.0} ns an instance-frame",
            took.as_nanos() as f64 / (frames * u64::from(instances)) as f64
        );
    }
    for error in runtime.inspect().errors() {
        eprintln!("{}", error.report());
    }
    Ok(())
}

/// Runs `frames` frames one at a time, each after clearing every page's
/// referenced bit, and prints the memory referenced by each frame's end,
/// by mapping: the mappings that hold the most first, per frame and per
/// instance (Linux only).
fn touched_pages(runtime: &mut Runtime, frames: u64, instances: u32) -> anyhow::Result<()> {
    let mut kib: std::collections::BTreeMap<String, u64> = Default::default();
    for _ in 0..frames {
        std::fs::write("/proc/self/clear_refs", "1")?;
        runtime.step();
        let smaps = std::fs::read_to_string("/proc/self/smaps")?;
        let mut mapping = String::new();
        for line in smaps.lines() {
            let mut fields = line.split_whitespace();
            let first = fields.next().unwrap_or_default();
            if let Some((start, end)) = first.split_once('-')
                && let (Ok(start), Ok(end)) =
                    (u64::from_str_radix(start, 16), u64::from_str_radix(end, 16))
            {
                let name = fields.nth(4).unwrap_or("anonymous");
                mapping = format!("{name} ({} MiB)", (end - start) >> 20);
            } else if first == "Referenced:" {
                let referenced: u64 = fields.next().unwrap_or("0").parse()?;
                *kib.entry(mapping.clone()).or_default() += referenced;
            }
        }
    }
    let mut rows: Vec<_> = kib.into_iter().filter(|(_, k)| *k > 0).collect();
    rows.sort_by_key(|(_, k)| std::cmp::Reverse(*k));
    let total: u64 = rows.iter().map(|(_, k)| k).sum();
    let per_frame = |k: u64| k as f64 / frames as f64;
    println!(
        "referenced per frame: {:.0} KiB, {:.1} pages of 4 KiB per instance",
        per_frame(total),
        per_frame(total) / 4.0 / f64::from(instances)
    );
    for (mapping, k) in rows.iter().take(12) {
        println!(
            "  {:>9.0} KiB  {:>6.2} pages/instance  {mapping}",
            per_frame(*k),
            per_frame(*k) / 4.0 / f64::from(instances)
        );
    }
    Ok(())
}
