//! Reading and writing files the host does not trust and must not lose: a
//! read refuses what is not a regular file or is larger than a cap before
//! reading a byte, and a write goes to a temporary file renamed into place,
//! so a reader (or a crash) never sees half a file; and where the host's
//! own directories are. A leaf.

use std::io::Read;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

/// Largest script component the host reads (a Python or JavaScript one,
/// interpreter included, is about 20 MB).
pub const MAX_COMPONENT_FILE: u64 = 256 << 20;

/// Largest text file the host reads: a script's source, an input file.
pub const MAX_TEXT_FILE: u64 = 16 << 20;

/// The whole of `path`, if it is a regular file of at most `cap` bytes
/// (`/dev/zero`, a directory or a FIFO is refused before it is read).
pub fn read_capped(path: &Path, cap: u64) -> Result<Vec<u8>> {
    // Looked at before it is opened: opening a FIFO would wait for a writer.
    if !std::fs::metadata(path)?.is_file() {
        bail!("it is not a regular file");
    }
    let file = std::fs::File::open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        bail!("it is not a regular file");
    }
    if meta.len() > cap {
        bail!(
            "it is {} MiB, larger than the {} MiB the host reads",
            meta.len().div_ceil(1 << 20),
            cap >> 20
        );
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    // The file may grow after the check: read no more than the cap.
    file.take(cap + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > cap {
        bail!("it grew past {} MiB while being read", cap >> 20);
    }
    Ok(bytes)
}

/// Writes `bytes` to `path` through a temporary file beside it, renamed
/// into place.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let tmp = temp_path(path);
    let written = std::fs::write(&tmp, bytes)
        .and_then(|()| std::fs::rename(&tmp, path))
        .with_context(|| format!("failed to write `{}`", path.display()));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

/// A name beside `path` that no other writer uses.
fn temp_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(format!(
        ".{}.{}.tmp",
        std::process::id(),
        uuid::Uuid::now_v7().simple()
    ));
    PathBuf::from(name)
}

/// One of the host's own directories: `$OVERRIDE` if set, else
/// `$XDG_VAR/game-host`, else `~/HOME_PATH/game-host` (`None` without even
/// `HOME`). Empty variables count as unset.
pub fn host_dir(override_var: &str, xdg_var: &str, home_path: &str) -> Option<PathBuf> {
    let env = |key| std::env::var_os(key).filter(|v| !v.is_empty());
    if let Some(dir) = env(override_var) {
        return Some(dir.into());
    }
    let base = match env(xdg_var) {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env("HOME")?).join(home_path),
    };
    Some(base.join("game-host"))
}

/// Checks that `dir` is (or can be made) a directory the host can write
/// into, creating it if needed: a bad path fails at start, not at exit.
pub fn ensure_writable_dir(dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir)
        .with_context(|| format!("cannot create the directory `{}`", dir.display()))?;
    let probe = temp_path(&dir.join(".probe"));
    std::fs::write(&probe, b"")
        .and_then(|()| std::fs::remove_file(&probe))
        .with_context(|| format!("cannot write into `{}`", dir.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_regular_files_within_the_cap_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.wasm");
        std::fs::write(&file, [7u8; 100]).unwrap();
        assert_eq!(read_capped(&file, 100).unwrap().len(), 100);
        let large = read_capped(&file, 99).unwrap_err().to_string();
        assert!(large.contains("larger than"), "{large}");
        let not_file = read_capped(dir.path(), 1 << 20).unwrap_err().to_string();
        assert_eq!(not_file, "it is not a regular file");
        let device = read_capped(Path::new("/dev/zero"), 1 << 20).unwrap_err();
        assert_eq!(device.to_string(), "it is not a regular file");
    }

    #[test]
    fn an_atomic_write_leaves_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("out.json");
        write_atomic(&file, b"one").unwrap();
        write_atomic(&file, b"two").unwrap();
        assert_eq!(std::fs::read(&file).unwrap(), b"two");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        let missing = dir.path().join("no/such/dir/out.json");
        assert!(write_atomic(&missing, b"x").is_err());
    }

    #[test]
    fn a_file_is_not_a_writable_directory() {
        let dir = tempfile::tempdir().unwrap();
        ensure_writable_dir(&dir.path().join("new/dumps")).unwrap();
        let file = dir.path().join("file");
        std::fs::write(&file, b"").unwrap();
        assert!(ensure_writable_dir(&file).is_err());
    }
}
