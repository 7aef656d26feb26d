//! Python and JavaScript scripts, compiled on their live runtimes
//! (`game-host-build`), when the `live` feature is on (the default).
//! Without it the plugin runs `.wasm` components alone, and a `.py` or
//! `.js` script fails in one line saying so.

use std::path::Path;

use anyhow::Result;
use game_host::{ScriptComponent, ScriptEngine};

/// A script's source language, by its file's extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Language {
    Python,
    JavaScript,
}

impl Language {
    pub(crate) fn of(path: &Path) -> Option<Language> {
        match path.extension()?.to_str()? {
            "py" => Some(Language::Python),
            "js" | "mjs" => Some(Language::JavaScript),
            _ => None,
        }
    }
}

/// Compiles one source file `file` holding `text` on its language's live
/// runtime (built the first time it is needed).
#[cfg(feature = "live")]
pub(crate) fn compile_source(
    engine: &ScriptEngine,
    language: Language,
    file: String,
    text: String,
    name: &str,
) -> Result<ScriptComponent> {
    use game_host::LiveSources;
    use game_host_build::componentize::{Language as Live, load_live_sources};
    let sources = LiveSources {
        root: String::from("assets"),
        files: vec![(file, text)],
    };
    let language = match language {
        Language::Python => Live::Python,
        Language::JavaScript => Live::JavaScript,
    };
    load_live_sources(engine, language, sources, name)
}

#[cfg(not(feature = "live"))]
pub(crate) fn compile_source(
    _: &ScriptEngine,
    language: Language,
    file: String,
    _: String,
    _: &str,
) -> Result<ScriptComponent> {
    anyhow::bail!(
        "`{file}` is a {language:?} script, and this game was built without the `live` feature \
         of game-host-bevy, which runs Python and JavaScript"
    )
}
