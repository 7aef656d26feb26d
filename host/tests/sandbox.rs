//! The sandbox: hostile scripts built from source (`scripts/hostile`, one
//! misbehaviour per mode) run beside the spinning cube. For each, the host
//! keeps stepping frames, the cube ends exactly where it ends alone, the
//! faulty frame stays within a bound of the deadline, and the error names
//! the script, the export and the cause on one line.

mod common;

use std::sync::OnceLock;
use std::time::{Duration, Instant};

use game_host::limits::{Quotas, ScriptLimits};
use game_host::log::{LogRecord, LogSource};
use game_host::runtime::RestartPolicy;
use game_host::scene::GameScene;
use game_host::{EngineOptions, RuntimeConfig, ScriptEngine, ScriptError, Transform};

const FRAMES: u64 = 30;

/// Quotas low enough that each flood meets its quota well inside the CPU
/// deadline, however slow the machine.
fn quotas() -> Quotas {
    Quotas {
        waits: 1_000,
        subscriptions: 100,
        messages_per_frame: 100,
        entities: 1_000,
        handles: 1_000,
        ..Quotas::default()
    }
}

fn engine_with(limits: ScriptLimits) -> ScriptEngine {
    ScriptEngine::new(EngineOptions {
        cache_dir: Some(common::cache_dir()),
        max_instances: 16,
        limits,
        ..EngineOptions::default()
    })
    .expect("engine")
}

/// The cube after `FRAMES` frames on its own.
fn cube_alone() -> Transform {
    static ALONE: OnceLock<Transform> = OnceLock::new();
    *ALONE.get_or_init(|| {
        let engine = common::engine();
        let cube = common::load(&engine, "spinning-cube");
        let (mut runtime, _) = common::runtime();
        runtime.spawn(&cube).unwrap();
        runtime.run_frames(FRAMES);
        common::transform(&runtime, "cube")
    })
}

struct Run {
    cube: Transform,
    errors: Vec<ScriptError>,
    /// Time `spawn` of the hostile script took (its `entrypoint`).
    spawn: Duration,
    /// The slowest frame.
    slowest: Duration,
    live: usize,
    frames: u64,
    /// Log records of the hostile script.
    hostile_log: Vec<LogRecord>,
}

/// Runs the hostile script in `mode` beside the spinning cube.
fn beside_cube(engine: &ScriptEngine, mode: &str) -> Run {
    let cube = common::load(engine, "spinning-cube");
    let hostile = common::load(engine, "hostile");
    let (mut runtime, log) = common::runtime_with(RuntimeConfig {
        quotas: quotas(),
        ..RuntimeConfig::default()
    });
    runtime
        .scene()
        .lock()
        .unwrap()
        .spawn(&format!("hostile:{mode}"));
    runtime.spawn(&cube).unwrap();
    let started = Instant::now();
    let _ = runtime.spawn(&hostile);
    let spawn = started.elapsed();
    let mut slowest = Duration::ZERO;
    for _ in 0..FRAMES {
        let started = Instant::now();
        runtime.step();
        slowest = slowest.max(started.elapsed());
    }
    eprintln!("{mode}: entrypoint {spawn:?}, slowest frame {slowest:?}");
    Run {
        cube: common::transform(&runtime, "cube"),
        errors: runtime.inspect().errors().to_vec(),
        spawn,
        slowest,
        live: runtime.inspect().live_instances(),
        frames: runtime.frame(),
        hostile_log: log
            .records()
            .into_iter()
            .filter(|r| r.script == "test_hostile")
            .collect(),
    }
}

/// The hostile script failed once, in `export`, with a one-line error that
/// contains `cause`; the cube ran on unchanged.
fn assert_contained(run: &Run, export: &str, cause: &str) {
    assert_eq!(run.frames, FRAMES);
    assert_eq!(run.cube, cube_alone(), "the healthy script was disturbed");
    assert_eq!(run.live, 1, "only the healthy script runs on");
    assert_eq!(run.errors.len(), 1, "{:?}", run.errors);
    let line = run.errors[0].to_string();
    assert!(!line.contains('\n'), "not one line: {line}");
    assert!(line.starts_with("script `test_hostile` ("), "{line}");
    assert!(line.contains(&format!("failed in `{export}`")), "{line}");
    assert!(line.contains(cause), "expected `{cause}` in: {line}");
}

