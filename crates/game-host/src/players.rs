//! The players of a served world: who is in it ([`Roster`]), what happened
//! to them ([`PlayerEvent`], as WIT `players` has it), and the messages
//! scripts send to their clients ([`PlayerMessage`]).
//!
//! A runtime learns of players only through events queued from outside
//! (`Runtime::schedule_player`; this module sits below the runtime and
//! names nothing of it): the server admits them, the runtime delivers the events at a frame's
//! start, in order with other input, and the recorder writes them down, so
//! a replay sees the same players join, play and leave.

pub use crate::guest::bindings::players::{PlayerEvent, PlayerInput};
pub use crate::guest::players::{KEPT_PLAYER_EVENTS, Roster};

/// A player of one world; never reused within it.
pub type PlayerId = u64;

/// A message a script sent to players' clients.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlayerMessage {
    /// The one player it is for; `None` for every player.
    pub to: Option<PlayerId>,
    pub channel: String,
    pub payload: String,
}

/// The player an event is about.
pub fn player_of(event: &PlayerEvent) -> PlayerId {
    match event {
        PlayerEvent::Joined(id) | PlayerEvent::Left(id) => *id,
        PlayerEvent::Input(input) => input.player,
    }
}
