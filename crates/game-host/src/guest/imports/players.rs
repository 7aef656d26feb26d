//! `game:engine/players`: the players of a served world, their events, and
//! messages to their clients.

use crate::guest::bindings::players::{Host, PlayerEvent};
use crate::guest::convert::wit_player_event;
use crate::guest::{Command, ScriptState};
use crate::input::ScriptMessage;

/// Largest message to players (channel and payload), in bytes: it is sent
/// to every client it is for, and may wait in mailboxes and backlogs.
const MAX_MESSAGE: usize = 64 << 10;

/// Refuses a message to players over [`MAX_MESSAGE`], as a quota would.
fn check_size(channel: &str, payload: &str) -> wasmtime::Result<()> {
    let size = channel.len() + payload.len();
    if size > MAX_MESSAGE {
        return Err(wasmtime::format_err!(
            "quota exceeded: a message to players of {size} bytes (at most {MAX_MESSAGE})"
        ));
    }
    Ok(())
}

impl Host for ScriptState {
    fn listen(&mut self, token: u64) -> wasmtime::Result<()> {
        self.push_command(Command::ListenPlayers(token))
    }

    fn take_events(&mut self) -> wasmtime::Result<Vec<PlayerEvent>> {
        Ok(self
            .players
            .take()
            .into_iter()
            .filter_map(wit_player_event)
            .collect())
    }

    fn list(&mut self) -> wasmtime::Result<Vec<u64>> {
        Ok(self.players.roster.list())
    }

    fn send_to(&mut self, player: u64, channel: String, payload: String) -> wasmtime::Result<bool> {
        check_size(&channel, &payload)?;
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
        check_size(&channel, &payload)?;
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
