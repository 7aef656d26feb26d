//! Deterministic runs, through the `host` binary: a script that reads the
//! clocks, random numbers and `HashMap` order gives the same scene in two
//! processes (Rust, Python, JavaScript); `run --record` then `replay`
//! agrees in another process; an edited script or a tampered recording is
//! refused or named by its first divergent frame; `serve --record-worlds`
//! records each world. (The window recorded under Xvfb is in `render.rs`.)

mod common;

use std::path::Path;
use std::process::Output;
use std::time::Duration;

use common::serve::{Serve, request};
use serde_json::Value;

/// Runs `host ARGS` with the tests' compile cache.
fn host(args: &[&str]) -> Output {
    common::run_host(args, &common::cache_dir())
}

fn stderr(output: &Output) -> String {
    common::stderr_of(output)
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// Runs `scripts` headless for `frames` frames with `extra` options and
/// returns the dumped scene's entities.
fn scene_after(scripts: &[&Path], frames: u64, extra: &[&str]) -> Vec<Value> {
    let dir = tempfile::tempdir().unwrap();
    let dump = dir.path().join("scene.json");
    let frames = frames.to_string();
    let mut args = vec!["run", "--headless", "--frames", &frames];
    args.extend(scripts.iter().map(|p| p.to_str().unwrap()));
    args.extend(["--dump-scene", dump.to_str().unwrap()]);
    args.extend(extra);
    let output = host(&args);
    assert!(output.status.success(), "{}", stderr(&output));
    let dump: Value = serde_json::from_str(&std::fs::read_to_string(&dump).unwrap()).unwrap();
    dump["entities"].as_array().unwrap().clone()
}

fn entity<'a>(entities: &'a [Value], name: &str) -> &'a Value {
    entities
        .iter()
        .find(|e| e["name"] == name)
        .unwrap_or_else(|| panic!("no entity `{name}` in {entities:?}"))
}

fn position(entities: &[Value], name: &str) -> [f64; 3] {
    let p = &entity(entities, name)["position"];
    [0, 1, 2].map(|i| p[i].as_f64().unwrap())
}

