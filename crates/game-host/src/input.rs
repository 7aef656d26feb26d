//! Input from outside the scripts: keys and events, the one table that
//! names every WIT `key` for input files and logs, and input files
//! (`--input`).
//!
//! These are the crate's own types, as the API speaks of them, players'
//! events among them; the WIT `input`, `events` and `players` interfaces'
//! generated types stay under `guest::bindings`, converted where a
//! script's call crosses (`guest`'s `convert`: each conversion an
//! exhaustive `match`, so a WIT change that adds a case fails to compile
//! rather than being dropped).

use crate::views::PlayerId;

/// Calls macro `$then` with every key's variant, in WIT order: the one
/// list [`Key`] is declared from, and its conversions from and to the WIT
/// `key` (in `guest`) are made from.
macro_rules! key_variants {
    ($then:ident) => {
        $then! {
            Enter, Escape, Space, Tab, Backspace,
            Up, Down, Left, Right,
            A, B, C, D, E, F, G, H, I, J, K, L, M,
            N, O, P, Q, R, S, T, U, V, W, X, Y, Z,
            Digit0, Digit1, Digit2, Digit3, Digit4,
            Digit5, Digit6, Digit7, Digit8, Digit9,
        }
    };
}
pub(crate) use key_variants;

/// Declares [`Key`] with these variants.
macro_rules! declare_key {
    ($($variant:ident),* $(,)?) => {
        /// A key scripts know (the WIT `key`), in WIT order.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Key {
            $($variant,)*
        }
    };
}
key_variants!(declare_key);

/// A message on a channel (the WIT `script-message`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScriptMessage {
    pub channel: String,
    pub payload: String,
}

/// Something that happened outside the scripts (the WIT `event`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    KeyPressed(Key),
    KeyReleased(Key),
    Message(ScriptMessage),
}

/// Which events a wait accepts (the WIT `event-filter`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EventFilter {
    KeyPressed(Key),
    KeyReleased(Key),
    AnyKeyPressed,
    /// Messages on this channel.
    Message(String),
}

/// What happened to the players, in the order it happened (the WIT
/// `player-event`; the `players` module has the rest of players' plumbing).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlayerEvent {
    /// Admitted to the world.
    Joined(PlayerId),
    /// Left, or was removed by the server.
    Left(PlayerId),
    /// Input from a player, with its sender.
    Input(PlayerInput),
    /// A player's numbered commands, for `controls` (they reach no event
    /// wait nor player listener).
    Commands(PlayerCommands),
}

/// One frame of a player's input, numbered by its client (the WIT
/// `controls.command`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Command {
    pub seq: u64,
    /// The keys held in that frame.
    pub held: Vec<Key>,
}

/// A player's commands applied in one frame, oldest first (the WIT
/// `controls.control`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlayerCommands {
    pub player: PlayerId,
    pub commands: Vec<Command>,
}

/// Input from one player (the WIT `player-input`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlayerInput {
    pub player: PlayerId,
    pub event: Event,
}

/// Every key: its name in input files and logs, and the key codes that
/// produce it, by the W3C UI Events `code` names that winit's and Bevy's
/// `KeyCode` both use (`KeyA`, `ArrowUp`, `Numpad5`): the one table the
/// window and the Bevy plugin map keys with.
const KEYS: &[(&str, Key, &[&str])] = &[
    ("enter", Key::Enter, &["Enter", "NumpadEnter"]),
    ("escape", Key::Escape, &["Escape"]),
    ("space", Key::Space, &["Space"]),
    ("tab", Key::Tab, &["Tab"]),
    ("backspace", Key::Backspace, &["Backspace"]),
    ("up", Key::Up, &["ArrowUp"]),
    ("down", Key::Down, &["ArrowDown"]),
    ("left", Key::Left, &["ArrowLeft"]),
    ("right", Key::Right, &["ArrowRight"]),
    ("a", Key::A, &["KeyA"]),
    ("b", Key::B, &["KeyB"]),
    ("c", Key::C, &["KeyC"]),
    ("d", Key::D, &["KeyD"]),
    ("e", Key::E, &["KeyE"]),
    ("f", Key::F, &["KeyF"]),
    ("g", Key::G, &["KeyG"]),
    ("h", Key::H, &["KeyH"]),
    ("i", Key::I, &["KeyI"]),
    ("j", Key::J, &["KeyJ"]),
    ("k", Key::K, &["KeyK"]),
    ("l", Key::L, &["KeyL"]),
    ("m", Key::M, &["KeyM"]),
    ("n", Key::N, &["KeyN"]),
    ("o", Key::O, &["KeyO"]),
    ("p", Key::P, &["KeyP"]),
    ("q", Key::Q, &["KeyQ"]),
    ("r", Key::R, &["KeyR"]),
    ("s", Key::S, &["KeyS"]),
    ("t", Key::T, &["KeyT"]),
    ("u", Key::U, &["KeyU"]),
    ("v", Key::V, &["KeyV"]),
    ("w", Key::W, &["KeyW"]),
    ("x", Key::X, &["KeyX"]),
    ("y", Key::Y, &["KeyY"]),
    ("z", Key::Z, &["KeyZ"]),
    ("0", Key::Digit0, &["Digit0", "Numpad0"]),
    ("1", Key::Digit1, &["Digit1", "Numpad1"]),
    ("2", Key::Digit2, &["Digit2", "Numpad2"]),
    ("3", Key::Digit3, &["Digit3", "Numpad3"]),
    ("4", Key::Digit4, &["Digit4", "Numpad4"]),
    ("5", Key::Digit5, &["Digit5", "Numpad5"]),
    ("6", Key::Digit6, &["Digit6", "Numpad6"]),
    ("7", Key::Digit7, &["Digit7", "Numpad7"]),
    ("8", Key::Digit8, &["Digit8", "Numpad8"]),
    ("9", Key::Digit9, &["Digit9", "Numpad9"]),
];

