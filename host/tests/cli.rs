//! The `host` binary: script arguments, `--dump-scene`, exit codes and
//! error messages.

mod common;

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

/// Runs `host` headless (these tests are about scripts, not windows).
fn host(args: &[&str], cache: &Path) -> Output {
    common::run_host(&[args, &["--headless"]].concat(), cache)
}

fn stderr(output: &Output) -> String {
    common::stderr_of(output)
}

fn read_dump(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect("dump written")).expect("json")
}

/// Runs `script` headless for `frames` frames with `--dump-scene` into
/// `dir`; asserts it succeeded and returns its output and the scene.
fn run_dumped(script: &str, frames: &str, dir: &Path) -> (Output, Value) {
    let out = dir.join("out.json");
    let output = host(
        &[
            "run",
            script,
            "--frames",
            frames,
            "--dump-scene",
            out.to_str().unwrap(),
        ],
        dir,
    );
    assert!(output.status.success(), "{}", stderr(&output));
    (output, read_dump(&out))
}

#[test]
fn crate_directory_builds_runs_and_dumps_the_scene() {
    let dir = tempfile::tempdir().unwrap();
    let (output, dump) = run_dumped("examples/spinning-cube", "60", dir.path());

    assert_eq!(dump["frame"], 60);
    let entities = dump["entities"].as_array().unwrap();
    assert_eq!(entities.len(), 1);
    let cube = &entities[0];
    assert_eq!(cube["name"], "cube");
    assert_eq!(cube["position"].as_array().unwrap().len(), 3);
    assert_eq!(cube["scale"].as_array().unwrap().len(), 3);
    let rotation: Vec<f64> = cube["rotation"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    let half = std::f64::consts::FRAC_PI_4; // a quarter turn: half-angle pi/4
    let expected = [0.0, half.sin(), 0.0, half.cos()];
    for (a, e) in rotation.iter().zip(expected) {
        assert!((a - e).abs() < 1e-4, "rotation {rotation:?}");
    }
    assert!(stderr(&output).contains("spinning cube started"));
}

#[test]
fn build_writes_one_component_to_ship_a_javascript_script() {
    let dir = tempfile::tempdir().unwrap();
    let wasm = dir.path().join("orbiter.wasm");
    let output = common::run_host(
        &["build", "examples/js-orbiter", "-o", wasm.to_str().unwrap()],
        dir.path(),
    );
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        stderr(&output).contains(&format!("wrote `{}`", wasm.display())),
        "{}",
        stderr(&output)
    );

    // A plain component file: it runs without the sources or the tool.
    let (output, dump) = run_dumped(wasm.to_str().unwrap(), "60", dir.path());
    assert!(stderr(&output).contains("js orbiter started"));
    // A quarter turn of radius 3 in one second: at (0, 0, 3).
    let position = common::dumped_position(&dump, "js-moon");
    for (a, e) in position.iter().zip([0.0, 0.0, 3.0]) {
        assert!((a - e).abs() < 1e-3, "moon at {position:?}");
    }
}

#[test]
fn no_script_argument_runs_the_built_in_spinning_cube() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.json");
    let output = host(
        &[
            "run",
            "--frames",
            "30",
            "--dump-scene",
            out.to_str().unwrap(),
        ],
        dir.path(),
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let dump = read_dump(&out);
    assert_eq!(dump["frame"], 30);
    assert_eq!(dump["entities"][0]["name"], "cube");
    let y = dump["entities"][0]["rotation"][1].as_f64().unwrap();
    assert!(
        (y - (std::f64::consts::FRAC_PI_8).sin()).abs() < 1e-4,
        "{y}"
    );
}

#[test]
fn several_scripts_and_instances_share_the_scene() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.json");
    let counter = common::build("counter");
    let output = host(
        &[
            "run",
            "examples/spinning-cube",
            counter.to_str().unwrap(),
            "--instances",
            "2",
            "--frames",
            "5",
            "--dump-scene",
            out.to_str().unwrap(),
        ],
        dir.path(),
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let dump = read_dump(&out);
    let names: Vec<&str> = dump["entities"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["cube", "counter-0", "counter-1"]);
    assert_eq!(dump["entities"][1]["position"][0], 5.0);
    assert_eq!(dump["entities"][2]["position"][0], 5.0);
}

