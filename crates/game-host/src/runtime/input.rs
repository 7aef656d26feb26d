//! [`Input`]: what comes into a runtime's world from outside its scripts
//! (`runtime.input()`): events (a key press, a message) and what players
//! did (joined, left, sent input), each queued for the start of a frame,
//! in order with other input, and recorded like all input.

use super::Runtime;
use super::events::Incoming;
use crate::input::Event;
use crate::players::PlayerEvent;

impl Runtime {
    /// The way into the world from outside its scripts.
    pub fn input(&mut self) -> Input<'_> {
        Input { runtime: self }
    }
}

/// A [`Runtime`]'s way in for input (see [`Runtime::input`]).
pub struct Input<'a> {
    runtime: &'a mut Runtime,
}

impl Input<'_> {
    /// Queues an event for the start of the next frame.
    pub fn event(self, event: Event) {
        self.event_at(0, event);
    }

    /// Queues an event for the start of `frame` (the next frame if that
    /// has passed). A frame's input is delivered before its script
    /// messages.
    pub fn event_at(self, frame: u64, event: Event) {
        self.runtime.schedule_input(frame, Incoming::Event(event));
    }

    /// Queues a player's event for the start of the next frame.
    pub fn player(self, event: PlayerEvent) {
        self.player_at(0, event);
    }

    /// Queues something a player did for the start of `frame` (the next
    /// frame if that has passed).
    pub fn player_at(self, frame: u64, event: PlayerEvent) {
        self.runtime.schedule_input(frame, Incoming::Player(event));
    }
}