/// Default limits: 5 ms per update, 100 ms per start.
fn default_engine() -> ScriptEngine {
    engine_with(ScriptLimits::default())
}

const UPDATE_BOUND: Duration = Duration::from_millis(50); // 10x the 5 ms deadline
/// 10x the 5 ms deadline and the 20 ms of credit an instance starts with,
/// which an endless loop spends.
const LOOP_BOUND: Duration = Duration::from_millis(250);
const START_BOUND: Duration = Duration::from_secs(1); // 10x the 100 ms deadline

#[test]
fn an_endless_loop_in_on_update_is_stopped_after_its_deadline_and_credit() {
    let run = beside_cube(&default_engine(), "loop-update");
    assert_contained(
        &run,
        "on-update",
        "ran past its CPU deadline of 5 ms for one call and was stopped \
         (after spending its 20 ms of credit)",
    );
    assert!(run.slowest < LOOP_BOUND, "{:?}", run.slowest);
    assert_eq!(run.errors[0].frame, 1);
}

#[test]
fn a_script_may_get_its_own_budget() {
    let engine = default_engine();
    let cube = common::load(&engine, "spinning-cube");
    let generous = ScriptLimits {
        update_deadline: Some(Duration::from_millis(20)),
        ..ScriptLimits::default()
    };
    let trusted = common::load(&engine, "hostile")
        .with_limits(generous)
        .unwrap();
    let (mut runtime, _) = common::runtime();
    runtime.scene().lock().unwrap().spawn("hostile:loop-update");
    runtime.spawn(&cube).unwrap();
    runtime.spawn(&trusted).unwrap();
    runtime.run_frames(2);
    assert_eq!(runtime.inspect().errors().len(), 1);
    let cause = &runtime.inspect().errors()[0].cause;
    assert!(cause.contains("CPU deadline of 20 ms"), "{cause}");
    // What the engine cannot enforce is refused.
    let too_much = ScriptLimits {
        memory: 128 << 20,
        ..ScriptLimits::default()
    };
    let error = cube.with_limits(too_much).err().unwrap().to_string();
    assert!(error.contains("its engine allows 64 MiB"), "{error}");
    let unlimited = engine_with(ScriptLimits::unlimited());
    let error = common::load(&unlimited, "spinning-cube")
        .with_limits(ScriptLimits::default())
        .err()
        .unwrap()
        .to_string();
    assert!(error.contains("made without them"), "{error}");
}

#[test]
fn an_endless_loop_in_entrypoint_is_stopped_at_its_deadline() {
    let run = beside_cube(&default_engine(), "loop-entrypoint");
    assert_contained(&run, "entrypoint", "ran past its CPU deadline of 100 ms");
    assert!(run.spawn < START_BOUND, "{:?}", run.spawn);
    assert!(run.slowest < UPDATE_BOUND, "{:?}", run.slowest);
}

#[test]
fn an_endless_loop_in_restore_state_fails_the_swap_and_the_old_version_runs_on() {
    let engine = default_engine();
    let hostile = common::load(&engine, "hostile");
    let (mut runtime, log) = common::runtime();
    runtime
        .scene()
        .lock()
        .unwrap()
        .spawn("hostile:loop-restore");
    let id = runtime.spawn(&hostile).unwrap();
    runtime.run_frames(2);
    let started = Instant::now();
    let error = runtime.hot_swap(id, &hostile).unwrap_err();
    let pause = started.elapsed();
    eprintln!("loop-restore: swap attempt took {pause:?}");
    let text = format!("{error:#}");
    assert!(text.contains("the old version keeps running"), "{text}");
    assert!(text.contains("failed in `restore-state`"), "{text}");
    assert!(
        text.contains("ran past its CPU deadline of 100 ms"),
        "{text}"
    );
    assert!(pause < START_BOUND, "{pause:?}");
    runtime.run_frames(2);
    let ticks: Vec<String> = log
        .messages()
        .into_iter()
        .filter(|m| m.starts_with("tick"))
        .collect();
    assert_eq!(ticks, ["tick 1", "tick 2", "tick 3", "tick 4"]);
    assert_eq!(runtime.inspect().instance(id).unwrap().swaps, 0);
}

