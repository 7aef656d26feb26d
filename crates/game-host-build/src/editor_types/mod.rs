//! Editor types for Python and JavaScript scripts: the stubs of the WIT a
//! script binds to, written beside it in `.types/` by the tools made for it
//! (componentize-py's `bindings` as `.pyi` files, jco's `guest-types` as
//! `.d.ts` files), with the checker's settings (`pyrightconfig.json`,
//! `jsconfig.json`) that point pyright and `tsc` at them.
//!
//! `host new` writes them; `host build` and `host check` write them again
//! when the host's WIT (or the tool, the script's world, or the game's
//! types in `wit/game.wit`) has changed since: a stamp in `.types/` keys what they were written from. `.types/`
//! is hidden, so the build and the watcher never take it for the script's
//! own sources.
//!
//! `tools` names jco, pyright and TypeScript at their tested versions;
//! `config` the checkers' settings; `generate` runs the tools.

mod config;
mod generate;
mod tools;

use std::path::Path;
use std::time::Duration;

use anyhow::{Context, Result};
use sha2::{Digest, Sha256};

pub use config::config_file;
pub(crate) use config::ensure_config;
pub use tools::{JCO, PYRIGHT, TYPESCRIPT, Tool};

use crate::componentize::{self, GameWit, Language};
use game_host::hex::hex;

/// The directory, beside the script, that holds its editor types.
pub const TYPES_DIR: &str = ".types";

/// The file in [`TYPES_DIR`] keying what the stubs were written from.
const STAMP: &str = "stamp";

/// What [`refresh`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refreshed {
    /// The stubs were written afresh.
    Written,
    /// The stubs were already those of this host's WIT.
    Fresh,
    /// The project has none and none were asked for.
    Absent,
    /// The tool that writes them is missing: one line naming it and how to
    /// install it.
    ToolMissing(String),
}

/// The directory a script's entry file lies in.
pub fn project_dir(entry: &Path) -> &Path {
    crate::componentize::script_dir(entry)
}

/// Brings the editor types beside the script whose entry file is `entry` up
/// to this host's WIT: writes them if they are missing (when `create`) or
/// were written from another WIT, world, tool or host. The old stubs stay
/// until the new ones are whole; a refresh running beside this one (two
/// `host check`s) leaves one whole set.
pub fn refresh(language: Language, entry: &Path, create: bool) -> Result<Refreshed> {
    let dir = project_dir(entry);
    let types = dir.join(TYPES_DIR);
    if !create && !types.is_dir() {
        return Ok(Refreshed::Absent);
    }
    let world = componentize::world_of(language, entry)?;
    let game = GameWit::of_project(entry)?;
    let version = match generate::tool_version(language)? {
        Ok(version) => version,
        Err(missing) => return Ok(Refreshed::ToolMissing(missing)),
    };
    let key = stamp(world, &version, game.as_ref());
    let fresh = || std::fs::read_to_string(types.join(STAMP)).is_ok_and(|old| old.trim() == key);
    if fresh() {
        return Ok(Refreshed::Fresh);
    }
    remove_abandoned(dir);
    let id = uuid::Uuid::now_v7();
    let new = dir.join(format!("{TYPES_DIR}.new-{id}"));
    let old = dir.join(format!("{TYPES_DIR}.old-{id}"));
    let written = generate::write(language, world, game.as_ref(), &new).and_then(|()| {
        std::fs::write(new.join(STAMP), format!("{key}\n")).context("failed to write the stamp")
    });
    if let Err(error) = written {
        let _ = std::fs::remove_dir_all(&new);
        return Err(error.context(format!(
            "failed to write the editor types in `{}`",
            types.display()
        )));
    }
    // Move the old set aside, the new one in, then drop the old one.
    let moved_aside = std::fs::rename(&types, &old);
    let moved_in = std::fs::rename(&new, &types);
    let _ = std::fs::remove_dir_all(&old);
    match moved_in {
        Ok(()) => Ok(Refreshed::Written),
        // Another refresh put its whole set in first.
        Err(_) if fresh() => {
            let _ = std::fs::remove_dir_all(&new);
            Ok(Refreshed::Fresh)
        }
        Err(error) => {
            let _ = std::fs::remove_dir_all(&new);
            let error = match moved_aside {
                Err(aside) if aside.kind() != std::io::ErrorKind::NotFound => aside,
                _ => error,
            };
            Err(anyhow::Error::from(error)
                .context(format!("failed to replace `{}`", types.display())))
        }
    }
}

/// How long a half-written set (`.types.new-*`, `.types.old-*`) may lie
/// before it counts as left by a refresh that was stopped.
const ABANDONED: Duration = Duration::from_secs(600);

/// Removes the half-written sets stopped refreshes left in `dir`.
fn remove_abandoned(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let partial = [".new-", ".old-"]
            .iter()
            .any(|part| name.starts_with(&format!("{TYPES_DIR}{part}")));
        let old = entry
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|modified| modified.elapsed().ok())
            .is_some_and(|age| age > ABANDONED);
        if partial && old {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// The form of what this host writes beside the tools' stubs (the
/// JavaScript globals and older module names, the `.pyi` renaming): a host
/// that writes them differently changes it, so stubs are written again.
const FORMAT: &str = "1";

/// What stubs are written from: the host's WIT, the game's types, the
/// world, the tool, the host's own part.
fn stamp(world: &str, tool_version: &str, game: Option<&GameWit>) -> String {
    let mut hash = Sha256::new();
    for part in [FORMAT, world, tool_version] {
        hash.update((part.len() as u64).to_le_bytes());
        hash.update(part);
    }
    let extensions: Vec<_> = componentize::extensions().iter().collect();
    componentize::hash_script_wit(&mut hash, (game, &extensions));
    hex(&hash.finalize())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stamp_follows_the_world_and_the_tool() {
        let stamp = |world, tool| stamp(world, tool, None);
        assert_eq!(stamp("script", "jco 1"), stamp("script", "jco 1"));
        assert_ne!(stamp("script", "jco 1"), stamp("stateful-script", "jco 1"));
        assert_ne!(stamp("script", "jco 1"), stamp("script", "jco 2"));
    }

    #[test]
    fn a_project_without_types_gets_none_unless_asked() {
        let dir = tempfile::tempdir().unwrap();
        let entry = dir.path().join("app.js");
        std::fs::write(&entry, "export function entrypoint() {}").unwrap();
        assert_eq!(
            refresh(Language::JavaScript, &entry, false).unwrap(),
            Refreshed::Absent
        );
        assert!(!dir.path().join(TYPES_DIR).exists());
    }
}
