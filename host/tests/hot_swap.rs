//! Hot-swap: replacing a running instance's code, state hand-over, the
//! failure paths, and the file-watching swapper (`HotSwapper`).

mod common;

use std::collections::VecDeque;
use std::f32::consts::{FRAC_PI_2, PI};
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use game_host::Runtime;
use game_host_build::{BuildOutput, HotSwapper, SwapOutcome, build_script_crate};
use glam::Quat;

const SLOW: &str = "pub const ANGULAR_SPEED: f32 = std::f32::consts::FRAC_PI_2;";
const FAST: &str = "pub const ANGULAR_SPEED: f32 = std::f32::consts::PI;";

/// Builds the spinning cube from source twice, as `package`: at its own
/// speed (a quarter turn a second) and edited to a half turn a second.
/// Returns both components' bytes.
fn slow_and_fast(package: &str) -> (Vec<u8>, Vec<u8>) {
    let dir = common::standalone_crate("spinning-cube", package, |s| s.replace(FAST, SLOW));
    let build = |dir: &Path| {
        let wasm = build_script_crate(dir, BuildOutput::Capture).expect("build");
        std::fs::read(wasm).unwrap()
    };
    let slow = build(&dir);
    common::edit_crate(&dir, |s| {
        assert!(s.contains(SLOW));
        s.replace(SLOW, FAST)
    });
    let fast = build(&dir);
    assert_ne!(slow, fast);
    (slow, fast)
}

fn rotation(runtime: &Runtime) -> Quat {
    common::transform(runtime, "cube").rotation
}

#[test]
fn swap_mid_run_keeps_id_and_state_and_runs_the_new_code() {
    let (slow, fast) = slow_and_fast("swap-speed");
    let engine = common::engine();
    let old = engine.load_bytes("cube", &slow).unwrap();
    let new = engine.load_bytes("cube", &fast).unwrap();
    assert!(new.is_stateful());
    let (mut runtime, log) = common::runtime();
    let id = runtime.spawn(&old).unwrap();
    runtime.run_frames(60); // a quarter turn

    let report = runtime.hot_swap(id, &new).expect("swap");
    assert_eq!(report.instance, id);
    assert!(report.restored);
    assert_eq!((report.old_size, report.new_size), (slow.len(), fast.len()));

    // The scene kept its rotation, and the script its state.
    assert!(rotation(&runtime).abs_diff_eq(Quat::from_rotation_y(FRAC_PI_2), 1e-4));
    let swapped: Vec<String> = log
        .messages()
        .into_iter()
        .filter(|m| m.contains("swapped in"))
        .collect();
    assert_eq!(
        swapped,
        ["spinning cube swapped in: 1.5708 rad turned so far"]
    );
    let info = runtime.inspect().instance(id).expect("same id");
    assert_eq!(info.swaps, 1);
    assert_eq!(info.subscriptions, [0]);

    // From the swap frame on, the new speed: a half turn a second.
    runtime.run_frames(30);
    let expected = Quat::from_rotation_y(FRAC_PI_2 + PI * 0.5);
    assert!(
        rotation(&runtime).abs_diff_eq(expected, 1e-4),
        "{:?}",
        rotation(&runtime)
    );
    // The turn counter carried over: turn 1 completes at 2*pi.
    runtime.run_frames(60);
    assert!(log.messages().iter().any(|m| m == "turn 1 complete"));
    assert!(runtime.inspect().errors().is_empty());
}

#[test]
fn failed_restore_keeps_the_old_version_running() {
    let engine = common::engine();
    let cube = common::load(&engine, "spinning-cube");
    let bad = common::load(&engine, "bad-restore");
    let (mut runtime, _log) = common::runtime();
    let id = runtime.spawn(&cube).unwrap();
    runtime.run_frames(30);

    let error = runtime.hot_swap(id, &bad).expect_err("restore panics");
    let message = format!("{error:#}");
    assert!(
        message.contains("hot-swap of script `test_bad_restore` failed"),
        "{message}"
    );
    assert!(
        message.contains("the old version keeps running"),
        "{message}"
    );
    assert!(message.contains("`restore-state`"), "{message}");
    assert!(
        message.contains("cannot read 4 bytes of old state"),
        "{message}"
    );

    // Same instance, old code, still spinning at the old speed.
    let info = runtime.inspect().instance(id).unwrap();
    assert_eq!((info.swaps, info.name.as_str()), (0, "spinning_cube"));
    runtime.run_frames(30);
    assert!(rotation(&runtime).abs_diff_eq(Quat::from_rotation_y(FRAC_PI_2), 1e-4));
    assert!(runtime.inspect().errors().is_empty());
}

