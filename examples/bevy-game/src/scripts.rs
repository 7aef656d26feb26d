//! The scripts the game runs, from its arguments: each path made into a
//! file Bevy's asset server loads (a script crate built first, a Python or
//! JavaScript folder's `app.py` / `app.js`), as `host run` reads them.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use game_host_build::{BuildOutput, ScriptSource, build_script_crate};

/// The default script: the spinning-cube crate beside this example.
fn default_script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../spinning-cube")
}

/// The files to load for `paths` (the spinning cube if there are none).
pub fn resolve(paths: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let defaults = [default_script()];
    let paths = match paths.is_empty() {
        true => &defaults[..],
        false => paths,
    };
    paths.iter().map(|path| file_of(path)).collect()
}

/// The file to load for `path`, absolute: Bevy reads relative asset paths
/// from beside its executable, not from the working directory.
fn file_of(path: &Path) -> Result<PathBuf> {
    let file = match ScriptSource::new(path)? {
        ScriptSource::File(file) => file,
        ScriptSource::Foreign(_, entry) => entry,
        ScriptSource::Crate(dir) => build_script_crate(&dir, BuildOutput::Inherit)
            .with_context(|| format!("cannot build script crate `{}`", dir.display()))?,
    };
    std::path::absolute(&file).with_context(|| format!("cannot resolve `{}`", file.display()))
}
