//! Input from outside the scripts: keys and events, the one table that
//! names every WIT `key` for input files and logs and maps window key codes
//! to it, and input files (`--input`).

use winit::keyboard::KeyCode;

pub use crate::bindings::events::{Event, EventFilter, ScriptMessage};
pub use crate::bindings::input::Key;

use KeyCode as K;

/// Every key: its name in input files and logs, and the window key codes
/// that produce it.
const KEYS: &[(&str, Key, &[KeyCode])] = &[
    ("enter", Key::Enter, &[K::Enter, K::NumpadEnter]),
    ("escape", Key::Escape, &[K::Escape]),
    ("space", Key::Space, &[K::Space]),
    ("tab", Key::Tab, &[K::Tab]),
    ("backspace", Key::Backspace, &[K::Backspace]),
    ("up", Key::Up, &[K::ArrowUp]),
    ("down", Key::Down, &[K::ArrowDown]),
    ("left", Key::Left, &[K::ArrowLeft]),
    ("right", Key::Right, &[K::ArrowRight]),
    ("a", Key::A, &[K::KeyA]),
    ("b", Key::B, &[K::KeyB]),
    ("c", Key::C, &[K::KeyC]),
    ("d", Key::D, &[K::KeyD]),
    ("e", Key::E, &[K::KeyE]),
    ("f", Key::F, &[K::KeyF]),
    ("g", Key::G, &[K::KeyG]),
    ("h", Key::H, &[K::KeyH]),
    ("i", Key::I, &[K::KeyI]),
    ("j", Key::J, &[K::KeyJ]),
    ("k", Key::K, &[K::KeyK]),
    ("l", Key::L, &[K::KeyL]),
    ("m", Key::M, &[K::KeyM]),
    ("n", Key::N, &[K::KeyN]),
    ("o", Key::O, &[K::KeyO]),
    ("p", Key::P, &[K::KeyP]),
    ("q", Key::Q, &[K::KeyQ]),
    ("r", Key::R, &[K::KeyR]),
    ("s", Key::S, &[K::KeyS]),
    ("t", Key::T, &[K::KeyT]),
    ("u", Key::U, &[K::KeyU]),
    ("v", Key::V, &[K::KeyV]),
    ("w", Key::W, &[K::KeyW]),
    ("x", Key::X, &[K::KeyX]),
    ("y", Key::Y, &[K::KeyY]),
    ("z", Key::Z, &[K::KeyZ]),
    ("0", Key::Digit0, &[K::Digit0, K::Numpad0]),
    ("1", Key::Digit1, &[K::Digit1, K::Numpad1]),
    ("2", Key::Digit2, &[K::Digit2, K::Numpad2]),
    ("3", Key::Digit3, &[K::Digit3, K::Numpad3]),
    ("4", Key::Digit4, &[K::Digit4, K::Numpad4]),
    ("5", Key::Digit5, &[K::Digit5, K::Numpad5]),
    ("6", Key::Digit6, &[K::Digit6, K::Numpad6]),
    ("7", Key::Digit7, &[K::Digit7, K::Numpad7]),
    ("8", Key::Digit8, &[K::Digit8, K::Numpad8]),
    ("9", Key::Digit9, &[K::Digit9, K::Numpad9]),
];

/// Every key with its name, in WIT order.
pub fn keys() -> impl Iterator<Item = (&'static str, Key)> {
    KEYS.iter().map(|(name, key, _)| (*name, *key))
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

/// The script key for a window key code, if scripts know it.
pub fn key_for_code(code: KeyCode) -> Option<Key> {
    KEYS.iter()
        .find(|(_, _, codes)| codes.contains(&code))
        .map(|(_, key, _)| *key)
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
    fn every_key_has_a_unique_name_and_window_codes() {
        for (name, key, codes) in KEYS {
            assert_eq!(key_by_name(name), Some(*key));
            assert_eq!(key_name(*key), *name);
            assert!(!codes.is_empty(), "{name} has no window key code");
            for code in *codes {
                assert_eq!(key_for_code(*code), Some(*key));
            }
        }
        assert_eq!(key_for_code(KeyCode::NumpadEnter), Some(Key::Enter));
        assert_eq!(key_for_code(KeyCode::F1), None);
    }
}
