//! `<game>:game/game-components` and `<game>:game/game-resources`: a game's own
//! types ([`GameTypes`]), linked with wasmtime's dynamic functions over the
//! same game data `game-data` and `resources` reach by name, under the same
//! grants. A read answers the record with the described fields in the
//! described order; a write checks every field against the game's data
//! first, so a refused write changes nothing. A failure is the script's to
//! handle: one line naming the entity, the component and the field.
//! `values` converts a field's values; the engine checked at load that each
//! imported function has the signature the description makes, and the
//! arguments are read by position all the same, never trusted.

mod values;

use std::sync::Arc;

use wasmtime::StoreContextMut;
use wasmtime::component::{Linker, Val};

use crate::game_types::{COMPONENTS, GameTypes, RESOURCES, Record};
use crate::guest::ScriptState;
use crate::guest::imports::resources::{TIME, TIME_IS_READ_ONLY};
use crate::scene::{EntityId, Field, GameData, Value};

/// A described record with what each call needs made once: its fields'
/// game names, to look them up.
struct Typed {
    record: Record,
    names: Vec<String>,
}

impl Typed {
    fn new(record: &Record) -> Arc<Typed> {
        Arc::new(Typed {
            names: record.fields.iter().map(|f| f.name.clone()).collect(),
            record: record.clone(),
        })
    }

    /// The game's values of the described fields, in order, as the record.
    fn to_val(
        &self,
        values: Vec<Value>,
        whose: impl Fn() -> String,
    ) -> Result<Option<Val>, String> {
        let fields = (self.record.fields.iter())
            .zip(values)
            .map(|(described, value)| {
                let val = values::to_val(described.kind, value).map_err(|why| {
                    format!("game-data: {}: field `{}` {why}", whose(), described.name)
                })?;
                Ok((described.wit.clone(), val))
            });
        Ok(Some(Val::Record(fields.collect::<Result<_, String>>()?)))
    }
}

/// Links the game's two interfaces.
pub(crate) fn add_to_linker(
    linker: &mut Linker<ScriptState>,
    game: &GameTypes,
) -> wasmtime::Result<()> {
    let package = game.package();
    let mut components = linker.instance(&format!("{package}/{COMPONENTS}"))?;
    for record in &game.components {
        let read = Typed::new(record);
        components.func_new(
            &format!("get-{}", record.wit),
            move |store, _, params, results| {
                let id = entity(params)?;
                *result(results)? = answer(get_component(store, &read, id)?);
                Ok(())
            },
        )?;
        let write = Typed::new(record);
        components.func_new(
            &format!("set-{}", record.wit),
            move |store, _, params, results| {
                let id = entity(params)?;
                let values = values_of(&write.record, params.get(1))?;
                *result(results)? =
                    answer(set_component(store, &write, id, values)?.map(|()| None));
                Ok(())
            },
        )?;
    }
    let mut resources = linker.instance(&format!("{package}/{RESOURCES}"))?;
    for record in &game.resources {
        let read = Typed::new(record);
        resources.func_new(
            &format!("get-{}", record.wit),
            move |mut store, _, _, results| {
                let name = &read.record.name;
                let whose = || format!("resource `{name}`");
                let fields = store.data_mut().resource_fields(name)?;
                *result(results)? = answer(fields.and_then(|fields| {
                    let values = Field::take(fields, &read.names).map_err(|name| {
                        format!(
                            "{} has no field `{name}` (the game's description has it)",
                            whose()
                        )
                    })?;
                    read.to_val(values, whose)
                }));
                Ok(())
            },
        )?;
        let write = Typed::new(record);
        resources.func_new(
            &format!("set-{}", record.wit),
            move |store, _, params, results| {
                let values = values_of(&write.record, params.first())?;
                let fields = Field::named(&write.names, values);
                let set = set_resource(store, &write.record, fields)?;
                *result(results)? = answer(set.map(|()| None));
                Ok(())
            },
        )?;
    }
    Ok(())
}

type Answer<T> = wasmtime::Result<Result<T, String>>;

