//! On-disk cache of compiled components: native code, so it trusts only
//! entries it wrote.
//!
//! Keyed by SHA-256 of the engine's compatibility hash (wasmtime version and
//! every setting that affects code generation) and the component bytes, so a
//! changed script or engine never reads a stale entry. Each entry is sealed
//! with this user's cache key (`crate::sealed`) and checked before wasmtime
//! sees a byte of it: an entry anyone else wrote, or a corrupted one, is
//! refused with a warning, compiled again and rewritten. Entries are written
//! to a temporary file and renamed into place, so a reader never sees half
//! an entry. The cache keeps at most [`MAX_CACHE_BYTES`], dropping the least
//! recently used entries past it. Any cache failure falls back to compiling.

use std::hash::{Hash, Hasher};
use std::path::PathBuf;

use sha2::{Digest, Sha256};
use wasmtime::Engine;
use wasmtime::component::Component;

use crate::files::{host_dir, read_capped, write_atomic};
use crate::hex::hex;
use crate::sealed::{Seal, evict, touch};

/// Most bytes of compiled code the cache keeps (a Rust script's entry is
/// about 0.3 MB, a Python or JavaScript one 40-60 MB).
pub const MAX_CACHE_BYTES: u64 = 1 << 30;

/// Largest entry read back.
const MAX_ENTRY: u64 = 1 << 30;

/// The cache directory used when none is given: `$GAME_HOST_CACHE_DIR`, else
/// `$XDG_CACHE_HOME/game-host`, else `~/.cache/game-host`.
pub fn default_cache_dir() -> Option<PathBuf> {
    host_dir("GAME_HOST_CACHE_DIR", "XDG_CACHE_HOME", ".cache")
}

pub(crate) struct ComponentCache {
    dir: PathBuf,
    /// SHA-256 state already fed with the engine's compatibility hash.
    engine_key: Sha256,
    /// This user's key for the directory; `None`: the directory cannot be
    /// trusted, so nothing is read or written.
    seal: Option<Seal>,
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
        let seal = Seal::open(&dir)
            .inspect_err(|error| {
                tracing::warn!("not using the compile cache: {error:#}");
            })
            .ok();
        ComponentCache {
            dir,
            engine_key,
            seal,
        }
    }

    fn path_for(&self, bytes: &[u8]) -> PathBuf {
        let mut key = self.engine_key.clone();
        key.update(bytes);
        let hex = hex(&key.finalize());
        self.dir.join(format!("{hex}.cwasm"))
    }

    /// The cached compiled form of `bytes`, if present, sealed by this
    /// user's key and loadable.
    pub fn get(&self, engine: &Engine, bytes: &[u8]) -> Option<Component> {
        let seal = self.seal.as_ref()?;
        let path = self.path_for(bytes);
        let sealed = read_capped(&path, MAX_ENTRY).ok()?;
        let refuse = |why: &str| {
            tracing::warn!(
                "ignoring compile-cache entry `{}`: {why}; compiling again",
                path.display()
            );
            let _ = std::fs::remove_file(&path);
            None
        };
        let Some(code) = seal.unseal(&sealed) else {
            return refuse(
                "it was not written by this host for this user (its seal does not match)",
            );
        };
        // SAFETY: `code` is exactly what `Component::serialize` produced in
        // this cache: its HMAC-SHA256 tag, made with a key only this user
        // can read, matches, and it was checked in memory, so no later
        // change to the file reaches wasmtime. The entry's name binds it to
        // this engine's configuration and these component bytes, and
        // wasmtime checks the header and engine compatibility again.
        match unsafe { Component::deserialize(engine, code) } {
            Ok(component) => {
                touch(&path);
                Some(component)
            }
            Err(error) => refuse(&format!("{error:#}")),
        }
    }

    /// Stores the compiled form of `bytes`, then evicts past the cache's
    /// size. Failures only log.
    pub fn put(&self, component: &Component, bytes: &[u8]) {
        let Some(seal) = &self.seal else {
            return;
        };
        let path = self.path_for(bytes);
        let written = component
            .serialize()
            .map_err(anyhow::Error::from)
            .and_then(|code| write_atomic(&path, &seal.seal(&code)));
        if let Err(error) = written {
            tracing::warn!(dir = %self.dir.display(), "could not write compile cache: {error:#}");
        }
        evict(&self.dir, "cwasm", MAX_CACHE_BYTES);
    }
}
