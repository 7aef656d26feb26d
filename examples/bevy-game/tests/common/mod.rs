//! What the game's tests share: running the `bevy-game` binary as a user
//! does, and a directory for what a test writes.

#![allow(dead_code)] // each test binary uses a different part

use std::path::{Path, PathBuf};
use std::process::Command;

/// `name` in directory `dir` under the tests' scratch space (created).
pub fn out(dir: &str, name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// Runs the game; its exit status and stderr.
pub fn game(args: &[&str]) -> (bool, String) {
    game_building_in(args, None)
}

/// [`game`], building a script crate of its own workspace (a project made
/// by `host new`) into `target`, kept across runs.
pub fn game_building_in(args: &[&str], target: Option<&Path>) -> (bool, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_bevy-game"));
    command.args(args).env("NO_COLOR", "1");
    if let Some(target) = target {
        command.env("CARGO_TARGET_DIR", target);
    }
    let output = command.output().unwrap();
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}