fn get_component(
    mut store: StoreContextMut<'_, ScriptState>,
    record: &Typed,
    id: EntityId,
) -> Answer<Option<Val>> {
    let state = store.data_mut();
    let access = state.may_read_data(id, &record.record.name)?;
    Ok(state
        .with_data(access, |data, id, component| {
            data.get_fields(id, component, &record.names)
        })
        .and_then(|values| {
            let whose = || format!("entity {}'s `{}`", id.index(), record.record.name);
            record.to_val(values, whose)
        }))
}

fn set_component(
    mut store: StoreContextMut<'_, ScriptState>,
    record: &Typed,
    id: EntityId,
    values: Vec<Value>,
) -> Answer<()> {
    let state = store.data_mut();
    let access = state.may_write_data(id, &record.record.name)?;
    Ok(state.with_data(access, |data, id, component| {
        data.set_fields(id, component, &record.names, values)
    }))
}

fn set_resource(
    mut store: StoreContextMut<'_, ScriptState>,
    record: &Record,
    fields: Vec<Field>,
) -> Answer<()> {
    let state = store.data_mut();
    let access = state.may_write_game([record.name.as_str()])?;
    let name = &record.name;
    if name == TIME {
        return Ok(Err(TIME_IS_READ_ONLY.to_owned()));
    }
    Ok(state.with_game(access, |data: &mut dyn GameData| {
        let have = data.resource(name)?;
        check_fields(&format!("resource `{name}`"), &have, &fields)?;
        for (at, field) in fields.iter().enumerate() {
            let set = data.set_resource_field(name, &field.name, field.value.clone());
            if let Err(error) = set {
                // The game refused a value that fits its kind: set back
                // what went before, so nothing changes.
                for field in &fields[..at] {
                    if let Some(old) = have.iter().find(|h| h.name == field.name) {
                        let _ = data.set_resource_field(name, &old.name, old.value.clone());
                    }
                }
                return Err(error);
            }
        }
        Ok(())
    }))
}

/// Whether each of `fields` is one the game's data has, of a kind that
/// fits; else one line naming the first that is not.
fn check_fields(whose: &str, have: &[Field], fields: &[Field]) -> Result<(), String> {
    for field in fields {
        let Some(had) = have.iter().find(|h| h.name == field.name) else {
            return Err(format!(
                "{whose} has no field `{}` (the game's description has it)",
                field.name
            ));
        };
        field
            .value
            .clone()
            .fit(had.value.kind())
            .map_err(|why| format!("{whose}: field `{}`: {why}", field.name))?;
    }
    Ok(())
}

/// The record's field values, in the description's order.
fn values_of(record: &Record, val: Option<&Val>) -> wasmtime::Result<Vec<Value>> {
    let Some(Val::Record(vals)) = val else {
        wasmtime::bail!("`{}` is not a record", record.name);
    };
    if vals.len() != record.fields.len() {
        wasmtime::bail!("`{}` has another number of fields", record.name);
    }
    record
        .fields
        .iter()
        .zip(vals)
        .map(|(described, (_, val))| {
            let value = values::value_of(described.kind, val).ok_or_else(|| {
                wasmtime::format_err!(
                    "`{}.{}` is not a {}",
                    record.name,
                    described.name,
                    described.kind.name()
                )
            })?;
            Ok(value)
        })
        .collect()
}

/// The one result slot.
fn result(results: &mut [Val]) -> wasmtime::Result<&mut Val> {
    match results.first_mut() {
        Some(slot) => Ok(slot),
        None => wasmtime::bail!("a game's typed function has one result"),
    }
}

fn entity(params: &[Val]) -> wasmtime::Result<EntityId> {
    match params.first() {
        Some(Val::U32(id)) => Ok(EntityId::from(*id)),
        _ => wasmtime::bail!("an entity id is a u32"),
    }
}

/// A `result<T, string>`.
fn answer(result: Result<Option<Val>, String>) -> Val {
    Val::Result(match result {
        Ok(val) => Ok(val.map(Box::new)),
        Err(error) => Err(Some(Box::new(Val::String(error)))),
    })
}
