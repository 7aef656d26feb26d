//! Durable worlds (`host serve --state-dir`): what keeping every world's
//! log costs the loop threads, how many bytes a world's log takes, and how
//! long a world takes to resume against its age.
//!
//! 1. **Frame time.** 200 worlds of arena and the spinning cube, each with
//!    4 players pressing a key about once a second each, on one loop thread
//!    at 60 Hz: frame p50 / p99 over 10 s with durability off and on, in
//!    the order off, on, on, off in one process, with the CPU time of the
//!    loop thread and of the log writer.
//! 2. **Log size and resume time.** One such world run headless for 1, 10
//!    and 60 minutes of game time, its log written by a [`Journal`] as a
//!    server writes it; then a server resumes it from a state directory.
//!
//! Run with `cargo bench -p game-host-cli --bench durable`
//! (`DURABLE_BENCH_WORLDS`, `DURABLE_BENCH_SECONDS` and
//! `DURABLE_BENCH_MINUTES=1,10,60` change the sizes).

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{env_or, load, pooled_engine};
use game_host::input::{Event, Key};
use game_host::jobs::JobDelivery;
use game_host::log::MemoryLog;
use game_host::players::{PlayerEvent, PlayerInput};
use game_host::record::{Journal, JournalWriter, RunSettings};
use game_host::runtime::RuntimeConfig;
use game_host::{Runtime, ScriptComponent};
use game_host_server::durable::StateConfig;
use game_host_server::{Server, ServerConfig, ThreadSummary, WorldId, WorldSpec};

mod common;

const HZ: f64 = 60.0;
const PLAYERS: u64 = 4;

/// A key for player `player` at `frame`: each presses and releases an
/// arrow key about once a second, at its own time.
fn key_at(frame: u64, player: u64) -> Option<Event> {
    let phase = (frame + player * 13) % 60;
    let key = [Key::Left, Key::Right, Key::Up, Key::Down][(frame / 60 % 4) as usize];
    match phase {
        0 => Some(Event::KeyPressed(key)),
        6 => Some(Event::KeyReleased(key)),
        _ => None,
    }
}

fn runtime_config() -> RuntimeConfig {
    RuntimeConfig {
        hz: HZ,
        log: Arc::new(MemoryLog::new()),
        jobs: JobDelivery::Lockstep,
        ..RuntimeConfig::default()
    }
}

/// What one run measured.
struct Run {
    /// Frame p50 and p99 in ms (of the one loop thread).
    p50: f64,
    p99: f64,
    /// CPU time of the loop thread, and of the log writer, per second of
    /// the window (1.0: a whole core).
    loops_cpu: f64,
    writer_cpu: f64,
    /// Bytes in the state directory at the end.
    bytes: u64,
}

/// `worlds` worlds played for `seconds`, durable in a fresh state
/// directory when `durable`.
fn frame_times(scripts: &[ScriptComponent], worlds: usize, seconds: f64, durable: bool) -> Run {
    let state = tempfile::tempdir().expect("state dir");
    let server = Server::start(ServerConfig {
        // One loop thread: with two, how the worlds fall between them
        // differs from run to run (placement follows measured load), and
        // that swamps what is measured here.
        threads: 1,
        runtime: runtime_config(),
        overrun_frames: u32::MAX,
        max_players: 8,
        state: durable.then(|| StateConfig {
            dir: state.path().to_owned(),
            flush_every: 6,
            directory: None,
        }),
        ..ServerConfig::default()
    })
    .expect("server");
    let spec = WorldSpec {
        scripts: scripts.to_vec(),
        ..WorldSpec::default()
    };
    let mut ids: Vec<(WorldId, Vec<u64>)> = Vec::new();
    for _ in 0..worlds {
        let id = server.start_world(&spec).expect("world");
        let players = (0..PLAYERS)
            .map(|_| server.admit_player(id).expect("player").0)
            .collect();
        ids.push((id, players));
    }
    let play = |for_how_long: Duration| {
        let started = Instant::now();
        let mut frame = 0;
        while started.elapsed() < for_how_long {
            frame += 1;
            for (id, players) in &ids {
                for (n, player) in players.iter().enumerate() {
                    if let Some(event) = key_at(frame + id.0, n as u64) {
                        let _ = server.player_input(*id, *player, event);
                    }
                }
            }
            std::thread::sleep(Duration::from_secs_f64(1.0 / HZ));
        }
    };
    play(Duration::from_secs(2));
    server.take_window();
    let before = thread_cpu();
    play(Duration::from_secs_f64(seconds));
    let window: Vec<ThreadSummary> = server.take_window();
    let after = thread_cpu();
    let used = |prefix: &str| {
        let sum = |all: &[(String, f64)]| -> f64 {
            all.iter()
                .filter(|(name, _)| name.starts_with(prefix))
                .map(|(_, s)| s)
                .sum()
        };
        (sum(&after) - sum(&before)) / seconds
    };
    let max = |f: fn(&ThreadSummary) -> f64| window.iter().map(f).fold(0.0, f64::max);
    Run {
        p50: max(|t| t.frame_ms.p50),
        p99: max(|t| t.frame_ms.p99),
        loops_cpu: used("loop-"),
        writer_cpu: used("journal"),
        bytes: dir_bytes(state.path()),
    }
}