#[test]
fn new_code_that_traps_at_start_keeps_the_old_version_running() {
    let engine = common::engine();
    let cube = common::load(&engine, "spinning-cube");
    let trap = common::load(&engine, "trap-entrypoint");
    let (mut runtime, _log) = common::runtime();
    let id = runtime.spawn(&cube).unwrap();
    runtime.run_frames(10);

    let message = format!("{:#}", runtime.hot_swap(id, &trap).unwrap_err());
    assert!(message.contains("entrypoint refused to start"), "{message}");
    // Its subscription, made before the panic, was not applied.
    assert_eq!(runtime.inspect().dispatch_order(), [(id, 0)]);
    runtime.run_frames(50);
    assert!(rotation(&runtime).abs_diff_eq(Quat::from_rotation_y(FRAC_PI_2), 1e-4));
}

#[test]
fn swap_withdraws_old_waits_and_the_new_code_starts_its_own() {
    let engine = common::engine();
    let wander = common::load(&engine, "wander");
    let window = common::load(&engine, "message-window");
    let (mut runtime, _log) = common::runtime();
    let id = runtime.spawn(&wander).unwrap();
    runtime.run_frames(10);
    assert_eq!(runtime.inspect().pending_waits(id).len(), 2); // space wait + motion

    let report = runtime.hot_swap(id, &window).unwrap();
    assert!(!report.restored, "wander hands no state over");
    let waits: Vec<String> = runtime
        .inspect()
        .pending_waits(id)
        .into_iter()
        .map(|w| w.what)
        .collect();
    assert_eq!(waits, ["timer due at frame 11"]);
    runtime.run_frames(30);
    assert_eq!(common::transform(&runtime, "window").scale.y, 1.0);
}

/// Runs frames, calling `apply` between them every 10 ms, until the next
/// outcome; later outcomes wait in `queue`. The limit is generous: a rebuild
/// may wait for cargo's lock while another test builds.
fn next_outcome(
    swapper: &mut HotSwapper,
    runtime: &mut Runtime,
    queue: &mut VecDeque<SwapOutcome>,
) -> SwapOutcome {
    let deadline = Instant::now() + Duration::from_secs(180);
    while queue.is_empty() && Instant::now() < deadline {
        runtime.step();
        queue.extend(swapper.apply(runtime));
        std::thread::sleep(Duration::from_millis(10));
    }
    queue.pop_front().expect("no swap outcome within 180 s")
}

/// Replaces `path` the way a build does: write a temporary file, rename.
fn write_file(path: &Path, bytes: &[u8]) {
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, bytes).unwrap();
    std::fs::rename(&tmp, path).unwrap();
}

