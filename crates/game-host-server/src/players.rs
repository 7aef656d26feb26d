//! The server's way in for players: admitting and removing them, their
//! input from a transport of the game's own, and each world's hub, which
//! the control surface's streams reach.

use std::sync::Arc;

use anyhow::{Context, Result, bail};

use crate::Server;
use crate::metrics::StreamMetrics;
use crate::stream::WorldHub;
use crate::world::WorldId;
use game_host::input::Event;
use game_host::players::{PlayerEvent, PlayerId, PlayerInput};
use game_host::sync::LockExt;

impl Server {
    /// Admits a player to a running world; its join reaches the world's
    /// next frame. Returns the player's id and the token its client streams
    /// with (`/worlds/{id}/stream?token=T`).
    pub fn admit_player(&self, id: WorldId) -> Result<(PlayerId, String)> {
        self.hub(id)?.admit()
    }

    /// Admits a player who joined `game` through the public join (`POST
    /// /play`) to a running world the join started for it (refused
    /// otherwise): a player who joined that way and has had no
    /// client for a minute gives its seat up to it if need be.
    pub fn admit_public_player(&self, id: WorldId, game: &str) -> Result<(PlayerId, String)> {
        self.hub(id)?.admit_public(game)
    }

    /// The running worlds the public join started for `game`
    /// (`WorldSpec::play`, here or on the node they came from), in order.
    pub fn public_worlds(&self, game: &str) -> Vec<WorldId> {
        let mut ids: Vec<WorldId> = (self.shared.hubs.lock_unpoisoned().iter())
            .filter(|(_, hub)| hub.play.as_deref() == Some(game))
            .map(|(id, _)| *id)
            .collect();
        ids.sort_unstable();
        ids
    }

    /// The players of a running world, in order, each with whether a
    /// client of its is connected.
    pub fn players(&self, id: WorldId) -> Result<Vec<(PlayerId, bool)>> {
        Ok(self.hub(id)?.seats.lock_unpoisoned().admitted())
    }

    /// Removes a player from a running world (its leave reaches the next
    /// frame, and its client closes).
    pub fn remove_player(&self, id: WorldId, player: PlayerId) -> Result<()> {
        if !self.hub(id)?.remove(player, "removed from the world") {
            bail!("{id} has no player {player}");
        }
        Ok(())
    }

    /// Queues a player's input for a world's next frame, as its stream
    /// would (for a game server with a transport of its own); refused like
    /// the stream's on a channel the world does not open to players.
    pub fn player_input(&self, id: WorldId, player: PlayerId, event: Event) -> Result<()> {
        self.hub(id)?
            .input(PlayerEvent::Input(PlayerInput { player, event }))
    }

    /// The players' streams' metrics.
    pub(crate) fn stream_metrics(&self) -> StreamMetrics {
        self.metrics.streams()
    }

    /// The SHA-256 digests (hex) of a running world's scripts.
    pub(crate) fn world_scripts(&self, id: WorldId) -> Result<Vec<String>> {
        Ok(self.hub(id)?.scripts.clone())
    }

    /// A running world's hub.
    pub(crate) fn hub(&self, id: WorldId) -> Result<Arc<WorldHub>> {
        self.shared
            .hubs
            .lock_unpoisoned()
            .get(&id)
            .cloned()
            .with_context(|| format!("{id} is not running"))
    }
}
