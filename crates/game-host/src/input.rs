//! Input from outside the scripts: keys and events, the one table that
//! names every WIT `key` for input files and logs, and input files
//! (`--input`).

pub use crate::guest::bindings::events::{Event, EventFilter, ScriptMessage};
pub use crate::guest::bindings::input::Key;

/// Every key and its name in input files and logs (the window's key codes
/// for each are in `game-host-render`).
const KEYS: &[(&str, Key)] = &[
    ("enter", Key::Enter),
    ("escape", Key::Escape),
    ("space", Key::Space),
    ("tab", Key::Tab),
    ("backspace", Key::Backspace),
    ("up", Key::Up),
    ("down", Key::Down),
    ("left", Key::Left),
    ("right", Key::Right),
    ("a", Key::A),
    ("b", Key::B),
    ("c", Key::C),
    ("d", Key::D),
    ("e", Key::E),
    ("f", Key::F),
    ("g", Key::G),
    ("h", Key::H),
    ("i", Key::I),
    ("j", Key::J),
    ("k", Key::K),
    ("l", Key::L),
    ("m", Key::M),
    ("n", Key::N),
    ("o", Key::O),
    ("p", Key::P),
    ("q", Key::Q),
    ("r", Key::R),
    ("s", Key::S),
    ("t", Key::T),
    ("u", Key::U),
    ("v", Key::V),
    ("w", Key::W),
    ("x", Key::X),
    ("y", Key::Y),
    ("z", Key::Z),
    ("0", Key::Digit0),
    ("1", Key::Digit1),
    ("2", Key::Digit2),
    ("3", Key::Digit3),
    ("4", Key::Digit4),
    ("5", Key::Digit5),
    ("6", Key::Digit6),
    ("7", Key::Digit7),
    ("8", Key::Digit8),
    ("9", Key::Digit9),
];

/// Every key with its name, in WIT order.
pub fn keys() -> impl Iterator<Item = (&'static str, Key)> {
    KEYS.iter().copied()
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
    fn every_key_has_a_unique_name() {
        for (name, key) in KEYS {
            assert_eq!(key_by_name(name), Some(*key));
            assert_eq!(key_name(*key), *name);
        }
    }
}
