//! `game:engine/players`: the players of a served world, their events, and
//! messages to their clients.

use crate::guest::bindings::events::ScriptMessage;
use crate::guest::bindings::players::{Host, PlayerEvent};
use crate::guest::{Command, ScriptState};

impl Host for ScriptState {
    fn listen(&mut self, token: u64) -> wasmtime::Result<()> {
        self.push_command(Command::ListenPlayers(token))
    }

    fn take_events(&mut self) -> wasmtime::Result<Vec<PlayerEvent>> {
        Ok(self.players.take())
    }

    fn list(&mut self) -> wasmtime::Result<Vec<u64>> {
        Ok(self.players.roster.list())
    }

    fn send_to(&mut self, player: u64, channel: String, payload: String) -> wasmtime::Result<bool> {
        if !self.players.roster.contains(player) {
            return Ok(false);
        }
        self.push_command(Command::ToPlayers {
            to: Some(player),
            message: ScriptMessage { channel, payload },
        })?;
        Ok(true)
    }

    fn broadcast(&mut self, channel: String, payload: String) -> wasmtime::Result<()> {
        // With no one to hear it (any world outside a server), a broadcast
        // is not kept.
        if self.players.roster.is_empty() {
            return Ok(());
        }
        self.push_command(Command::ToPlayers {
            to: None,
            message: ScriptMessage { channel, payload },
        })
    }
}
