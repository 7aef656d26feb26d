//! Scripts as Bevy assets: [`ScriptAsset`], loaded from `.wasm` components
//! (as `host build` or cargo make them) and from Python, JavaScript and
//! TypeScript sources (`.py`, `.js`, `.ts`), which run on the live runtimes as under
//! `host run`. A [`Script`] component attaches one to an entity.
//!
//! The loader compiles each script, and builds the Python or JavaScript
//! runtime it runs on the first time one is needed, from Bevy's task pools
//! on the host's background pool (`game_host::background`, below the
//! game's CPU priority and off one core, one load at a time): a game step
//! never waits for a compile, and always finds a core free; a script's
//! instance is made once its asset is ready (see `host`). A script that
//! fails to compile still loads, holding its error, so that the step
//! reports it as a [`ScriptFailed`](crate::ScriptFailed) of its entity.

use std::path::Path;
use std::sync::Arc;

use bevy::asset::io::AssetReaderError;
use bevy::asset::io::Reader;
use bevy::asset::{Asset, AssetLoader, AssetPath, Handle, LoadContext, ReadAssetBytesError};
use bevy::ecs::error::BevyError;
use bevy::prelude::{Component, ReflectComponent};
use bevy::reflect::{Reflect, TypePath};
use bevy::tasks::futures_lite::AsyncReadExt;
use game_host::ScriptComponent;
use game_host::files::{MAX_COMPONENT_FILE, MAX_TEXT_FILE};
use game_host::game_types::WIT_FILE;

use crate::engine::LazyEngine;
use crate::live::{Language, compile_source};

/// A script, compiled (or the one line saying why it cannot run).
#[derive(Asset, TypePath)]
pub struct ScriptAsset {
    /// The script's name: its file's stem.
    pub(crate) name: String,
    pub(crate) compiled: Result<ScriptComponent, String>,
}

impl std::fmt::Debug for ScriptAsset {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScriptAsset")
            .field("name", &self.name)
            .field("compiled", &self.compiled.as_ref().map(drop))
            .finish()
    }
}

impl ScriptAsset {
    /// The script's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Why the script cannot run, if it cannot.
    pub fn error(&self) -> Option<&str> {
        self.compiled.as_ref().err().map(String::as_str)
    }
}

/// Runs a script for as long as the entity has it: the script starts once
/// its asset has loaded, is swapped (its state handed over) when the asset
/// changes, and stops when the component or the entity goes.
#[derive(Component, Reflect, Debug, Clone)]
#[reflect(Component)]
pub struct Script(pub Handle<ScriptAsset>);

/// Loads scripts: `.wasm` components, and Python (`.py`), JavaScript
/// (`.js`) and TypeScript (`.ts`) scripts of one file each, built and
/// compiled on the background pool (`game_host::background`), below the
/// game's priority. Files over the host's limits (`game_host::files`) are
/// refused, naming the file, before they are read whole.
#[derive(TypePath)]
pub struct ScriptLoader {
    /// The plugin's engine, made by the first load.
    pub(crate) engine: Arc<LazyEngine>,
}

impl AssetLoader for ScriptLoader {
    type Asset = ScriptAsset;
    type Settings = ();
    type Error = BevyError;

    async fn load(
        &self,
        reader: &mut dyn Reader,
        _settings: &(),
        context: &mut LoadContext<'_>,
    ) -> Result<ScriptAsset, BevyError> {
        let path = context.path().path().to_path_buf();
        let name = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| path.display().to_string());
        let language = Language::of(&path);
        let limit = match language {
            Some(_) => MAX_TEXT_FILE,
            None => MAX_COMPONENT_FILE,
        };
        let bytes = match read_capped(reader, &path, limit).await {
            Ok(bytes) => bytes,
            Err(e) => {
                let compiled = Err(format!("script `{name}` cannot run: {e}"));
                return Ok(ScriptAsset { name, compiled });
            }
        };
        let Some(engine) = self.engine.get() else {
            let compiled = Err("scripts cannot run: the script engine failed to start".to_owned());
            return Ok(ScriptAsset { name, compiled });
        };
        // A Python or JavaScript project made for the game's types keeps
        // them in `wit/game.wit` beside its entry file (`host new --game`).
        let game_wit = match language {
            Some(_) => match game_wit_beside(context).await {
                Ok(text) => text,
                Err(e) => {
                    let compiled = Err(format!("script `{name}` cannot run: {e}"));
                    return Ok(ScriptAsset { name, compiled });
                }
            },
            None => None,
        };
        // On the background pool: a step never waits for the CPU a build
        // or a compile holds.
        let compiled = game_host::background::run(|| match language {
            None => engine.load_bytes(&name, &bytes),
            Some(language) => match String::from_utf8(bytes) {
                Ok(text) => {
                    let file = path
                        .file_name()
                        .map(|f| f.to_string_lossy().into_owned())
                        .unwrap_or_default();
                    compile_source(engine, language, (file, text), game_wit, &name)
                }
                Err(_) => Err(anyhow::anyhow!("`{}` is not UTF-8 text", path.display())),
            },
        });
        let compiled = compiled.map_err(|e| format!("script `{name}` cannot run: {e:#}"));
        Ok(ScriptAsset { name, compiled })
    }

    fn extensions(&self) -> &[&str] {
        &["wasm", "py", "js", "mjs", "ts", "mts"]
    }
}

/// The text of `wit/game.wit` beside the asset `context` loads (from the
/// same asset source), or `None` when there is none; an unreadable,
/// oversized or non-UTF-8 one is an error naming it.
async fn game_wit_beside(context: &mut LoadContext<'_>) -> Result<Option<String>, String> {
    let path = context
        .path()
        .resolve_embed(&AssetPath::parse(&format!("wit/{WIT_FILE}")));
    let bytes = match context.read_asset_bytes(path.clone()).await {
        Ok(bytes) => bytes,
        Err(ReadAssetBytesError::AssetReaderError(AssetReaderError::NotFound(_))) => {
            return Ok(None);
        }
        Err(e) => return Err(format!("`{path}`: {e}")),
    };
    if bytes.len() as u64 > MAX_TEXT_FILE {
        return Err(format!("`{path}` is larger than {MAX_TEXT_FILE} bytes"));
    }
    String::from_utf8(bytes)
        .map(Some)
        .map_err(|_| format!("`{path}` is not UTF-8 text"))
}

/// The whole of `reader`, or an error naming `path` once it passes `limit`
/// bytes.
async fn read_capped(
    reader: &mut dyn Reader,
    path: &Path,
    limit: u64,
) -> Result<Vec<u8>, BevyError> {
    let mut bytes = Vec::new();
    let mut chunk = vec![0; 64 << 10];
    loop {
        let read = AsyncReadExt::read(reader, &mut chunk).await?;
        if read == 0 {
            return Ok(bytes);
        }
        if (bytes.len() + read) as u64 > limit {
            return Err(format!(
                "`{}` is larger than a script may be ({} MiB)",
                path.display(),
                limit >> 20
            )
            .into());
        }
        bytes.extend_from_slice(&chunk[..read]);
    }
}
