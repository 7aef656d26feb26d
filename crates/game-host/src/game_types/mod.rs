//! A game's own types for scripts: the game describes its components and
//! resources (a JSON file `host run` and `host serve` take with `--game`;
//! an embedder builds one or parses its own), and the host makes from it a WIT package, `<game>:game`,
//! with a record per component and resource and typed `get-`/`set-`
//! functions. Scripts made for the game bind it and call them with no
//! component or field names crossing; the host links them over the same
//! game data `game-data` reads by name, and refuses at load a script built
//! for another description, naming the component and field that differ.
//!
//! `description` reads the file; `kind` is a field's type; `wit` writes
//! the package. The engine links it
//! (`guest::imports::typed_data`) and checks scripts against it
//! (`guest::engine::game_check`).

mod description;
mod kind;
mod wit;

use std::path::Path;

use anyhow::{Context, Result};

pub use kind::Kind;
pub use wit::FILE as WIT_FILE;

use crate::files::{MAX_TEXT_FILE, read_capped};

/// A game's description: its name and, in its order, its components and
/// resources.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameTypes {
    /// The game's name, a WIT namespace (`spin-demo`).
    pub name: String,
    /// Its components.
    pub components: Vec<Record>,
    /// Its resources.
    pub resources: Vec<Record>,
}

/// A described component or resource.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// Its name in the game (`Spin`), as `game-data` names it.
    pub name: String,
    /// Its WIT name (`spin`).
    pub wit: String,
    /// Its fields, in the game's order.
    pub fields: Vec<FieldType>,
}

/// A described field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldType {
    /// Its name in the game (`max_hp`), as `game-data` names it.
    pub name: String,
    /// Its WIT name (`max-hp`).
    pub wit: String,
    /// Its type.
    pub kind: Kind,
}

impl GameTypes {
    /// A description from its JSON text, or one line naming the place of
    /// its first mistake.
    pub fn parse(text: &str) -> Result<GameTypes, String> {
        description::parse(text)
    }

    /// Reads the description at `path`.
    pub fn read(path: &Path) -> Result<GameTypes> {
        let bytes = read_capped(path, MAX_TEXT_FILE)
            .with_context(|| format!("failed to read game description `{}`", path.display()))?;
        let text = String::from_utf8(bytes)
            .map_err(|_| anyhow::anyhow!("game description `{}` is not UTF-8", path.display()))?;
        GameTypes::parse(&text)
            .map_err(|error| anyhow::anyhow!("game description `{}`: {error}", path.display()))
    }

    /// The WIT package's name (`spin-demo:game`).
    pub fn package(&self) -> String {
        format!("{}:game", self.name)
    }

    /// The WIT package's text (one file, [`WIT_FILE`]).
    pub fn wit(&self) -> String {
        wit::package(self)
    }
}
