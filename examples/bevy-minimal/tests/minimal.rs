//! bevy-minimal as a player runs it: the spinning cube, built from
//! `examples/spinning-cube`, is its mod in `mods/`; it turns the game's
//! cube for 120 fixed steps (64 a second) under the grants the game gives
//! in code. A mod that imports what those grants leave out (`events`, which
//! `message-window` waits on) is refused, naming it, and the game runs on.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use game_host_build::{BuildOutput, build_script_crate};

fn example(name: &str) -> PathBuf {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    build_script_crate(&examples.join(name), BuildOutput::Capture)
        .unwrap_or_else(|e| panic!("building `{name}` failed: {e:#}"))
}

/// A game directory whose `mods/spinning_cube.wasm` is `component`.
fn game_dir(component: &Path) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("mods")).unwrap();
    std::fs::copy(component, dir.path().join("mods/spinning_cube.wasm")).unwrap();
    dir
}

fn game(dir: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_bevy-minimal"));
    command
        .env("BEVY_ASSET_ROOT", dir)
        .env("NO_COLOR", "1")
        .current_dir(dir);
    command
}

#[test]
fn the_mod_turns_the_games_cube() {
    let dir = game_dir(&example("spinning-cube"));
    let output = game(dir.path()).args(["--frames", "120"]).output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    let line = stdout
        .lines()
        .find_map(|l| l.strip_prefix("after 120 frames the cube has turned "))
        .unwrap_or_else(|| panic!("{stdout}\n{stderr}"));
    // A quarter turn a second, 120 steps of 1/64 s: 168.75 degrees.
    let degrees: f32 = line.split_whitespace().next().unwrap().parse().unwrap();
    assert!((degrees - 168.75).abs() < 0.2, "{line}");
    assert!(line.ends_with("about [0.00, 1.00, 0.00]"), "{line}");
}

#[test]
fn a_mod_that_imports_more_than_its_grants_is_refused_and_the_game_runs_on() {
    let dir = game_dir(&example("message-window"));
    let mut child = game(dir.path())
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    // The game's log, line by line, read on a thread of its own so that a
    // game that says nothing cannot hold the test.
    let stderr = BufReader::new(child.stderr.take().unwrap());
    let (lines, said) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in stderr.lines().map_while(Result::ok) {
            if lines.send(line).is_err() {
                break;
            }
        }
    });
    let started = Instant::now();
    let mut seen = Vec::new();
    let mut refused = false;
    while !refused && started.elapsed() < Duration::from_secs(120) {
        if let Ok(line) = said.recv_timeout(Duration::from_millis(200)) {
            refused = line.contains("`events`") && line.contains("which its grants do not include");
            seen.push(line);
        }
    }
    // Still running after the refusal: the game goes on without the mod.
    std::thread::sleep(Duration::from_millis(300));
    let running = child.try_wait().unwrap().is_none();
    let _ = child.kill();
    let _ = child.wait();
    assert!(refused, "{}", seen.join("\n"));
    assert!(running, "{}", seen.join("\n"));
}
