//! A game's registrations as its description (`game_host::game_types`):
//! each component and resource registered for scripts, with the types of
//! its fields read from its reflection, makes a record of the game's WIT
//! package, so scripts made for the game get `Spin { speed: f32 }` and
//! typed functions instead of names. [`ScriptTypes`] collects them as
//! they are registered; the plugin's engine is made from them when it is
//! first needed, after the app is built.
//!
//! A type is described only when every field is one the typed interface
//! carries (`f32`, `f64`, `i32`, `i64`, `u32`, `bool`, `String`, `Vec3`,
//! `Quat`); another stays reachable by name (`game-data`), and
//! [`ScriptTypes::describe`] says which field kept it out. A marker (no
//! fields) has nothing to type and is left out quietly.

use std::any::TypeId;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use bevy::math::{Quat, Vec3};
use bevy::prelude::Resource;
use bevy::reflect::TypeInfo;
use game_host::game_types::{GameTypes, Kind, Parts};
use game_host::sync::LockExt;

/// The fields of a registered type as the description has them, or why
/// it has none: (field, kind) in declaration order.
type Described = Result<Vec<(String, Kind)>, String>;

/// The types registered for scripts, described as they are registered.
/// Shared: the plugin reads them when it makes its engine.
#[derive(Resource, Clone, Default)]
pub struct ScriptTypes(Arc<Mutex<Registered>>);

#[derive(Default)]
struct Registered {
    components: BTreeMap<String, Described>,
    resources: BTreeMap<String, Described>,
    /// Whether an engine was made from them.
    closed: bool,
}

impl ScriptTypes {
    pub(crate) fn add_component(&self, name: &str, info: &TypeInfo) {
        let mut registered = self.0.lock_unpoisoned();
        Self::warn_if_closed(&registered, name);
        registered
            .components
            .insert(name.to_owned(), fields(name, info));
    }

    pub(crate) fn add_resource(&self, name: &str, info: &TypeInfo) {
        let mut registered = self.0.lock_unpoisoned();
        Self::warn_if_closed(&registered, name);
        registered
            .resources
            .insert(name.to_owned(), fields(name, info));
    }

    /// The description of game `game` from what is registered (in name
    /// order), and one line for each type left out, naming its field. An
    /// error is one line naming what makes no description (a game name or
    /// two types that make the same WIT name).
    pub fn describe(&self, game: &str) -> Result<(GameTypes, Vec<String>), String> {
        let registered = self.0.lock_unpoisoned();
        let mut left_out = Vec::new();
        let (mut components, mut resources): (Vec<Parts>, Vec<Parts>) = (Vec::new(), Vec::new());
        // Each type is checked with those taken before it, so one whose
        // names make no WIT names (or the same ones as another's) is left
        // out, not the whole description.
        let sections = [
            (&registered.components, true),
            (&registered.resources, false),
        ];
        for (types, component) in sections {
            for (name, described) in types {
                let fields = match described {
                    // A marker (`Frozen`) has nothing to type.
                    Ok(fields) if fields.is_empty() => continue,
                    Ok(fields) => fields,
                    Err(why) => {
                        left_out.push(why.clone());
                        continue;
                    }
                };
                let taken = match component {
                    true => &mut components,
                    false => &mut resources,
                };
                taken.push((name.clone(), fields.clone()));
                match GameTypes::from_parts(game, &components, &resources) {
                    Ok(_) => {}
                    // The game's own name: said once, below.
                    Err(why) if why.starts_with("game:") => {}
                    Err(why) => {
                        left_out.push(format!("`{name}` is reachable by name only: {why}"));
                        match component {
                            true => components.pop(),
                            false => resources.pop(),
                        };
                    }
                }
            }
        }
        let game = GameTypes::from_parts(game, &components, &resources)?;
        Ok((game, left_out))
    }

    /// Marks the types described for an engine: one registered after is
    /// reachable by name only, and the log says so.
    pub(crate) fn close(&self) {
        self.0.lock_unpoisoned().closed = true;
    }

