//! Components kept by their SHA-256, so a replay loads the very component a
//! recording names without building anything: each script built from
//! source (a crate, a Python or JavaScript project) is kept here when it is
//! loaded, under `<cache>/components/<sha256>.wasm`. An entry's name is the
//! digest of its bytes, and a read checks it, so an entry that is corrupt,
//! or was put there by someone else under a wrong name, is never loaded.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::files::{read_capped, write_atomic};
use crate::hex::hex;
use crate::sealed::{evict, touch};

/// Most bytes of components kept (least recently used dropped past it).
const MAX_KEPT_BYTES: u64 = 1 << 30;

/// Largest component read back.
const MAX_COMPONENT: u64 = 256 << 20;

fn dir(cache: &Path) -> PathBuf {
    cache.join("components")
}

fn entry(cache: &Path, sha256: &str) -> Option<PathBuf> {
    (sha256.len() == 64 && sha256.bytes().all(|b| b.is_ascii_hexdigit()))
        .then(|| dir(cache).join(format!("{}.wasm", sha256.to_ascii_lowercase())))
}

/// Keeps `bytes` in `cache` by their digest (a failure only logs: keeping
/// is a convenience for later replays).
pub fn keep(cache: &Path, bytes: &[u8]) {
    let digest = hex(&Sha256::digest(bytes));
    let Some(path) = entry(cache, &digest) else {
        return;
    };
    if path.exists() {
        touch(&path);
        return;
    }
    let kept = std::fs::create_dir_all(dir(cache))
        .map_err(anyhow::Error::from)
        .and_then(|()| write_atomic(&path, bytes));
    match kept {
        Ok(()) => evict(&dir(cache), "wasm", MAX_KEPT_BYTES),
        Err(error) => {
            tracing::debug!(target: "host", "could not keep the component for replays: {error:#}")
        }
    }
}

/// Keeps `bytes` in `dir` by their digest, for good: a server's state
/// directory, whose worlds must find their components when resumed (no
/// entry is ever evicted from it).
pub fn store(dir: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let digest = hex(&Sha256::digest(bytes));
    let Some(path) = entry(dir, &digest) else {
        return Ok(());
    };
    let held =
        read_capped(&path, MAX_COMPONENT).is_ok_and(|held| hex(&Sha256::digest(&held)) == digest);
    if held {
        return Ok(());
    }
    std::fs::create_dir_all(self::dir(dir))?;
    write_atomic(&path, bytes)
}

/// The component kept in `cache` whose SHA-256 is `sha256` (hex), if any.
pub fn find(cache: &Path, sha256: &str) -> Option<Vec<u8>> {
    let path = entry(cache, sha256)?;
    let bytes = read_capped(&path, MAX_COMPONENT).ok()?;
    if !hex(&Sha256::digest(&bytes)).eq_ignore_ascii_case(sha256) {
        tracing::warn!(
            target: "host",
            "`{}` does not hold the component its name says; ignoring it",
            path.display()
        );
        return None;
    }
    touch(&path);
    Some(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kept_component_is_found_by_its_digest_and_a_forged_one_is_not() {
        let cache = tempfile::tempdir().unwrap();
        let bytes = b"\0asm component bytes".to_vec();
        let digest = hex(&Sha256::digest(&bytes));
        assert_eq!(find(cache.path(), &digest), None);
        keep(cache.path(), &bytes);
        assert_eq!(find(cache.path(), &digest), Some(bytes.clone()));
        // Other bytes under that name are refused.
        std::fs::write(entry(cache.path(), &digest).unwrap(), b"other").unwrap();
        assert_eq!(find(cache.path(), &digest), None);
        // A name that is no digest reaches no file.
        assert_eq!(find(cache.path(), "../../etc/passwd"), None);

        // Stored for good, a damaged entry is put right.
        let state = tempfile::tempdir().unwrap();
        store(state.path(), &bytes).unwrap();
        assert_eq!(find(state.path(), &digest), Some(bytes.clone()));
        std::fs::write(entry(state.path(), &digest).unwrap(), b"other").unwrap();
        store(state.path(), &bytes).unwrap();
        assert_eq!(find(state.path(), &digest), Some(bytes));
    }
}
