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
/// digest in `state_dir` (a server's state directory, whose logs name the
/// paths their components came from, so grants keyed by path still apply)
/// or in the cache (no path); a recorded `.wasm` file; or a Python or
/// JavaScript project, run live from its sources on the host's own runtime
/// (nothing of it is built). `None` when only a build would give it.
pub fn load_recorded(
    engine: &ScriptEngine,
    recorded: &RecordedScript,
    state_dir: Option<&Path>,
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
    if let Some(bytes) = state_dir.and_then(|dir| kept::find(dir, &recorded.sha256)) {
        return engine
            .load_bytes(&recorded.name, &bytes)
            .map(|script| Some(script.with_source(Path::new(source))));
    }
    if let Some(bytes) = engine
        .cache_dir()
        .and_then(|cache| kept::find(cache, &recorded.sha256))
    {
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
