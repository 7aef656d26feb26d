//! Python, JavaScript and TypeScript scripts, compiled on their live runtimes
//! (`game-host-build`), when the `live` feature is on (the default).
//! Without it the plugin runs `.wasm` components alone, and a `.py`, `.js`
//! or `.ts` script fails in one line saying so.

use std::path::Path;

use anyhow::Result;
use game_host::{ScriptComponent, ScriptEngine};

/// A script's source language, by its file's extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Language {
    Python,
    JavaScript,
    TypeScript,
}

impl Language {
    pub(crate) fn of(path: &Path) -> Option<Language> {
        match path.extension()?.to_str()? {
            "py" => Some(Language::Python),
            "js" | "mjs" => Some(Language::JavaScript),
            "ts" | "mts" => Some(Language::TypeScript),
            _ => None,
        }
    }
}

/// Compiles a script's sources (name and text of each, its entry first, the
/// others by their paths from its folder) on its language's live runtime
/// (built the first time it is needed): the runtime of the game types the
/// script's project holds (`game_wit`, its `wit/game.wit`), else of those
/// the game describes, else the engine's alone.
#[cfg(feature = "live")]
pub(crate) fn compile_source(
    engine: &ScriptEngine,
    language: Language,
    files: Vec<(String, String)>,
    game_wit: Option<String>,
    name: &str,
) -> Result<ScriptComponent> {
    use game_host::LiveSources;
    use game_host_build::componentize::{GameWit, Language as Live, load_live_sources};
    let sources = LiveSources {
        root: String::from("assets"),
        files,
    };
    let language = match language {
        Language::Python => Live::Python,
        Language::JavaScript => Live::JavaScript,
        Language::TypeScript => Live::TypeScript,
    };
    let game = match game_wit {
        Some(text) => {
            Some(GameWit::from_text(text).map_err(|why| anyhow::anyhow!("`wit/game.wit` {why}"))?)
        }
        None => engine.game().map(GameWit::of_game),
    };
    load_live_sources(engine, language, sources, name, game.as_ref())
}

#[cfg(not(feature = "live"))]
pub(crate) fn compile_source(
    _: &ScriptEngine,
    language: Language,
    files: Vec<(String, String)>,
    _: Option<String>,
    _: &str,
) -> Result<ScriptComponent> {
    let file = files.first().map_or("", |(file, _)| file.as_str());
    anyhow::bail!(
        "`{file}` is a {language:?} script, and this game was built without the `live` feature \
         of game-host-bevy, which runs Python, JavaScript and TypeScript"
    )
}
