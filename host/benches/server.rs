//! Server capacity: how many worlds one loop thread ticks within its frame
//! budget, for 1 and 2 loop threads, at 60 Hz and at 10 Hz, with two kinds
//! of world:
//!
//! - `cube`: the spinning-cube example (one light instance);
//! - `heavy`: the cube plus a script computing `fib(25)` every frame (about
//!   0.5 ms of guest compute: a world with real work).
//!
//! Each case ramps the worlds per thread up by a quarter per window (1 s
//! at 60 Hz, 2 s at 10 Hz) until a window has an overrun (a frame longer
//! than the budget) twice in a row; the capacity is the last count that
//! held. Then each case runs at 75% of its 60 Hz capacity for 3 s and
//! reports frame-time percentiles there.
//!
//! Worlds are capped at `SERVER_BENCH_MAX_INSTANCES` instances in all
//! (default 14,000): each pooled instance maps a few memory regions, and
//! Linux's default `vm.max_map_count` (65,530) stops a process at about
//! 15,000 (see docs/scaling.md).
//!
//! Run with `cargo bench -p game-host-cli --bench server`; on a bigger machine,
//! `SERVER_BENCH_THREADS=1,2,4,8` (and a raised `vm.max_map_count` with
//! `SERVER_BENCH_MAX_INSTANCES`).

use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{env_or, load, pooled_engine};
use game_host::ScriptComponent;
use game_host::log::MemoryLog;
use game_host::runtime::RuntimeConfig;
use game_host_server::ThreadSummary;
use game_host_server::{Server, ServerConfig, WorldSpec};

#[path = "../tests/common/memory.rs"]
mod memory;

mod common;

struct Case {
    kind: &'static str,
    scripts: Vec<ScriptComponent>,
    /// Worlds per thread to start the ramp at, at 60 Hz.
    start: usize,
}

/// What a ramp found.
struct Ramp {
    per_thread: usize,
    capped: bool,
    at_capacity: Vec<ThreadSummary>,
}

fn server(threads: usize, hz: f64) -> Server {
    Server::start(ServerConfig {
        threads,
        runtime: RuntimeConfig {
            hz,
            // Scripts' log lines stay in memory (the cube logs once).
            log: Arc::new(MemoryLog::new()),
            ..RuntimeConfig::default()
        },
        // Measure overruns; never stop a world for them.
        overrun_frames: u32::MAX,
        ..ServerConfig::default()
    })
    .expect("server")
}

/// Starts worlds until there are `count`; the time per world.
fn fill(server: &Server, spec: &WorldSpec, count: usize) -> Duration {
    let started = Instant::now();
    let adding = count.saturating_sub(server.world_count());
    while server.world_count() < count {
        server.start_world(spec).expect("start world");
    }
    started.elapsed() / adding.max(1) as u32
}

/// One window's figures, after letting `settle` pass unmeasured.
fn window(server: &Server, settle: Duration, length: Duration) -> Vec<ThreadSummary> {
    std::thread::sleep(settle);
    server.take_window();
    std::thread::sleep(length);
    server.take_window()
}

fn overran(window: &[ThreadSummary]) -> bool {
    window.iter().any(|t| t.overruns > 0)
}

fn ramp(case: &Case, threads: usize, hz: f64, max_instances: usize) -> Ramp {
    let server = server(threads, hz);
    let spec = WorldSpec {
        scripts: case.scripts.clone(),
        frames: None,
        seed: None,
        stream_every: None,
        stream_precision: None,
        grants: None,
        open_to_players: None,
        play: None,
    };
    let dt = Duration::from_secs_f64(1.0 / hz);
    let (settle, length) = (
        dt * 6,
        Duration::from_secs_f64((20.0 * dt.as_secs_f64()).max(1.0)),
    );
    let scale = (60.0 / hz) as usize;
    let cap = max_instances / case.scripts.len() / threads;
    let mut per_thread = (case.start * scale).min(cap);
    let mut held = None;
    loop {
        fill(&server, &spec, per_thread * threads);
        let mut figures = window(&server, settle, length);
        if overran(&figures) {
            figures = window(&server, settle, length);
            if overran(&figures) {
                break;
            }
        }
        held = Some((per_thread, figures));
        if per_thread >= cap {
            break;
        }
        per_thread = (per_thread + per_thread / 4).max(per_thread + 1).min(cap);
    }
    let (count, at_capacity) = held.unwrap_or((0, Vec::new()));
    drop(server);
    Ramp {
        per_thread: count,
        capped: count >= cap,
        at_capacity,
    }
}

