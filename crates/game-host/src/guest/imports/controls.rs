//! `game:engine/controls`: the players' numbered commands this frame
//! applies, for a script that moves their entities by them alone (and so
//! can predict them in the players' browsers).

use crate::guest::ScriptState;
use crate::guest::bindings::controls::{Control, Host};

impl Host for ScriptState {
    /// Commands are key input: a script without `keys` gets none, as it
    /// gets no key presses from players.
    fn commands(&mut self) -> wasmtime::Result<Vec<Control>> {
        if !self.grants.keys {
            return Ok(Vec::new());
        }
        Ok(self
            .players
            .commands
            .list()
            .into_iter()
            .map(Into::into)
            .collect())
    }
}
