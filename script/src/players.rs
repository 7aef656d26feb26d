//! The players of a served world (`game:engine/players`): who joins and
//! leaves, what each player's client sends, and messages back to their
//! clients.
//!
//! ```ignore
//! use script::futures::StreamExt;
//! use script::players::{self, PlayerEvent};
//!
//! let mut events = players::events();
//! while let Some(event) = events.next().await {
//!     match event {
//!         PlayerEvent::Joined(player) => {
//!             players::send_to(player, "welcome", "hello");
//!         }
//!         PlayerEvent::Left(player) => players::broadcast("left", &player.to_string()),
//!         PlayerEvent::Input(input) => { /* input.player, input.event */ }
//!     }
//! }
//! ```
//!
//! Outside a server a world has no players: [`list`] is empty, the stream
//! stays quiet and messages go nowhere.

use std::collections::VecDeque;
use std::pin::Pin;
use std::task::{Context, Poll};

use futures::Stream;

use crate::bindings::game::engine::players as wit;
pub use crate::bindings::game::engine::players::{PlayerEvent, PlayerId, PlayerInput};
use crate::wait::HostWait;

/// Every player event from now on (joins, leaves, input), in order, as a
/// stream. A script has one: starting a second one ends the first.
/// Dropping the stream stops listening.
pub fn events() -> PlayerEvents {
    PlayerEvents {
        listener: HostWait::listener(Box::new(wit::listen)),
        taken: VecDeque::new(),
    }
}

/// A stream of player events; see [`events`].
pub struct PlayerEvents {
    listener: HostWait<Box<dyn FnOnce(u64)>>,
    /// Events taken from the host and not yet yielded.
    taken: VecDeque<PlayerEvent>,
}

impl Stream for PlayerEvents {
    type Item = PlayerEvent;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<PlayerEvent>> {
        loop {
            if let Some(event) = self.taken.pop_front() {
                return Poll::Ready(Some(event));
            }
            match self.listener.poll_data(cx) {
                Poll::Ready(_) => self.taken.extend(wit::take_events()),
                Poll::Pending => return Poll::Pending,
            }
        }
    }
}

/// The players in the world now, in the order they joined.
pub fn list() -> Vec<PlayerId> {
    wit::list()
}

/// Sends `payload` on `channel` to one player's client, after this frame.
/// Returns false (and sends nothing) if the player is not in the world.
pub fn send_to(player: PlayerId, channel: &str, payload: &str) -> bool {
    wit::send_to(player, channel, payload)
}

/// Sends `payload` on `channel` to every player's client, after this frame.
pub fn broadcast(channel: &str, payload: &str) {
    wit::broadcast(channel, payload);
}
