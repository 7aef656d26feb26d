//! `game:engine/events` and `game:engine/input`: event waits, listeners and
//! script-to-script messages.

use crate::guest::bindings::events::{EventFilter, Host};
use crate::guest::{Command, ScriptState};
use crate::input::ScriptMessage;

impl Host for ScriptState {
    fn wait_event(&mut self, token: u64, filter: EventFilter) -> wasmtime::Result<()> {
        self.push_command(Command::WaitEvent {
            token,
            filter: filter.into(),
            persistent: false,
        })
    }

    fn listen(&mut self, token: u64, filter: EventFilter) -> wasmtime::Result<()> {
        self.push_command(Command::WaitEvent {
            token,
            filter: filter.into(),
            persistent: true,
        })
    }

    fn send(&mut self, channel: String, payload: String) -> wasmtime::Result<()> {
        self.push_command(Command::Send(ScriptMessage { channel, payload }))
    }
}

impl crate::guest::bindings::input::Host for ScriptState {}
