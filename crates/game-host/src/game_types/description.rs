//! A game description: a JSON file naming the game and, in the order the
//! game declares them, its components and resources with their fields'
//! types. Everything read is checked; a mistake is refused in one line
//! naming its place (`components.Spin.speed`). A description is also
//! written (`write`), by a game that makes one from what it registered.
//! The book's reference (`book/src/reference/game-description.md`) gives
//! its rules; a test holds it to this reader.
//!
//! ```json
//! {
//!   "game": "spin-demo",
//!   "components": { "Spin": { "speed": "f32" }, "Health": { "current": "f32", "max": "f32" } },
//!   "resources": { "Score": { "points": "s64" } }
//! }
//! ```

use std::fmt;
use std::marker::PhantomData;

use serde::Deserialize;
use serde::de::{Deserializer, MapAccess, Visitor};

use super::kind::Kind;
use super::record::{FieldType, GameTypes, Record};

/// The most components, resources or fields of one record a description
/// may hold: a description is read from disk and is not trusted.
const MAX_ENTRIES: usize = 1024;

/// The most fields a description may hold in all.
const MAX_FIELDS: usize = 4096;

/// Names no game may take: a namespace of the host's own or WASI's (which
/// grants treat apart), and words WIT or Rust keep for themselves (the
/// package and the bindings' module are named after the game).
const RESERVED_GAMES: [&str; 8] = [
    "wasi", "game", "type", "self", "super", "crate", "use", "func",
];

/// WIT names the package defines besides the records'.
const RESERVED_RECORDS: [&str; 3] = ["entity-id", "vec3", "quat"];

/// Reads a game description from its JSON text.
pub(super) fn parse(text: &str) -> Result<GameTypes, String> {
    if !text.trim_start().starts_with('{') {
        return Err(
            "a game description is a JSON object: `{ \"game\": \"NAME\", \"components\": \
             { ... }, \"resources\": { ... } }`"
                .to_owned(),
        );
    }
    let file: File = serde_json::from_str(text).map_err(|error| error.to_string())?;
    let name = file.game;
    if !is_game_name(&name) {
        return Err(format!(
            "game: `{name}` is not a game name: use lowercase ASCII words of letters and \
             digits joined by `-`, each starting with a letter (`spin-demo`), other than \
             {}",
            RESERVED_GAMES.join(", ")
        ));
    }
    // Counted before any is checked: the checks compare names pairwise.
    let fields: usize = (file.components.0.iter().chain(&file.resources.0))
        .map(|(_, fields)| fields.0.len())
        .sum();
    if fields > MAX_FIELDS {
        return Err(format!(
            "the description has {fields} fields, more than {MAX_FIELDS}"
        ));
    }
    let components = records("components", file.components)?;
    let resources = records("resources", file.resources)?;
    Ok(GameTypes {
        name,
        components,
        resources,
    })
}

/// Whether `name` is one a game may take: lowercase words joined by `-`,
/// none of them reserved.
pub(super) fn is_game_name(name: &str) -> bool {
    kebab(name).as_deref() == Some(name) && !RESERVED_GAMES.contains(&name)
}

/// A record as [`json`] takes it: its name and its fields' names and kinds.
pub type Parts = (String, Vec<(String, Kind)>);

/// `game` as a description's JSON text, in its order, which [`parse`]
/// reads back as the same types.
pub(super) fn write(game: &GameTypes) -> String {
    let parts = |records: &[Record]| -> Vec<Parts> {
        (records.iter())
            .map(|r| {
                let fields = r.fields.iter().map(|f| (f.name.clone(), f.kind)).collect();
                (r.name.clone(), fields)
            })
            .collect()
    };
    json(
        &game.name,
        &parts(&game.components),
        &parts(&game.resources),
    )
}

