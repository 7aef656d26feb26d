//! Scripts as Bevy assets: [`ScriptAsset`], loaded from `.wasm` components
//! (as `host build` or cargo make them) and from Python and JavaScript
//! sources (`.py`, `.js`), which run on the live runtimes as under
//! `host run`. A [`Script`] component attaches one to an entity.

use bevy::asset::io::Reader;
use bevy::asset::{Asset, AssetLoader, Handle, LoadContext};
use bevy::ecs::error::BevyError;
use bevy::prelude::Component;
use bevy::reflect::TypePath;
use game_host_build::componentize::Language;

/// A script's code, as loaded.
#[derive(Asset, TypePath, Debug)]
pub struct ScriptAsset {
    /// The script's name: its file's stem.
    pub(crate) name: String,
    pub(crate) code: ScriptCode,
}

#[derive(Debug)]
pub(crate) enum ScriptCode {
    /// A component's bytes.
    Wasm(Vec<u8>),
    /// One source file, run on its language's live runtime.
    Source {
        language: Language,
        /// The file's name, as errors name it.
        file: String,
        text: String,
    },
}

impl ScriptAsset {
    /// The script's name.
    pub fn name(&self) -> &str {
        &self.name
    }
}

/// Runs a script for as long as the entity has it: the script starts once
/// its asset has loaded, is swapped (its state handed over) when the asset
/// changes, and stops when the component or the entity goes.
#[derive(Component, Debug, Clone)]
pub struct Script(pub Handle<ScriptAsset>);

fn stem(context: &LoadContext<'_>) -> String {
    let path = context.path().path();
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string())
}

/// Loads `.wasm` script components.
#[derive(Default, TypePath)]
pub struct WasmLoader;

impl AssetLoader for WasmLoader {
    type Asset = ScriptAsset;
    type Settings = ();
    type Error = BevyError;

    async fn load(
        &self,
        reader: &mut dyn Reader,
        _settings: &(),
        context: &mut LoadContext<'_>,
    ) -> Result<ScriptAsset, BevyError> {
        let mut bytes = Vec::new();
        reader.read_to_end(&mut bytes).await?;
        Ok(ScriptAsset {
            name: stem(context),
            code: ScriptCode::Wasm(bytes),
        })
    }

    fn extensions(&self) -> &[&str] {
        &["wasm"]
    }
}

/// Loads Python (`.py`) and JavaScript (`.js`) scripts of one file.
#[derive(Default, TypePath)]
pub struct SourceLoader;

impl AssetLoader for SourceLoader {
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
        let language = Language::of(&path)
            .ok_or_else(|| format!("`{}` is not a Python or JavaScript file", path.display()))?;
        let mut bytes = Vec::new();
        reader.read_to_end(&mut bytes).await?;
        let text = String::from_utf8(bytes)
            .map_err(|_| format!("`{}` is not UTF-8 text", path.display()))?;
        let file = path
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_default();
        Ok(ScriptAsset {
            name: stem(context),
            code: ScriptCode::Source {
                language,
                file,
                text,
            },
        })
    }

    fn extensions(&self) -> &[&str] {
        &["py", "js"]
    }
}
