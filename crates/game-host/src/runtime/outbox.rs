//! [`Outbox`]: the messages scripts sent to players, until the server
//! takes them.

use crate::players::PlayerMessage;

/// Messages to players kept until the server takes them; past this, new
/// ones are dropped (a server takes them after every frame).
const MAX_OUTBOX: usize = 64 << 10;

/// Messages to players not taken yet, within [`MAX_OUTBOX`].
#[derive(Debug, Default)]
pub(crate) struct Outbox {
    messages: Vec<PlayerMessage>,
    /// Whether messages were dropped since the last take.
    dropped: bool,
}

impl Outbox {
    pub fn push(&mut self, message: PlayerMessage) {
        if self.messages.len() < MAX_OUTBOX {
            self.messages.push(message);
        } else if !std::mem::replace(&mut self.dropped, true) {
            tracing::warn!(
                target: "host",
                "{MAX_OUTBOX} messages to players are waiting to be sent; dropping new ones"
            );
        }
    }

    /// The messages kept, oldest first.
    pub fn take(&mut self) -> Vec<PlayerMessage> {
        self.dropped = false;
        std::mem::take(&mut self.messages)
    }
}
