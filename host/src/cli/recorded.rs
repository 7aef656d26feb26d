//! The scripts a recording or a world's log names, loaded without building
//! anything: a recording is data from anywhere, and a crate's `build.rs`
//! would run as the user.

use std::path::Path;

use anyhow::{Context, Result};
use game_host::record::{RecordedScript, kept};
use game_host::{ScriptComponent, ScriptEngine};
use game_host_build::{BuildOutput, ScriptSource};

use super::engine_args::{DEFAULT_SCRIPT, DEFAULT_SCRIPT_NAME};

/// The script `recorded` names: a built-in; the component kept under its
/// digest in `state_dir` or in the cache; a recorded `.wasm` file; or a
/// Python or JavaScript project, run live from its sources on the host's
/// own runtime (nothing of it is built). `None` when only a build would
/// give it. A kept component has no path: the path a log names is only its
/// word, so grants keyed by path do not apply to it (grants keyed by
/// digest do). When `resuming` a server's worlds from its own `state_dir`,
/// a component the directory lost is put back from the cache.
pub fn load_recorded(
    engine: &ScriptEngine,
    recorded: &RecordedScript,
    state_dir: Option<&Path>,
    resuming: bool,
) -> Result<Option<ScriptComponent>> {
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
    let path = Path::new(source);
    let could_not = || {
        format!(
            "the recorded script `{source}` could not be loaded (give its path after the recording)"
        )
    };
    match ScriptSource::new(path) {
        Ok(ScriptSource::File(file)) => engine.load_file(&file).with_context(could_not).map(Some),
        // A Python or JavaScript project runs live on the host's own
        // runtime, in the sandbox: nothing of it is built.
        Ok(project @ ScriptSource::Foreign(..)) => project
            .load(engine, BuildOutput::Capture)
            .with_context(could_not)
            .map(Some),
        _ => Ok(None),
    }
}
