//! Python and JavaScript scripts beside Rust: the host runs
//! `examples/python-orbiter` and `examples/js-orbiter` from source on its
//! Python and JavaScript runtimes (componentize-py and componentize-js,
//! built once), with the Rust spinning cube; reports an exception or a
//! `throw` as one error naming the script; swaps a watched script that is
//! edited mid-run, keeping the old version on a syntax error; runs a
//! Python script with a module of its own and the standard library, and a
//! JavaScript one with classes, closures and a `Map`.
//!
//! Needs componentize-py and componentize-js on PATH (`./test.sh` installs them).
//! The tests' engine has a generous CPU deadline (`common::engine`):
//! CPython formatting a traceback takes a few milliseconds by itself.

mod common;

use std::collections::VecDeque;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use game_host::{Event, Key, Runtime, ScriptComponent, ScriptEngine, Transform};

use game_host_build::{BuildOutput, HotSwapper, ScriptSource, SwapOutcome};

/// Radians per second of both orbiters, as their sources say.
const SPEED: f64 = std::f64::consts::FRAC_PI_2;
/// Both orbiters' radius.
const RADIUS: f64 = 3.0;
/// The line of `examples/js-orbiter/app.js` that throws when E is pressed.
const JS_THROW_LINE: u32 = 67;

fn load(engine: &ScriptEngine, path: &Path) -> ScriptComponent {
    ScriptSource::new(path)
        .and_then(|source| source.load(engine, BuildOutput::Capture))
        .unwrap_or_else(|e| panic!("loading `{}` failed: {e:#}", path.display()))
}

/// Where an orbiter's moon is after `frames` updates at 60 Hz, computed as
/// the scripts do (f64 angle, f32 delta time from the host).
fn moon_after(frames: u64) -> [f32; 3] {
    let dt = f64::from(1.0f32 / 60.0);
    let angle = (0..frames).fold(0.0f64, |angle, _| angle + SPEED * dt);
    [
        (RADIUS * angle.cos()) as f32,
        0.0,
        (RADIUS * angle.sin()) as f32,
    ]
}

fn assert_near(actual: glam::Vec3, expected: [f32; 3]) {
    let expected = glam::Vec3::from(expected);
    assert!(
        actual.distance(expected) < 1e-5,
        "at {actual}, expected {expected}"
    );
}

/// The cube after `frames` frames on its own.
fn cube_alone(engine: &ScriptEngine, frames: u64) -> Transform {
    let (mut runtime, _) = common::runtime();
    runtime
        .spawn(&common::load(engine, "spinning-cube"))
        .unwrap();
    runtime.run_frames(frames);
    common::transform(&runtime, "cube")
}

#[test]
fn python_and_javascript_run_beside_rust_and_fail_alone() {
    let engine = common::engine();
    let examples = common::workspace().join("examples");
    let python = load(&engine, &examples.join("python-orbiter"));
    let javascript = load(&engine, &examples.join("js-orbiter/app.js"));
    assert_eq!(python.name(), "python-orbiter");
    assert_eq!(javascript.name(), "js-orbiter");
    let (mut runtime, log) = common::runtime();
    runtime
        .spawn(&common::load(&engine, "spinning-cube"))
        .unwrap();
    runtime.spawn(&python).unwrap();
    runtime.spawn(&javascript).unwrap();

    runtime.run_frames(60);
    assert!(
        runtime.inspect().errors().is_empty(),
        "{:?}",
        runtime.inspect().errors()
    );
    assert_eq!(common::transform(&runtime, "cube"), cube_alone(&engine, 60));
    assert_near(
        common::transform(&runtime, "py-moon").position,
        moon_after(60),
    );
    assert_near(
        common::transform(&runtime, "js-moon").position,
        moon_after(60),
    );
    assert_eq!(
        common::transform(&runtime, "js-moon").scale,
        glam::Vec3::splat(0.4)
    );
    let said = log.messages();
    assert!(
        said.iter().any(|m| m == "python orbiter started"),
        "{said:?}"
    );
    assert!(said.iter().any(|m| m == "js orbiter started"), "{said:?}");

    // Four seconds make a full orbit: each logs it once.
    runtime.run_frames(180);
    for language in ["python", "js"] {
        let orbits = log
            .messages()
            .iter()
            .filter(|m| *m == "orbit 1 complete")
            .count();
        assert_eq!(orbits, 2, "{language}: {:?}", log.messages());
    }

    // E makes both fail on purpose; each error is one line naming the
    // script and the language's own account; the cube runs on.
    runtime.input().event_at(250, Event::KeyPressed(Key::E));
    runtime.run_frames(60);
    let errors = common::error_lines(&runtime);
    assert_eq!(errors.len(), 2, "{errors:?}");
    let python_error = errors
        .iter()
        .find(|e| e.contains("`python-orbiter`"))
        .unwrap();
    assert!(
        python_error.contains("failed in `on-wake` at frame 250")
            && python_error
                .ends_with("(Python RuntimeError: E pressed at frame 250: failing on purpose)"),
        "{python_error}"
    );
    let js_error = errors.iter().find(|e| e.contains("`js-orbiter`")).unwrap();
    assert!(
        js_error.contains("failed in `on-wake` at frame 250")
            && js_error.contains("(JavaScript error at ")
            && js_error.contains(&format!(
                "js-orbiter{}app.js:{JS_THROW_LINE}:",
                std::path::MAIN_SEPARATOR
            ))
            && js_error.ends_with(": E pressed at frame 250: failing on purpose)"),
        "{js_error}"
    );
    assert!(errors.iter().all(|e| !e.contains('\n')));
    assert_eq!(runtime.inspect().live_instances(), 1);
    assert_eq!(
        common::transform(&runtime, "cube"),
        cube_alone(&engine, 300)
    );
}

