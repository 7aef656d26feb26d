//! `game:engine/resources`: the game's resources by name, through the
//! scene's game data, and `Time`, the frame clock every game offers, read
//! here from the runtime's clock (in a Bevy game it runs on Bevy's fixed
//! clock). Grants name resources as they name components (`data_reads`,
//! `data_writes`).

use crate::guest::ScriptState;
use crate::guest::bindings::game_data::{Field as WitField, Value as WitValue};
use crate::guest::bindings::resources::Host;
use crate::scene::{Field, Value};

type Answer<T> = wasmtime::Result<Result<T, String>>;

/// The resource every game offers: the frame clock.
pub(super) const TIME: &str = "Time";

/// What a write to `Time` answers.
pub(super) const TIME_IS_READ_ONLY: &str =
    "resources: scripts read `Time`; the game's clock sets it";

impl ScriptState {
    /// `Time`'s fields: the frame's step, the time at its end, its number.
    fn time_fields(&self) -> Vec<Field> {
        let clock = self.frame_clock();
        vec![
            Field::new("delta", Value::Number(f64::from(clock.delta_time))),
            Field::new("elapsed", Value::Number(clock.time)),
            Field::new("frame", Value::Integer(clock.frame as i64)),
        ]
    }

    pub(crate) fn resource_fields(&mut self, name: &str) -> Answer<Vec<Field>> {
        let access = self.may_read_game([name])?;
        if name == TIME {
            return Ok(Ok(self.time_fields()));
        }
        Ok(self.with_game(access, |data| data.resource(name)))
    }
}

impl Host for ScriptState {
    fn get(&mut self, name: String) -> Answer<Vec<WitField>> {
        Ok(self.resource_fields(&name)?.map(|fields| {
            fields
                .into_iter()
                .map(|f| WitField {
                    name: f.name,
                    value: f.value.into(),
                })
                .collect()
        }))
    }

    fn get_field(&mut self, name: String, field: String) -> Answer<WitValue> {
        Ok(self.resource_fields(&name)?.and_then(|fields| {
            fields
                .into_iter()
                .find(|f| f.name == field)
                .map(|f| f.value.into())
                .ok_or_else(|| format!("resources: resource `{name}` has no field `{field}`"))
        }))
    }

    fn set_field(&mut self, name: String, field: String, value: WitValue) -> Answer<()> {
        let access = self.may_write_game([name.as_str()])?;
        if name == TIME {
            return Ok(Err(TIME_IS_READ_ONLY.to_owned()));
        }
        Ok(self.with_game(access, |data| {
            data.set_resource_field(&name, &field, value.into())
        }))
    }
}
