//! Input events and script-to-script messages: the event queue and
//! filters.

use std::collections::BTreeMap;

use crate::input::key_name;
use crate::input::{Event, EventFilter};
use crate::players::PlayerEvent;

/// What arrives from outside the scripts: an event, or something a player
/// did (which may carry an event of its own).
#[derive(Debug, Clone)]
pub(crate) enum Incoming {
    Event(Event),
    Player(PlayerEvent),
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

/// Events waiting for the frame they are due in. Within a frame, input from
/// outside (keys, a server's POSTed events) comes before script messages, in
/// the order each was queued: a replay that queues its recorded input at
/// another moment than the recorded run did still delivers the same order.
#[derive(Debug, Default)]
pub(crate) struct EventQueue {
    by_frame: BTreeMap<u64, FrameEvents>,
}

/// The events due in one frame.
#[derive(Debug, Default)]
struct FrameEvents {
    input: Vec<Incoming>,
    messages: Vec<Event>,
}

impl EventQueue {
    /// Queues input from outside for delivery at the start of `frame`.
    pub fn schedule_input(&mut self, frame: u64, event: Incoming) {
        self.by_frame.entry(frame).or_default().input.push(event);
    }

    /// Queues a script's message for delivery at the start of `frame`.
    pub fn schedule_message(&mut self, frame: u64, event: Event) {
        self.by_frame.entry(frame).or_default().messages.push(event);
    }

    /// Whether any event is due by `frame` (most frames have none: the
    /// frame checks this in line and skips [`Self::take_due`]).
    #[inline]
    pub fn has_due(&self, frame: u64) -> bool {
        self.by_frame
            .first_key_value()
            .is_some_and(|(f, _)| *f <= frame)
    }

    /// Removes and returns the events due at or before `frame`, oldest
    /// frame first, each frame's input before its messages.
    pub fn take_due(&mut self, frame: u64) -> Vec<Incoming> {
        let later = self.by_frame.split_off(&(frame + 1));
        let due = std::mem::replace(&mut self.by_frame, later);
        due.into_values()
            .flat_map(|events| {
                let messages = events.messages.into_iter().map(Incoming::Event);
                events.input.into_iter().chain(messages)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::Key;

    #[test]
    fn queue_releases_due_events_in_order() {
        let mut queue = EventQueue::default();
        let key = |key| Incoming::Event(Event::KeyPressed(key));
        queue.schedule_input(5, key(Key::A));
        queue.schedule_input(3, key(Key::B));
        queue.schedule_input(3, key(Key::C));
        assert!(queue.take_due(2).is_empty());
        let due = queue.take_due(4);
        assert!(matches!(
            due[..],
            [
                Incoming::Event(Event::KeyPressed(Key::B)),
                Incoming::Event(Event::KeyPressed(Key::C))
            ]
        ));
        assert_eq!(queue.take_due(9).len(), 1);
    }

    #[test]
    fn input_comes_before_messages_of_the_same_frame() {
        let message = |text: &str| {
            Event::Message(crate::input::ScriptMessage {
                channel: "c".into(),
                payload: text.into(),
            })
        };
        let mut queue = EventQueue::default();
        queue.schedule_message(2, message("first queued"));
        queue.schedule_input(2, Incoming::Player(PlayerEvent::Joined(4)));
        queue.schedule_message(2, message("second queued"));
        let due = queue.take_due(2);
        assert!(matches!(due[0], Incoming::Player(PlayerEvent::Joined(4))));
        assert!(
            matches!(&due[1], Incoming::Event(Event::Message(m)) if m.payload == "first queued")
        );
        assert!(
            matches!(&due[2], Incoming::Event(Event::Message(m)) if m.payload == "second queued")
        );
    }
}