/// Runs frames, calling `apply` between them, until the next swap outcome;
/// later outcomes wait in `queue`. The limit is generous: a Python rebuild
/// and compile take tens of seconds.
fn next_outcome(
    swapper: &mut HotSwapper,
    runtime: &mut Runtime,
    queue: &mut VecDeque<SwapOutcome>,
) -> SwapOutcome {
    let deadline = Instant::now() + Duration::from_secs(300);
    while queue.is_empty() && Instant::now() < deadline {
        runtime.step();
        queue.extend(swapper.apply(runtime));
        std::thread::sleep(Duration::from_millis(10));
    }
    queue.pop_front().expect("no swap outcome within 300 s")
}

#[test]
fn a_watched_python_script_is_rebuilt_and_swapped_with_its_state() {
    let engine = Arc::new(common::engine());
    let dir = tempfile::tempdir().unwrap();
    let app = dir.path().join("app.py");
    let source =
        std::fs::read_to_string(common::workspace().join("examples/python-orbiter/app.py"))
            .unwrap();
    std::fs::write(&app, &source).unwrap();
    let (mut runtime, log) = common::runtime();
    let id = runtime.spawn(&load(&engine, dir.path())).unwrap();
    let mut swapper = HotSwapper::new(engine.clone()).unwrap();
    swapper.watch(dir.path(), vec![id]).unwrap();
    let mut queue = VecDeque::new();
    runtime.run_frames(30);

    // A syntax error is reported and the running version stays.
    std::fs::write(&app, source.replace("def place()", "def place(")).unwrap();
    match next_outcome(&mut swapper, &mut runtime, &mut queue) {
        SwapOutcome::Failed { error, .. } => {
            assert!(error.contains("failed to load Python script"), "{error}");
            assert!(error.contains("SyntaxError"), "{error}");
        }
        other => panic!("{other:?}"),
    }
    assert!(
        runtime.inspect().errors().is_empty(),
        "{:?}",
        runtime.inspect().errors()
    );

    // Twice the speed: the new code takes over the angle and turns faster.
    let faster = source.replace("SPEED = math.pi / 2", "SPEED = math.pi");
    assert_ne!(faster, source);
    std::fs::write(&app, faster).unwrap();
    let report = match next_outcome(&mut swapper, &mut runtime, &mut queue) {
        SwapOutcome::Swapped { report, .. } => report,
        other => panic!("{other:?}"),
    };
    assert_eq!(report.instance, id);
    assert!(report.restored, "the angle is handed over");
    assert!(
        log.messages()
            .iter()
            .any(|m| m.starts_with("python orbiter swapped in at")),
        "{:?}",
        log.messages()
    );
    let before = runtime.inspect().instance(id).unwrap();
    assert_eq!(before.swaps, 1);
    let angle = |runtime: &Runtime| {
        let p = common::transform(runtime, "py-moon").position;
        f64::from(p.z).atan2(f64::from(p.x))
    };
    let start = angle(&runtime);
    runtime.run_frames(10);
    let turned = (angle(&runtime) - start).rem_euclid(std::f64::consts::TAU);
    let expected = std::f64::consts::PI * 10.0 * f64::from(1.0f32 / 60.0);
    assert!(
        (turned - expected).abs() < 1e-4,
        "turned {turned}, expected {expected}"
    );
    assert!(
        runtime.inspect().errors().is_empty(),
        "{:?}",
        runtime.inspect().errors()
    );
    // Each version was reported once; the build reading the files started
    // no other.
    std::thread::sleep(Duration::from_millis(500));
    queue.extend(swapper.apply(&mut runtime));
    assert!(queue.is_empty(), "{queue:?}");
}