#[test]
fn trapping_script_fails_the_run_but_not_the_others() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.json");
    let trap = common::build("trap");
    let counter = common::build("counter");
    let output = host(
        &[
            "run",
            trap.to_str().unwrap(),
            counter.to_str().unwrap(),
            "--frames",
            "8",
            "--dump-scene",
            out.to_str().unwrap(),
        ],
        dir.path(),
    );
    assert_eq!(output.status.code(), Some(1));
    let err = stderr(&output);
    assert!(
        err.contains("script `test_trap`") && err.contains("failed in `on-update` at frame 3"),
        "{err}"
    );
    assert!(err.contains("wasm backtrace"), "{err}");
    assert!(err.contains("boom at frame 3"), "{err}");
    assert!(!err.contains("host/src"), "the host itself panicked: {err}");
    let dump = read_dump(&out);
    assert_eq!(dump["frame"], 8);
    assert_eq!(dump["entities"][1]["position"][0], 8.0);
}

#[test]
fn a_quota_set_on_the_command_line_stops_the_script_that_passes_it() {
    // The swarm spawns 5,000 entities in one call; the spinning cube spawns
    // none and runs on.
    let dir = tempfile::tempdir().unwrap();
    let swarm = common::build("swarm");
    let cube = common::build("spinning-cube");
    let run = |quota: &str| {
        host(
            &[
                "run",
                swarm.to_str().unwrap(),
                cube.to_str().unwrap(),
                "--frames",
                "3",
                "--quota",
                quota,
            ],
            dir.path(),
        )
    };
    let output = run("entities=4999");
    assert_eq!(output.status.code(), Some(1));
    let err = stderr(&output);
    assert!(
        err.contains("script `swarm`")
            && err.contains("failed in `entrypoint`")
            && err.contains("quota exceeded: more than 4999 entities spawned"),
        "{err}"
    );
    assert!(!err.contains("spinning_cube` ("), "{err}");
    let output = run("entities=5000");
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
}

/// Runs one bad script argument and returns the error line.
fn bad_script(path: &str, cache: &Path) -> String {
    let output = host(&["run", path, "--frames", "3"], cache);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let err = stderr(&output);
    assert!(!err.contains("panicked"), "host panicked: {err}");
    err.lines()
        .find(|l| l.starts_with("error: ") && !l.contains("no script could be started"))
        .unwrap_or_else(|| panic!("no error line in: {err}"))
        .to_owned()
}

#[test]
fn each_bad_input_gets_a_one_line_error_naming_file_and_cause() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path();
    let text = dir.path().join("text.wasm");
    std::fs::write(&text, "not wasm").unwrap();
    let core = dir.path().join("core.wasm");
    std::fs::write(&core, b"\0asm\x01\0\0\0").unwrap();
    let missing_export = common::build("missing-export");
    let unknown_import = common::build("unknown-import");

    let cases = [
        ("missing.wasm".to_owned(), "not found"),
        (text.display().to_string(), "not a WebAssembly file"),
        (core.display().to_string(), "not a component"),
        (
            missing_export.display().to_string(),
            "no export `on-update`",
        ),
        (unknown_import.display().to_string(), "`test:missing/thing`"),
    ];
    for (path, cause) in cases {
        let line = bad_script(&path, cache);
        assert!(line.contains(&path), "`{line}` does not name `{path}`");
        assert!(line.contains(cause), "`{line}` does not say `{cause}`");
    }

    let trap = common::build("trap-entrypoint");
    let output = host(&["run", trap.to_str().unwrap(), "--frames", "3"], cache);
    assert_eq!(output.status.code(), Some(1));
    let err = stderr(&output);
    assert!(
        err.contains("script `test_trap_entrypoint`")
            && err.contains("failed in `entrypoint`")
            && err.contains("entrypoint refused to start"),
        "{err}"
    );
}

#[test]
fn directory_without_a_crate_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let line = bad_script(dir.path().to_str().unwrap(), dir.path());
    assert!(line.contains("has no Cargo.toml"), "{line}");
}

