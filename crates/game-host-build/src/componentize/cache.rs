//! The build cache: built components under `<cache dir>/builds/`, sealed
//! and evicted by size like compiled code.

use std::path::{Path, PathBuf};

use game_host::files::{MAX_COMPONENT_FILE, read_capped, write_atomic};
use game_host::sealed::{Seal, evict, touch};

/// Most bytes of builds the build cache keeps (a Python or JavaScript
/// build is 12-20 MB).
pub const MAX_BUILD_CACHE_BYTES: u64 = 512 << 20;

/// Built components under `<cache dir>/builds/`, sealed with the cache's
/// key like compiled code (`game_host::sealed`): a build someone else put
/// there is a miss, never a script that runs.
pub(super) struct BuildCache {
    dir: PathBuf,
    seal: Seal,
}

impl BuildCache {
    pub(super) fn open(cache_dir: &Path) -> Option<BuildCache> {
        let seal = Seal::open(cache_dir)
            .inspect_err(|error| tracing::warn!("not using the build cache: {error:#}"))
            .ok()?;
        Some(BuildCache {
            dir: cache_dir.join("builds"),
            seal,
        })
    }

    fn path(&self, key: &str) -> PathBuf {
        self.dir.join(format!("{key}.wasm"))
    }

    pub(super) fn get(&self, key: &str) -> Option<Vec<u8>> {
        let path = self.path(key);
        let sealed = read_capped(&path, MAX_COMPONENT_FILE).ok()?;
        match self.seal.unseal(&sealed) {
            Some(bytes) => {
                touch(&path);
                Some(bytes.to_vec())
            }
            None => {
                tracing::warn!(
                    "ignoring build-cache entry `{}`: its seal does not match; building again",
                    path.display()
                );
                let _ = std::fs::remove_file(&path);
                None
            }
        }
    }

    /// Writes an entry, then evicts past the cache's size. Failures only
    /// log: the next run builds again.
    pub(super) fn put(&self, key: &str, bytes: &[u8]) {
        let written = std::fs::create_dir_all(&self.dir)
            .map_err(anyhow::Error::from)
            .and_then(|()| write_atomic(&self.path(key), &self.seal.seal(bytes)));
        if let Err(error) = written {
            tracing::warn!("could not write the build cache: {error:#}");
        }
        evict(&self.dir, "wasm", MAX_BUILD_CACHE_BYTES);
    }
}
