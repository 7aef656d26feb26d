//! A game's own types for scripts: the game describes its components and
//! resources (a JSON file `host run` and `host serve` take with `--game`;
//! an embedder builds one or parses its own), and the host makes from it a WIT package, `<game>:game`,
//! with a record per component and resource and typed `get-`/`set-`
//! functions. Scripts made for the game bind it and call them with no
//! component or field names crossing; the host links them over the same
//! game data `game-data` reads by name, and refuses at load a script built
//! for another description, naming the component and field that differ.
//!
//! `record` is what a description holds; `description` reads the file;
//! `kind` is a field's type; `wit` writes the package. The engine links it
//! (`guest::imports::typed_data`) and checks scripts against it
//! (`guest::engine::game_check`).

mod description;
mod kind;
mod record;
mod wit;

use std::path::Path;

use anyhow::{Context, Result};

pub use description::Parts;
pub use kind::Kind;
pub use record::{FieldType, GameTypes, Record};
pub use wit::{COMPONENTS, FILE as WIT_FILE, RESOURCES};

use crate::files::{MAX_TEXT_FILE, read_capped};

/// Whether `name` is one a game may take (`spin-demo`): lowercase ASCII
/// words of letters and digits joined by `-`, not one the host keeps.
pub fn is_game_name(name: &str) -> bool {
    description::is_game_name(name)
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

    /// The description as JSON text, which [`GameTypes::parse`] reads
    /// back as these types: what a game that makes its description writes
    /// for `host new --game` and `host run --game`.
    pub fn to_json(&self) -> String {
        description::write(self)
    }

    /// The description of game `game` with `components` and `resources`
    /// (each a name and its fields' names and kinds), in that order, as a
    /// game makes it from what it registered: checked as a file is, with
    /// the same one-line errors.
    pub fn from_parts(
        game: &str,
        components: &[Parts],
        resources: &[Parts],
    ) -> Result<GameTypes, String> {
        description::parse(&description::json(game, components, resources))
    }

    /// The package's interfaces, in order, each with what it holds
    /// (`"components"`, `"resources"`) and its records: those the game has
    /// types for (an empty one is left out: componentize-js cannot import
    /// an empty module).
    pub fn interfaces(&self) -> Vec<(&'static str, &'static str, &[Record])> {
        [
            (COMPONENTS, "components", self.components.as_slice()),
            (RESOURCES, "resources", self.resources.as_slice()),
        ]
        .into_iter()
        .filter(|(_, _, records)| !records.is_empty())
        .collect()
    }

    /// What the description holds, for a log line: `2 components and 1
    /// resource`.
    pub fn summary(&self) -> String {
        let count = |n: usize, what: &str| match n {
            1 => format!("1 {what}"),
            n => format!("{n} {what}s"),
        };
        format!(
            "{} and {}",
            count(self.components.len(), "component"),
            count(self.resources.len(), "resource")
        )
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