#[test]
fn clocks_random_numbers_and_hash_order_are_the_same_in_two_processes() {
    let script = common::script_dir("determinism");
    let first = scene_after(&[&script], 90, &[]);
    let second = scene_after(&[&script], 90, &[]);
    assert_eq!(first, second, "two runs with the default seed differ");

    // The clocks read game time: 90 frames at 60 Hz.
    assert_eq!(position(&first, "clock"), [1.5, 1.5, 0.0]);
    // The walker walked (its steps come from the seeded numbers).
    assert_ne!(position(&first, "walker")[0], 0.0);

    // Another seed, another game: the HashMap's order or the numbers differ.
    let other = scene_after(&[&script], 90, &["--seed", "12345"]);
    assert_ne!(first, other, "--seed changed nothing");
    assert_eq!(other, scene_after(&[&script], 90, &["--seed", "12345"]));

    let output = host(&["run", "--headless", "--frames", "1", "--seed", "lucky"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("`lucky` is not a seed"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn nans_are_canonical_unless_floats_are_fast() {
    let nan_bits = |deterministic_floats: bool| {
        let engine = game_host::ScriptEngine::new(game_host::EngineOptions {
            cache_dir: Some(common::cache_dir()),
            max_instances: 4,
            deterministic_floats,
            ..game_host::EngineOptions::default()
        })
        .unwrap();
        let (mut runtime, _) = common::runtime();
        runtime
            .spawn(&common::load(&engine, "determinism"))
            .unwrap();
        runtime.run_frames(1);
        common::transform(&runtime, "nan").position.x.to_bits()
    };
    assert_eq!(nan_bits(true), 0x7fc0_0000, "the canonical quiet NaN");
    if cfg!(target_arch = "x86_64") {
        // x86's default NaN has its sign bit set.
        assert_eq!(nan_bits(false), 0xffc0_0000);
    }
}

#[test]
fn python_and_javascript_random_and_time_are_the_same_in_two_processes() {
    let foreign = common::workspace().join("host/tests/foreign");
    let python = foreign.join("py-determinism/app.py");
    let javascript = foreign.join("js-determinism/app.js");
    let scripts = [python.as_path(), javascript.as_path()];
    let first = scene_after(&scripts, 30, &[]);
    let second = scene_after(&scripts, 30, &[]);
    assert_eq!(first, second, "two runs with the default seed differ");

    // time.time(), time.monotonic() and Date.now() read game time.
    let [x, y, _] = position(&first, "py-clock");
    assert!((x - 0.5).abs() < 1e-6 && (y - 0.5).abs() < 1e-6, "{x} {y}");
    assert!((position(&first, "js-clock")[0] - 0.5).abs() < 1e-6);
    // The numbers are random-looking, not stuck.
    assert_ne!(
        position(&first, "py-random")[0],
        position(&first, "py-random")[1]
    );
    assert_ne!(
        position(&first, "js-random")[0],
        position(&first, "js-random")[1]
    );

    let other = scene_after(&scripts, 30, &["--seed", "99"]);
    assert_ne!(position(&first, "py-random"), position(&other, "py-random"));
    assert_ne!(position(&first, "js-random"), position(&other, "js-random"));
}

#[test]
fn a_recorded_run_with_keys_replays_in_another_process() {
    let dir = tempfile::tempdir().unwrap();
    let keys = dir.path().join("keys.txt");
    std::fs::write(
        &keys,
        "20 press space\n45 press enter\n46 send chat hello\n",
    )
    .unwrap();
    let recording = dir.path().join("run.rec");
    let script = common::script_dir("determinism");
    let entities = scene_after(
        &[&script],
        120,
        &[
            "--input",
            keys.to_str().unwrap(),
            "--record",
            recording.to_str().unwrap(),
            "--checkpoint-every",
            "50",
        ],
    );
    // Both key presses reached the script.
    assert_eq!(position(&entities, "walker")[1], 20.0);

    let text = std::fs::read_to_string(&recording).unwrap();
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[0]["format"], "game-host-recording");
    assert_eq!(lines[0]["version"], 3);
    assert_eq!(lines[0]["seed"], 0);
    assert_eq!(lines[0]["canonical_nans"], false, "fast floats by default");
    assert_eq!(lines[0]["arch"], std::env::consts::ARCH);
    assert_eq!(lines[0]["scripts"][0]["name"], "test_determinism");
    assert_eq!(lines[0]["scripts"][0]["sha256"].as_str().unwrap().len(), 64);
    let inputs: Vec<_> = lines.iter().filter(|l| l.get("input").is_some()).collect();
    assert_eq!(inputs.len(), 3);
    assert_eq!(inputs[0]["frame"], 20);
    assert_eq!(inputs[0]["input"]["press"], "space");
    assert_eq!(inputs[2]["input"]["send"]["payload"], "hello");
    let checkpoints: Vec<_> = lines
        .iter()
        .filter(|l| l.get("entities").is_some())
        .map(|l| l.get("frame").or(l.get("end")).unwrap().as_u64().unwrap())
        .collect();
    assert_eq!(checkpoints, [50, 100, 120]);
    assert_eq!(lines.last().unwrap()["end"], 120);

    let output = host(&["replay", recording.to_str().unwrap()]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        stdout(&output).starts_with("replay: 120 frames agree with the recording"),
        "{}",
        stdout(&output)
    );

    // A recording whose digest of frame 77 was changed: named exactly.
    let tampered = dir.path().join("tampered.rec");
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let at = lines
        .iter()
        .position(|l| l.starts_with(r#"{"frame":77,"scene""#))
        .unwrap();
    lines[at] = r#"{"frame":77,"scene":"0123456789abcdef"}"#.to_owned();
    std::fs::write(&tampered, lines.join("\n") + "\n").unwrap();
    let output = host(&["replay", tampered.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output)
            .contains("the replay diverges at frame 77: scene 0123456789abcdef recorded"),
        "{}",
        stderr(&output)
    );

    // Cut short (as by a crash): replays what it has, with a warning.
    let cut = dir.path().join("cut.rec");
    std::fs::write(&cut, text.lines().take(40).collect::<Vec<_>>().join("\n")).unwrap();
    let output = host(&["replay", cut.to_str().unwrap()]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("no end line"),
        "{}",
        stderr(&output)
    );

    // Not a recording: one line naming the file.
    let output = host(&["replay", keys.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    let error = stderr(&output);
    assert!(error.contains("is not a readable recording"), "{error}");
    assert_eq!(error.lines().count(), 1, "{error}");
}

#[test]
fn replaying_an_edited_script_is_refused_or_names_the_first_divergent_frame() {
    let dir = common::standalone_crate("determinism", "determinism-edited", |s| s.to_owned());
    let tmp = tempfile::tempdir().unwrap();
    let recording = tmp.path().join("run.rec");
    scene_after(&[&dir], 90, &["--record", recording.to_str().unwrap()]);
    let output = host(&["replay", recording.to_str().unwrap()]);
    assert!(output.status.success(), "{}", stderr(&output));

    // From frame 41 on, the edited walker steps twice as far.
    common::edit_crate(&dir, |s| {
        s.replace(
            "let step = (self.rng % 1000) as f32 / 1000.0 - 0.5;",
            "let mut step = (self.rng % 1000) as f32 / 1000.0 - 0.5;\n        \
             if script::time::frame() > 40 { step *= 2.0; }",
        )
    });
    // The recording names the crate: replay loads the component recorded,
    // kept by its digest, and builds nothing, so it still agrees.
    let output = host(&["replay", recording.to_str().unwrap()]);
    assert!(output.status.success(), "{}", stderr(&output));
    // The edited crate, given by the user, is built and refused.
    let edited = dir.to_str().unwrap();
    let output = host(&["replay", recording.to_str().unwrap(), edited]);
    assert_eq!(output.status.code(), Some(1));
    let error = stderr(&output);
    assert!(error.contains("is not the script recorded"), "{error}");
    assert!(error.contains("--allow-changed"), "{error}");

    let output = host(&[
        "replay",
        recording.to_str().unwrap(),
        edited,
        "--allow-changed",
    ]);
    assert_eq!(output.status.code(), Some(1));
    let error = stderr(&output);
    assert!(error.contains("the replay diverges at frame 41"), "{error}");
    assert!(error.contains("(at checkpoint frame 60)"), "{error}");
    assert!(error.contains("`walker`: position"), "{error}");
    assert!(error.contains("1 entity differs"), "{error}");
}

#[test]
fn serve_records_each_world_for_replay() {
    let dir = tempfile::tempdir().unwrap();
    let records = dir.path().join("records");
    let script = common::script_dir("determinism");
    let mut serve = Serve::start(&[
        script.to_str().unwrap(),
        "--worlds",
        "2",
        "--seconds",
        "2",
        "--seed",
        "7",
        "--record-worlds",
        records.to_str().unwrap(),
    ]);
    std::thread::sleep(Duration::from_millis(300));
    let (status, body) = request(
        "POST",
        &serve.url("/worlds/1/events"),
        Some(r#"{"press":"space"}"#),
    );
    assert_eq!(status, 202, "{body}");
    // A world of its own seed, for 30 frames.
    let (status, body) = request(
        "POST",
        &serve.url("/worlds"),
        Some(r#"{"seed":42,"frames":30}"#),
    );
    assert_eq!(status, 201, "{body}");
    assert_eq!(serve.wait(Duration::from_secs(60)), 0, "{}", serve.stderr());

    let header = |world: &str| -> Value {
        let text = std::fs::read_to_string(records.join(world)).unwrap();
        serde_json::from_str(text.lines().next().unwrap()).unwrap()
    };
    let text = std::fs::read_to_string(records.join("world-1.rec")).unwrap();
    assert!(text.contains(r#""input":{"press":"space"}"#), "{text:.400}");
    // Each launched world its own game, following from the server's seed.
    let (one, two) = (
        header("world-1.rec")["seed"].clone(),
        header("world-2.rec")["seed"].clone(),
    );
    assert_ne!(one, two);
    assert_ne!(one, 7);
    assert_eq!(header("world-3.rec")["seed"], 42);
    for (world, frames) in [
        ("world-1.rec", 120),
        ("world-2.rec", 120),
        ("world-3.rec", 30),
    ] {
        let output = host(&["replay", records.join(world).to_str().unwrap()]);
        assert!(output.status.success(), "{world}: {}", stderr(&output));
        let agree = format!("replay: {frames} frames agree");
        assert!(stdout(&output).contains(&agree), "{}", stdout(&output));
    }
}

/// A crate whose `build.rs` writes its whole environment to `marker`, a
/// `NAME=VALUE` line each, for the tests that show nothing is built, or
/// handed secrets.
fn crate_with_build_script(name: &str, marker: &Path) -> std::path::PathBuf {
    let dir = common::standalone_crate("counter", name, |s| s.to_owned());
    std::fs::write(
        dir.join("build.rs"),
        format!(
            "fn main() {{\n    let seen: String = std::env::vars()\n        \
             .map(|(name, value)| format!(\"{{name}}={{value}}\\n\"))\n        .collect();\n    \
             std::fs::write({:?}, seen).unwrap();\n    \
             println!(\"cargo:rerun-if-changed=build.rs\");\n}}\n",
            marker.display().to_string()
        ),
    )
    .unwrap();
    dir
}

#[test]
fn a_recording_never_builds_what_it_names() {
    let tmp = tempfile::tempdir().unwrap();
    let marker = tmp.path().join("built");
    let evil = crate_with_build_script("replay-names-a-crate", &marker);
    // A real recording, of a built component...
    let recording = tmp.path().join("run.rec");
    let counter = common::build("counter");
    scene_after(&[&counter], 10, &["--record", recording.to_str().unwrap()]);
    // ...whose header now names the crate, by a digest no cache holds.
    let text = std::fs::read_to_string(&recording).unwrap();
    let (header, rest) = text.split_once('\n').unwrap();
    let mut header: Value = serde_json::from_str(header).unwrap();
    header["scripts"][0]["source"] = Value::from(evil.to_str().unwrap());
    header["scripts"][0]["sha256"] = Value::from("ab".repeat(32));
    let forged = tmp.path().join("forged.rec");
    std::fs::write(&forged, format!("{header}\n{rest}")).unwrap();
    let output = host(&["replay", forged.to_str().unwrap()]);
    let error = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{error}");
    assert_eq!(error.lines().count(), 1, "{error}");
    assert!(error.contains("which replay neither builds"), "{error}");
    assert!(error.contains("host build"), "{error}");
    assert!(!marker.exists(), "the crate's build.rs ran");

    // Header values past their bounds are refused in one line.
    let mut huge = serde_json::from_str::<Value>(text.split_once('\n').unwrap().0).unwrap();
    huge["scripts"][0]["instances"] = Value::from(4_000_000_000u64);
    let bounded = tmp.path().join("huge.rec");
    std::fs::write(&bounded, format!("{huge}\n{rest}")).unwrap();
    let output = host(&["replay", bounded.to_str().unwrap()]);
    let error = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{error}");
    assert_eq!(error.lines().count(), 1, "{error}");
    assert!(
        error.contains("a recording holds at most 1000000"),
        "{error}"
    );
}

#[test]
fn a_script_crates_build_is_never_handed_the_hosts_secrets() {
    let tmp = tempfile::tempdir().unwrap();
    let marker = tmp.path().join("seen");
    let probe = crate_with_build_script("secret-probe", &marker);
    // Every secret the host reads (the control token, the fleet's
    // password), from the one list it keeps them in.
    let secrets = game_host::secrets::SECRET_ENV;
    assert!(secrets.contains(&"GAME_HOST_CONTROL_TOKEN"));
    assert!(secrets.contains(&"GAME_HOST_FLEET_PASSWORD"));
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_host"))
        .args([
            "run",
            probe.to_str().unwrap(),
            "--headless",
            "--frames",
            "1",
            "--cache-dir",
        ])
        .arg(common::cache_dir())
        .envs(
            secrets
                .iter()
                .map(|name| (name, format!("secret-of-{name}"))),
        )
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let seen = std::fs::read_to_string(&marker).unwrap();
    assert!(seen.contains("CARGO_PKG_NAME=secret-probe"), "{seen}");
    for name in secrets {
        assert!(!seen.contains(name), "the build script saw {name}");
    }
}
