//! Game data: a game's own components on its entities, which scripts read
//! and write by name with typed values (the `game-data` WIT interface).
//!
//! [`GameData`] is what a scene answers them with
//! ([`GameScene::game_data`](super::GameScene::game_data)): an engine over
//! its registered components, the core's [`Scene`](super::Scene) over what
//! scripts insert. Every failure is one line naming the entity, the
//! component and the field.

use super::entity::EntityId;
use super::query::{Column, FieldPath, Query, Rows, wrong_column};
use super::value::{Field, Value};

/// A game's components on its entities, by name. Each call answers an
/// error of one line naming the entity, the component and the field.
pub trait GameData {
    /// Whether entity `id` has the component.
    fn has(&mut self, id: EntityId, component: &str) -> bool;

    /// Every field of entity `id`'s component, in declaration order.
    fn get(&mut self, id: EntityId, component: &str) -> Result<Vec<Field>, String>;

    /// One field of entity `id`'s component.
    fn get_field(&mut self, id: EntityId, component: &str, field: &str) -> Result<Value, String> {
        self.get(id, component)?
            .into_iter()
            .find(|f| f.name == field)
            .map(|f| f.value)
            .ok_or_else(|| no_field(id, component, field))
    }

    /// Sets one field of entity `id`'s component.
    fn set_field(
        &mut self,
        id: EntityId,
        component: &str,
        field: &str,
        value: Value,
    ) -> Result<(), String>;

    /// Adds the component to entity `id` (or replaces it), with `fields`
    /// set and the others at their defaults.
    fn insert(&mut self, id: EntityId, component: &str, fields: Vec<Field>) -> Result<(), String>;

    /// The values of fields `names` of entity `id`'s component, in that
    /// order (a game's typed read).
    fn get_fields(
        &mut self,
        id: EntityId,
        component: &str,
        names: &[String],
    ) -> Result<Vec<Value>, String> {
        let have = self.get(id, component)?;
        Field::take(have, names).map_err(|name| no_field(id, component, name))
    }

    /// Sets fields `names` of entity `id`'s component to `values`, all or
    /// none: each must be a field it has, of a kind the value fits, and
    /// when the game refuses one the fields set before it are set back. An
    /// entity without the component gets it, as [`GameData::insert`] gives
    /// it (a game's typed write).
    fn set_fields(
        &mut self,
        id: EntityId,
        component: &str,
        names: &[String],
        values: Vec<Value>,
    ) -> Result<(), String> {
        let fields = || names.iter().zip(values.iter().cloned());
        if !self.has(id, component) {
            return self.insert(id, component, Field::named(names, values));
        }
        let have = self.get(id, component)?;
        for (name, value) in fields() {
            let had = (have.iter().find(|h| h.name == *name))
                .ok_or_else(|| no_field(id, component, name))?;
            (value.fit(had.value.kind())).map_err(|why| wrong_kind(id, component, name, &why))?;
        }
        // A game may still refuse a value that fits its kind (out of its
        // range): then what was set goes back.
        for (at, (name, value)) in fields().enumerate() {
            if let Err(error) = self.set_field(id, component, name, value) {
                for name in &names[..at] {
                    if let Some(old) = have.iter().find(|h| h.name == *name) {
                        let _ = self.set_field(id, component, name, old.value.clone());
                    }
                }
                return Err(error);
            }
        }
        Ok(())
    }

    /// Removes the component from entity `id`; false if it had none.
    fn remove(&mut self, id: EntityId, component: &str) -> Result<bool, String>;

    /// The entities that have every component of [`Query::required`] and
    /// none of its `without`, in id order, with the column of each of its
    /// fields but `Name` (left `None`, for the caller) and `Transform`
    /// (filled, or left `None`: see [`Rows`](crate::scene::Rows)).
    fn query(&mut self, query: &Query) -> Result<Rows, String>;

