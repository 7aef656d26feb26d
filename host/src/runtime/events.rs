//! Input events and script-to-script messages: the event queue and
//! filters.

use std::collections::BTreeMap;

use crate::bindings::events::{Event, EventFilter};
use crate::input::key_name;

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bindings::input::Key;

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
}