    fn warn_if_closed(registered: &Registered, name: &str) {
        if registered.closed {
            bevy::log::warn!(
                "`{name}` was registered for scripts after their engine was made: scripts \
                 reach it by name, not typed"
            );
        }
    }
}

/// `name`'s fields as the description has them, or one line saying why it
/// has none.
fn fields(name: &str, info: &TypeInfo) -> Described {
    let TypeInfo::Struct(info) = info else {
        return Err(format!(
            "`{name}` is not a struct with named fields: scripts reach it by name only"
        ));
    };
    let mut fields = Vec::new();
    for field in info.iter() {
        let Some(kind) = kind_of(field.type_id()) else {
            return Err(format!(
                "`{name}`'s field `{}` is a `{}`, which game types do not carry (f32, f64, \
                 i32, i64, u32, bool, String, Vec3, Quat): scripts reach `{name}` by name only",
                field.name(),
                field.type_path()
            ));
        };
        fields.push((field.name().to_owned(), kind));
    }
    Ok(fields)
}

/// The kind a field of type `id` is described as.
fn kind_of(id: TypeId) -> Option<Kind> {
    let kinds = [
        (TypeId::of::<f32>(), Kind::F32),
        (TypeId::of::<f64>(), Kind::F64),
        (TypeId::of::<i32>(), Kind::S32),
        (TypeId::of::<i64>(), Kind::S64),
        (TypeId::of::<u32>(), Kind::U32),
        (TypeId::of::<bool>(), Kind::Bool),
        (TypeId::of::<String>(), Kind::String),
        (TypeId::of::<Vec3>(), Kind::Vec3),
        (TypeId::of::<Quat>(), Kind::Quat),
    ];
    kinds
        .iter()
        .find(|(of, _)| *of == id)
        .map(|(_, kind)| *kind)
}

#[cfg(test)]
mod tests {
    use super::*;
    use bevy::reflect::{Reflect, Typed};

    #[derive(Reflect, Default)]
    struct Spin {
        speed: f32,
        axis: Vec3,
    }

    #[derive(Reflect, Default)]
    struct Inventory {
        slots: Vec<u8>,
    }

    #[derive(Reflect, Default)]
    struct Frozen;

    #[derive(Reflect, Default)]
    struct Odd {
        slot_1: f32,
    }

    #[derive(Reflect, Default)]
    struct Score {
        points: i64,
    }

    #[test]
    fn registered_types_make_a_description() {
        let types = ScriptTypes::default();
        types.add_component("Spin", Spin::type_info());
        types.add_component("Inventory", Inventory::type_info());
        types.add_component("Frozen", Frozen::type_info());
        types.add_component("Odd", Odd::type_info());
        // The same WIT name (`ab`): the second in name order is left out.
        types.add_component("AB", Score::type_info());
        types.add_component("Ab", Score::type_info());
        types.add_resource("Score", Score::type_info());
        let (game, left_out) = types.describe("spin-demo").unwrap();
        let expected = GameTypes::parse(
            r#"{"game": "spin-demo",
                "components": {"AB": {"points": "s64"}, "Spin": {"speed": "f32", "axis": "vec3"}},
                "resources": {"Score": {"points": "s64"}}}"#,
        )
        .unwrap();
        assert_eq!(game, expected);
        assert_eq!(
            left_out,
            [
                "`Ab` is reachable by name only: components.Ab: `Ab` and `AB` make the same \
                 names in WIT (`ab`, `ab`)",
                "`Inventory`'s field `slots` is a `alloc::vec::Vec<u8>`, which game types do \
                 not carry (f32, f64, i32, i64, u32, bool, String, Vec3, Quat): scripts reach \
                 `Inventory` by name only",
                "`Odd` is reachable by name only: components.Odd.slot_1: `slot_1` makes no WIT \
                 name: use ASCII letters, digits, `_`, `-` and `.`, each word starting with a \
                 letter"
            ]
        );
        let error = types.describe("Spin Demo").unwrap_err();
        assert!(
            error.starts_with("game: `Spin Demo` is not a game name"),
            "{error}"
        );
    }
}