/// A description's JSON text of game `game` with `components` and
/// `resources`, in their order.
pub(super) fn json(game: &str, components: &[Parts], resources: &[Parts]) -> String {
    let quote = |text: &str| serde_json::Value::from(text).to_string();
    let section = |records: &[Parts]| {
        let entries: Vec<String> = records
            .iter()
            .map(|(name, fields)| {
                let fields: Vec<String> = (fields.iter())
                    .map(|(field, kind)| format!("{}: {}", quote(field), quote(kind.name())))
                    .collect();
                format!("    {}: {{ {} }}", quote(name), fields.join(", "))
            })
            .collect();
        match entries.is_empty() {
            true => "{}".to_owned(),
            false => format!("{{\n{}\n  }}", entries.join(",\n")),
        }
    };
    format!(
        "{{\n  \"game\": {},\n  \"components\": {},\n  \"resources\": {}\n}}\n",
        quote(game),
        section(components),
        section(resources)
    )
}

/// The file as JSON has it.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    game: String,
    #[serde(default)]
    components: Ordered<Ordered<String>>,
    #[serde(default)]
    resources: Ordered<Ordered<String>>,
}

fn records(section: &str, entries: Ordered<Ordered<String>>) -> Result<Vec<Record>, String> {
    let mut records: Vec<Record> = Vec::new();
    for (name, fields) in entries.0 {
        let place = format!("{section}.{name}");
        let wit = kebab(&name).ok_or_else(|| not_an_identifier(&place, &name))?;
        if RESERVED_RECORDS.contains(&wit.as_str()) {
            return Err(format!(
                "{place}: `{name}` is `{wit}` in WIT, which the package defines itself"
            ));
        }
        // `get-X`, `set-X` and the records share one namespace.
        let made = |w: &str| [w.to_owned(), format!("get-{w}"), format!("set-{w}")];
        let clash = |a: &str, b: &str| made(a).iter().any(|x| made(b).contains(x));
        if let Some(other) = records.iter().find(|r| clash(&r.wit, &wit)) {
            return Err(format!(
                "{place}: `{name}` and `{}` make the same names in WIT (`{wit}`, `{}`)",
                other.name, other.wit
            ));
        }
        let mut record = Record {
            name,
            wit,
            fields: Vec::new(),
        };
        for (field, kind) in fields.0 {
            let place = format!("{place}.{field}");
            let wit = kebab(&field).ok_or_else(|| not_an_identifier(&place, &field))?;
            if let Some(other) = record.fields.iter().find(|f| f.wit == wit) {
                return Err(format!(
                    "{place}: `{field}` and `{}` have the same name in WIT (`{wit}`)",
                    other.name
                ));
            }
            let kind = Kind::parse(&kind).ok_or_else(|| {
                format!(
                    "{place}: unknown type `{kind}` (one of {})",
                    Kind::ALL.map(Kind::name).join(", ")
                )
            })?;
            record.fields.push(FieldType {
                name: field,
                wit,
                kind,
            });
        }
        if record.fields.is_empty() {
            return Err(format!("{place}: has no fields"));
        }
        records.push(record);
    }
    Ok(records)
}

fn not_an_identifier(place: &str, name: &str) -> String {
    format!(
        "{place}: `{name}` makes no WIT name: use ASCII letters, digits, `_`, `-` and `.`, \
         each word starting with a letter"
    )
}

/// A game's name for a component or field as a WIT identifier: words split
/// at `_`, `.`, `-` and lower-to-upper case changes, lowercased and joined
/// by `-` (`HealthPoints` and `health_points` are `health-points`). `None`
/// if a word would start with a digit, or a character is not ASCII
/// alphanumeric or a separator.
pub(super) fn kebab(name: &str) -> Option<String> {
    let mut words: Vec<String> = Vec::new();
    let mut previous: Option<char> = None;
    for c in name.chars() {
        match c {
            '_' | '.' | '-' => {
                previous = None;
                continue;
            }
            c if c.is_ascii_alphanumeric() => {
                let split = previous.is_none()
                    || (c.is_ascii_uppercase() && previous.is_some_and(|p| p.is_ascii_lowercase()));
                if split {
                    words.push(String::new());
                }
                words.last_mut()?.push(c.to_ascii_lowercase());
                previous = Some(c);
            }
            _ => return None,
        }
    }
    let valid = !words.is_empty()
        && words
            .iter()
            .all(|w| w.starts_with(|c: char| c.is_ascii_lowercase()));
    valid.then(|| words.join("-"))
}

