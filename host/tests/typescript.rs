//! TypeScript scripts: `host/tests/foreign/ts-probe/app.ts` (an interface,
//! a generic class, type-only imports) runs live on the JavaScript runtime
//! and built by `host build`'s path, moving its probe the same way; a
//! `throw` at run time names the `.ts` file's line; what erasing types
//! cannot run (an `enum`) and a syntax error are refused at load naming
//! file, line and column.
//!
//! Needs componentize-js on PATH (`./test.sh` installs it).

mod common;

use std::path::Path;

use game_host::{Runtime, ScriptComponent, ScriptEngine};
use game_host_build::{BuildOutput, ScriptSource};

/// The probe's radius and speed (radians per second), as the source says.
const RADIUS: f64 = 2.0;
const SPEED: f64 = 1.0;

/// The line of `app.ts` that throws, at the 90th update.
const THROW_LINE: usize = 53;

/// A copy of the probe, `ts-probe/app.ts` in a directory of its own, and
/// its `app.ts`.
fn probe_copy() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let from = common::workspace().join("host/tests/foreign/ts-probe/app.ts");
    let app = dir.path().join("ts-probe/app.ts");
    std::fs::create_dir_all(app.parent().unwrap()).unwrap();
    std::fs::copy(from, &app).unwrap();
    (dir, app)
}

/// Runs `script` for 89 frames (89 updates: the first frame starts it and
/// updates it), checks the probe, then one frame more, frame 90, whose
/// update throws: returns the one error line.
fn run_until_it_throws(script: &ScriptComponent) -> String {
    let (mut runtime, log) = common::runtime();
    runtime.spawn(script).unwrap();
    runtime.run_frames(89);
    assert!(
        runtime.inspect().errors().is_empty(),
        "{:?}",
        runtime.inspect().errors()
    );
    assert_eq!(log.messages(), ["started with types"]);
    assert_probe(&runtime, 89);
    runtime.run_frames(1);
    let errors = common::error_lines(&runtime);
    assert_eq!(errors.len(), 1, "{errors:?}");
    errors[0].clone()
}

/// The probe after `updates` updates at 60 Hz.
fn assert_probe(runtime: &Runtime, updates: u32) {
    let dt = f64::from(1.0f32 / 60.0);
    let angle = (0..updates).fold(0.0, |angle, _| angle + SPEED * dt);
    let position = common::transform(runtime, "ts-probe").position;
    let expected = [RADIUS * angle.cos(), 0.0, RADIUS * angle.sin()];
    for (got, want) in position.to_array().iter().zip(expected) {
        assert!(
            (f64::from(*got) - want).abs() < 1e-4,
            "probe at {position:?}, not {expected:?}"
        );
    }
}

fn load(engine: &ScriptEngine, path: &Path) -> anyhow::Result<ScriptComponent> {
    ScriptSource::new(path).and_then(|source| source.load(engine, BuildOutput::Capture))
}

#[test]
fn a_typescript_script_runs_live_and_built_and_a_throw_names_its_line() {
    let engine = common::engine();
    let (_dir, app) = probe_copy();

    let live = load(&engine, &app).unwrap_or_else(|e| panic!("{e:#}"));
    assert_eq!(live.name(), "ts-probe");
    let error = run_until_it_throws(&live);
    assert!(
        error.contains("failed in `on-update` at frame 90"),
        "{error}"
    );
    assert!(
        error.contains(&format!("app.ts:{THROW_LINE}:")) && error.contains("ninety updates"),
        "{error}"
    );

    // `host build`'s component: the same script, self-contained.
    let source = ScriptSource::new(&app).unwrap();
    let (name, bytes) = source
        .build(BuildOutput::Capture, Some(&common::cache_dir()))
        .unwrap_or_else(|e| panic!("{e:#}"));
    let built = engine.load_bytes(&name, &bytes).unwrap();
    let error = run_until_it_throws(&built);
    assert!(
        error.contains(&format!(":{THROW_LINE}:")) && error.contains("ninety updates"),
        "{error}"
    );
}

#[test]
fn typescript_that_erasing_cannot_run_is_refused_naming_its_place() {
    let engine = common::engine();
    let (_dir, app) = probe_copy();
    let file = app.display().to_string();
    let text = std::fs::read_to_string(&app).unwrap();

    // An enum needs code written for it: refused at its line and column.
    let with_enum = text.replace(
        "interface Circle {",
        "enum Direction { Left, Right }\ninterface Circle {",
    );
    std::fs::write(&app, with_enum).unwrap();
    let error = format!("{:#}", load(&engine, &app).err().expect("refused"));
    assert!(
        error.contains("failed to load TypeScript script `ts-probe`"),
        "{error}"
    );
    assert!(
        error.ends_with(&format!(
            "{file}:11:1: TypeScript enum is not supported in strip-only mode"
        )),
        "{error}"
    );
    assert!(!error.contains('\n'), "{error}");

    // A syntax error: its line, before anything is built.
    std::fs::write(
        &app,
        text.replace("advance(dt: number)", "advance(dt: number"),
    )
    .unwrap();
    let error = format!("{:#}", load(&engine, &app).err().expect("refused"));
    assert!(error.contains(&format!("{file}:27:")), "{error}");

    // `host build` says the same.
    let source = ScriptSource::new(&app).unwrap();
    let error = source
        .build(BuildOutput::Capture, None)
        .expect_err("refused");
    assert!(format!("{error:#}").contains(":27:"), "{error:#}");
}
