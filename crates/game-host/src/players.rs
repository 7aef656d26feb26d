//! The players of a served world: who is in it ([`Roster`]), what happened
//! to them ([`PlayerEvent`], as WIT `players` has it), and the messages
//! scripts send to their clients ([`PlayerMessage`]).
//!
//! A runtime learns of players only through events queued from outside
//! (`Runtime::schedule_player`; this module sits below the runtime and
//! names nothing of it): the server admits them, the runtime delivers the events at a frame's
//! start, in order with other input, and the recorder writes them down, so
//! a replay sees the same players join, play and leave.

use crate::guest::bindings::events::Event;
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

/// Which of players' input reaches scripts' ordinary event waits
/// (`events.wait-event`, `events.listen`), beside `players` listeners. A
/// player's input always reaches `players` listeners as a player event with
/// its sender (each script within its `keys` and `listen` grants); it
/// reaches the waits of the game's own events only where the world opens
/// them, so a player cannot pass for a script (a forged `admin` message).
/// Nothing is open by default.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OpenToPlayers {
    /// Players' key presses and releases reach key waits.
    #[serde(default)]
    pub keys: bool,
    /// Channels (names, `*` patterns) on which players' messages reach
    /// message waits.
    #[serde(default)]
    pub channels: Vec<String>,
}

impl OpenToPlayers {
    /// Everything open: what worlds did before the setting existed (and
    /// what a recording made then replays with).
    pub fn all() -> Self {
        OpenToPlayers {
            keys: true,
            channels: vec!["*".into()],
        }
    }

    /// Whether a player's `event` reaches ordinary event waits.
    pub fn admits(&self, event: &Event) -> bool {
        match event {
            Event::KeyPressed(_) | Event::KeyReleased(_) => self.keys,
            Event::Message(message) => self
                .channels
                .iter()
                .any(|pattern| crate::grants::NameRule::only(&[pattern]).allows(&message.channel)),
        }
    }
}

/// The player an event is about.
pub fn player_of(event: &PlayerEvent) -> PlayerId {
    match event {
        PlayerEvent::Joined(id) | PlayerEvent::Left(id) => *id,
        PlayerEvent::Input(input) => input.player,
    }
}