fn aggregate(figures: &[ThreadSummary]) -> (f64, f64, f64, f64) {
    let max = |f: fn(&ThreadSummary) -> f64| figures.iter().map(f).fold(0.0, f64::max);
    (
        max(|t| t.frame_ms.p50),
        max(|t| t.frame_ms.p99),
        max(|t| t.frame_ms.max),
        figures.iter().map(|t| t.updates_per_second).sum(),
    )
}

fn main() {
    // `cargo bench` passes `--bench`; this bench takes no filter.
    let threads_list: Vec<usize> = std::env::var("SERVER_BENCH_THREADS")
        .unwrap_or_else(|_| "1,2".into())
        .split(',')
        .filter_map(|n| n.trim().parse().ok())
        .collect();
    let max_instances: usize = env_or("SERVER_BENCH_MAX_INSTANCES", 14_000);
    let engine = pooled_engine(max_instances as u32 + 64);
    let cube = load(&engine, "examples/spinning-cube");
    let fib = load(&engine, "host/tests/scripts/fib");
    let cases = [
        Case {
            kind: "cube",
            scripts: vec![cube.clone()],
            start: 500,
        },
        Case {
            kind: "heavy",
            scripts: vec![cube.clone(), fib],
            start: 10,
        },
    ];

    // Start cost and memory of a cube world.
    {
        let server = server(1, 60.0);
        let spec = WorldSpec {
            scripts: vec![cube.clone()],
            frames: None,
            seed: None,
            stream_every: None,
            stream_precision: None,
            grants: None,
            open_to_players: None,
            play: None,
        };
        fill(&server, &spec, 100);
        let rss = memory::status_kib("VmRSS");
        let per_world = fill(&server, &spec, 2100);
        std::thread::sleep(Duration::from_millis(200));
        let grown = memory::status_kib("VmRSS").saturating_sub(rss);
        println!(
            "cube world: start_world {:.1} µs, RSS {:.1} KiB per world (2,000 worlds)",
            per_world.as_secs_f64() * 1e6,
            grown as f64 / 2000.0
        );
    }

    println!(
        "\n| threads | world | worlds/thread at 60 Hz | worlds/thread at 10 Hz | \
         60 Hz at 75%: worlds | p50 ms | p99 ms | max ms | updates/s |"
    );
    println!("| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    for &threads in &threads_list {
        for case in &cases {
            let fast = ramp(case, threads, 60.0, max_instances);
            let slow = ramp(case, threads, 10.0, max_instances);
            let steady = (fast.per_thread * 3 / 4).max(1) * threads;
            let server = server(threads, 60.0);
            let spec = WorldSpec {
                scripts: case.scripts.clone(),
                frames: None,
                seed: None,
                stream_every: None,
                stream_precision: None,
                grants: None,
                open_to_players: None,
                play: None,
            };
            fill(&server, &spec, steady);
            let figures = window(&server, Duration::from_millis(200), Duration::from_secs(3));
            let (p50, p99, max, updates) = aggregate(&figures);
            drop(server);
            let capacity = |ramp: &Ramp| {
                let (_, p99, _, _) = aggregate(&ramp.at_capacity);
                format!(
                    "{}{} (p99 {p99:.1} ms)",
                    if ramp.capped { ">= " } else { "" },
                    ramp.per_thread
                )
            };
            println!(
                "| {threads} | {} | {} | {} | {steady} | {p50:.2} | {p99:.2} | {max:.2} | {updates:.0} |",
                case.kind,
                capacity(&fast),
                capacity(&slow),
            );
        }
    }
    println!(
        "\nBudgets: 16.67 ms at 60 Hz, 100 ms at 10 Hz. `>=`: the ramp reached the \
         instance cap ({max_instances}) before any overrun."
    );
}
