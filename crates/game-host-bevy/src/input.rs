//! Input and messages for scripts: Bevy's keyboard reaches them as the
//! `events` interface's key events, and the game sends channel messages
//! through [`ScriptInbox`]; both arrive at the next fixed step, as
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

/// The script key of a Bevy key code, for the keys scripts know.
pub fn key_of(code: KeyCode) -> Option<Key> {
    use KeyCode as C;
    Some(match code {
        C::Enter => Key::Enter,
        C::Escape => Key::Escape,
        C::Space => Key::Space,
        C::Tab => Key::Tab,
        C::Backspace => Key::Backspace,
        C::ArrowUp => Key::Up,
        C::ArrowDown => Key::Down,
        C::ArrowLeft => Key::Left,
        C::ArrowRight => Key::Right,
        C::KeyA => Key::A,
        C::KeyB => Key::B,
        C::KeyC => Key::C,
        C::KeyD => Key::D,
        C::KeyE => Key::E,
        C::KeyF => Key::F,
        C::KeyG => Key::G,
        C::KeyH => Key::H,
        C::KeyI => Key::I,
        C::KeyJ => Key::J,
        C::KeyK => Key::K,
        C::KeyL => Key::L,
        C::KeyM => Key::M,
        C::KeyN => Key::N,
        C::KeyO => Key::O,
        C::KeyP => Key::P,
        C::KeyQ => Key::Q,
        C::KeyR => Key::R,
        C::KeyS => Key::S,
        C::KeyT => Key::T,
        C::KeyU => Key::U,
        C::KeyV => Key::V,
        C::KeyW => Key::W,
        C::KeyX => Key::X,
        C::KeyY => Key::Y,
        C::KeyZ => Key::Z,
        C::Digit0 => Key::Digit0,
        C::Digit1 => Key::Digit1,
        C::Digit2 => Key::Digit2,
        C::Digit3 => Key::Digit3,
        C::Digit4 => Key::Digit4,
        C::Digit5 => Key::Digit5,
        C::Digit6 => Key::Digit6,
        C::Digit7 => Key::Digit7,
        C::Digit8 => Key::Digit8,
        C::Digit9 => Key::Digit9,
        _ => return None,
    })
}
