//! On-disk cache of compiled components.
//!
//! Keyed by SHA-256 of the engine's compatibility hash (wasmtime version and
//! every setting that affects code generation) and the component bytes, so a
//! changed script or engine never reads a stale entry. Entries are written to
//! a temporary file and renamed into place, so a reader never sees half an
//! entry. Any cache failure falls back to compiling.

use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};
use wasmtime::Engine;
use wasmtime::component::Component;

/// The cache directory used when none is given: `$GAME_HOST_CACHE_DIR`, else
/// `$XDG_CACHE_HOME/game-host`, else `~/.cache/game-host`.
pub fn default_cache_dir() -> Option<PathBuf> {
    let env = |key| std::env::var_os(key).filter(|v| !v.is_empty());
    if let Some(dir) = env("GAME_HOST_CACHE_DIR") {
        return Some(dir.into());
    }
    if let Some(dir) = env("XDG_CACHE_HOME") {
        return Some(PathBuf::from(dir).join("game-host"));
    }
    env("HOME").map(|home| PathBuf::from(home).join(".cache").join("game-host"))
}

pub(crate) struct ComponentCache {
    dir: PathBuf,
    /// SHA-256 state already fed with the engine's compatibility hash.
    engine_key: Sha256,
}

/// Feeds `Hash` output into a SHA-256 digest.
struct DigestHasher<'a>(&'a mut Sha256);

impl Hasher for DigestHasher<'_> {
    fn finish(&self) -> u64 {
        0
    }

    fn write(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }
}

impl ComponentCache {
    pub fn new(dir: PathBuf, engine: &Engine) -> Self {
        let mut engine_key = Sha256::new();
        engine
            .precompile_compatibility_hash()
            .hash(&mut DigestHasher(&mut engine_key));
        ComponentCache { dir, engine_key }
    }

    /// The cache directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn path_for(&self, bytes: &[u8]) -> PathBuf {
        let mut key = self.engine_key.clone();
        key.update(bytes);
        let hex: String = key.finalize().iter().map(|b| format!("{b:02x}")).collect();
        self.dir.join(format!("{hex}.cwasm"))
    }

    /// The cached compiled form of `bytes`, if present and loadable.
    pub fn get(&self, engine: &Engine, bytes: &[u8]) -> Option<Component> {
        let path = self.path_for(bytes);
        if !path.is_file() {
            return None;
        }
        // SAFETY: the file is named by the hash of the exact engine
        // configuration and component bytes, and only this cache writes
        // such names, always by renaming a completely written file into
        // place. Wasmtime additionally checks the header and the engine
        // compatibility before using it.
        match unsafe { Component::deserialize_file(engine, &path) } {
            Ok(component) => Some(component),
            Err(error) => {
                tracing::warn!(path = %path.display(), "ignoring unusable cache entry: {error:#}");
                let _ = std::fs::remove_file(&path);
                None
            }
        }
    }

    /// Stores the compiled form of `bytes`. Failures only log.
    pub fn put(&self, component: &Component, bytes: &[u8]) {
        if let Err(error) = self.try_put(component, bytes) {
            tracing::warn!(dir = %self.dir.display(), "could not write compile cache: {error:#}");
        }
    }

    fn try_put(&self, component: &Component, bytes: &[u8]) -> anyhow::Result<()> {
        let path = self.path_for(bytes);
        let serialized = component.serialize()?;
        std::fs::create_dir_all(&self.dir)?;
        let tmp = temp_path(&path);
        std::fs::write(&tmp, serialized)?;
        std::fs::rename(&tmp, &path).inspect_err(|_| {
            let _ = std::fs::remove_file(&tmp);
        })?;
        Ok(())
    }
}

fn temp_path(path: &Path) -> PathBuf {
    let unique = format!(
        "{}.{}.{}.tmp",
        path.display(),
        std::process::id(),
        uuid::Uuid::now_v7().simple()
    );
    PathBuf::from(unique)
}
