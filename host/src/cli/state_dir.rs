//! `host serve --state-dir`: what the CLI adds to the server's durable
//! worlds: the components kept in the state directory, and the scripts a
//! resumed world's log names, loaded without building anything.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use anyhow::{Context, Result};
use game_host::record::{RecordedScript, kept};
use game_host::sync::LockExt;
use game_host::{ScriptComponent, ScriptEngine};
use game_host_server::Server;

use super::recorded::{Lookup, load_recorded};

/// Keeps the components of `scripts` in the state directory `dir`, so
/// their worlds resume from it with nothing rebuilt: a `.wasm` file's
/// bytes, or a crate's component as the cache kept it. A built-in needs
/// none, and a Python or JavaScript project runs live from its sources.
pub fn keep_components(
    engine: &ScriptEngine,
    dir: &Path,
    scripts: &[ScriptComponent],
) -> Result<()> {
    for script in scripts {
        let Some(source) = script.source() else {
            continue;
        };
        let bytes = if source.extension().is_some_and(|e| e == "wasm") {
            std::fs::read(source).ok()
        } else {
            engine
                .cache_dir()
                .and_then(|cache| kept::find(cache, &script.digest_hex()))
        };
        match bytes {
            Some(bytes) => kept::store(dir, &bytes)
                .with_context(|| format!("--state-dir: could not keep `{}`", script.name()))?,
            None if source.is_dir() && !source.join("Cargo.toml").exists() => {}
            None => tracing::warn!(
                "--state-dir: the component of `{}` is not in the cache; its worlds resume only \
                 where it is",
                script.name()
            ),
        }
    }
    Ok(())
}

/// Loads the scripts logs name, for worlds kept in the state directory
/// `dir`: a script `given` on the command line with the digest a log names
/// is that one (loaded from its path, so grants keyed by path apply); any
/// other is loaded by its digest, without building anything, and no path
/// a log names is opened. Each script is loaded once, however many worlds
/// run it.
pub fn loader(
    engine: Arc<ScriptEngine>,
    dir: PathBuf,
    given: Vec<ScriptComponent>,
) -> impl Fn(&RecordedScript) -> Result<ScriptComponent> + Send + Sync + 'static {
    let loaded: Mutex<HashMap<(String, String), ScriptComponent>> = Mutex::default();
    move |recorded: &RecordedScript| {
        let mut loaded = loaded.lock_unpoisoned();
        let key = (recorded.sha256.clone(), recorded.source.clone());
        if let Some(script) = loaded.get(&key) {
            return Ok(script.clone());
        }
        if let Some(script) = given.iter().find(|s| s.digest_hex() == recorded.sha256) {
            loaded.insert(key, script.clone());
            return Ok(script.clone());
        }
        let lookup = Lookup {
            state_dir: Some(&dir),
            resuming: true,
            paths_within: None,
        };
        let script = load_recorded(&engine, recorded, &lookup)?.with_context(|| {
            format!(
                "its component (SHA-256 {}) is not in `{}` nor in the cache: start the server \
                 with `{}` among its scripts",
                recorded.sha256,
                dir.join("components").display(),
                recorded.source
            )
        })?;
        loaded.insert(key, script.clone());
        Ok(script)
    }
}

/// Resumes the worlds of the state directory `dir`; true if any resumed
/// (the launch's worlds are then not started again). A script `given` on
/// the command line with the digest a log names is that world's (loaded
/// from its path, so grants keyed by path apply); any other is loaded by
/// its digest.
pub fn resume(
    server: &Server,
    engine: &Arc<ScriptEngine>,
    dir: &Path,
    given: &[ScriptComponent],
) -> bool {
    let load = loader(engine.clone(), dir.to_owned(), given.to_vec());
    let report = server.resume(&load);
    if report.resumed.is_empty() && report.failed.is_empty() {
        return false;
    }
    if report.resumed.is_empty() {
        tracing::warn!("no world of `{}` could be resumed", dir.display());
        return false;
    }
    let frames = report.resumed.iter().map(|(_, frame)| *frame);
    tracing::info!(
        resumed = report.resumed.len(),
        failed = report.failed.len(),
        ended = report.ended,
        seconds = format!("{:.2}", report.seconds),
        "resumed the worlds of `{}` (frames {}-{})",
        dir.display(),
        frames.clone().min().unwrap_or(0),
        frames.max().unwrap_or(0)
    );
    true
}
