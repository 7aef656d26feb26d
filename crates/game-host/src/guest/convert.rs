//! The crate's own input and player types (`crate::input`) from and to
//! the ones `bindgen!` made of the WIT (`bindings`), where a script's call
//! crosses: an event wait's filter, a wake's event, players' events. Each
//! conversion is an exhaustive `match` (the keys' made from the one list
//! they are declared from), so a case the WIT adds without its Rust
//! counterpart fails to compile.

use super::bindings::{
    controls as wit_controls, events as wit_events, input as wit_input, players as wit_players,
};
use crate::input::{
    Event, EventFilter, Key, PlayerCommands, PlayerEvent, PlayerInput, ScriptMessage,
};

/// The conversions of [`Key`] from and to the WIT `key`, variant by
/// variant.
macro_rules! convert_keys {
    ($($variant:ident),* $(,)?) => {
        impl From<wit_input::Key> for Key {
            fn from(key: wit_input::Key) -> Key {
                match key {
                    $(wit_input::Key::$variant => Key::$variant,)*
                }
            }
        }

        impl From<Key> for wit_input::Key {
            fn from(key: Key) -> wit_input::Key {
                match key {
                    $(Key::$variant => wit_input::Key::$variant,)*
                }
            }
        }
    };
}
crate::input::key_variants!(convert_keys);

impl From<wit_events::ScriptMessage> for ScriptMessage {
    fn from(message: wit_events::ScriptMessage) -> ScriptMessage {
        let wit_events::ScriptMessage { channel, payload } = message;
        ScriptMessage { channel, payload }
    }
}

impl From<ScriptMessage> for wit_events::ScriptMessage {
    fn from(message: ScriptMessage) -> wit_events::ScriptMessage {
        let ScriptMessage { channel, payload } = message;
        wit_events::ScriptMessage { channel, payload }
    }
}

impl From<wit_events::Event> for Event {
    fn from(event: wit_events::Event) -> Event {
        match event {
            wit_events::Event::KeyPressed(key) => Event::KeyPressed(key.into()),
            wit_events::Event::KeyReleased(key) => Event::KeyReleased(key.into()),
            wit_events::Event::Message(message) => Event::Message(message.into()),
        }
    }
}

impl From<Event> for wit_events::Event {
    fn from(event: Event) -> wit_events::Event {
        match event {
            Event::KeyPressed(key) => wit_events::Event::KeyPressed(key.into()),
            Event::KeyReleased(key) => wit_events::Event::KeyReleased(key.into()),
            Event::Message(message) => wit_events::Event::Message(message.into()),
        }
    }
}

impl From<wit_events::EventFilter> for EventFilter {
    fn from(filter: wit_events::EventFilter) -> EventFilter {
        match filter {
            wit_events::EventFilter::KeyPressed(key) => EventFilter::KeyPressed(key.into()),
            wit_events::EventFilter::KeyReleased(key) => EventFilter::KeyReleased(key.into()),
            wit_events::EventFilter::AnyKeyPressed => EventFilter::AnyKeyPressed,
            wit_events::EventFilter::Message(channel) => EventFilter::Message(channel),
        }
    }
}

/// A player event as `players.take-events` gives it; commands go to
/// `controls` instead, so they have none.
pub(crate) fn wit_player_event(event: PlayerEvent) -> Option<wit_players::PlayerEvent> {
    Some(match event {
        PlayerEvent::Joined(player) => wit_players::PlayerEvent::Joined(player),
        PlayerEvent::Left(player) => wit_players::PlayerEvent::Left(player),
        PlayerEvent::Input(PlayerInput { player, event }) => {
            wit_players::PlayerEvent::Input(wit_players::PlayerInput {
                player,
                event: event.into(),
            })
        }
        PlayerEvent::Commands(_) => return None,
    })
}

impl From<PlayerCommands> for wit_controls::Control {
    fn from(control: PlayerCommands) -> wit_controls::Control {
        wit_controls::Control {
            player: control.player,
            commands: control
                .commands
                .into_iter()
                .map(|command| wit_controls::Command {
                    seq: command.seq,
                    held: command.held.into_iter().map(Into::into).collect(),
                })
                .collect(),
        }
    }
}
