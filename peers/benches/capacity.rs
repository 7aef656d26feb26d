//! Capacity of one world on every core: `cargo bench -p peers --bench
//! capacity` (`-- --quick` for fewer frames and no 20,000).
//!
//! On 1 and 2 frame threads (`RuntimeConfig::frame_threads`), side by side
//! in one run:
//! - cube instances (the peers script keeping the cube's id, as
//!   `benches/peers.rs` measures one core) and entity behaviours (64
//!   instances, each with its share) that fit in one 16.7 ms frame, and the
//!   speedup;
//! - the frame time, median and 99th percentile, with 1,000, 5,000 and
//!   20,000 cube instances, and per instance.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use game_host::limits::{Quotas, ScriptLimits};
use game_host::log::MemoryLog;
use game_host::scene::GameScene;
use game_host::sync::LockExt;
use game_host::{EngineOptions, Runtime, RuntimeConfig, ScriptComponent, ScriptEngine};
use game_host_build::{BuildOutput, build_script_crate};

/// Nanoseconds in one 60 Hz frame.
const FRAME_NS: f64 = 1e9 / 60.0;
/// Instances the behaviours are shared among (enough tasks for every
/// thread, as a game with many objects has).
const BEHAVIOUR_INSTANCES: usize = 64;
/// Behaviours in each of them (the peers script's count of 10,000).
const BEHAVIOURS_EACH: usize = 10_000;

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let frames = if quick { 30 } else { 120 };
    let sizes: &[usize] = if quick {
        &[1_000, 5_000]
    } else {
        &[1_000, 5_000, 20_000]
    };
    let largest = *sizes.iter().max().unwrap();
    let engine = ScriptEngine::new(EngineOptions {
        cache_dir: None,
        max_instances: largest as u32 + 100,
        limits: ScriptLimits {
            update_deadline: Some(Duration::from_secs(1)),
            start_deadline: Duration::from_secs(5),
            ..ScriptLimits::default()
        },
        ..EngineOptions::default()
    })
    .expect("engine");
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../host/tests/scripts/peers");
    let file = build_script_crate(&dir, BuildOutput::Capture).expect("build the peers script");
    let peers = engine.load_file(&file).expect("load");
    let threads = [1, 2];

    println!("| frame time, cube instances | threads | median | 99th percentile | per instance |");
    println!("| ---: | ---: | ---: | ---: | ---: |");
    let mut per_cube = Vec::new();
    for &n in sizes {
        for &t in &threads {
            let times = frame_times(&peers, "peers:kept", n, t, frames);
            let (p50, p99) = (percentile(&times, 50), percentile(&times, 99));
            println!(
                "| {n} | {t} | {:.2} ms | {:.2} ms | {:.0} ns |",
                p50 * 1e-6,
                p99 * 1e-6,
                p50 / n as f64
            );
            if n == 5_000 {
                per_cube.push(p50 / n as f64);
            }
        }
    }

    let mut per_behaviour = Vec::new();
    for &t in &threads {
        let times = frame_times(
            &peers,
            &format!("peers:behaviours:{BEHAVIOURS_EACH}"),
            BEHAVIOUR_INSTANCES,
            t,
            frames.min(60),
        );
        per_behaviour.push(percentile(&times, 50) / (BEHAVIOUR_INSTANCES * BEHAVIOURS_EACH) as f64);
    }

    println!();
    println!("| in one 60 Hz frame | 1 thread | 2 threads | speedup |");
    println!("| --- | ---: | ---: | ---: |");
    for (what, per) in [
        ("cube instances (5,000 measured)", &per_cube),
        ("entity behaviours (64 instances x 10,000)", &per_behaviour),
    ] {
        println!(
            "| {what} | {:.0} ({:.0} ns each) | {:.0} ({:.0} ns each) | {:.2}x |",
            FRAME_NS / per[0],
            per[0],
            FRAME_NS / per[1],
            per[1],
            per[0] / per[1]
        );
    }
}

/// Each frame's time, in ns, of `instances` instances of `script` (its
/// mode set by a `marker` entity) on `threads` frame threads, after a
/// warm-up.
fn frame_times(
    script: &ScriptComponent,
    marker: &str,
    instances: usize,
    threads: usize,
    frames: usize,
) -> Vec<f64> {
    let mut runtime = Runtime::new(RuntimeConfig {
        log: Arc::new(MemoryLog::new()),
        quotas: Quotas {
            entities: 1 << 20,
            ..Quotas::default()
        },
        frame_threads: threads,
        ..RuntimeConfig::default()
    });
    runtime.scene().lock_unpoisoned().spawn(marker);
    for _ in 0..instances {
        runtime.spawn(script).expect("spawn");
    }
    runtime.run_frames(10);
    let mut times: Vec<f64> = (0..frames)
        .map(|_| {
            let start = Instant::now();
            runtime.step();
            start.elapsed().as_nanos() as f64
        })
        .collect();
    assert!(
        runtime.inspect().errors().is_empty(),
        "{:?}",
        runtime.inspect().errors()
    );
    times.sort_by(f64::total_cmp);
    times
}

/// The `p`th percentile of sorted `times`.
fn percentile(times: &[f64], p: usize) -> f64 {
    times[(times.len() - 1) * p / 100]
}