fn dir_bytes(dir: &Path) -> u64 {
    walk(dir)
        .iter()
        .map(|p| p.metadata().map_or(0, |m| m.len()))
        .sum()
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files
}

/// Writes world 1 of a state directory at `state`: arena and the cube
/// with 4 players, played headless for `frames` frames, its log written by
/// a journal as a server writes it. Returns the log's bytes.
fn aged_world(state: &Path, scripts: &[ScriptComponent], frames: u64) -> u64 {
    let dir = state.join("worlds/1");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::create_dir_all(state.join("components")).unwrap();
    std::fs::write(
        dir.join("world.json"),
        r#"{"id":1,"frames":null,"stream_every":1,"grants":null,"max_restarts":0,"backoff_frames":30}"#,
    )
    .unwrap();
    std::fs::write(dir.join("seats.jsonl"), "").unwrap();
    let config = runtime_config();
    let mut runtime = Runtime::new(RuntimeConfig {
        seed: 1,
        ..config.clone()
    });
    for script in scripts {
        runtime.spawn(script).expect("spawn");
    }
    let writer = JournalWriter::start(state).unwrap();
    let settings = RunSettings {
        hz: HZ,
        seed: 1,
        checkpoint_every: 60,
        canonical_nans: true,
        open_to_players: config.open_to_players.clone(),
        player_bytes_per_frame: config.player_bytes_per_frame,
    };
    let listed: Vec<_> = scripts.iter().map(|s| (s.clone(), 1)).collect();
    let log = dir.join("log.rec");
    let journal = Journal::create(&writer, &log, settings, &listed, 6).unwrap();
    let suspender = journal.suspender();
    runtime.observe(Box::new(journal));
    for player in 1..=PLAYERS {
        runtime.input().player(PlayerEvent::Joined(player));
    }
    for frame in 1..=frames {
        for player in 1..=PLAYERS {
            if let Some(event) = key_at(frame, player) {
                runtime
                    .input()
                    .player(PlayerEvent::Input(PlayerInput { player, event }));
            }
        }
        runtime.step();
        runtime.take_player_messages();
    }
    suspender.suspend();
    runtime.finish_observing().unwrap();
    drop(runtime);
    writer.close();
    log.metadata().unwrap().len()
}

/// Seconds a server takes to resume the state directory `state`.
fn resume_seconds(state: &Path, scripts: &[ScriptComponent]) -> f64 {
    let server = Server::start(ServerConfig {
        runtime: runtime_config(),
        canonical_nans: true,
        state: Some(StateConfig {
            directory: None,
            dir: state.to_owned(),
            flush_every: 6,
        }),
        ..ServerConfig::default()
    })
    .expect("server");
    let load = |recorded: &game_host::record::RecordedScript| {
        scripts
            .iter()
            .find(|s| s.digest_hex() == recorded.sha256)
            .cloned()
            .ok_or_else(|| anyhow::anyhow!("no such script"))
    };
    let report = server.resume(&load);
    assert_eq!(report.resumed.len(), 1, "{:?}", report.failed);
    report.seconds
}

