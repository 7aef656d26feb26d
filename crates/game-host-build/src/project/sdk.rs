//! The SDK shipped inside the `host` binary.
//!
//! A script crate of the author's own needs the SDK (`script`) and the WIT
//! it binds, with no checkout of this repository around and no registry
//! entry for it. The binary carries both (embedded by `build.rs`, with a
//! stand-alone manifest) and writes them to
//! `<data dir>/sdk/<version>-<hash>/`, the directory `host new` points a
//! crate's `script` dependency at. The extensions' guest crates (such as
//! `game-terrain`) are written there too, beside `script/` as in this
//! repository. The hash names the exact sources, so a
//! newer host never changes the SDK under an existing project, and a
//! directory that differs from what this host ships (edited, half written)
//! is written again before use.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use game_host::files::{MAX_TEXT_FILE, host_dir, read_capped};

pub use crate::embedded::{GUEST_CRATES, SDK_FILES, SDK_ID};

/// Where the host keeps data of its own: `$GAME_HOST_DATA_DIR`, else
/// `$XDG_DATA_HOME/game-host`, else `~/.local/share/game-host`.
pub fn data_dir() -> Option<PathBuf> {
    host_dir("GAME_HOST_DATA_DIR", "XDG_DATA_HOME", ".local/share")
}

/// The directory this host's SDK lives in (written or not).
pub fn sdk_dir() -> Result<PathBuf> {
    let data = data_dir()
        .context("no data directory for the SDK: set HOME, XDG_DATA_HOME or GAME_HOST_DATA_DIR")?;
    Ok(data.join("sdk").join(SDK_ID))
}

/// Writes the SDK unless it is there already, exactly; returns the path of
/// its `script` crate.
pub fn install() -> Result<PathBuf> {
    install_at(&sdk_dir()?)
}

/// [`install`] into `root` instead of the host's data directory (a game's
/// tests that make script projects of their own).
pub fn install_at(root: &Path) -> Result<PathBuf> {
    if !is_intact(root) {
        write(root).with_context(|| format!("failed to write the SDK to `{}`", root.display()))?;
    }
    Ok(root.join("script"))
}

/// Whether every file of the SDK is under `root` with this host's content.
fn is_intact(root: &Path) -> bool {
    SDK_FILES.iter().all(|(name, text)| {
        read_capped(&root.join(name), MAX_TEXT_FILE).is_ok_and(|bytes| bytes == text.as_bytes())
    })
}

/// Writes the SDK into a fresh directory beside `root`, then renames it
/// into place, so a reader never sees half an SDK.
fn write(root: &Path) -> Result<()> {
    let parent = root.parent().expect("the SDK directory has a parent");
    std::fs::create_dir_all(parent)?;
    let fresh = parent.join(format!(".{SDK_ID}.{}.tmp", uuid::Uuid::now_v7().simple()));
    let written = (|| -> Result<()> {
        for (name, text) in SDK_FILES {
            let path = fresh.join(name);
            std::fs::create_dir_all(path.parent().expect("a file has a directory"))?;
            std::fs::write(&path, text)?;
        }
        if root.exists() {
            // Not what this host ships: replace it.
            std::fs::remove_dir_all(root)?;
        }
        std::fs::rename(&fresh, root)?;
        Ok(())
    })();
    if written.is_err() {
        let _ = std::fs::remove_dir_all(&fresh);
        // Another host may have written the same SDK meanwhile.
        if is_intact(root) {
            return Ok(());
        }
    }
    written
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sdk_carries_its_crate_and_wit_with_a_standalone_manifest() {
        let names: Vec<&str> = SDK_FILES.iter().map(|(name, _)| *name).collect();
        for name in [
            "script/Cargo.toml",
            "script/src/lib.rs",
            "wit/worlds.wit",
            "wit/runtime.wit",
            "crates/game-host-terrain/wit/terrain.wit",
            "crates/game-host-terrain/guest/Cargo.toml",
            "crates/game-host-terrain/guest/src/lib.rs",
        ] {
            assert!(names.contains(&name), "{names:?}");
        }
        let manifest = SDK_FILES[names
            .iter()
            .position(|n| *n == "script/Cargo.toml")
            .unwrap()]
        .1;
        assert!(!manifest.contains("workspace"), "{manifest}");
        assert!(manifest.contains("wit-bindgen = { version"), "{manifest}");
        assert!(SDK_ID.starts_with(env!("CARGO_PKG_VERSION")));
    }

    #[test]
    fn a_damaged_sdk_is_written_again() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("sdk").join(SDK_ID);
        write(&root).unwrap();
        assert!(is_intact(&root));
        std::fs::write(root.join("script/src/lib.rs"), "broken").unwrap();
        assert!(!is_intact(&root));
        write(&root).unwrap();
        assert!(is_intact(&root));
        assert_eq!(
            std::fs::read_dir(root.parent().unwrap()).unwrap().count(),
            1
        );
    }
}
