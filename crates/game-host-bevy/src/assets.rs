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

use std::path::{self, Path, PathBuf};
use std::sync::{Arc, Mutex};

use bevy::asset::io::Reader;
use bevy::asset::io::{AssetReaderError, AssetSourceId};
use bevy::asset::{
    Asset, AssetLoader, AssetPath, AssetServer, AssetServerMode, Handle, LoadContext,
    ReadAssetBytesError,
};
use bevy::ecs::error::BevyError;
use bevy::prelude::{Component, ReflectComponent, Resource};
use bevy::reflect::{Reflect, TypePath};
use bevy::tasks::futures_lite::{AsyncReadExt, StreamExt};
use game_host::ScriptComponent;
use game_host::files::{MAX_COMPONENT_FILE, MAX_TEXT_FILE};
use game_host::game_types::WIT_FILE;
use game_host::sync::LockExt;

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
/// (`.js`) and TypeScript (`.ts`) scripts, built and compiled on the
/// background pool (`game_host::background`), below the game's priority.
/// A Python script takes the other modules of its folder with it, as under
/// `host run` ([`python_modules_beside`]); a JavaScript or TypeScript
/// script is its one module, as there. Files over the host's limits
/// (`game_host::files`) are refused, naming the file, before they are read
/// whole.
#[derive(TypePath)]
pub struct ScriptLoader {
    /// The plugin's engine, made by the first load.
    pub(crate) engine: Arc<LazyEngine>,
    /// The game's asset server, whose sources list a script's folder.
    pub(crate) server: ServerSlot,
}

/// The asset server, held by the loader until the app's world goes: the
/// server holds its loaders, so a loader holding the server for ever would
/// keep both (and the script engine) alive after the app is dropped. The
/// world holds the slot's [`ServerSlotOwner`], whose drop empties it.
#[derive(Clone)]
pub(crate) struct ServerSlot(Arc<Mutex<Option<AssetServer>>>);

impl ServerSlot {
    pub(crate) fn new(server: AssetServer) -> ServerSlot {
        ServerSlot(Arc::new(Mutex::new(Some(server))))
    }

    /// The resource that empties this slot when the world drops it.
    pub(crate) fn owner(&self) -> ServerSlotOwner {
        ServerSlotOwner(self.clone())
    }

    fn get(&self) -> Option<AssetServer> {
        self.0.lock_unpoisoned().clone()
    }
}

/// See [`ServerSlot`].
#[derive(Resource)]
pub(crate) struct ServerSlotOwner(ServerSlot);

impl Drop for ServerSlotOwner {
    fn drop(&mut self) {
        self.0.0.lock_unpoisoned().take();
    }
}

/// The most Python modules a script's folder may hold beside its entry.
const MAX_MODULES: usize = 256;

