//! The scripts a recording or a world's log names, loaded without building
//! anything: a recording is data from anywhere, and a crate's `build.rs`
//! would run as the user. A script is found by its digest; a `.wasm` path
//! the recording names is opened only inside the folder the caller allows
//! (`host replay`: the recording's own), checked against the digest before
//! it is compiled, and never by a server resuming its worlds, so a log
//! cannot have any file the host can read compiled on its word.

use std::path::Path;

use anyhow::{Context, Result};
use game_host::hex::hex;
use game_host::record::{RecordedScript, kept};
use game_host::{ScriptComponent, ScriptEngine};
use sha2::{Digest, Sha256};

use super::engine_args::{DEFAULT_SCRIPT, DEFAULT_SCRIPT_NAME};

/// Where a recorded script may be looked for.
pub struct Lookup<'a> {
    /// A state directory whose `components/` hold scripts by digest.
    pub state_dir: Option<&'a Path>,
    /// Resuming that state directory's worlds: a component it lost is put
    /// back from the cache.
    pub resuming: bool,
    /// The folder a recorded `.wasm` path may lie in; `None`: no recorded
    /// path is opened.
    pub paths_within: Option<&'a Path>,
}

/// The script `recorded` names: a built-in; the component kept under its
/// digest in the state directory or in the cache; or, where `lookup`
/// allows a path and the recorded one lies inside it, a `.wasm` file whose
/// bytes have the recorded digest. `None` when none of these gives it. A kept component has no path: the path a log names is only its
/// word, so grants keyed by path do not apply to it (grants keyed by
/// digest do).
pub fn load_recorded(
    engine: &ScriptEngine,
    recorded: &RecordedScript,
    lookup: &Lookup<'_>,
) -> Result<Option<ScriptComponent>> {
    let Lookup {
        state_dir,
        resuming,
        paths_within,
    } = *lookup;
    let source = recorded.source.as_str();
    if let Some(name) = source.strip_prefix("builtin:") {
        return match name {
            DEFAULT_SCRIPT_NAME => engine
                .load_bytes(DEFAULT_SCRIPT_NAME, DEFAULT_SCRIPT)
                .map(Some),
            _ => anyhow::bail!("the recording names a built-in script `{name}` this host lacks"),
        };
    }
    let kept_in_state = state_dir.and_then(|dir| kept::find(dir, &recorded.sha256));
    let kept_in_cache = || {
        engine
            .cache_dir()
            .and_then(|cache| kept::find(cache, &recorded.sha256))
    };
    if let Some(bytes) = kept_in_state.or_else(kept_in_cache) {
        // Put back what a resumed server's state directory lost.
        if let Some(dir) = state_dir.filter(|_| resuming)
            && let Err(error) = kept::store(dir, &bytes)
        {
            tracing::warn!("{error:#}");
        }
        return engine.load_bytes(&recorded.name, &bytes).map(Some);
    }
    // A `.wasm` file inside the folder allowed, whose bytes are the ones
    // recorded: read and checked against the digest before anything of it
    // is compiled. A Python or JavaScript project is never opened on a
    // recording's word (its folder would be read whole): it is given.
    let Some(path) = paths_within
        .and_then(|folder| inside(folder, Path::new(source)))
        .filter(|path| path.extension().is_some_and(|e| e == "wasm"))
    else {
        return Ok(None);
    };
    let Ok(bytes) = game_host::files::read_capped(&path, MAX_COMPONENT) else {
        return Ok(None);
    };
    if !hex(&Sha256::digest(&bytes)).eq_ignore_ascii_case(&recorded.sha256) {
        return Ok(None);
    }
    engine
        .load_bytes(&recorded.name, &bytes)
        .with_context(|| format!("the recorded script `{source}` could not be loaded"))
        .map(Some)
}

/// The largest component read from a path a recording names.
const MAX_COMPONENT: u64 = 256 << 20;

/// `path` (relative to `folder` if it is relative), resolved, if it lies
/// inside `folder` (links resolved too, so none leads out of it).
fn inside(folder: &Path, path: &Path) -> Option<std::path::PathBuf> {
    let folder = folder.canonicalize().ok()?;
    let path = folder.join(path).canonicalize().ok()?;
    path.starts_with(&folder).then_some(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_recorded_path_is_opened_only_inside_the_folder() {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("records");
        std::fs::create_dir(&folder).unwrap();
        std::fs::write(folder.join("mod.wasm"), b"").unwrap();
        std::fs::write(dir.path().join("outside.wasm"), b"").unwrap();
        let resolved = folder.canonicalize().unwrap().join("mod.wasm");
        assert_eq!(
            inside(&folder, Path::new("mod.wasm")),
            Some(resolved.clone())
        );
        assert_eq!(inside(&folder, &folder.join("mod.wasm")), Some(resolved));
        assert_eq!(inside(&folder, Path::new("../outside.wasm")), None);
        assert_eq!(inside(&folder, &dir.path().join("outside.wasm")), None);
        // A link in the folder that leads out of it leads nowhere.
        std::os::unix::fs::symlink(dir.path().join("outside.wasm"), folder.join("link.wasm"))
            .unwrap();
        assert_eq!(inside(&folder, Path::new("link.wasm")), None);
        assert_eq!(inside(&folder, Path::new("missing.wasm")), None);
    }
}
