//! `game:engine/game-messages`: typed messages from scripts to the game.
//! The scene's game data takes a message of a type the game registered; a
//! scene whose game registers none (`host run`'s) leaves it to scripts,
//! and it is sent as an `events` message: on the channel named after the
//! type, with the fields as a JSON object, as a game's messages reach
//! scripts. Grants name the type as a channel (`send`).

use crate::guest::bindings::game_data::Field as WitField;
use crate::guest::bindings::game_messages::Host;
use crate::guest::{Command, ScriptState};
use crate::input::ScriptMessage;
use crate::scene::{Field, fields_json};

impl Host for ScriptState {
    fn write(
        &mut self,
        kind: String,
        fields: Vec<WitField>,
    ) -> wasmtime::Result<Result<(), String>> {
        self.may_send(&kind)?;
        let fields: Vec<Field> = fields
            .into_iter()
            .map(|f| Field::new(f.name, f.value.into()))
            .collect();
        let payload = fields_json(&fields);
        let access = self.may_write_game([])?;
        match self.with_game(access, |data| data.write_message(&kind, fields)) {
            Ok(true) => {
                self.charge_message()?;
                Ok(Ok(()))
            }
            // The game registers no message types: it goes to scripts.
            Ok(false) => {
                self.push_command(Command::Send(ScriptMessage {
                    channel: kind,
                    payload,
                }))?;
                Ok(Ok(()))
            }
            Err(e) => Ok(Err(e)),
        }
    }
}
