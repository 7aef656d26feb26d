//! The game as a user runs it: the `bevy-game` binary, headless, on the
//! same script crates `host run` runs, its `--dump-scene` compared with the
//! core runtime's own scene after the same frames.

mod common;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use common::game;

use game_host::log::MemoryLog;
use game_host::runtime::{Runtime, RuntimeConfig};
use game_host::scene::SceneDump;
use game_host::{EngineOptions, ScriptEngine};
use game_host_build::{BuildOutput, build_script_crate};

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(name)
}

fn out(name: &str) -> PathBuf {
    common::out("bevy-game", name)
}

/// The scene after `frames` frames of these script crates on the core
/// runtime and its own scene, as `host run --dump-scene` writes it.
fn host_run(scripts: &[&str], frames: u64) -> SceneDump {
    let engine = ScriptEngine::new(EngineOptions::default()).unwrap();
    let mut runtime = Runtime::new(RuntimeConfig {
        log: Arc::new(MemoryLog::new()),
        ..RuntimeConfig::default()
    });
    for script in scripts {
        let file = build_script_crate(&example(script), BuildOutput::Capture).unwrap();
        runtime.spawn(&engine.load_file(&file).unwrap()).unwrap();
    }
    runtime.run_frames(frames);
    assert!(
        runtime.inspect().errors().is_empty(),
        "{:?}",
        runtime.inspect().errors()
    );
    runtime.inspect().dump()
}

fn read_dump(file: &Path) -> SceneDump {
    serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap()
}

#[test]
fn with_no_script_it_spins_the_cube_as_host_run_does() {
    let file = out("cube.json");
    let dump = file.to_str().unwrap();
    let (ok, stderr) = game(&["--headless", "--frames", "120", "--dump-scene", dump]);
    assert!(ok, "{stderr}");
    let bevy = read_dump(&file);
    let host = host_run(&["spinning-cube"], 120);
    assert_eq!(bevy.frame, 120);
    assert_eq!(bevy.entities.len(), 1);
    let (b, h) = (bevy.entities[0].rotation, host.entities[0].rotation);
    for k in 0..4 {
        assert!((b[k] - h[k]).abs() < 1e-5, "{b:?} against {h:?}");
    }
    // 120 steps at a quarter turn a second: half a turn about Y.
    assert!((b[1].abs() - 1.0).abs() < 1e-5, "{b:?}");
    assert_eq!(bevy, host, "the same scene, bit for bit");
}

#[test]
fn the_orbiter_reads_the_games_spin_component() {
    // `Spin` is a Bevy component the game registers; the script inserts
    // it at a quarter orbit a second and reads it every step. Under the
    // core's scene the script's own insert is what it reads.
    let file = out("orbit.json");
    let (orbiter, cube) = (example("spin-orbiter"), example("spinning-cube"));
    let args = [
        orbiter.to_str().unwrap(),
        cube.to_str().unwrap(),
        "--headless",
        "--frames",
        "60",
        "--dump-scene",
        file.to_str().unwrap(),
    ];
    let (ok, stderr) = game(&args);
    assert!(ok, "{stderr}");
    let bevy = read_dump(&file);
    let moon = bevy.entities.iter().find(|e| e.name == "moon").unwrap();
    let [x, y, z] = moon.position;
    assert!(
        x.abs() < 1e-4 && y == 0.0 && (z - 3.0).abs() < 1e-4,
        "{moon:?}"
    );
    assert_eq!(bevy, host_run(&["spin-orbiter", "spinning-cube"], 60));
}

/// Runs a spin-query script in the game with 8 spinners for 120 steps
/// and checks what it did: each spinner turned by its own `Spin.speed`
/// for two seconds (read through a query, the step from `Time`), the
/// frozen one not at all, and the game counted its 4 `Scored` messages.
fn spin_query_in_the_game(script: &str) -> SceneDump {
    let file = out(&format!("{script}.json"));
    let path = example(script);
    let args = [
        path.to_str().unwrap(),
        "--headless",
        "--frames",
        "120",
        "--spinners",
        "8",
        "--dump-scene",
        file.to_str().unwrap(),
    ];
    let (ok, stderr) = game(&args);
    assert!(ok, "{stderr}");
    assert!(stderr.contains("score: 4"), "{stderr}");
    assert!(stderr.contains("heard Scored"), "{stderr}");
    let dump = read_dump(&file);
    check_spinners(&dump);
    dump
}

fn check_spinners(dump: &SceneDump) {
    for k in 0..=8 {
        let name = format!("spinner-{k}");
        let spinner = dump.entities.iter().find(|e| e.name == name).unwrap();
        let angle = match k {
            8 => 0.0, // frozen
            _ => 0.5 * (k + 1) as f32 * 2.0,
        };
        let want = [0.0, (angle / 2.0).sin(), 0.0, (angle / 2.0).cos()];
        for (got, want) in spinner.rotation.iter().zip(want) {
            assert!(
                (got - want).abs() < 1e-4,
                "{name}: {:?} against {want:?}",
                spinner.rotation
            );
        }
    }
}

#[test]
fn spin_query_turns_the_games_spinners_as_it_turns_its_own_under_host_run() {
    spin_query_in_the_game("spin-query");
    // Under `host run` the script spawns the spinners (and `Frozen`) itself.
    check_spinners(&host_run(&["spin-query"], 120));
}

#[test]
fn the_python_and_javascript_spin_queries_do_the_same() {
    spin_query_in_the_game("python-spin-query");
    spin_query_in_the_game("js-spin-query");
}

#[test]
fn bad_scripts_and_options_fail_in_one_line() {
    let (ok, stderr) = game(&["no-such-script", "--headless", "--frames", "1"]);
    assert!(!ok);
    assert_eq!(stderr.trim(), "error: script `no-such-script` not found");

    let (ok, stderr) = game(&["--headless"]);
    assert!(!ok);
    assert_eq!(
        stderr.trim(),
        "error: --headless needs --frames N: how many steps to run"
    );

    // A file that is no component: loaded, refused, and nothing else runs.
    let junk = out("junk.wasm");
    std::fs::write(&junk, b"not wasm").unwrap();
    let (ok, stderr) = game(&[junk.to_str().unwrap(), "--headless", "--frames", "5"]);
    assert!(!ok);
    let last = stderr.lines().last().unwrap_or_default();
    assert_eq!(
        last, "error: no script is running: each failed to load or start (see above)",
        "{stderr}"
    );
    assert!(
        stderr.contains(
            "stopped: script `junk` cannot run: it is not a WebAssembly file (no `\\0asm` header)"
        ),
        "{stderr}"
    );
}