#[test]
fn a_blocking_sleep_fails_the_script_at_once_instead_of_freezing_the_frame() {
    let run = beside_cube(&default_engine(), "sleep");
    assert_contained(&run, "on-update", "would freeze the frame loop");
    assert!(
        run.errors[0].cause.contains("script::time::wait_seconds"),
        "{}",
        run.errors[0].cause
    );
    assert_eq!(run.errors[0].frame, 1);
    assert!(run.slowest < UPDATE_BOUND, "{:?}", run.slowest);
}

#[test]
fn wasi_timers_run_on_game_time_not_the_machines() {
    // 1 ns of real time passes while the host looks; game time does not,
    // so the sleep would block whatever the machine's speed.
    let run = beside_cube(&default_engine(), "sleep-1ns");
    assert_contained(&run, "on-update", "would freeze the frame loop");
    assert_eq!(run.errors[0].frame, 1);
}

#[test]
fn a_wasi_wait_that_is_ready_at_once_is_allowed() {
    let run = beside_cube(&default_engine(), "ready-timer");
    assert!(run.errors.is_empty(), "{:?}", run.errors);
    let ready = run
        .hostile_log
        .iter()
        .filter(|r| r.message == "timer ready")
        .count();
    assert_eq!(ready as u64, FRAMES);
}

#[test]
fn a_memory_bomb_fails_at_its_limit_and_the_host_stays_small() {
    let engine = engine_with(ScriptLimits {
        memory: 16 << 20,
        update_deadline: Some(Duration::from_millis(50)),
        ..ScriptLimits::default()
    });
    let run = beside_cube(&engine, "memory");
    assert_contained(&run, "on-update", "past its limit of 16 MiB");
    assert!(
        run.slowest < Duration::from_millis(500),
        "{:?}",
        run.slowest
    );
    let peak = common::memory::status_kib("VmHWM");
    eprintln!("memory: peak RSS of the test process {} MiB", peak >> 10);
    assert!(peak < 1 << 20, "peak RSS {peak} KiB");
}

#[test]
fn unbounded_recursion_is_contained() {
    let run = beside_cube(&default_engine(), "recursion");
    // Rust keeps large locals on a shadow stack in linear memory: whichever
    // stack runs out first, wasm's call stack or that one, traps.
    let cause = &run.errors.first().expect("an error").cause;
    let overflow = if cause.contains("call stack exhausted") {
        "call stack exhausted"
    } else {
        "out of bounds memory access"
    };
    assert_contained(&run, "on-update", overflow);
    assert!(run.slowest < UPDATE_BOUND, "{:?}", run.slowest);
}

#[test]
fn floods_of_host_state_meet_their_quotas() {
    let engine = default_engine();
    for (mode, cause) in [
        ("waits", "quota exceeded: more than 1000 pending waits"),
        (
            "subscriptions",
            "quota exceeded: more than 100 update subscriptions",
        ),
        (
            "handles",
            "quota exceeded: more than 1000 transform-component handles held at once",
        ),
        (
            "entities",
            "quota exceeded: more than 1000 entities spawned",
        ),
        (
            "entities-bulk",
            "quota exceeded: more than 1000 entities spawned",
        ),
        (
            "messages",
            "quota exceeded: more than 100 messages sent in one frame",
        ),
    ] {
        let run = beside_cube(&engine, mode);
        assert_contained(&run, "on-update", cause);
        assert!(run.slowest < UPDATE_BOUND, "{mode}: {:?}", run.slowest);
    }
}