#[test]
fn watched_file_swaps_on_change_and_survives_bad_versions() {
    let (slow, fast) = slow_and_fast("swap-watch");
    let engine = Arc::new(common::engine());
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("cube.wasm");
    std::fs::write(&file, &slow).unwrap();
    let (mut runtime, _log) = common::runtime();
    let id = runtime.spawn(&engine.load_file(&file).unwrap()).unwrap();
    let mut swapper = HotSwapper::new(engine.clone()).unwrap();
    swapper.watch(&file, vec![id]).unwrap();
    let mut queue = VecDeque::new();

    write_file(&file, &fast);
    match next_outcome(&mut swapper, &mut runtime, &mut queue) {
        SwapOutcome::Swapped { report, .. } => {
            assert_eq!(report.instance, id);
            assert!(report.restored);
        }
        other => panic!("{other:?}"),
    }

    // A half-written file is refused and the running version stays.
    write_file(&file, &slow[..slow.len() / 2]);
    match next_outcome(&mut swapper, &mut runtime, &mut queue) {
        SwapOutcome::Failed { source, error } => {
            assert!(source.ends_with("cube.wasm"));
            assert!(error.contains("not a valid component"), "{error}");
        }
        other => panic!("{other:?}"),
    }
    // A component that no longer fits the API is refused by name.
    write_file(
        &file,
        &std::fs::read(common::build("unknown-import")).unwrap(),
    );
    match next_outcome(&mut swapper, &mut runtime, &mut queue) {
        SwapOutcome::Failed { error, .. } => {
            assert!(error.contains("test:missing/thing"), "{error}")
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(runtime.inspect().instance(id).unwrap().swaps, 1);

    // The next good version is picked up.
    write_file(&file, &slow);
    assert!(matches!(
        next_outcome(&mut swapper, &mut runtime, &mut queue),
        SwapOutcome::Swapped { .. }
    ));
    assert_eq!(runtime.inspect().instance(id).unwrap().swaps, 2);
    assert!(runtime.inspect().errors().is_empty());
    // Each version was reported exactly once.
    std::thread::sleep(Duration::from_millis(500));
    queue.extend(swapper.apply(&mut runtime));
    assert!(queue.is_empty(), "{queue:?}");
}

#[test]
fn watched_crate_rebuilds_and_swaps_after_a_source_edit() {
    let dir = common::standalone_crate("spinning-cube", "swap-crate", |s| s.replace(FAST, SLOW));
    let engine = Arc::new(common::engine());
    let wasm = build_script_crate(&dir, BuildOutput::Capture).unwrap();
    let (mut runtime, _log) = common::runtime();
    let id = runtime.spawn(&engine.load_file(&wasm).unwrap()).unwrap();
    let mut swapper = HotSwapper::new(engine.clone()).unwrap();
    swapper.watch(&dir, vec![id]).unwrap();
    let mut queue = VecDeque::new();

    // A syntax error: reported, old code keeps running.
    common::edit_crate(&dir, |s| {
        s.replace(SLOW, "pub const ANGULAR_SPEED: f32 = ;")
    });
    match next_outcome(&mut swapper, &mut runtime, &mut queue) {
        SwapOutcome::Failed { error, .. } => {
            assert!(error.contains("failed to build script crate"), "{error}");
            // rustc's diagnostic as cargo prints it: the caret under its
            // column on a line of its own, not squashed into one line.
            assert!(
                error.lines().any(|l| l.trim_start().starts_with("|")),
                "{error}"
            );
            assert!(!error.contains("Compiling"), "{error}");
        }
        other => panic!("{other:?}"),
    }
    common::edit_crate(&dir, |s| {
        s.replace("pub const ANGULAR_SPEED: f32 = ;", FAST)
    });
    match next_outcome(&mut swapper, &mut runtime, &mut queue) {
        SwapOutcome::Swapped { report, build_time } => {
            assert!(report.restored);
            assert!(build_time > Duration::ZERO);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(runtime.inspect().instance(id).unwrap().swaps, 1);
}

#[test]
fn a_watched_script_that_failed_starts_again_from_its_next_version() {
    let (slow, _) = slow_and_fast("swap-after-trap");
    let engine = Arc::new(common::engine());
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("script.wasm");
    std::fs::copy(common::build("trap"), &file).unwrap();
    let (mut runtime, _log) = common::runtime();
    let id = runtime.spawn(&engine.load_file(&file).unwrap()).unwrap();
    let mut swapper = HotSwapper::new(engine.clone()).unwrap();
    swapper.watch(&file, vec![id]).unwrap();

    // The script panics at frame 3: no instance is left, and the swapper
    // waits for the next version instead of giving up on the source.
    for _ in 0..5 {
        runtime.step();
        assert!(swapper.apply(&mut runtime).is_empty());
    }
    assert_eq!(runtime.inspect().live_instances(), 0);
    assert!(swapper.is_waiting());

    write_file(&file, &slow);
    let mut queue = VecDeque::new();
    match next_outcome(&mut swapper, &mut runtime, &mut queue) {
        SwapOutcome::Started { instances, .. } => assert_eq!(instances.len(), 1),
        other => panic!("{other:?}"),
    }
    assert!(!swapper.is_waiting());
    let before = rotation(&runtime);
    runtime.run_frames(10);
    assert_ne!(rotation(&runtime), before, "the new version turns the cube");
    assert_eq!(
        runtime.inspect().errors().len(),
        1,
        "only the trap: {:?}",
        runtime.inspect().errors()
    );
}