/// A JSON object's entries in the order the file has them (serde_json's
/// own map sorts them), refusing a repeated key and more than
/// [`MAX_ENTRIES`].
struct Ordered<T>(Vec<(String, T)>);

impl<T> Default for Ordered<T> {
    fn default() -> Self {
        Ordered(Vec::new())
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Ordered<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Entries<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for Entries<T> {
            type Value = Ordered<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut entries: Vec<(String, T)> = Vec::new();
                while let Some(key) = map.next_key::<String>()? {
                    if entries.iter().any(|(k, _)| *k == key) {
                        return Err(serde::de::Error::custom(format!("`{key}` appears twice")));
                    }
                    if entries.len() == MAX_ENTRIES {
                        return Err(serde::de::Error::custom(format!(
                            "more than {MAX_ENTRIES} entries"
                        )));
                    }
                    entries.push((key, map.next_value()?));
                }
                Ok(Ordered(entries))
            }
        }
        deserializer.deserialize_map(Entries(PhantomData))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The book's reference (`book/src/reference/game-description.md`):
    /// the file's keys, the field types, the names kept, the limits, and
    /// the WIT its example makes.
    #[test]
    fn the_books_reference_is_this_reader() {
        use crate::book_tables::{assert_lists_exactly, code_block, prose};
        const PAGE: &str = "game-description.md";
        // The file's keys (the pattern fails to compile when one is added);
        // any other is refused.
        let File {
            game: _,
            components: _,
            resources: _,
        } = serde_json::from_str(r#"{"game": "g"}"#).unwrap();
        let keys = [
            ("game", "string"),
            ("components", "object"),
            ("resources", "object"),
        ]
        .map(|(key, kind)| (key.to_owned(), kind.to_owned()));
        assert_lists_exactly(PAGE, Some("The file"), &keys);
        assert!(parse(r#"{"game": "g", "other": {}}"#).is_err());

        let kinds: Vec<(String, String)> = Kind::ALL
            .iter()
            .map(|kind| (kind.name().to_owned(), format!("`{}`", kind.name())))
            .collect();
        assert_lists_exactly(PAGE, Some("Field types"), &kinds);

        let kept: Vec<(String, String)> = (RESERVED_GAMES.iter())
            .map(|name| (*name, "a game's name"))
            .chain(
                (RESERVED_RECORDS.iter())
                    .map(|name| (*name, "a component's or resource's WIT name")),
            )
            .map(|(name, place)| (name.to_owned(), place.to_owned()))
            .collect();
        assert_lists_exactly(PAGE, Some("Names"), &kept);

        let limits = format!(
            "at most {MAX_ENTRIES} components, {MAX_ENTRIES} resources and {MAX_ENTRIES} \
             fields in one record, and at most {MAX_FIELDS} fields in all"
        );
        assert!(
            prose(PAGE).contains(&limits),
            "the page does not say `{limits}`"
        );

        let example = parse(&code_block(PAGE, "json")).unwrap();
        let wit = example.wit();
        assert_eq!(
            code_block(PAGE, "wit"),
            wit,
            "the page's WIT; the host makes:\n{wit}"
        );
    }

    #[test]
    fn names_become_wit_identifiers() {
        assert_eq!(kebab("Spin").as_deref(), Some("spin"));
        assert_eq!(kebab("HealthPoints").as_deref(), Some("health-points"));
        assert_eq!(kebab("max_hp").as_deref(), Some("max-hp"));
        assert_eq!(kebab("inner.x").as_deref(), Some("inner-x"));
        assert_eq!(kebab("HP").as_deref(), Some("hp"));
        assert_eq!(kebab("spin-demo").as_deref(), Some("spin-demo"));
        for bad in ["0", "a.0", "", "é", "a b", "_"] {
            assert_eq!(kebab(bad), None, "{bad}");
        }
    }

    #[test]
    fn a_written_description_reads_back_the_same() {
        let game = parse(
            r#"{"game": "spin-demo",
                "components": {"Spin": {"speed": "f32", "axis": "vec3"}, "Health": {"max": "f32"}},
                "resources": {"Score": {"points": "s64", "label \"x\"": "string"}}}"#,
        );
        // A name that makes no WIT name is refused on reading it back too.
        assert!(game.is_err());
        let game = parse(
            r#"{"game": "spin-demo",
                "components": {"Spin": {"speed": "f32", "axis": "vec3"}, "Health": {"max": "f32"}},
                "resources": {"Score": {"points": "s64"}}}"#,
        )
        .unwrap();
        let text = write(&game);
        assert_eq!(parse(&text).unwrap(), game, "{text}");
        let empty = parse(r#"{"game": "g"}"#).unwrap();
        assert_eq!(parse(&write(&empty)).unwrap(), empty);
    }

    #[test]
    fn a_description_keeps_the_games_order() {
        let game = parse(
            r#"{"game": "spin-demo",
                "components": {"Spin": {"speed": "f32"}, "Health": {"max": "f32", "current": "f32"}},
                "resources": {"Score": {"points": "s64"}}}"#,
        )
        .unwrap();
        assert_eq!(game.name, "spin-demo");
        let names: Vec<_> = game.components.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["Spin", "Health"]);
        let fields: Vec<_> = game.components[1]
            .fields
            .iter()
            .map(|f| f.wit.as_str())
            .collect();
        assert_eq!(fields, ["max", "current"]);
        assert_eq!(game.resources[0].fields[0].kind, Kind::S64);
    }

