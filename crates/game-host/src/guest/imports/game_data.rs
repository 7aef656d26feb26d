//! `game:engine/game-data`: a game's own components, by name, through the
//! scene's [`GameData`](crate::scene::GameData). A failed call answers the
//! scene's one-line error to the script (a `result`), which may handle it;
//! a scene with no game data answers every call with the same error.

use crate::guest::ScriptState;
use crate::guest::bindings::game_data::{Field as WitField, Host, Value as WitValue};
use crate::guest::bindings::scene::EntityId as WitEntityId;
use crate::scene::{EntityId, Field, Value};

impl From<WitValue> for Value {
    fn from(value: WitValue) -> Self {
        match value {
            WitValue::Number(x) => Value::Number(x),
            WitValue::Integer(n) => Value::Integer(n),
            WitValue::Boolean(b) => Value::Boolean(b),
            WitValue::Text(t) => Value::Text(t),
            WitValue::Vec3(v) => Value::Vec3(v.into()),
            WitValue::Quat(q) => Value::Quat(q.into()),
            WitValue::Numbers(list) => Value::Numbers(list),
        }
    }
}

impl From<Value> for WitValue {
    fn from(value: Value) -> Self {
        match value {
            Value::Number(x) => WitValue::Number(x),
            Value::Integer(n) => WitValue::Integer(n),
            Value::Boolean(b) => WitValue::Boolean(b),
            Value::Text(t) => WitValue::Text(t),
            Value::Vec3(v) => WitValue::Vec3(v.into()),
            Value::Quat(q) => WitValue::Quat(q.into()),
            Value::Numbers(list) => WitValue::Numbers(list),
        }
    }
}

type Answer<T> = wasmtime::Result<Result<T, String>>;

impl Host for ScriptState {
    fn has(&mut self, id: WitEntityId, component: String) -> wasmtime::Result<bool> {
        let access = self.may_read_data(EntityId::from(id), &component)?;
        Ok(self
            .with_data(access, |data, id, component| Ok(data.has(id, component)))
            .unwrap_or(false))
    }

    fn get(&mut self, id: WitEntityId, component: String) -> Answer<Vec<WitField>> {
        let access = self.may_read_data(EntityId::from(id), &component)?;
        Ok(self.with_data(access, |data, id, component| {
            let fields = data.get(id, component)?;
            Ok(fields
                .into_iter()
                .map(|f| WitField {
                    name: f.name,
                    value: f.value.into(),
                })
                .collect())
        }))
    }

    fn get_field(&mut self, id: WitEntityId, component: String, field: String) -> Answer<WitValue> {
        let access = self.may_read_data(EntityId::from(id), &component)?;
        Ok(self.with_data(access, |data, id, component| {
            Ok(data.get_field(id, component, &field)?.into())
        }))
    }

    fn set_field(
        &mut self,
        id: WitEntityId,
        component: String,
        field: String,
        value: WitValue,
    ) -> Answer<()> {
        let access = self.may_write_data(EntityId::from(id), &component)?;
        Ok(self.with_data(access, |data, id, component| {
            data.set_field(id, component, &field, value.into())
        }))
    }

    fn insert(&mut self, id: WitEntityId, component: String, fields: Vec<WitField>) -> Answer<()> {
        let access = self.may_write_data(EntityId::from(id), &component)?;
        let fields = fields
            .into_iter()
            .map(|f| Field::new(f.name, f.value.into()))
            .collect();
        Ok(self.with_data(access, |data, id, component| {
            data.insert(id, component, fields)
        }))
    }

    fn remove(&mut self, id: WitEntityId, component: String) -> Answer<bool> {
        let access = self.may_write_data(EntityId::from(id), &component)?;
        Ok(self.with_data(access, |data, id, component| data.remove(id, component)))
    }
}
