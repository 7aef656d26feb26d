//! What the game-types tests share: the game's description, and editing
//! and running an author's project in a [`Scratch`] directory.

use std::path::Path;

use super::scratch::Scratch;

/// The description of a game with `Spin`, `Health` and a `Score`.
pub const GAME: &str = r#"{
  "game": "spin-demo",
  "components": {
    "Spin": { "speed": "f32" },
    "Health": { "current": "f32", "max": "f32" }
  },
  "resources": { "Score": { "points": "s64" } }
}
"#;

/// Replaces `from` (which must be there) with `to` in `file`.
pub fn edit(file: &Path, from: &str, to: &str) {
    let text = std::fs::read_to_string(file).unwrap();
    assert!(text.contains(from), "`{}` has no `{from}`", file.display());
    std::fs::write(file, text.replace(from, to)).unwrap();
}

/// `host ARGS` in the scratch directory, expected to fail: its last line.
pub fn refused(scratch: &Scratch, args: &[&str]) -> String {
    let output = scratch.host(args).output().unwrap();
    assert!(!output.status.success());
    let stderr = super::stderr_of(&output);
    stderr
        .trim_end()
        .lines()
        .last()
        .unwrap_or_default()
        .to_owned()
}

/// Runs `script` (a project, or a built `.wasm`) with `host run --game
/// game.json` for one second (60 frames), checks that its moon turned at 2
/// rad/s on a circle of radius 3, and returns the log.
pub fn run_one_second(scratch: &Scratch, script: &str) -> String {
    let scene = scratch.path().join("scene.json");
    let log = scratch.run(&[
        "run",
        script,
        "--game",
        "game.json",
        "--headless",
        "--frames",
        "60",
        "--dump-scene",
        scene.to_str().unwrap(),
    ]);
    let scene: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(scene).unwrap()).unwrap();
    let position = super::dumped_position(&scene, "moon");
    let expected = [3.0 * 2f64.cos(), 0.0, 3.0 * 2f64.sin()];
    for (got, want) in position.iter().zip(expected) {
        assert!(
            (got - want).abs() < 1e-3,
            "moon at {position:?}, not {expected:?}"
        );
    }
    log
}
