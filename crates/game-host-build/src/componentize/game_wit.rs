//! The game types a Python or JavaScript script is built against: the
//! `<game>:game` package (`game_host::game_types`) that `host new --game`
//! wrote into the project as `wit/game.wit`, or, for a game that knows its
//! own description (the Bevy plugin), that description's package. A build,
//! a live runtime and the editor types then bind the engine's world and
//! the game's `imports` together, so `game-components` and
//! `game-resources` are typed modules like `scene`.
//!
//! The file is the author's, so nothing in it is trusted: it must declare a
//! `<game>:game` package with a name the host accepts, and anything else
//! wrong with it is the tool's error, named with the file.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use sha2::{Digest, Sha256};

use game_host::files::{MAX_TEXT_FILE, read_capped};
use game_host::game_types::{COMPONENTS, GameTypes, RESOURCES, WIT_FILE, is_game_name};

/// A game's types as WIT: the game's name and the package's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameWit {
    /// The game's name, the package's namespace (`spin-demo`).
    pub name: String,
    /// The text of `game.wit`.
    pub text: String,
}

impl GameWit {
    /// The package of a description the game holds itself.
    pub fn of_game(game: &GameTypes) -> GameWit {
        GameWit {
            name: game.name.clone(),
            text: game.wit(),
        }
    }

    /// The game types of the project whose entry file is `entry`:
    /// `wit/game.wit` beside it, if there is one.
    pub fn of_project(entry: &Path) -> Result<Option<GameWit>> {
        let path = path_in(entry);
        if !path.is_file() {
            return Ok(None);
        }
        let bytes = read_capped(&path, MAX_TEXT_FILE)
            .with_context(|| format!("failed to read `{}`", path.display()))?;
        let Ok(text) = String::from_utf8(bytes) else {
            bail!("`{}` is not UTF-8 text", path.display());
        };
        match GameWit::from_text(text) {
            Ok(game) => Ok(Some(game)),
            Err(why) => bail!("`{}` {why}", path.display()),
        }
    }

    /// The game types in `text`, a project's `wit/game.wit`; the error
    /// says what is wrong with it (after the file's name).
    pub fn from_text(text: String) -> Result<GameWit, String> {
        let again = "write it again with `host check SCRIPT --game FILE`";
        let Some(name) = package_name(&text) else {
            return Err(format!(
                "declares no game's types (`package <game>:game;`, a game name of lowercase \
                 words joined by `-`): {again}"
            ));
        };
        // Before `game-components` and `game-resources`, the interfaces
        // were `components` and `resources`: one would move the engine's own.
        let declares = |interface: &str| {
            let line = format!("interface {interface} {{");
            text.lines().any(|l| l.trim() == line)
        };
        if declares("components") || declares("resources") {
            return Err(format!(
                "was written by an older host (its interfaces are `components` and \
                 `resources`): {again}"
            ));
        }
        Ok(GameWit { name, text })
    }

    /// Feeds what a build of this game's scripts depends on to `hash`.
    pub(crate) fn hash(&self, hash: &mut Sha256) {
        hash.update((self.text.len() as u64).to_le_bytes());
        hash.update(&self.text);
    }

    /// The game's interfaces (`game-components`, `game-resources`): those
    /// the package declares (a game with no resources has no
    /// `game-resources`).
    pub fn interfaces(&self) -> Vec<&'static str> {
        [COMPONENTS, RESOURCES]
            .into_iter()
            .filter(|name| {
                let declared = format!("interface {name} {{");
                self.text.lines().any(|line| line.trim() == declared)
            })
            .collect()
    }
}

/// Where the project whose entry file is `entry` keeps its game types.
pub fn path_in(entry: &Path) -> PathBuf {
    let dir = entry.parent().filter(|dir| !dir.as_os_str().is_empty());
    path_in_project(dir.unwrap_or(Path::new(".")))
}

/// Where the project in directory `dir` keeps its game types.
pub fn path_in_project(dir: &Path) -> PathBuf {
    dir.join("wit").join(WIT_FILE)
}

/// The `<game>` of the first `package <game>:game;` line, if it is a name
/// a game may take.
fn package_name(text: &str) -> Option<String> {
    let line = text
        .lines()
        .map(str::trim)
        .find(|line| line.starts_with("package "))?;
    let name = line
        .strip_prefix("package ")?
        .trim()
        .strip_suffix(';')?
        .trim()
        .strip_suffix(":game")?;
    is_game_name(name).then(|| name.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_game_package_is_a_games_types() {
        let game =
            GameTypes::parse(r#"{"game": "spin-demo", "components": {"Spin": {"speed": "f32"}}}"#)
                .unwrap();
        let wit = GameWit::of_game(&game);
        assert_eq!(package_name(&wit.text).as_deref(), Some("spin-demo"));
        assert_eq!(wit.interfaces(), [COMPONENTS]);
        for bad in [
            "package game:engine@0.2.4;",
            "package Spin:game;",
            "package a:game",
            "package wasi:game;",
            "package a--b:game;",
            "// package a:game;",
            "interface x {}",
        ] {
            assert_eq!(package_name(bad), None, "{bad}");
        }
    }

    #[test]
    fn a_project_without_game_types_has_none_and_a_bad_file_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let entry = dir.path().join("app.py");
        assert_eq!(GameWit::of_project(&entry).unwrap(), None);
        std::fs::create_dir(dir.path().join("wit")).unwrap();
        std::fs::write(dir.path().join("wit/game.wit"), "package game:engine;").unwrap();
        let error = GameWit::of_project(&entry).unwrap_err().to_string();
        assert!(
            error.contains("wit/game.wit` declares no game's types"),
            "{error}"
        );
    }
}
