//! A game's own components on its entities (`game:engine/game-data`):
//! read and written by name, with typed [`Value`]s. In a Bevy game they
//! are the components the game registers for scripts; under `host run`
//! they are what scripts [`insert`].
//!
//! ```ignore
//! let speed = script::data::number(id, "Spin", "speed")?;
//! script::data::set(id, "Spin", "speed", speed * 2.0)?;
//! ```
//!
//! Every call that can fail answers an `Err` of one line naming the
//! entity, the component, the field and why (no such entity, component or
//! field, a value of another kind, a write the game does not allow).
//! Nested records are flattened (`inner.x`); a component wrapping one value
//! has the one field `0`.

use crate::bindings::game::engine::game_data as wit;
use crate::entities::{self, EntityId};
use glam::{Quat, Vec3};

/// A field's value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// A float (any of the game's float fields).
    Number(f64),
    /// A whole number (any of the game's integer fields).
    Integer(i64),
    /// A flag.
    Boolean(bool),
    /// Text.
    Text(String),
    /// A vector.
    Vec3(Vec3),
    /// A rotation.
    Quat(Quat),
    /// A list of floats.
    Numbers(Vec<f64>),
}

impl Value {
    /// The value as a float: a number, or an integer converted.
    pub fn as_number(&self) -> Option<f64> {
        match *self {
            Value::Number(x) => Some(x),
            Value::Integer(n) => Some(n as f64),
            _ => None,
        }
    }
}

macro_rules! value_from {
    ($($ty:ty => $case:ident $(as $as:ty)?),* $(,)?) => {
        $(
            impl From<$ty> for Value {
                fn from(value: $ty) -> Self {
                    Value::$case((value $(as $as)?).into())
                }
            }
        )*
    };
}

value_from! {
    f64 => Number, f32 => Number as f64, i64 => Integer, i32 => Integer as i64,
    u32 => Integer as i64, bool => Boolean, String => Text, &str => Text,
    Vec3 => Vec3, Quat => Quat, Vec<f64> => Numbers,
}

impl From<Value> for wit::Value {
    fn from(value: Value) -> Self {
        match value {
            Value::Number(x) => wit::Value::Number(x),
            Value::Integer(n) => wit::Value::Integer(n),
            Value::Boolean(b) => wit::Value::Boolean(b),
            Value::Text(t) => wit::Value::Text(t),
            Value::Vec3(v) => wit::Value::Vec3(v.into()),
            Value::Quat(q) => wit::Value::Quat(q.into()),
            Value::Numbers(list) => wit::Value::Numbers(list),
        }
    }
}

impl From<wit::Value> for Value {
    fn from(value: wit::Value) -> Self {
        match value {
            wit::Value::Number(x) => Value::Number(x),
            wit::Value::Integer(n) => Value::Integer(n),
            wit::Value::Boolean(b) => Value::Boolean(b),
            wit::Value::Text(t) => Value::Text(t),
            wit::Value::Vec3(v) => Value::Vec3(v.into()),
            wit::Value::Quat(q) => Value::Quat(q.into()),
            wit::Value::Numbers(list) => Value::Numbers(list),
        }
    }
}

/// Whether entity `id` has the component.
pub fn has(id: EntityId, component: &str) -> bool {
    wit::has(id, component)
}

/// Every field of entity `id`'s component, by name, in declaration order.
pub fn get(id: EntityId, component: &str) -> Result<Vec<(String, Value)>, String> {
    let fields = wit::get(id, component)?;
    Ok(fields
        .into_iter()
        .map(|f| (f.name, f.value.into()))
        .collect())
}

/// One field of entity `id`'s component.
pub fn field(id: EntityId, component: &str, field: &str) -> Result<Value, String> {
    wit::get_field(id, component, field).map(Value::from)
}

/// One field as a float (a number, or an integer converted).
pub fn number(id: EntityId, component: &str, field: &str) -> Result<f64, String> {
    let value = self::field(id, component, field)?;
    value
        .as_number()
        .ok_or_else(|| format!("`{component}.{field}` of entity {id} is not a number: {value:?}"))
}

/// Sets one field of entity `id`'s component.
pub fn set(
    id: EntityId,
    component: &str,
    field: &str,
    value: impl Into<Value>,
) -> Result<(), String> {
    wit::set_field(id, component, field, &value.into().into())
}

/// Adds the component to entity `id` (or replaces it), with `fields` set
/// and the others at the component's defaults. Buffered [`entities`]
/// writes go first.
pub fn insert(id: EntityId, component: &str, fields: &[(&str, Value)]) -> Result<(), String> {
    entities::flush();
    let fields: Vec<wit::Field> = fields
        .iter()
        .map(|(name, value)| wit::Field {
            name: (*name).to_owned(),
            value: value.clone().into(),
        })
        .collect();
    wit::insert(id, component, &fields)
}

/// Removes the component from entity `id`; `Ok(false)` if it had none.
pub fn remove(id: EntityId, component: &str) -> Result<bool, String> {
    wit::remove(id, component)
}