/// Every key with its name, in WIT order.
pub fn keys() -> impl Iterator<Item = (&'static str, Key)> {
    KEYS.iter().map(|&(name, key, _)| (name, key))
}

/// The key with this name (`enter`, `space`, `a`, `7`, ...), any case.
pub fn key_by_name(name: &str) -> Option<Key> {
    let name = name.to_ascii_lowercase();
    keys().find(|(n, _)| *n == name).map(|(_, k)| k)
}

/// The name of a key.
pub fn key_name(key: Key) -> &'static str {
    keys().find(|(_, k)| *k == key).map_or("?", |(n, _)| n)
}

/// The key a key code produces, by its W3C `code` name (`KeyA`,
/// `Numpad5`: the `Debug` form of winit's and Bevy's `KeyCode`), if
/// scripts know it.
pub fn key_for_code_name(code: &str) -> Option<Key> {
    KEYS.iter()
        .find(|(_, _, codes)| codes.contains(&code))
        .map(|&(_, key, _)| key)
}

/// Parses an input script: one event per line,
/// `FRAME press KEY`, `FRAME release KEY` or `FRAME send CHANNEL PAYLOAD...`;
/// blank lines and `#` comments are skipped.
pub fn parse_input_script(text: &str) -> Result<Vec<(u64, Event)>, String> {
    let mut events = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let fail = |why: &str| format!("line {}: {why}: `{line}`", number + 1);
        let mut words = line.split_whitespace();
        let frame = words
            .next()
            .and_then(|w| w.parse::<u64>().ok())
            .ok_or_else(|| fail("expected a frame number first"))?;
        let verb = words
            .next()
            .ok_or_else(|| fail("expected press, release or send"))?;
        let event = match verb {
            "press" | "release" => {
                let name = words.next().ok_or_else(|| fail("expected a key name"))?;
                let key = key_by_name(name).ok_or_else(|| fail("unknown key"))?;
                if verb == "press" {
                    Event::KeyPressed(key)
                } else {
                    Event::KeyReleased(key)
                }
            }
            "send" => {
                let channel = words.next().ok_or_else(|| fail("expected a channel"))?;
                Event::Message(ScriptMessage {
                    channel: channel.to_owned(),
                    payload: words.collect::<Vec<_>>().join(" "),
                })
            }
            _ => return Err(fail("expected press, release or send")),
        };
        events.push((frame, event));
    }
    Ok(events)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_keys_and_messages() {
        let events = parse_input_script(
            "# a comment\n40 press enter\n41 release Enter # trailing\n\n50 send chat hello there\n",
        )
        .unwrap();
        assert_eq!(events.len(), 3);
        assert!(matches!(events[0], (40, Event::KeyPressed(Key::Enter))));
        assert!(matches!(events[1], (41, Event::KeyReleased(Key::Enter))));
        match &events[2] {
            (50, Event::Message(m)) => {
                assert_eq!(m.channel, "chat");
                assert_eq!(m.payload, "hello there");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn reports_the_bad_line() {
        let error = parse_input_script("1 press enter\n2 press nokey\n").unwrap_err();
        assert!(error.starts_with("line 2: unknown key"), "{error}");
        assert!(parse_input_script("x press a").is_err());
        assert!(parse_input_script("3 jump").is_err());
    }

    #[test]
    fn every_key_has_a_unique_name_and_its_codes_map_back() {
        for (name, key, codes) in KEYS {
            assert_eq!(key_by_name(name), Some(*key));
            assert_eq!(key_name(*key), *name);
            assert!(!codes.is_empty(), "{name} has no key code");
            for code in *codes {
                assert_eq!(key_for_code_name(code), Some(*key));
            }
        }
        assert_eq!(key_for_code_name("Numpad4"), Some(Key::Digit4));
        assert_eq!(key_for_code_name("F1"), None);
    }
}
