//! `game:engine/game-data`: a game's own components, by name, through the
//! scene's [`GameData`](crate::scene::GameData). A failed call answers the
//! scene's one-line error to the script (a `result`), which may handle it;
//! a scene with no game data answers every call with the same error.

use crate::guest::ScriptState;
use crate::guest::bindings::game_data::{Field as WitField, Host, Value as WitValue};
use crate::guest::bindings::scene::EntityId as WitEntityId;
use crate::scene::{EntityId, Field, GameData, GameScene, Value};
use crate::sync::LockExt;

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

/// The error of every call on a scene without game data.
const NO_GAME_DATA: &str = "game-data: this game gives scripts no game data";

impl ScriptState {
    /// Runs `call` on the scene's game data, or answers [`NO_GAME_DATA`].
    fn with_data<R>(
        &mut self,
        call: impl FnOnce(&mut dyn GameData) -> Result<R, String>,
    ) -> Result<R, String> {
        self.take_turn();
        let mut scene = self.scene.lock_unpoisoned();
        match scene.game_data() {
            Some(data) => call(data),
            None => Err(NO_GAME_DATA.to_owned()),
        }
    }
}

type Answer<T> = wasmtime::Result<Result<T, String>>;

impl Host for ScriptState {
    fn has(&mut self, id: WitEntityId, component: String) -> wasmtime::Result<bool> {
        Ok(self
            .with_data(|data| Ok(data.has(EntityId::from(id), &component)))
            .unwrap_or(false))
    }

    fn get(&mut self, id: WitEntityId, component: String) -> Answer<Vec<WitField>> {
        Ok(self.with_data(|data| {
            let fields = data.get(EntityId::from(id), &component)?;
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
        Ok(self.with_data(|data| {
            Ok(data
                .get_field(EntityId::from(id), &component, &field)?
                .into())
        }))
    }

    fn set_field(
        &mut self,
        id: WitEntityId,
        component: String,
        field: String,
        value: WitValue,
    ) -> Answer<()> {
        self.may_write(EntityId::from(id))?;
        Ok(self
            .with_data(|data| data.set_field(EntityId::from(id), &component, &field, value.into())))
    }

    fn insert(&mut self, id: WitEntityId, component: String, fields: Vec<WitField>) -> Answer<()> {
        self.may_write(EntityId::from(id))?;
        let fields = fields
            .into_iter()
            .map(|f| Field::new(f.name, f.value.into()))
            .collect();
        Ok(self.with_data(|data| data.insert(EntityId::from(id), &component, fields)))
    }

    fn remove(&mut self, id: WitEntityId, component: String) -> Answer<bool> {
        self.may_write(EntityId::from(id))?;
        Ok(self.with_data(|data| data.remove(EntityId::from(id), &component)))
    }
}
