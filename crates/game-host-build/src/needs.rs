//! What a script declares it needs ([`GrantSpec`]), read from its project
//! and embedded by `host build` in its component (the `game:needs` custom
//! section, JSON), where the host reads it at load:
//! - a crate: `[package.metadata.game.needs]` in `Cargo.toml`;
//! - a Python script: `[tool.game.needs]` in `pyproject.toml` beside it;
//! - a JavaScript script: `"game": {"needs": {...}}` in `package.json`
//!   beside it.
//!
//! The keys are those of a grants file (`imports`, `writes`, `send`,
//! `listen`, `keys`, `jobs`, ...).

use std::borrow::Cow;
use std::path::Path;

use anyhow::{Context, Result};
use game_host::GrantSpec;
use game_host::files::{MAX_TEXT_FILE, read_capped};
use game_host::guest::engine::NEEDS_SECTION;
use wasm_encoder::{ComponentSection, CustomSection};

/// What the project file `file` declares under the keys `path` (`None`
/// when there is no such file or key). A declaration that is not valid
/// fails, naming the file.
pub fn read_needs(file: &Path, path: &[&str]) -> Result<Option<GrantSpec>> {
    if !file.is_file() {
        return Ok(None);
    }
    let text = read_capped(file, MAX_TEXT_FILE)
        .with_context(|| format!("failed to read `{}`", file.display()))?;
    let text = String::from_utf8(text)
        .map_err(|_| anyhow::anyhow!("`{}` is not UTF-8 text", file.display()))?;
    let value: serde_json::Value = if file.extension().is_some_and(|e| e == "json") {
        serde_json::from_str(&text)?
    } else {
        toml::from_str(&text)?
    };
    let Some(needs) = path.iter().try_fold(&value, |value, key| value.get(key)) else {
        return Ok(None);
    };
    let needs: GrantSpec = serde_json::from_value(needs.clone())
        .with_context(|| format!("`{}`: `{}` is not valid", file.display(), path.join(".")))?;
    needs
        .check(&path.join("."))
        .map_err(|error| anyhow::anyhow!("`{}`: {error}", file.display()))?;
    Ok(Some(needs))
}

/// `component` with `needs` embedded as its `game:needs` section.
pub fn embed(mut component: Vec<u8>, needs: &GrantSpec) -> Vec<u8> {
    let data = serde_json::to_vec(needs).expect("a GrantSpec is JSON");
    CustomSection {
        name: Cow::Borrowed(NEEDS_SECTION),
        data: Cow::Owned(data),
    }
    .append_to_component(&mut component);
    component
}

#[cfg(test)]
mod tests {
    use super::*;

    const CARGO: &[&str] = &["package", "metadata", "game", "needs"];

    #[test]
    fn needs_are_read_from_toml_and_json() {
        let dir = tempfile::tempdir().unwrap();
        let cargo = dir.path().join("Cargo.toml");
        std::fs::write(
            &cargo,
            "[package]\nname = \"m\"\n[package.metadata.game.needs]\nimports = [\"scene\"]\nwrites = [\"cube\"]\n",
        )
        .unwrap();
        let needs = read_needs(&cargo, CARGO).unwrap().unwrap();
        assert_eq!(needs.writes, Some(vec!["cube".to_owned()]));
        std::fs::write(&cargo, "[package]\nname = \"m\"\n").unwrap();
        assert_eq!(read_needs(&cargo, CARGO).unwrap(), None);
        std::fs::write(
            &cargo,
            "[package]\nname = \"m\"\n[package.metadata.game.needs]\nimports = [\"sceen\"]\n",
        )
        .unwrap();
        let error = read_needs(&cargo, CARGO).unwrap_err();
        assert!(
            format!("{error:#}").contains("`sceen` is no interface"),
            "{error:#}"
        );
        let json = dir.path().join("package.json");
        assert_eq!(read_needs(&json, &["game", "needs"]).unwrap(), None);
        std::fs::write(
            &json,
            r#"{"name": "m", "game": {"needs": {"send": ["chat"], "keys": true}}}"#,
        )
        .unwrap();
        let needs = read_needs(&json, &["game", "needs"]).unwrap().unwrap();
        assert_eq!(needs.send, Some(vec!["chat".to_owned()]));
        assert_eq!(needs.keys, Some(true));
    }
}
