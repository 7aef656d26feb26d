//! `game:engine/events` and `game:engine/input`: event waits, listeners and
//! script-to-script messages.

use crate::bindings::events::{EventFilter, Host, ScriptMessage};
use crate::state::{Command, ScriptState};

impl Host for ScriptState {
    fn wait_event(&mut self, token: u64, filter: EventFilter) -> wasmtime::Result<()> {
        self.commands.push(Command::WaitEvent {
            token,
            filter,
            persistent: false,
        });
        Ok(())
    }

    fn listen(&mut self, token: u64, filter: EventFilter) -> wasmtime::Result<()> {
        self.commands.push(Command::WaitEvent {
            token,
            filter,
            persistent: true,
        });
        Ok(())
    }

    fn send(&mut self, channel: String, payload: String) -> wasmtime::Result<()> {
        self.commands
            .push(Command::Send(ScriptMessage { channel, payload }));
        Ok(())
    }
}

impl crate::bindings::input::Host for ScriptState {}