    #[test]
    fn each_mistake_names_its_place() {
        let refused = |text: &str| parse(text).unwrap_err();
        assert_eq!(
            refused(r#"{"game": "g", "components": {"Spin": {"speed": "float"}}}"#),
            "components.Spin.speed: unknown type `float` (one of f32, f64, s32, s64, u32, bool, \
             string, vec3, quat)"
        );
        assert!(refused(r#"{"game": "Spin Demo"}"#).starts_with("game: `Spin Demo` is not"));
        assert!(
            refused(r#"{"game": "g", "components": {"Spin": {"0": "f32"}}}"#)
                .starts_with("components.Spin.0: `0` makes no WIT name")
        );
        assert_eq!(
            refused(r#"{"game": "g", "resources": {"Score": {"a_b": "f32", "aB": "f32"}}}"#),
            "resources.Score.aB: `aB` and `a_b` have the same name in WIT (`a-b`)"
        );
        assert_eq!(
            refused(
                r#"{"game": "g", "components": {"Spin": {"x": "f32"}, "GetSpin": {"x": "f32"}}}"#
            ),
            "components.GetSpin: `GetSpin` and `Spin` make the same names in WIT (`get-spin`, `spin`)"
        );
        assert!(
            refused(r#"{"game": "g", "components": {"Vec3": {"x": "f32"}}}"#)
                .starts_with("components.Vec3: `Vec3` is `vec3` in WIT")
        );
        for reserved in ["wasi", "self", "type"] {
            let text = format!(r#"{{"game": "{reserved}"}}"#);
            assert!(refused(&text).starts_with(&format!("game: `{reserved}` is not a game name")));
        }
        assert!(refused("[]").starts_with("a game description is a JSON object"));
        assert_eq!(
            refused(r#"{"game": "g", "components": {"Spin": {}}}"#),
            "components.Spin: has no fields"
        );
        let twice =
            refused(r#"{"game": "g", "components": {"A": {"x": "f32"}, "A": {"x": "f32"}}}"#);
        assert!(twice.starts_with("`A` appears twice at line 1"), "{twice}");
        let syntax = refused("{\"game\": \"g\",\n \"components\": {\"A\": }}");
        assert_eq!(syntax, "expected value at line 2 column 22");
        assert!(refused(r#"{"game": "g", "sounds": {}}"#).starts_with("unknown field `sounds`"));
    }
}
