//! [`Seal`]: the host's caches trust only entries they wrote. Every entry
//! (compiled native code, or a Python / JavaScript build) is stored behind
//! an HMAC-SHA256 tag made with a per-user key, `key` in the cache
//! directory (32 random bytes, mode 0600, in a directory the host creates
//! 0700). An entry whose tag does not match (written by anyone else,
//! corrupted, or cut short) is never deserialized: it is a miss, and the
//! entry is compiled or built again. A cache directory that other users
//! can write to, or a key file they can read, is not used at all.
//!
//! Caches are bounded: [`evict`] removes the least recently used entries
//! past a size. A leaf.

use std::fs::{DirBuilder, OpenOptions};
use std::io::{Read, Write};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use anyhow::{Context, Result, bail};
use hmac::{Hmac, Mac};
use sha2::Sha256;

/// The first bytes of a sealed entry: its format.
const MAGIC: &[u8; 8] = b"GHSEAL01";
const TAG: usize = 32;
const KEY: usize = 32;

/// The key of one cache directory.
#[derive(Clone)]
pub struct Seal {
    key: [u8; KEY],
}

impl Seal {
    /// The key of the cache in `dir`, made on first use. Fails (and the
    /// caller then caches nothing) when the directory or key could be
    /// changed or read by another user.
    pub fn open(dir: &Path) -> Result<Seal> {
        DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
            .with_context(|| format!("cannot create `{}`", dir.display()))?;
        let meta = std::fs::metadata(dir)?;
        // Others who may rename files here (no sticky bit) could put their
        // own key in place of this user's.
        if meta.mode() & 0o022 != 0 && meta.mode() & 0o1000 == 0 {
            bail!(
                "`{}` can be written by other users (mode {:o}); make it 0700",
                dir.display(),
                meta.mode() & 0o7777
            );
        }
        let path = dir.join("key");
        if !path.exists() {
            create_key(&path)?;
        }
        // Checked on the open file itself, which no rename can swap.
        let mut file = OpenOptions::new()
            .read(true)
            .custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32)
            .open(&path)
            .with_context(|| format!("cannot open `{}`", path.display()))?;
        let meta = file.metadata()?;
        let me = rustix::process::geteuid().as_raw();
        if !meta.is_file() || meta.uid() != me || meta.mode() & 0o077 != 0 || meta.len() != 32 {
            bail!(
                "`{}` is not a key of this user's alone (it must be a 32-byte file of mode 0600)",
                path.display()
            );
        }
        let mut key = [0u8; KEY];
        file.read_exact(&mut key)?;
        Ok(Seal { key })
    }

    fn mac(&self) -> Hmac<Sha256> {
        Hmac::<Sha256>::new_from_slice(&self.key).expect("HMAC takes any key length")
    }

    /// `payload` with its format and tag in front.
    pub fn seal(&self, payload: &[u8]) -> Vec<u8> {
        let mut mac = self.mac();
        mac.update(payload);
        let mut sealed = Vec::with_capacity(MAGIC.len() + TAG + payload.len());
        sealed.extend_from_slice(MAGIC);
        sealed.extend_from_slice(&mac.finalize().into_bytes());
        sealed.extend_from_slice(payload);
        sealed
    }

    /// The payload of `sealed` if this key sealed it, else `None`.
    pub fn unseal<'a>(&self, sealed: &'a [u8]) -> Option<&'a [u8]> {
        let rest = sealed.strip_prefix(MAGIC)?;
        if rest.len() < TAG {
            return None;
        }
        let (tag, payload) = rest.split_at(TAG);
        let mut mac = self.mac();
        mac.update(payload);
        // A constant-time comparison.
        mac.verify_slice(tag).ok()?;
        Some(payload)
    }
}

/// Writes 32 random bytes to a new file of mode 0600 and links it to
/// `path`, unless another process made the key first.
fn create_key(path: &Path) -> Result<()> {
    let mut key = [0u8; KEY];
    rustix::rand::getrandom(&mut key, rustix::rand::GetRandomFlags::empty())
        .context("no random bytes for the cache key")?;
    let tmp = path.with_extension(format!("{}.tmp", std::process::id()));
    let mut file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&tmp)
        .with_context(|| format!("cannot create `{}`", tmp.display()))?;
    file.write_all(&key)?;
    file.sync_all()?;
    drop(file);
    let linked = std::fs::hard_link(&tmp, path);
    let _ = std::fs::remove_file(&tmp);
    match linked {
        Ok(()) => Ok(()),
        Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(error) => Err(error).with_context(|| format!("cannot create `{}`", path.display())),
    }
}

/// Marks a cache entry as just used, for [`evict`].
pub fn touch(path: &Path) {
    if let Ok(file) = OpenOptions::new().write(true).open(path) {
        let _ = file.set_modified(SystemTime::now());
    }
}

