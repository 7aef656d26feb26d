//! The game's resources and messages (`game:engine/resources` and
//! `game-messages`): single values the game owns, by name (`Score`, and
//! `Time`, the fixed clock, in every game), and typed messages to its
//! systems.
//!
//! ```ignore
//! let elapsed = script::game::resource_number("Time", "elapsed")?;
//! script::game::set_resource("Score", "points", 3)?;
//! script::game::send_message("Scored", &[("points", 1.into())])?;
//! ```
//!
//! A game's messages reach scripts as [`crate::events`] messages on the
//! channel named after their type, with their fields as a JSON object.

use crate::bindings::game::engine::game_data as data;
use crate::bindings::game::engine::{game_messages, resources};
use crate::data::Value;

/// Every field of resource `name`, in declaration order.
pub fn resource(name: &str) -> Result<Vec<(String, Value)>, String> {
    let fields = resources::get(name)?;
    Ok(fields
        .into_iter()
        .map(|f| (f.name, f.value.into()))
        .collect())
}

/// One field of resource `name`.
pub fn resource_field(name: &str, field: &str) -> Result<Value, String> {
    resources::get_field(name, field).map(Value::from)
}

/// One field of resource `name` as a float (a number, or an integer
/// converted).
pub fn resource_number(name: &str, field: &str) -> Result<f64, String> {
    let value = resource_field(name, field)?;
    value
        .as_number()
        .ok_or_else(|| format!("`{name}.{field}` is not a number: {value:?}"))
}

/// Sets one field of resource `name`.
pub fn set_resource(name: &str, field: &str, value: impl Into<Value>) -> Result<(), String> {
    resources::set_field(name, field, &value.into().into())
}

/// Writes a message of type `kind` to the game's systems, with `fields`
/// set and the others at the type's defaults.
pub fn send_message(kind: &str, fields: &[(&str, Value)]) -> Result<(), String> {
    let fields: Vec<data::Field> = fields
        .iter()
        .map(|(name, value)| data::Field {
            name: (*name).to_owned(),
            value: value.clone().into(),
        })
        .collect();
    game_messages::write(kind, &fields)
}