#[test]
fn entity_calls_with_bad_ids_or_values_fail_naming_them() {
    let engine = default_engine();
    for (mode, cause) in [
        ("bad-entity-id", "entities: no entity has id 4000000000"),
        ("bad-entity-write", "entity: no entity has id 4000000000"),
        ("bad-entity-read", "entity: no entity has id 4000000000"),
        (
            "bad-values",
            "entities: set-positions got 2 ids and 5 values; it takes 3 values per id",
        ),
    ] {
        let run = beside_cube(&engine, mode);
        assert_contained(&run, "on-update", cause);
        assert_eq!(run.errors[0].frame, 1, "{mode}");
    }
}

#[test]
fn log_floods_are_capped_per_frame_and_summarised() {
    let engine = default_engine();
    let q = Quotas::default();
    for (mode, source, kept) in [
        ("log-lines", LogSource::Api, q.log_lines_per_frame),
        ("stdout", LogSource::Stdout, q.log_bytes_per_frame / 4096),
    ] {
        let run = beside_cube(&engine, mode);
        // The flood is endless, so the deadline ends it.
        assert_contained(&run, "on-update", "ran past its CPU deadline");
        let lines = run
            .hostile_log
            .iter()
            .filter(|r| r.source == source && r.frame == 1)
            .count();
        assert_eq!(lines, kept, "{mode}");
        let summaries: Vec<&LogRecord> = run
            .hostile_log
            .iter()
            .filter(|r| r.source == LogSource::Host)
            .collect();
        assert_eq!(summaries.len(), 1, "{mode}: {summaries:?}");
        let summary = &summaries[0].message;
        assert!(
            summary.starts_with("script `test_hostile` logged ")
                && summary.contains("more line(s)")
                && summary.contains("in frame 1")
                && summary.ends_with("dropped"),
            "{summary}"
        );
    }
}

#[test]
fn a_failed_script_restarts_with_backoff_then_stays_down() {
    let engine = default_engine();
    let hostile = common::load(&engine, "hostile");
    let cube = common::load(&engine, "spinning-cube");
    let (mut runtime, log) = common::runtime_with(RuntimeConfig {
        restart: RestartPolicy {
            max_restarts: 2,
            backoff_frames: 5,
        },
        ..RuntimeConfig::default()
    });
    runtime.scene().lock().unwrap().spawn("hostile:trap-once");
    runtime.spawn(&cube).unwrap();
    let id = runtime.spawn(&hostile).unwrap();
    runtime.run_frames(FRAMES);
    // Fails at frame 1; restarts after 5 frames (fails at 7), then after 10
    // (fails at 18); then the policy's two restarts are spent.
    let frames: Vec<u64> = runtime.inspect().errors().iter().map(|e| e.frame).collect();
    assert_eq!(frames, [1, 7, 18]);
    assert!(runtime.inspect().errors().iter().all(|e| e.instance == id));
    let starts = log
        .messages()
        .into_iter()
        .filter(|m| m == "started trap-once")
        .count();
    assert_eq!(starts, 3);
    assert_eq!(runtime.inspect().live_instances(), 1);
    assert_eq!(common::transform(&runtime, "cube"), cube_alone());
}

#[test]
fn a_script_built_for_another_api_version_says_which() {
    let engine = default_engine();
    let error = engine
        .load_file(&common::build("api-0-3-0"))
        .map(drop)
        .unwrap_err();
    let text = format!("{error:#}");
    assert!(
        text.contains(&format!(
            "it was built against game:engine@0.3.0, but this host provides game:engine@{}, \
             which is not compatible with it",
            game_host::guest::engine::API_VERSION
        )),
        "{text}"
    );
    assert!(!text.contains("implementation was not found"), "{text}");
}

#[test]
fn a_runtime_without_limits_still_runs_scripts() {
    // The unlimited engine compiles no epoch checks and sets no deadlines.
    let engine = engine_with(ScriptLimits::unlimited());
    let cube = common::load(&engine, "spinning-cube");
    let (mut runtime, _) = common::runtime();
    runtime.spawn(&cube).unwrap();
    runtime.run_frames(FRAMES);
    assert_eq!(common::transform(&runtime, "cube"), cube_alone());
}
