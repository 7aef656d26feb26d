//! `<game>:game/components` and `<game>:game/resources`: a game's own
//! types ([`GameTypes`]), linked with wasmtime's dynamic functions over the
//! same game data `game-data` and `resources` reach by name, under the same
//! grants. A read answers the record with the described fields in the
//! described order; a write checks every field against the game's data
//! first, so a refused write changes nothing. A failure is the script's to
//! handle: one line naming the entity, the component and the field.

use std::sync::Arc;

use wasmtime::StoreContextMut;
use wasmtime::component::{Linker, Val};

use crate::game_types::{GameTypes, Record};
use crate::guest::ScriptState;
use crate::scene::{EntityId, Field, GameData};

/// Links the game's two interfaces.
pub(crate) fn add_to_linker(
    linker: &mut Linker<ScriptState>,
    game: &GameTypes,
) -> wasmtime::Result<()> {
    let package = game.package();
    let mut components = linker.instance(&format!("{package}/components"))?;
    for record in &game.components {
        let record = Arc::new(record.clone());
        let read = record.clone();
        components.func_new(
            &format!("get-{}", record.wit),
            move |store, _, params, results| {
                let id = entity(params)?;
                results[0] = answer(get_component(store, &read, id)?);
                Ok(())
            },
        )?;
        let write = record.clone();
        components.func_new(
            &format!("set-{}", record.wit),
            move |store, _, params, results| {
                let id = entity(params)?;
                let fields = fields_of(&write, &params[1])?;
                results[0] = answer(set_component(store, &write, id, fields)?.map(|()| None));
                Ok(())
            },
        )?;
    }
    let mut resources = linker.instance(&format!("{package}/resources"))?;
    for record in &game.resources {
        let record = Arc::new(record.clone());
        let read = record.clone();
        resources.func_new(
            &format!("get-{}", record.wit),
            move |mut store, _, _, results| {
                let fields = store.data_mut().resource_fields(&read.name)?;
                let whose = format!("resource `{}`", read.name);
                results[0] = answer(fields.and_then(|fields| typed(&read, fields, &whose)));
                Ok(())
            },
        )?;
        let write = record.clone();
        resources.func_new(
            &format!("set-{}", record.wit),
            move |store, _, params, results| {
                let fields = fields_of(&write, &params[0])?;
                results[0] = answer(set_resource(store, &write, fields)?.map(|()| None));
                Ok(())
            },
        )?;
    }
    Ok(())
}

type Answer<T> = wasmtime::Result<Result<T, String>>;

fn get_component(
    mut store: StoreContextMut<'_, ScriptState>,
    record: &Record,
    id: EntityId,
) -> Answer<Option<Val>> {
    let state = store.data_mut();
    let access = state.may_read_data(id, &record.name)?;
    let whose = format!("entity {}'s `{}`", id.index(), record.name);
    Ok(state
        .with_data(access, |data, id, component| data.get(id, component))
        .and_then(|fields| typed(record, fields, &whose)))
}

fn set_component(
    mut store: StoreContextMut<'_, ScriptState>,
    record: &Record,
    id: EntityId,
    fields: Vec<Field>,
) -> Answer<()> {
    let state = store.data_mut();
    let access = state.may_write_data(id, &record.name)?;
    Ok(state.with_data(access, |data, id, component| {
        if !data.has(id, component) {
            return data.insert(id, component, fields);
        }
        // Every field first, so a refused write changes nothing.
        let whose = format!("entity {}'s `{component}`", id.index());
        check_fields(&whose, data.get(id, component)?, &fields)?;
        fields
            .into_iter()
            .try_for_each(|f| data.set_field(id, component, &f.name, f.value))
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
    Ok(state.with_game(access, |data: &mut dyn GameData| {
        check_fields(&format!("resource `{name}`"), data.resource(name)?, &fields)?;
        fields
            .into_iter()
            .try_for_each(|f| data.set_resource_field(name, &f.name, f.value))
    }))
}

/// Whether each of `fields` is one the game's data has, of a kind that
/// fits; else one line naming the first that is not.
fn check_fields(whose: &str, have: Vec<Field>, fields: &[Field]) -> Result<(), String> {
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

/// The game's fields as the record the description makes.
fn typed(record: &Record, mut fields: Vec<Field>, whose: &str) -> Result<Option<Val>, String> {
    let mut out = Vec::with_capacity(record.fields.len());
    for described in &record.fields {
        let Some(at) = fields.iter().position(|f| f.name == described.name) else {
            return Err(format!(
                "{whose} has no field `{}` (the game's description has it)",
                described.name
            ));
        };
        let value = fields.swap_remove(at).value;
        let val = (described.kind.to_val(value))
            .map_err(|why| format!("{whose}: field `{}`: {why}", described.name))?;
        out.push((described.wit.clone(), val));
    }
    Ok(Some(Val::Record(out)))
}

/// The record's fields as the game names them.
fn fields_of(record: &Record, val: &Val) -> wasmtime::Result<Vec<Field>> {
    let Val::Record(vals) = val else {
        wasmtime::bail!("`{}` is not a record", record.name);
    };
    record
        .fields
        .iter()
        .zip(vals)
        .map(|(described, (_, val))| {
            let value = described.kind.value_of(val).ok_or_else(|| {
                wasmtime::format_err!(
                    "`{}.{}` is not a {}",
                    record.name,
                    described.name,
                    described.kind.name()
                )
            })?;
            Ok(Field::new(described.name.clone(), value))
        })
        .collect()
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