/// How long a cache entry is kept unused: entries for tool versions, WIT
/// versions or sources no longer in use go after this even below the
/// size limit.
pub const MAX_UNUSED_AGE: std::time::Duration = std::time::Duration::from_secs(30 * 24 * 3600);

/// Removes the files named `*.{extension}` in `dir` unused (neither
/// written nor read, see [`touch`]) for [`MAX_UNUSED_AGE`], then the least
/// recently used until the rest take at most `max_bytes`. Failures only
/// log.
pub fn evict(dir: &Path, extension: &str, max_bytes: u64) {
    evict_older(dir, extension, max_bytes, MAX_UNUSED_AGE);
}

fn evict_older(dir: &Path, extension: &str, max_bytes: u64, max_age: std::time::Duration) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut files: Vec<(SystemTime, u64, PathBuf)> = entries
        .filter_map(|entry| {
            let path = entry.ok()?.path();
            if path.extension()? != extension {
                return None;
            }
            let meta = std::fs::symlink_metadata(&path).ok()?;
            if !meta.is_file() {
                return None;
            }
            Some((meta.modified().ok()?, meta.len(), path))
        })
        .collect();
    let mut total: u64 = files.iter().map(|(_, len, _)| len).sum();
    let oldest_kept = SystemTime::now().checked_sub(max_age);
    let stale = |used: &SystemTime| oldest_kept.is_some_and(|oldest| *used < oldest);
    if total <= max_bytes && !files.iter().any(|(used, _, _)| stale(used)) {
        return;
    }
    files.sort();
    let mut removed = 0;
    for (used, len, path) in files {
        if total <= max_bytes && !stale(&used) {
            break;
        }
        if std::fs::remove_file(&path).is_ok() {
            total -= len;
            removed += 1;
        }
    }
    tracing::info!(
        dir = %dir.display(),
        removed,
        "cache over {} MiB or unused for {} days: removed the least recently used entries",
        max_bytes >> 20,
        max_age.as_secs() / 86_400
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn only_what_this_key_sealed_unseals() {
        let dir = tempfile::tempdir().unwrap();
        let cache = dir.path().join("cache");
        let seal = Seal::open(&cache).unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().mode() & 0o777;
        assert_eq!(mode(&cache), 0o700);
        assert_eq!(mode(&cache.join("key")), 0o600);
        let sealed = seal.seal(b"native code");
        assert_eq!(seal.unseal(&sealed), Some(&b"native code"[..]));
        // The same key is read back by the next process.
        assert_eq!(Seal::open(&cache).unwrap().key, seal.key);
        let mut tampered = sealed.clone();
        *tampered.last_mut().unwrap() ^= 1;
        assert_eq!(seal.unseal(&tampered), None);
        assert_eq!(seal.unseal(&sealed[..20]), None);
        assert_eq!(seal.unseal(b"native code"), None);
        let other = Seal::open(&dir.path().join("other")).unwrap();
        assert_eq!(other.unseal(&sealed), None);
    }

    #[test]
    fn a_key_others_can_read_or_a_directory_others_can_write_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let cache = dir.path().join("cache");
        Seal::open(&cache).unwrap();
        let key = cache.join("key");
        std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o644)).unwrap();
        let error = Seal::open(&cache).err().unwrap().to_string();
        assert!(error.contains("mode 0600"), "{error}");
        std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o600)).unwrap();
        std::fs::set_permissions(&cache, std::fs::Permissions::from_mode(0o777)).unwrap();
        let error = Seal::open(&cache).err().unwrap().to_string();
        assert!(error.contains("can be written by other users"), "{error}");
    }

    #[test]
    fn eviction_removes_the_least_recently_used_first() {
        let dir = tempfile::tempdir().unwrap();
        let old = SystemTime::now() - std::time::Duration::from_secs(100);
        for (name, age) in [("a", 3), ("b", 1), ("c", 2)] {
            let path = dir.path().join(format!("{name}.cwasm"));
            std::fs::write(&path, [0u8; 100]).unwrap();
            let file = OpenOptions::new().write(true).open(&path).unwrap();
            file.set_modified(old + std::time::Duration::from_secs(age))
                .unwrap();
        }
        std::fs::write(dir.path().join("key"), [0u8; 32]).unwrap();
        evict(dir.path(), "cwasm", 200);
        let mut left: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        left.sort();
        assert_eq!(left, ["a.cwasm", "c.cwasm", "key"]);
        // Below the size limit, what was unused longer than the age goes.
        let hour = std::time::Duration::from_secs(3600);
        let file = OpenOptions::new()
            .write(true)
            .open(dir.path().join("c.cwasm"))
            .unwrap();
        file.set_modified(SystemTime::now() - 3 * hour).unwrap();
        evict_older(dir.path(), "cwasm", 1 << 20, 2 * hour);
        assert!(dir.path().join("a.cwasm").exists());
        assert!(!dir.path().join("c.cwasm").exists());
    }
}
