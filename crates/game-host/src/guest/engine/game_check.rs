//! Whether a script's game types fit the game this engine runs: a script
//! made for a game imports `<game>:game/game-components` (and
//! `/game-resources`),
//! whose records its build fixed. The engine links those functions
//! dynamically, so nothing else would notice a script built for another
//! description: each imported function's record is compared with the
//! description's here, and a difference refused in one line naming the
//! component and the field.

use wasmtime::Engine;
use wasmtime::component::types::{ComponentFunc, ComponentItem};
use wasmtime::component::{Component, Type};

use crate::game_types::{COMPONENTS, GameTypes, RESOURCES, Record};

/// Why `component` cannot load on an engine running `game` (or no game);
/// `None` when its game types, if any, fit.
pub(super) fn mismatch(
    component: &Component,
    engine: &Engine,
    game: Option<&GameTypes>,
) -> Option<String> {
    for (name, import) in component.component_type().imports(engine) {
        let Some((namespace, interface)) = game_interface(name) else {
            continue;
        };
        let ComponentItem::ComponentInstance(instance) = import.ty else {
            continue;
        };
        let Some(game) = game.filter(|game| game.name == namespace) else {
            let runs = match game {
                Some(game) => format!("this host runs game `{}`", game.name),
                None => "this host runs no game description (give it with `--game FILE`)".into(),
            };
            return Some(format!(
                "it was made for game `{namespace}` (it imports `{name}`), and {runs}"
            ));
        };
        let (records, what) = match interface {
            COMPONENTS => (&game.components, "component"),
            RESOURCES => (&game.resources, "resource"),
            _ => {
                return Some(format!(
                    "it imports `{name}`, which game `{namespace}`'s types do not have (a \
                     project made by an older host: write its `wit/game.wit` again with \
                     `host check SCRIPT --game FILE`)"
                ));
            }
        };
        for (function, export) in instance.exports(engine) {
            let ComponentItem::ComponentFunc(func) = export.ty else {
                continue;
            };
            let getter = match function.split_once('-') {
                Some(("get", wit)) => Some((true, wit)),
                Some(("set", wit)) => Some((false, wit)),
                _ => None,
            };
            let Some((getter, record)) = getter
                .and_then(|(getter, wit)| Some((getter, records.iter().find(|r| r.wit == wit)?)))
            else {
                return Some(format!(
                    "it calls `{function}` of `{name}`, and game `{namespace}`'s description \
                     has no such {what}"
                ));
            };
            let Some(built) = signature_fits(&func, getter, what == "component") else {
                return Some(format!(
                    "it was built for another description of game `{namespace}`: `{function}` \
                     has another signature in the script's build"
                ));
            };
            if let Some(difference) = differs(record, &built) {
                return Some(format!(
                    "it was built for another description of game `{namespace}`: {what} `{}`: \
                     {difference}",
                    record.name
                ));
            }
        }
    }
    None
}

/// `<game>:game/<interface>` as (game, interface); an import with a
/// version (`game:engine/scene@0.2.4`, `wasi:io/streams@0.2.6`) or another
/// package name is not a game's types.
fn game_interface(name: &str) -> Option<(&str, &str)> {
    let (package, interface) = name.split_once('/')?;
    let namespace = package.strip_suffix(":game")?;
    (!interface.contains('@')).then_some((namespace, interface))
}

/// The record of a function whose signature is the one the description
/// makes: `get-X: func([id: u32]) -> result<X, string>` when `getter`,
/// else `set-X: func([id: u32,] value: X) -> result<_, string>` (the id for
/// components). `None` for any other signature: the engine's dynamic
/// functions take their arguments by those positions.
fn signature_fits(
    func: &ComponentFunc,
    getter: bool,
    with_id: bool,
) -> Option<wasmtime::component::types::Record> {
    let params: Vec<Type> = func.params().map(|(_, ty)| ty).collect();
    let results: Vec<Type> = func.results().collect();
    let [Type::Result(result)] = results.as_slice() else {
        return None;
    };
    if result.err() != Some(Type::String) {
        return None;
    }
    let (id, rest) = match (with_id, params.as_slice()) {
        (true, [id, rest @ ..]) => (Some(id), rest),
        (false, rest) => (None, rest),
        (true, []) => return None,
    };
    if id.is_some_and(|id| *id != Type::U32) {
        return None;
    }
    match (getter, rest, result.ok()) {
        (true, [], Some(Type::Record(record))) => Some(record),
        (false, [Type::Record(record)], None) => Some(record.clone()),
        _ => None,
    }
}

/// How the script's record differs from the described one, if it does.
fn differs(record: &Record, built: &wasmtime::component::types::Record) -> Option<String> {
    let built: Vec<(String, String)> = built
        .fields()
        .map(|f| (f.name.to_owned(), type_name(&f.ty)))
        .collect();
    for field in &record.fields {
        let wanted = field.kind.name();
        match built.iter().find(|(name, _)| *name == field.wit) {
            None => {
                return Some(format!(
                    "the script's build has no field `{}` ({wanted} in the game's description)",
                    field.name
                ));
            }
            Some((_, kind)) if kind != wanted => {
                return Some(format!(
                    "field `{}` is {kind} in the script's build and {wanted} in the game's \
                     description",
                    field.name
                ));
            }
            Some(_) => {}
        }
    }
    if let Some((extra, _)) = built
        .iter()
        .find(|(name, _)| !record.fields.iter().any(|f| f.wit == *name))
    {
        return Some(format!(
            "the script's build has field `{extra}`, which the game's description does not"
        ));
    }
    let order = |names: Vec<&str>| names.join(", ");
    let described = order(record.fields.iter().map(|f| f.wit.as_str()).collect());
    let built = order(built.iter().map(|(name, _)| name.as_str()).collect());
    (described != built).then(|| {
        format!("its fields are in another order ({built} in the script's build, {described} in the game's description)")
    })
}

/// A field type's name as a description writes it.
fn type_name(ty: &Type) -> String {
    match ty {
        Type::Float32 => "f32".into(),
        Type::Float64 => "f64".into(),
        Type::S32 => "s32".into(),
        Type::S64 => "s64".into(),
        Type::U32 => "u32".into(),
        Type::Bool => "bool".into(),
        Type::String => "string".into(),
        Type::Record(record) => {
            let names: Vec<&str> = record.fields().map(|f| f.name).collect();
            let floats = record.fields().all(|f| f.ty == Type::Float32);
            match names.as_slice() {
                ["x", "y", "z"] if floats => "vec3".into(),
                ["x", "y", "z", "w"] if floats => "quat".into(),
                _ => "a record".into(),
            }
        }
        _ => "another type".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_unversioned_game_packages_are_game_types() {
        assert_eq!(
            game_interface("spin-demo:game/game-components"),
            Some(("spin-demo", "game-components"))
        );
        assert_eq!(game_interface("game:engine/scene@0.2.4"), None);
        assert_eq!(game_interface("game:terrain/terrain@0.1.0"), None);
        assert_eq!(game_interface("wasi:io/streams@0.2.6"), None);
    }
}
