//! The WIT package a game's description makes: `<game>:game`, with
//! interface `game-components` (a record per component, `get-<c>` and
//! `set-<c>`) and interface `game-resources` (the same per resource), and
//! world `imports`, which imports both (each only when the game has such
//! types). The interfaces' names are not
//! those of any `game:engine` interface (it has a `resources`): a world
//! importing both packages binds each under its own name in every language
//! (componentize-py names colliding modules by package). It stands alone (ids are `u32`, as
//! `game:engine`'s `entity-id`; `vec3` and `quat` are its own), so a Rust
//! script binds it with a second `wit_bindgen::generate!`.

use std::fmt::Write;

use super::kind::Kind;
use super::record::{GameTypes, Record};

/// The file name the package is written under.
pub const FILE: &str = "game.wit";

/// The interface of the game's components.
pub const COMPONENTS: &str = "game-components";

/// The interface of the game's resources.
pub const RESOURCES: &str = "game-resources";

/// The package's WIT text.
pub(super) fn package(game: &GameTypes) -> String {
    let mut text = format!(
        "// Game `{name}`'s components and resources as types, made by `host` from the\n\
         // game's description. Scripts call them with no names crossing; a script\n\
         // built for another description of the game fails to load, naming the\n\
         // difference.\n\
         package {name}:game;\n",
        name = game.name
    );
    let interfaces = game.interfaces();
    for (name, holds, records) in &interfaces {
        let id_param = if *holds == "components" {
            "id: entity-id"
        } else {
            ""
        };
        interface(&mut text, name, records, id_param);
    }
    text.push_str("\nworld imports {\n");
    for (name, _, _) in &interfaces {
        let _ = writeln!(text, "    import {name};");
    }
    text.push_str("}\n");
    text
}

/// One interface: `id_param` is the entity's id for components, empty for
/// resources.
fn interface(text: &mut String, name: &str, records: &[Record], id_param: &str) {
    let plural = name.trim_start_matches("game-");
    let what = &plural[..plural.len() - 1];
    let _ = writeln!(
        text,
        "\n/// The game's {plural}, typed.\ninterface {name} {{"
    );
    if !id_param.is_empty() {
        text.push_str("    /// An entity's id, as `game:engine/scene`'s `entity-id`.\n");
        text.push_str("    type entity-id = u32;\n");
    }
    let uses = |kind| {
        records
            .iter()
            .flat_map(|r| &r.fields)
            .any(|f| f.kind == kind)
    };
    if uses(Kind::Vec3) {
        text.push_str(
            "    record vec3 {\n        x: f32,\n        y: f32,\n        z: f32,\n    }\n",
        );
    }
    if uses(Kind::Quat) {
        text.push_str(
            "    record quat {\n        x: f32,\n        y: f32,\n        z: f32,\n        w: f32,\n    }\n",
        );
    }
    let (get_params, set_params) = match id_param {
        "" => (String::new(), "value: ".to_owned()),
        id => (id.to_owned(), format!("{id}, value: ")),
    };
    for record in records {
        let (game_name, wit) = (&record.name, &record.wit);
        let _ = writeln!(
            text,
            "    /// The game's {what} `{game_name}`.\n    record %{wit} {{"
        );
        for field in &record.fields {
            let _ = writeln!(text, "        %{}: {},", field.wit, field.kind.name());
        }
        text.push_str("    }\n");
        let _ = writeln!(
            text,
            "    /// `{game_name}`, or one line saying why not.\n    \
             get-{wit}: func({get_params}) -> result<%{wit}, string>;\n    \
             /// Sets every field of `{game_name}`{adds}.\n    \
             set-{wit}: func({set_params}%{wit}) -> result<_, string>;",
            adds = if id_param.is_empty() {
                ""
            } else {
                " (adding it to the entity if it has none)"
            }
        );
    }
    text.push_str("}\n");
}

#[cfg(test)]
mod tests {
    use super::super::description::parse;
    use super::*;

    #[test]
    fn a_description_makes_a_package() {
        let game = parse(
            r#"{"game": "spin-demo",
                "components": {"Spin": {"speed": "f32", "axis": "vec3"}},
                "resources": {"Score": {"points": "s64"}}}"#,
        )
        .unwrap();
        let text = package(&game);
        for line in [
            "package spin-demo:game;",
            "interface game-components {",
            "    type entity-id = u32;",
            "    record %spin {\n        %speed: f32,\n        %axis: vec3,\n    }",
            "    get-spin: func(id: entity-id) -> result<%spin, string>;",
            "    set-spin: func(id: entity-id, value: %spin) -> result<_, string>;",
            "    get-score: func() -> result<%score, string>;",
            "    set-score: func(value: %score) -> result<_, string>;",
            "world imports {",
        ] {
            assert!(text.contains(line), "no `{line}` in:\n{text}");
        }
        assert!(!text.contains("record quat"), "{text}");
        let no_resources = parse(r#"{"game": "g", "components": {"Spin": {"speed": "f32"}}}"#);
        let text = package(&no_resources.unwrap());
        assert!(!text.contains(RESOURCES), "{text}");
        assert!(
            text.contains("world imports {\n    import game-components;\n}"),
            "{text}"
        );
    }
}
