//! Input events and script-to-script messages: wait for one event, listen
//! to a stream of them, send messages.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use futures::Stream;

use crate::bindings::game::engine::events as wit_events;
pub use crate::bindings::game::engine::events::{Event, EventFilter, ScriptMessage};
pub use crate::bindings::game::engine::input::Key;
use crate::wait::{HostWait, WakeData};

/// Completes with the first event matching `filter` delivered after now.
pub fn wait_event(filter: EventFilter) -> impl Future<Output = Event> {
    let wait = HostWait::once(move |token| wit_events::wait_event(token, &filter));
    async move {
        match wait.await {
            WakeData::Event(event) => event,
            other => unreachable!("event wait woke with {other:?}"),
        }
    }
}

/// Every event matching `filter` from now on, as a stream. Dropping the
/// stream withdraws the listener.
pub fn listen(filter: EventFilter) -> EventStream {
    EventStream {
        listener: HostWait::listener(Box::new(move |token| wit_events::listen(token, &filter))),
    }
}

/// A stream of events; see [`listen`].
pub struct EventStream {
    listener: HostWait<Box<dyn FnOnce(u64)>>,
}

impl Stream for EventStream {
    type Item = Event;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Event>> {
        match self.listener.poll_data(cx) {
            Poll::Ready(WakeData::Event(event)) => Poll::Ready(Some(event)),
            Poll::Ready(_) => Poll::Pending,
            Poll::Pending => Poll::Pending,
        }
    }
}

/// Sends `payload` on `channel` to every script waiting on it; delivered at
/// the start of the next frame.
pub fn send(channel: &str, payload: &str) {
    wit_events::send(channel, payload);
}
