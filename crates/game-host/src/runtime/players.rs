//! The players of the runtime's world: their events queued from outside,
//! delivered at a frame's start (to the roster, to event waits, and to
//! player listeners), and the messages scripts send to their clients.

use super::Runtime;
use crate::input::ScriptMessage;
use crate::players::{PlayerEvent, PlayerId, PlayerMessage};
use crate::sync::LockExt;

impl Runtime {
    /// Takes the messages scripts sent to players since the last call, in
    /// the order they were sent.
    pub fn take_player_messages(&mut self) -> Vec<PlayerMessage> {
        self.outbox.take()
    }

    /// Forgets the audiences of despawned entities (after every frame's
    /// commands, so the views are the same whoever watches the world).
    pub(super) fn forget_despawned_views(&mut self) {
        if self.views.has_audiences() {
            let mut scene = self.shared.scene.lock_unpoisoned();
            self.views
                .retain_entities(|id| crate::scene::GameScene::contains(&mut *scene, id.into()));
        }
    }

    /// Step 5 of the frame for one player event: the roster follows it, its
    /// input reaches event waits where the world opens them to players
    /// ([`OpenToPlayers`](crate::players::OpenToPlayers)), and it is kept for the player listeners.
    /// Commands go to `controls` for this frame alone.
    /// A message on a channel the world does not open is dropped (the
    /// server refuses it before it gets here).
    pub(super) fn deliver_player_event(&mut self, event: PlayerEvent) {
        if let PlayerEvent::Commands(commands) = event {
            // Only for a player in the world (a recording cannot make
            // one up).
            if self.shared.players.contains(commands.player) {
                self.shared.commands.push(commands);
            }
            return;
        }
        if let PlayerEvent::Input(input) = &event {
            if self.open_to_players.refusal(&input.event).is_some() {
                return;
            }
            if self.open_to_players.admits(&input.event) {
                self.waits.deliver_event(&input.event, &mut self.completed);
            }
        }
        if let PlayerEvent::Left(player) = &event {
            self.views.player_left(*player);
        }
        self.shared.players.apply(&event);
        self.player_events.push(event);
    }

    /// Hands the frame's player events to every listening instance and
    /// wakes its listener.
    pub(super) fn wake_player_listeners(&mut self) {
        let events = std::mem::take(&mut self.player_events);
        for slot in self.waits.player_listeners() {
            if let Some(instance) = self.slots.get_mut(slot) {
                instance.push_player_events(&events);
            }
        }
        self.waits.wake_player_listeners(&mut self.completed);
        self.player_events = events;
        self.player_events.clear();
    }

    /// Applies a script's `send-to` or `broadcast`.
    pub(super) fn send_to_players(&mut self, to: Option<PlayerId>, message: ScriptMessage) {
        self.outbox.push(PlayerMessage {
            to,
            channel: message.channel,
            payload: message.payload,
        });
    }
}
