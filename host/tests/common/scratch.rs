//! [`Scratch`]: a directory outside this repository where the tests act as
//! an author would, with `host` run from inside it.

use std::path::Path;
use std::process::Command;

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

    /// Runs `host ARGS` to its end; panics with its stderr if it fails.
    pub fn run(&self, args: &[&str]) -> String {
        let output = self.host(args).output().expect("run host");
        let stderr = super::stderr_of(&output);
        assert!(output.status.success(), "host {args:?} failed:\n{stderr}");
        stderr
    }
}
