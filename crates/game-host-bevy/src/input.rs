//! Input and messages for scripts: Bevy's keyboard reaches them as the
//! `events` interface's key events, and the game sends channel messages
//! through [`ScriptInbox`]; both arrive at the scripts' next step, as
//! `host run` delivers its window's keys.

use bevy::input::ButtonInput;
use bevy::input::keyboard::KeyCode;
use bevy::prelude::{Res, ResMut, Resource};
use game_host::input::{Event, Key, ScriptMessage};

/// Events waiting for the next fixed step.
#[derive(Resource, Default, Debug)]
pub struct ScriptInbox {
    events: Vec<Event>,
}

impl ScriptInbox {
    /// Sends `payload` on `channel` to every script waiting on it.
    pub fn send(&mut self, channel: impl Into<String>, payload: impl Into<String>) {
        self.events.push(Event::Message(ScriptMessage {
            channel: channel.into(),
            payload: payload.into(),
        }));
    }

    /// Queues any event (a key, say) for scripts.
    pub fn push(&mut self, event: Event) {
        self.events.push(event);
    }

    pub(crate) fn take(&mut self) -> Vec<Event> {
        std::mem::take(&mut self.events)
    }
}

/// Forwards the keys pressed and released this frame (those scripts know).
pub(crate) fn forward_keys(keys: Res<ButtonInput<KeyCode>>, mut inbox: ResMut<ScriptInbox>) {
    for &code in keys.get_just_pressed() {
        if let Some(key) = key_of(code) {
            inbox.push(Event::KeyPressed(key));
        }
    }
    for &code in keys.get_just_released() {
        if let Some(key) = key_of(code) {
            inbox.push(Event::KeyReleased(key));
        }
    }
}

/// The script key of a Bevy key code, for the keys scripts know: by the
/// code's W3C name (`KeyA`, `Numpad5`), in the core's one key table, as the
/// host's window maps winit's.
pub fn key_of(code: KeyCode) -> Option<Key> {
    game_host::input::key_for_code_name(&format!("{code:?}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bevy_codes_map_to_script_keys_numpad_included() {
        assert_eq!(key_of(KeyCode::KeyZ), Some(Key::Z));
        assert_eq!(key_of(KeyCode::ArrowLeft), Some(Key::Left));
        assert_eq!(key_of(KeyCode::Numpad3), Some(Key::Digit3));
        assert_eq!(key_of(KeyCode::NumpadEnter), Some(Key::Enter));
        assert_eq!(key_of(KeyCode::Escape), Some(Key::Escape));
        assert_eq!(key_of(KeyCode::F1), None);
    }
}
