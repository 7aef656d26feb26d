//! Input events and script-to-script messages: the event queue, filters,
//! and key names.

use std::collections::BTreeMap;

use crate::bindings::events::{Event, EventFilter, ScriptMessage};
use crate::bindings::input::Key;

/// Every key, with the name used in input files and logs.
pub const KEYS: &[(&str, Key)] = &[
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

/// The key with this name (`enter`, `space`, `a`, `7`, ...), any case.
pub fn key_by_name(name: &str) -> Option<Key> {
    let name = name.to_ascii_lowercase();
    KEYS.iter().find(|(n, _)| *n == name).map(|(_, k)| *k)
}

/// The name of a key.
pub fn key_name(key: Key) -> &'static str {
    KEYS.iter()
        .find(|(_, k)| *k == key)
        .map(|(n, _)| *n)
        .unwrap_or("?")
}

/// Whether `event` passes `filter`.
pub(crate) fn matches(filter: &EventFilter, event: &Event) -> bool {
    match (filter, event) {
        (EventFilter::KeyPressed(want), Event::KeyPressed(key)) => want == key,
        (EventFilter::KeyReleased(want), Event::KeyReleased(key)) => want == key,
        (EventFilter::AnyKeyPressed, Event::KeyPressed(_)) => true,
        (EventFilter::Message(channel), Event::Message(m)) => *channel == m.channel,
        _ => false,
    }
}

/// A short description of a filter, for wait listings.
pub(crate) fn describe_filter(filter: &EventFilter) -> String {
    match filter {
        EventFilter::KeyPressed(k) => format!("key-pressed({})", key_name(*k)),
        EventFilter::KeyReleased(k) => format!("key-released({})", key_name(*k)),
        EventFilter::AnyKeyPressed => "any-key-pressed".to_owned(),
        EventFilter::Message(channel) => format!("message({channel})"),
    }
}

/// Events waiting for the frame they are due in.
#[derive(Debug, Default)]
pub(crate) struct EventQueue {
    by_frame: BTreeMap<u64, Vec<Event>>,
}

impl EventQueue {
    /// Queues `event` for delivery at the start of `frame`.
    pub fn schedule(&mut self, frame: u64, event: Event) {
        self.by_frame.entry(frame).or_default().push(event);
    }

    /// Removes and returns the events due at or before `frame`, oldest first.
    pub fn take_due(&mut self, frame: u64) -> Vec<Event> {
        if self
            .by_frame
            .first_key_value()
            .is_none_or(|(f, _)| *f > frame)
        {
            return Vec::new();
        }
        let later = self.by_frame.split_off(&(frame + 1));
        let due = std::mem::replace(&mut self.by_frame, later);
        due.into_values().flatten().collect()
    }
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
    fn queue_releases_due_events_in_order() {
        let mut queue = EventQueue::default();
        queue.schedule(5, Event::KeyPressed(Key::A));
        queue.schedule(3, Event::KeyPressed(Key::B));
        queue.schedule(3, Event::KeyPressed(Key::C));
        assert!(queue.take_due(2).is_empty());
        let due = queue.take_due(4);
        assert!(matches!(
            due[..],
            [Event::KeyPressed(Key::B), Event::KeyPressed(Key::C)]
        ));
        assert_eq!(queue.take_due(9).len(), 1);
    }

    #[test]
    fn every_key_has_a_unique_name() {
        for (name, key) in KEYS {
            assert_eq!(key_by_name(name), Some(*key));
            assert_eq!(key_name(*key), *name);
        }
    }
}