    /// Sets `fields` (none of them `Transform` or `Name`) of entities
    /// `ids` to the columns' values. Every id, component and column length
    /// and every value's kind is checked before anything changes (a scene
    /// whose store is full may still refuse a write part way).
    fn write_columns(
        &mut self,
        ids: &[u32],
        fields: &[FieldPath],
        columns: &[Column],
    ) -> Result<(), String> {
        for (path, column) in fields.iter().zip(columns) {
            column.check_length(path, ids.len())?;
            for &id in ids {
                if !self.has(EntityId::from(id), &path.component) {
                    let error = match self.get(EntityId::from(id), &path.component) {
                        Err(error) => error,
                        Ok(_) => no_component(EntityId::from(id), &path.component),
                    };
                    return Err(error.replacen("game-data", "queries", 1));
                }
            }
        }
        // Every value must fit its field before anything changes.
        for (at, &id) in ids.iter().enumerate() {
            for (path, column) in fields.iter().zip(columns) {
                let current = self
                    .get_field(EntityId::from(id), &path.component, &path.field)
                    .map_err(|e| e.replacen("game-data", "queries", 1))?;
                column
                    .value(at)
                    .fit(current.kind())
                    .map_err(|why| wrong_column(path, id, &why))?;
            }
        }
        for (at, &id) in ids.iter().enumerate() {
            for (path, column) in fields.iter().zip(columns) {
                self.set_field(
                    EntityId::from(id),
                    &path.component,
                    &path.field,
                    column.value(at),
                )
                .map_err(|e| e.replacen("game-data", "queries", 1))?;
            }
        }
        Ok(())
    }

    /// Every field of the game's resource `name`; by default there is
    /// none.
    fn resource(&mut self, name: &str) -> Result<Vec<Field>, String> {
        Err(no_resource(name, &[]))
    }

    /// Sets one field of the game's resource `name`.
    fn set_resource_field(&mut self, name: &str, field: &str, value: Value) -> Result<(), String> {
        let _ = (field, value);
        Err(no_resource(name, &[]))
    }

    /// Writes a message of type `kind` to the game: `Ok(true)` if the game
    /// took it, `Ok(false)` (the default) if the game has no message types
    /// and it goes to scripts instead.
    fn write_message(&mut self, kind: &str, fields: Vec<Field>) -> Result<bool, String> {
        let _ = (kind, fields);
        Ok(false)
    }
}

/// `fields` as a JSON object (`{"points":3}`; a vector as `[x, y, z]`):
/// the payload of a game's message as scripts receive it.
pub fn fields_json(fields: &[Field]) -> String {
    let value = |v: &Value| match v {
        Value::Number(x) => serde_json::json!(x),
        Value::Integer(n) => serde_json::json!(n),
        Value::Boolean(b) => serde_json::json!(b),
        Value::Text(t) => serde_json::json!(t),
        Value::Vec3(v) => serde_json::json!(v.to_array()),
        Value::Quat(q) => serde_json::json!(q.to_array()),
        Value::Numbers(list) => serde_json::json!(list),
    };
    let object: serde_json::Map<String, serde_json::Value> = fields
        .iter()
        .map(|f| (f.name.clone(), value(&f.value)))
        .collect();
    serde_json::Value::Object(object).to_string()
}

/// The error for a resource the game does not offer scripts.
pub fn no_resource(name: &str, known: &[&str]) -> String {
    format!(
        "resources: no resource named `{name}` is registered for scripts (registered: Time{}{})",
        if known.is_empty() { "" } else { ", " },
        known.join(", ")
    )
}

/// The error for an id that names no entity.
pub fn no_entity(id: EntityId) -> String {
    format!("game-data: no entity has id {}", id.index())
}

/// The error for an entity without the component.
pub fn no_component(id: EntityId, component: &str) -> String {
    format!(
        "game-data: entity {} has no component `{component}`",
        id.index()
    )
}

/// The error for a field the component does not have.
pub fn no_field(id: EntityId, component: &str, field: &str) -> String {
    format!(
        "game-data: component `{component}` of entity {} has no field `{field}`",
        id.index()
    )
}

/// The error for a value that does not fit its field (`why` from
/// [`Value::fit`]).
pub fn wrong_kind(id: EntityId, component: &str, field: &str, why: &str) -> String {
    format!(
        "game-data: cannot set `{component}.{field}` of entity {}: {why}",
        id.index()
    )
}