#[test]
fn input_file_drives_the_message_window() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("enter.txt");
    std::fs::write(
        &input,
        "# press Enter once the window is open\n40 press enter\n",
    )
    .unwrap();
    let output = host(
        &[
            "run",
            "examples/message-window",
            "--frames",
            "60",
            "--input",
            input.to_str().unwrap(),
            "--list-waits",
        ],
        dir.path(),
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let err = stderr(&output);
    for (message, frame) in [
        ("window opening", 0),
        ("enter pressed", 40),
        ("window closed", 50),
    ] {
        let line = err
            .lines()
            .find(|l| l.contains(message))
            .unwrap_or_else(|| panic!("no `{message}` in {err}"));
        assert!(line.contains(&format!("frame={frame}")), "{line}");
    }
    assert!(err.contains("script `message_window`"), "{err}");
    assert!(err.contains("0 pending wait(s)"), "{err}");
}

#[test]
fn list_waits_shows_what_each_task_waits_on() {
    let dir = tempfile::tempdir().unwrap();
    let output = host(
        &["run", "examples/wander", "--frames", "100", "--list-waits"],
        dir.path(),
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let err = stderr(&output);
    assert!(err.contains("2 pending wait(s)"), "{err}");
    assert!(err.contains("task 1: event key-pressed(space)"), "{err}");
    assert!(err.contains("task 2: timer due at frame"), "{err}");
}

#[test]
fn bad_input_file_names_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("bad.txt");
    std::fs::write(&input, "10 press enter\n20 press hyperspace\n").unwrap();
    let output = host(
        &["run", "--frames", "3", "--input", input.to_str().unwrap()],
        dir.path(),
    );
    assert_eq!(output.status.code(), Some(1));
    let err = stderr(&output);
    assert!(
        err.contains("bad input file") && err.contains("line 2: unknown key"),
        "{err}"
    );
}

#[test]
fn watch_swaps_a_rewritten_component_in_a_real_time_run() {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;
    use std::time::{Duration, Instant};

    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("script.wasm");
    std::fs::copy(common::build("spinning-cube"), &file).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_host"))
        .args([
            "run",
            file.to_str().unwrap(),
            "--watch",
            "--no-cache",
            "--headless",
        ])
        .env("NO_COLOR", "1")
        .stderr(Stdio::piped())
        .spawn()
        .expect("run host");
    let (lines_tx, lines) = std::sync::mpsc::channel();
    let stderr = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = lines_tx.send(line);
        }
    });
    let wait_for = |needle: &str| -> String {
        let deadline = Instant::now() + Duration::from_secs(60);
        while let Ok(line) = lines.recv_timeout(deadline.saturating_duration_since(Instant::now()))
        {
            if line.contains(needle) {
                return line;
            }
        }
        panic!("`{needle}` never logged");
    };
    wait_for("watching for changes");

    // Replace the file as a build would: write elsewhere, then rename.
    let tmp = dir.path().join("script.tmp");
    std::fs::copy(common::build("counter"), &tmp).unwrap();
    std::fs::rename(&tmp, &file).unwrap();
    let counter_size = std::fs::metadata(&file).unwrap().len();
    let swapped = wait_for("hot-swapped");
    assert!(swapped.contains("script=script"), "{swapped}");
    assert!(
        swapped.contains(&format!("new_bytes={counter_size}")),
        "{swapped}"
    );
    assert!(swapped.contains("pause="), "{swapped}");
    // The counter started (no state to take over) and runs frame by frame.
    wait_for("tick 2");

    child.kill().unwrap();
    child.wait().unwrap();
}

#[test]
fn a_host_without_the_fleet_says_how_to_build_one_that_joins() {
    let dir = tempfile::tempdir().unwrap();
    let output = common::run_host(
        &[
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--fleet",
            "redis://127.0.0.1:1/",
        ],
        dir.path(),
    );
    assert_eq!(output.status.code(), Some(1));
    let err = stderr(&output);
    let line = err
        .lines()
        .find(|line| line.starts_with("error: "))
        .unwrap_or_else(|| panic!("no error line in: {err}"));
    if cfg!(feature = "fleet") {
        // A host with the fleet goes on to Redis, and wants its password
        // before it connects.
        assert!(
            line.contains("--fleet") && line.contains("password"),
            "{err}"
        );
    } else {
        assert!(
            line.contains("built without the fleet")
                && line.contains("cargo install --path host --features fleet"),
            "{err}"
        );
    }
}