/// Watches the live script in `dir`, running since `runtime` spawned `id`
/// from it; then edits `file` in `dir` three times: `faster` (doubling its
/// speed), `broken` (a syntax error) and the fast version again. Returns
/// the syntax error's report. Asserts each edit gives exactly one outcome,
/// that the state was handed over, that the old version kept running
/// through the error, and that the probe then turns twice as fast.
fn faster_broken_fixed(
    engine: &Arc<ScriptEngine>,
    runtime: &mut Runtime,
    id: uuid::Uuid,
    (dir, file): (&Path, &str),
    faster: (&str, &str),
    broken: (&str, &str),
    probe: &str,
) -> String {
    let path = dir.join(file);
    let source = std::fs::read_to_string(&path).unwrap();
    let mut swapper = HotSwapper::new(engine.clone()).unwrap();
    swapper.watch(dir, vec![id]).unwrap();
    let mut queue = VecDeque::new();
    let angle = |runtime: &Runtime| {
        let p = common::transform(runtime, probe).position;
        f64::from(p.z).atan2(f64::from(p.x))
    };
    let turned = |runtime: &mut Runtime, frames: u64| {
        let start = angle(runtime);
        runtime.run_frames(frames);
        (angle(runtime) - start).rem_euclid(std::f64::consts::TAU)
    };
    let dt = f64::from(1.0f32 / 60.0);

    let fast = source.replace(faster.0, faster.1);
    assert_ne!(fast, source);
    std::fs::write(&path, &fast).unwrap();
    match next_outcome(&mut swapper, runtime, &mut queue) {
        SwapOutcome::Swapped { report, .. } => assert!(report.restored, "state handed over"),
        other => panic!("{other:?}"),
    }
    assert!((turned(runtime, 10) - 2.0 * 10.0 * dt).abs() < 1e-4);

    let bad = fast.replace(broken.0, broken.1);
    assert_ne!(bad, fast);
    std::fs::write(&path, &bad).unwrap();
    let error = match next_outcome(&mut swapper, runtime, &mut queue) {
        SwapOutcome::Failed { error, .. } => error,
        other => panic!("{other:?}"),
    };
    // The old (fast) version runs on.
    assert!((turned(runtime, 10) - 2.0 * 10.0 * dt).abs() < 1e-4);
    assert!(
        runtime.inspect().errors().is_empty(),
        "{:?}",
        runtime.inspect().errors()
    );

    // The fix swaps in; the error was reported once (no outcome between).
    std::fs::write(&path, format!("{fast}\n")).unwrap();
    match next_outcome(&mut swapper, runtime, &mut queue) {
        SwapOutcome::Swapped { report, .. } => assert!(report.restored),
        other => panic!("{other:?}"),
    }
    assert_eq!(runtime.inspect().instance(id).unwrap().swaps, 2);
    assert!((turned(runtime, 10) - 2.0 * 10.0 * dt).abs() < 1e-4);
    assert!(
        runtime.inspect().errors().is_empty(),
        "{:?}",
        runtime.inspect().errors()
    );
    std::thread::sleep(Duration::from_millis(500));
    queue.extend(swapper.apply(runtime));
    assert!(queue.is_empty(), "{queue:?}");
    error
}

/// Copies `host/tests/foreign/<name>` into a temp dir.
fn foreign_copy(name: &str) -> tempfile::TempDir {
    let from = common::workspace().join("host/tests/foreign").join(name);
    let dir = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), dir.path().join(entry.file_name())).unwrap();
    }
    dir
}

/// Spawns the live script in `dir` and runs 60 frames: its probe turns one
/// radian per second on a circle of radius 2.
fn started_probe(
    engine: &ScriptEngine,
    dir: &Path,
    probe: &str,
) -> (Runtime, Arc<game_host::log::MemoryLog>, uuid::Uuid) {
    let (mut runtime, log) = common::runtime();
    let id = runtime.spawn(&load(engine, dir)).unwrap();
    runtime.run_frames(60);
    assert!(
        runtime.inspect().errors().is_empty(),
        "{:?}",
        runtime.inspect().errors()
    );
    let angle = 60.0 * f64::from(1.0f32 / 60.0);
    assert_near(
        common::transform(&runtime, probe).position,
        [(2.0 * angle.cos()) as f32, 0.0, (2.0 * angle.sin()) as f32],
    );
    (runtime, log, id)
}