/// The deepest package below a script's folder whose modules it takes.
const MAX_DEPTH: usize = 16;

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
        let modules = match language {
            Some(Language::Python) => match python_modules_beside(&self.server, context).await {
                Ok(modules) => modules,
                Err(e) => {
                    let compiled = Err(format!("script `{name}` cannot run: {e}"));
                    return Ok(ScriptAsset { name, compiled });
                }
            },
            _ => Vec::new(),
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
                    let files = std::iter::once((file, text)).chain(modules).collect();
                    compile_source(engine, language, files, game_wit, &name)
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

/// The other Python modules of the folder a script's entry file is in, and
/// of the packages below it (at most [`MAX_DEPTH`] deep), as `host run`
/// reads them: `.py` files, leaving out hidden folders and `__pycache__`.
/// A script at the root of its asset source takes none: the root holds the
/// game's other assets, and a mod of several modules has a folder of its
/// own. Each is read through the asset's own source as a load dependency,
/// so an edit to one reloads (and swaps) the script; each is named by its
/// path from the folder. A module added later is taken at the script's next
/// reload. An unreadable, oversized or non-UTF-8 module, or more than
/// [`MAX_MODULES`], is an error naming it.
async fn python_modules_beside(
    server: &ServerSlot,
    context: &mut LoadContext<'_>,
) -> Result<Vec<(String, String)>, String> {
    let asset = context.path().clone();
    // As the source's reader names files: without `./` parts.
    let entry: PathBuf = (asset.path().components())
        .filter(|part| !matches!(part, path::Component::CurDir))
        .collect();
    let dir = entry.parent().unwrap_or(Path::new("")).to_path_buf();
    if dir.as_os_str().is_empty() {
        return Ok(Vec::new());
    }
    let mut found = Vec::new();
    let mut pending = vec![(dir.clone(), 0)];
    let mut take = |path: PathBuf, folder: bool, depth: usize, pending: &mut Vec<_>| {
        let file = path.file_name().map(|f| f.to_string_lossy().into_owned());
        let file = file.unwrap_or_default();
        if file.starts_with('.') || file == "__pycache__" {
            return Ok(());
        }
        if folder {
            // A bound on depth: a linked folder the source follows could
            // lead back into its own.
            if depth < MAX_DEPTH {
                pending.push((path, depth + 1));
            }
        } else if path != entry && path.extension().is_some_and(|e| e == "py") {
            found.push(path);
            if found.len() > MAX_MODULES {
                return Err(format!(
                    "`{}` holds more than {MAX_MODULES} Python modules beside it",
                    dir.display()
                ));
            }
        }
        Ok(())
    };
    if entry.is_absolute() && *asset.source() == AssetSourceId::Default {
        // A path outside the files' root (a game loading a mod by its full
        // path): their reader lists folders under its root only, so the
        // folder is listed as `host run` lists it.
        while let Some((folder, depth)) = pending.pop() {
            let entries = std::fs::read_dir(&folder)
                .map_err(|e| format!("cannot list `{}`: {e}", folder.display()))?;
            for item in entries.flatten() {
                // A linked folder is not followed, as under `host run`.
                let is_folder = item.file_type().is_ok_and(|kind| kind.is_dir());
                if is_folder || item.path().is_file() {
                    take(item.path(), is_folder, depth, &mut pending)?;
                }
            }
        }
    } else {
        let server = server
            .get()
            .ok_or_else(|| "the game's asset server is gone".to_owned())?;
        let source = server
            .get_source(asset.source().clone_owned())
            .map_err(|e| e.to_string())?;
        // The reader the modules are then read with (`read_asset_bytes`).
        let reader = match server.mode() {
            AssetServerMode::Unprocessed => source.reader(),
            AssetServerMode::Processed => source.processed_reader().map_err(|e| e.to_string())?,
        };
        while let Some((folder, depth)) = pending.pop() {
            let mut entries = match reader.read_directory(&folder).await {
                Ok(entries) => entries,
                Err(AssetReaderError::NotFound(_)) => continue,
                Err(e) => return Err(format!("cannot list `{}`: {e}", folder.display())),
            };
            while let Some(path) = entries.next().await {
                let folder = reader.is_directory(&path).await.unwrap_or(false);
                take(path, folder, depth, &mut pending)?;
            }
        }
    }
    found.sort();
    let mut modules = Vec::with_capacity(found.len());
    for path in found {
        let at = AssetPath::from_path_buf(path.clone()).with_source(asset.source().clone_owned());
        let bytes = context
            .read_asset_bytes(at)
            .await
            .map_err(|e| format!("`{}`: {e}", path.display()))?;
        if bytes.len() as u64 > MAX_TEXT_FILE {
            return Err(format!(
                "`{}` is over the {MAX_TEXT_FILE}-byte limit of a source file",
                path.display()
            ));
        }
        let text = String::from_utf8(bytes)
            .map_err(|_| format!("`{}` is not UTF-8 text", path.display()))?;
        let relative: Vec<_> = path
            .strip_prefix(&dir)
            .unwrap_or(&path)
            .components()
            .map(|part| part.as_os_str().to_string_lossy())
            .collect();
        modules.push((relative.join("/"), text));
    }
    Ok(modules)
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