fn main() {
    let worlds: usize = env_or("DURABLE_BENCH_WORLDS", 200);
    let seconds: f64 = env_or("DURABLE_BENCH_SECONDS", 10.0);
    let minutes: Vec<u64> = std::env::var("DURABLE_BENCH_MINUTES")
        .unwrap_or_else(|_| "1,10,60".into())
        .split(',')
        .filter_map(|n| n.trim().parse().ok())
        .collect();
    let engine = pooled_engine(2 * worlds as u32 + 64);
    let scripts = vec![
        load(&engine, "examples/arena"),
        load(&engine, "examples/spinning-cube"),
    ];

    println!(
        "## {worlds} worlds of arena + cube, {PLAYERS} players each, one loop thread at {HZ} Hz, {seconds} s windows"
    );
    println!(
        "| run | durability | frame p50 | frame p99 | loop thread's CPU | log writer's CPU | state dir bytes |"
    );
    println!("| --- | --- | ---: | ---: | ---: | ---: | ---: |");
    let mut p99 = [Vec::new(), Vec::new()];
    // Off, on, on, off: a drift of the machine over the runs weighs on
    // both alike.
    for (round, durable) in [false, true, true, false].into_iter().enumerate() {
        let run = frame_times(&scripts, worlds, seconds, durable);
        p99[usize::from(durable)].push(run.p99);
        println!(
            "| {} | {} | {:.3} ms | {:.3} ms | {:.1}% | {:.1}% | {} |",
            round + 1,
            if durable { "on" } else { "off" },
            run.p50,
            run.p99,
            run.loops_cpu * 100.0,
            run.writer_cpu * 100.0,
            run.bytes
        );
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    println!(
        "frame p99, mean of the runs: off {:.3} ms, on {:.3} ms ({:+.1}%)",
        mean(&p99[0]),
        mean(&p99[1]),
        (mean(&p99[1]) / mean(&p99[0]) - 1.0) * 100.0
    );

    println!();
    println!("## one world of arena + cube, {PLAYERS} players, resumed from its log");
    println!("| game time | frames | log | log per minute | resume |");
    println!("| ---: | ---: | ---: | ---: | ---: |");
    for minutes in minutes {
        let state = tempfile::tempdir().expect("state dir");
        let frames = minutes * 60 * HZ as u64;
        let bytes = aged_world(state.path(), &scripts, frames);
        let seconds = resume_seconds(state.path(), &scripts);
        println!(
            "| {minutes} min | {frames} | {:.1} KB | {:.1} KB | {:.3} s |",
            bytes as f64 / 1e3,
            bytes as f64 / 1e3 / minutes as f64,
            seconds
        );
    }
}

/// CPU seconds (user and system) of each of this process's threads, by
/// name (`/proc/self/task/*/stat`, in clock ticks of 1/100 s).
fn thread_cpu() -> Vec<(String, f64)> {
    let mut out = Vec::new();
    for task in std::fs::read_dir("/proc/self/task")
        .into_iter()
        .flatten()
        .flatten()
    {
        let stat = std::fs::read_to_string(task.path().join("stat")).unwrap_or_default();
        let name = std::fs::read_to_string(task.path().join("comm")).unwrap_or_default();
        // The fields after the name, which may hold spaces: state is the
        // first, utime the 12th, stime the 13th.
        let fields: Vec<&str> = stat
            .rsplit(')')
            .next()
            .unwrap_or("")
            .split_whitespace()
            .collect();
        let ticks: u64 = [11, 12]
            .iter()
            .filter_map(|&i| fields.get(i)?.parse::<u64>().ok())
            .sum();
        out.push((name.trim().to_owned(), ticks as f64 / 100.0));
    }
    out
}
