//! bevy-minimal as a player runs it: the spinning cube, built from
//! `examples/spinning-cube`, is its mod in `mods/`; it turns the game's
//! cube for 120 fixed steps (64 a second) under the grants the game gives
//! in code. A mod that imports what those grants leave out (`events`, which
//! `message-window` waits on) is refused, naming it, and the game runs on.
//! A mod written again while the game runs is swapped in, its state handed
//! over, and the log says so.

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

/// The game running with no frame limit, its log read line by line on a
/// thread of its own (so that a game that says nothing cannot hold the
/// test), and killed when dropped.
struct Running {
    child: std::process::Child,
    said: std::sync::mpsc::Receiver<String>,
    seen: Vec<String>,
}

impl Running {
    fn start(dir: &Path) -> Running {
        let mut child = game(dir)
            .stderr(Stdio::piped())
            .stdout(Stdio::null())
            .spawn()
            .unwrap();
        let stderr = BufReader::new(child.stderr.take().unwrap());
        let (lines, said) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in stderr.lines().map_while(Result::ok) {
                if lines.send(line).is_err() {
                    break;
                }
            }
        });
        Running {
            child,
            said,
            seen: Vec::new(),
        }
    }

    /// Waits up to 120 s for a line of the log that `wanted` says is the
    /// one; panics with the log so far if none comes.
    fn wait_for(&mut self, what: &str, wanted: impl Fn(&str) -> bool) -> String {
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(120) {
            if let Ok(line) = self.said.recv_timeout(Duration::from_millis(200)) {
                self.seen.push(line.clone());
                if wanted(&line) {
                    return line;
                }
            }
        }
        panic!("no {what} in the game's log:\n{}", self.seen.join("\n"));
    }

    /// Whether the game still runs.
    fn running(&mut self) -> bool {
        self.child.try_wait().unwrap().is_none()
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn a_mod_that_imports_more_than_its_grants_is_refused_and_the_game_runs_on() {
    let dir = game_dir(&example("message-window"));
    let mut game = Running::start(dir.path());
    game.wait_for("refusal naming `events`", |line| {
        line.contains("`events`") && line.contains("which its grants do not include")
    });
    // Still running after the refusal: the game goes on without the mod.
    std::thread::sleep(Duration::from_millis(300));
    assert!(game.running(), "{}", game.seen.join("\n"));
}

#[test]
fn a_mod_written_again_while_the_game_runs_is_swapped_in_with_its_state_and_said() {
    let component = example("spinning-cube");
    let dir = game_dir(&component);
    let mut game = Running::start(dir.path());
    // Started (a change before that starts it again instead of swapping).
    game.wait_for("start", |line| line.contains("spinning cube started"));
    // Written whole beside it, then renamed over it, as `host build -o`
    // writes it.
    let beside = dir.path().join("mods/spinning_cube.wasm.new.tmp");
    std::fs::copy(&component, &beside).unwrap();
    std::fs::rename(&beside, dir.path().join("mods/spinning_cube.wasm")).unwrap();
    let line = game.wait_for("hot swap", |line| line.contains("hot-swapped"));
    assert!(line.contains("state=\"handed over\""), "{line}");
    assert!(line.contains("script=spinning_cube"), "{line}");
    assert!(game.running(), "{}", game.seen.join("\n"));
}
