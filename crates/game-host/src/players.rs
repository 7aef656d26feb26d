//! The players of a served world: who is in it ([`Roster`]), what happened
//! to them ([`PlayerEvent`], as WIT `players` has it), and the messages
//! scripts send to their clients ([`PlayerMessage`]).
//!
//! A runtime learns of players only through events queued from outside
//! (`runtime.input().player_at`; this module sits below the runtime and
//! names nothing of it): the server admits them, the runtime delivers the events at a frame's
//! start, in order with other input, and the recorder writes them down, so
//! a replay sees the same players join, play and leave.

pub use crate::guest::players::{KEPT_PLAYER_EVENTS, Roster};
use crate::input::Event;
pub use crate::input::{Command, PlayerCommands, PlayerEvent, PlayerInput};

pub use crate::views::PlayerId;

/// A message a script sent to players' clients.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlayerMessage {
    /// The one player it is for; `None` for every player.
    pub to: Option<PlayerId>,
    pub channel: String,
    pub payload: String,
}

/// What players may send a world, and which of it reaches scripts' ordinary
/// event waits (`events.wait-event`, `events.listen`) beside `players`
/// listeners. As Roblox's RemoteEvents carry a client's message only on the
/// events the game created:
/// - a player's message is taken only on a channel the world opens
///   (`channels`); on any other it is refused (the server tells the
///   client) and reaches no script. One taken reaches `players` listeners
///   with its sender, and the ordinary waits on its channel;
/// - a player's key presses always reach `players` listeners, with their
///   sender; the ordinary key waits only with `keys`.
///
/// Each script gets players' input within its own `keys` and `listen`
/// grants. Nothing is open by default, so a player can never pass for a
/// script (a forged `admin` message).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OpenToPlayers {
    /// Players' key presses and releases reach ordinary key waits.
    #[serde(default)]
    pub keys: bool,
    /// Channels (names, `*` patterns) players may send messages on.
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

    /// Whether players may send messages on `channel`.
    pub fn takes(&self, channel: &str) -> bool {
        self.channels
            .iter()
            .any(|pattern| crate::grants::NameRule::only(&[pattern]).allows(channel))
    }

    /// Whether a player's `event` also reaches ordinary event waits.
    pub fn admits(&self, event: &Event) -> bool {
        match event {
            Event::KeyPressed(_) | Event::KeyReleased(_) => self.keys,
            Event::Message(message) => self.takes(&message.channel),
        }
    }

    /// Why a player's `event` is refused, if it is.
    pub fn refusal(&self, event: &Event) -> Option<String> {
        match event {
            Event::Message(message) if !self.takes(&message.channel) => Some(format!(
                "channel `{}` is not open to players: the message reached no script",
                message.channel
            )),
            _ => None,
        }
    }
}

/// The player an event is about.
pub fn player_of(event: &PlayerEvent) -> PlayerId {
    match event {
        PlayerEvent::Joined(id) | PlayerEvent::Left(id) => *id,
        PlayerEvent::Input(input) => input.player,
        PlayerEvent::Commands(commands) => commands.player,
    }
}