#[test]
fn a_python_script_with_a_module_of_its_own_and_the_standard_library_runs_and_swaps() {
    let engine = Arc::new(common::engine());
    let dir = foreign_copy("py-modules");
    // orbit.py gives the radius and speed.
    let (mut runtime, log, id) = started_probe(&engine, dir.path(), "py-probe");
    // json, and random.Random(7) as CPython seeds it.
    assert_eq!(
        log.messages(),
        [r#"{"start": 0.0, "dice": [3, 2, 4]}"#],
        "{:?}",
        log.messages()
    );

    // Edits to the second module: faster, broken, fixed.
    let error = faster_broken_fixed(
        &engine,
        &mut runtime,
        id,
        (dir.path(), "orbit.py"),
        ("SPEED = 1.0", "SPEED = 2.0"),
        (
            "def advance(self, dt: float) -> None:",
            "def advance(self, dt: float) -> None",
        ),
        "py-probe",
    );
    let file = dir.path().join("orbit.py").display().to_string();
    assert!(error.contains("failed to load Python script"), "{error}");
    assert!(
        error.contains(&format!("File \"{file}\", line 16")),
        "{error}"
    );
    assert!(error.contains("SyntaxError"), "{error}");
    // The state came through json: each start logged the angle it had.
    let starts = log
        .messages()
        .iter()
        .filter(|m| m.starts_with(r#"{"start": "#))
        .count();
    assert_eq!(starts, 3, "{:?}", log.messages());
}

#[test]
fn a_javascript_script_with_classes_closures_and_a_map_runs_and_swaps() {
    let engine = Arc::new(common::engine());
    let dir = foreign_copy("js-features");
    let (mut runtime, log, id) = started_probe(&engine, dir.path(), "js-probe");
    assert_eq!(log.messages(), ["started"]);

    let error = faster_broken_fixed(
        &engine,
        &mut runtime,
        id,
        (dir.path(), "app.js"),
        ("const SPEED = 1.0;", "const SPEED = 2.0;"),
        ("  advance(dt) {", "  advance(dt {"),
        "js-probe",
    );
    let file = dir.path().join("app.js").display().to_string();
    assert!(
        error.contains("failed to load JavaScript script"),
        "{error}"
    );
    assert!(
        error.contains(&format!("{file}:19: SyntaxError")),
        "{error}"
    );
    // The closure counted the updates before the first swap (60 and the
    // frames run while waiting for it), one radian per second each.
    let said = log.messages();
    assert_eq!(said.len(), 3, "{said:?}");
    let (angle, updates) = said[1]
        .strip_prefix("restored at ")
        .and_then(|rest| rest.strip_suffix(" updates"))
        .and_then(|rest| rest.split_once(" after "))
        .unwrap_or_else(|| panic!("{said:?}"));
    let (angle, updates): (f64, u32) = (angle.parse().unwrap(), updates.parse().unwrap());
    assert!(updates >= 60, "{said:?}");
    assert!((angle - f64::from(updates) / 60.0).abs() < 1e-3, "{said:?}");
}

#[test]
fn a_javascript_build_that_wants_the_network_is_refused_with_the_fix() {
    // componentize-js run by hand with its defaults imports `wasi:http`.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("networked.wasm");
    // componentize-js binds exact versions: the source's imports name the
    // WIT's (cube.js names an older 0.2.x, which `host build` rebinds).
    let source = std::fs::read_to_string(common::workspace().join("host/benches/scripts/cube.js"))
        .unwrap()
        .replace(
            "@0.2.1\"",
            &format!("@{}\"", game_host::guest::engine::API_VERSION),
        );
    let cube = dir.path().join("cube.js");
    std::fs::write(&cube, source).unwrap();
    let status = std::process::Command::new("componentize-js")
        .arg(&cube)
        .arg("--wit")
        .arg(common::workspace().join("wit"))
        .args(["-n", "script", "-o"])
        .arg(&out)
        .stdout(std::process::Stdio::null())
        .status()
        .expect("componentize-js is installed");
    assert!(status.success());
    let error = common::engine().load_file(&out).err().expect("refused");
    let error = format!("{error:#}");
    assert!(error.contains("failed to load script"), "{error}");
    assert!(error.contains("imports `wasi:http/"), "{error}");
    assert!(error.contains("--disable http fetch-event"), "{error}");
}

#[test]
fn sources_written_for_0_1_are_refused_in_one_line_naming_what_to_change() {
    // The Python and JavaScript orbiters as game:engine 0.1 had them: the
    // update by id, and wakes by the reserved id and `take-wakes`.
    let dir = tempfile::tempdir().unwrap();
    let python = dir.path().join("old-py/app.py");
    let javascript = dir.path().join("old-js/app.js");
    for (path, text) in [
        (
            &python,
            "import wit_world\nfrom wit_world.imports import runtime\n\n\
             class WitWorld(wit_world.WitWorld):\n    \
             def entrypoint(self) -> None:\n        runtime.subscribe_update(0)\n\n    \
             def on_message(self, id: int) -> None:\n        pass\n",
        ),
        (
            &javascript,
            "import { subscribeUpdate } from \"game:engine/runtime@0.1.5\";\n\
             export function entrypoint() { subscribeUpdate(0); }\n\
             export function onMessage(id) {}\n",
        ),
    ] {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let engine = common::engine();
    for (path, expected) in [
        (&python, "on_update(self, clock)"),
        (&javascript, "`game:engine/runtime@0.1.5`"),
    ] {
        let error = ScriptSource::new(path)
            .and_then(|source| source.load(&engine, BuildOutput::Capture))
            .map(drop)
            .unwrap_err();
        let text = format!("{error:#}");
        assert!(
            text.contains(&format!("`{}` is a game:engine 0.1 script", path.display())),
            "{text}"
        );
        assert!(text.contains(expected), "{text}");
        assert!(!text.contains('\n'), "one line: {text}");
    }
}

/// A runtime whose grants leave out `events`.
fn runtime_without_events() -> Runtime {
    let file: game_host::GrantFile = toml::from_str(
        "[default]\nimports = [\"log\", \"runtime\", \"scene\", \"entity\", \"entities\", \
         \"tasks\", \"motion\", \"lifetime\", \"game-data\", \"players\"]\n",
    )
    .unwrap();
    common::runtime_with(game_host::RuntimeConfig {
        grants: game_host::GrantPolicy::new(file).unwrap(),
        ..game_host::RuntimeConfig::default()
    })
    .0
}

#[test]
fn a_python_script_gets_only_the_interfaces_its_grants_allow() {
    let engine = common::engine();
    // The orbiter imports `events` (its key listener): refused at load,
    // in one line naming it.
    let orbiter = load(
        &engine,
        &common::workspace().join("examples/python-orbiter"),
    );
    let mut runtime = runtime_without_events();
    let error = format!("{:#}", runtime.spawn(&orbiter).unwrap_err());
    assert!(
        error.contains("script `python-orbiter` imports `events`, which its grants do not include"),
        "{error}"
    );

    // A script that reaches `events` where no import statement says so:
    // its runtime's `events` functions trap, naming the grant.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("app.py"),
        "import importlib\n\
         import wit_world\n\
         \n\
         class WitWorld(wit_world.WitWorld):\n\
         \x20   def entrypoint(self) -> None:\n\
         \x20       hidden = importlib.import_module('wit_world.imports.' + 'ev' + 'ents')\n\
         \x20       hidden.send('chat', 'hello')\n\
         \n\
         \x20   def on_update(self, clock) -> None:\n\
         \x20       pass\n\
         \n\
         \x20   def on_wake(self, clock, wakes) -> None:\n\
         \x20       pass\n",
    )
    .unwrap();
    let sneaky = load(&engine, dir.path());
    let error = format!("{:#}", runtime.spawn(&sneaky).unwrap_err());
    assert!(error.contains("may not use `events` (`send`)"), "{error}");
    // Under the default grants the same script sends.
    let (mut open, _log) = common::runtime();
    open.spawn(&sneaky).unwrap();

    // Under `writes = []` the orbiter moves only its own moon, and the moon
    // stays its own across a hot swap (the new version finds it and moves
    // it on).
    let (mut own, _log) = common::runtime_with(game_host::RuntimeConfig {
        grants: game_host::GrantPolicy::new(toml::from_str("[default]\nwrites = []\n").unwrap())
            .unwrap(),
        ..game_host::RuntimeConfig::default()
    });
    let id = own.spawn(&orbiter).unwrap();
    own.run_frames(10);
    own.hot_swap(id, &orbiter).unwrap();
    own.run_frames(10);
    assert!(
        own.inspect().errors().is_empty(),
        "{:?}",
        own.inspect().errors()
    );
    assert_near(common::transform(&own, "py-moon").position, moon_after(20));
}
