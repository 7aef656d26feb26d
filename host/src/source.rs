//! [`ScriptSource`]: where a script comes from (a component file or a
//! script crate directory), and the one way to turn it into a script name
//! and component bytes, used by the CLI and by hot-swap alike.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use crate::cargo_build::{BuildOutput, build_script_crate};
use crate::engine::{ScriptComponent, ScriptEngine, script_name};

/// A script given by path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ScriptSource {
    /// A component file (`.wasm`).
    File(PathBuf),
    /// A script crate directory, built with cargo.
    Crate(PathBuf),
}

impl ScriptSource {
    /// A directory is a crate, anything else a component file; fails if
    /// nothing is at `path`.
    pub fn new(path: &Path) -> Result<Self> {
        if path.is_dir() {
            Ok(ScriptSource::Crate(path.to_owned()))
        } else if path.exists() {
            Ok(ScriptSource::File(path.to_owned()))
        } else {
            bail!("script `{}` not found", path.display())
        }
    }

    /// The file or directory.
    pub fn path(&self) -> &Path {
        match self {
            ScriptSource::File(path) | ScriptSource::Crate(path) => path,
        }
    }

    /// Whether a change at `changed` concerns this source: the file itself,
    /// or a crate's `src/`, `Cargo.toml` or `build.rs`.
    pub fn is_touched_by(&self, changed: &Path) -> bool {
        match self {
            ScriptSource::File(file) => changed == file,
            ScriptSource::Crate(dir) => {
                changed.starts_with(dir.join("src"))
                    || changed == dir.join("Cargo.toml")
                    || changed == dir.join("build.rs")
            }
        }
    }

    /// Builds the source if it is a crate and reads the component: returns
    /// the script's name (the component file's stem) and its bytes.
    pub fn build(&self, output: BuildOutput) -> Result<(String, Vec<u8>)> {
        let file = match self {
            ScriptSource::File(file) => file.clone(),
            ScriptSource::Crate(dir) => build_script_crate(dir, output)?,
        };
        let bytes = std::fs::read(&file)
            .with_context(|| format!("failed to read script `{}`", file.display()))?;
        Ok((script_name(&file), bytes))
    }

    /// Builds the source and loads it into `engine`.
    pub fn load(&self, engine: &ScriptEngine, output: BuildOutput) -> Result<ScriptComponent> {
        let (name, bytes) = self.build(output)?;
        engine
            .load_bytes(&name, &bytes)
            .with_context(|| format!("failed to load script `{}`", self.path().display()))
    }
}
