//! [`Scratch`]: a directory outside this repository where the tests act as
//! an author would, with `host` run from inside it.

use std::ffi::OsStr;
use std::path::Path;
use std::process::Command;

use serde_json::Value;

/// A scratch directory outside the workspace, with the host's data and
/// cache directories inside it (so the SDK is the one this binary writes).
pub struct Scratch {
    dir: tempfile::TempDir,
}

impl Scratch {
    pub fn new() -> Scratch {
        let dir = tempfile::tempdir().unwrap();
        let workspace = super::workspace().canonicalize().unwrap();
        assert!(
            !dir.path().canonicalize().unwrap().starts_with(&workspace),
            "the scratch directory must lie outside the repository"
        );
        Scratch { dir }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// `host ARGS` run in the scratch directory.
    pub fn host(&self, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_host"));
        command
            .args(args)
            .current_dir(self.path())
            .env("GAME_HOST_DATA_DIR", self.path().join("data"))
            .env("GAME_HOST_CACHE_DIR", super::cache_dir())
            // Rust projects share one target directory across runs of
            // this test, as cargo's own cache would across an author's.
            .env(
                "CARGO_TARGET_DIR",
                Path::new(env!("CARGO_TARGET_TMPDIR")).join("new-project-target"),
            )
            .env("NO_COLOR", "1")
            .env_remove("RUST_LOG");
        command
    }

    /// `program ARGS` run in the scratch directory as on a machine without
    /// Rust: `PATH` is `path` (which must reach no cargo, rustc or rustup:
    /// [`assert_no_rust`]), no variable of cargo's, rustup's or the host's
    /// is set, and the host's data and cache directories are fresh inside
    /// the scratch directory. The rest of the environment stays (`HOME`
    /// for pip's and npm's caches, the machine's certificate settings).
    pub fn installed(&self, program: impl AsRef<OsStr>, args: &[&str], path: &str) -> Command {
        let mut command = Command::new(program);
        for (name, _) in std::env::vars_os() {
            let name_text = name.to_string_lossy();
            if ["CARGO", "RUSTUP", "RUSTC", "RUST_", "GAME_HOST_"]
                .iter()
                .any(|prefix| name_text.starts_with(prefix))
            {
                command.env_remove(&name);
            }
        }
        command
            .args(args)
            .current_dir(self.path())
            .env("PATH", path)
            .env("GAME_HOST_DATA_DIR", self.path().join("data"))
            .env("GAME_HOST_CACHE_DIR", self.path().join("cache"))
            .env("NO_COLOR", "1");
        command
    }

    /// [`Scratch::installed`] run to its end; panics with its output if it
    /// fails, else returns its stdout and stderr together.
    pub fn run_installed(&self, program: impl AsRef<OsStr>, args: &[&str], path: &str) -> String {
        let program = program.as_ref();
        let output = self
            .installed(program, args, path)
            .output()
            .unwrap_or_else(|e| panic!("cannot start {program:?}: {e}"));
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            super::stderr_of(&output)
        );
        assert!(
            output.status.success(),
            "{program:?} {args:?} failed ({}):\n{text}",
            output.status
        );
        text
    }

    /// Runs `host ARGS` to its end; panics with its stderr if it fails.
    pub fn run(&self, args: &[&str]) -> String {
        let output = self.host(args).output().expect("run host");
        let stderr = super::stderr_of(&output);
        assert!(output.status.success(), "host {args:?} failed:\n{stderr}");
        stderr
    }
}

impl Scratch {
    /// Runs `host new`'s project `my-mod` for 60 frames headless, with
    /// `run` starting `host` with the arguments it is given, and checks
    /// where its moon is then ([`assert_moon_after_one_second`]).
    pub fn run_the_template_one_second(&self, run: impl FnOnce(&[&str])) {
        let scene = self.path().join("scene.json");
        run(&[
            "run",
            "my-mod",
            "--headless",
            "--frames",
            "60",
            "--dump-scene",
            scene.to_str().unwrap(),
        ]);
        assert_moon_after_one_second(&scene);
    }
}

/// The moon of `host new`'s template after 60 frames at 60 Hz (dumped to
/// `scene`), having turned 1 rad at 1 rad/s on a circle of radius 3.
pub fn assert_moon_after_one_second(scene: &Path) {
    let scene: Value = serde_json::from_str(&std::fs::read_to_string(scene).unwrap()).unwrap();
    let position = super::dumped_position(&scene, "moon");
    let expected = [3.0 * 1f64.cos(), 0.0, 3.0 * 1f64.sin()];
    for (got, want) in position.iter().zip(expected) {
        assert!(
            (got - want).abs() < 1e-3,
            "moon at {position:?}, not {expected:?}"
        );
    }
}

/// The `PATH` of a machine without Rust: the system's own directories.
pub const SYSTEM_PATH: &str = "/usr/bin:/bin";

/// Panics unless `path` reaches no cargo, rustc or rustup.
pub fn assert_no_rust(path: &str) {
    for tool in ["cargo", "rustc", "rustup"] {
        let found = Command::new("sh")
            .args(["-c", &format!("command -v {tool}")])
            .env_clear()
            .env("PATH", path)
            .output()
            .unwrap();
        assert!(
            !found.status.success(),
            "{tool} is on {path} ({}): this machine cannot show a host used without Rust",
            String::from_utf8_lossy(&found.stdout).trim()
        );
    }
}
