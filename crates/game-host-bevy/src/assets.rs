//! Scripts as Bevy assets: [`ScriptAsset`], loaded from `.wasm` components
//! (as `host build` or cargo make them) and from Python and JavaScript
//! sources (`.py`, `.js`), which run on the live runtimes as under
//! `host run`. A [`Script`] component attaches one to an entity.

use std::path::Path;

use bevy::asset::io::Reader;
use bevy::asset::{Asset, AssetLoader, Handle, LoadContext};
use bevy::ecs::error::BevyError;
use bevy::prelude::Component;
use bevy::reflect::TypePath;
use bevy::tasks::futures_lite::AsyncReadExt;
use game_host::files::{MAX_COMPONENT_FILE, MAX_TEXT_FILE};
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

/// Loads scripts: `.wasm` components, and Python (`.py`) and JavaScript
/// (`.js`) scripts of one file each. Files over the host's limits
/// (`game_host::files`) are refused, naming the file, before they are read
/// whole.
#[derive(Default, TypePath)]
pub struct ScriptLoader;

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
        let Some(language) = Language::of(&path) else {
            let bytes = read_capped(reader, &path, MAX_COMPONENT_FILE).await?;
            return Ok(ScriptAsset {
                name,
                code: ScriptCode::Wasm(bytes),
            });
        };
        let bytes = read_capped(reader, &path, MAX_TEXT_FILE).await?;
        let text = String::from_utf8(bytes)
            .map_err(|_| format!("`{}` is not UTF-8 text", path.display()))?;
        let file = path
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_default();
        Ok(ScriptAsset {
            name,
            code: ScriptCode::Source {
                language,
                file,
                text,
            },
        })
    }

    fn extensions(&self) -> &[&str] {
        &["wasm", "py", "js"]
    }
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
