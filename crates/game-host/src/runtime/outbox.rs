//! [`Outbox`]: the messages scripts sent to players, until the server
//! takes them, and the world's budget of bytes for them per frame: every
//! byte a script sends to players is one the server keeps for slow clients
//! (an update is held until every client has read it), so a world's
//! scripts together may send at most [`RuntimeConfig::player_bytes_per_frame`](super::RuntimeConfig::player_bytes_per_frame)
//! bytes in a frame. The messages are counted as the frame's commands are
//! applied, in the instances' order, so the script that goes past the
//! budget is the same on any number of frame threads.

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
    /// The frame `spent` counts, and the bytes sent to players in it.
    frame: u64,
    spent: usize,
}

impl Outbox {
    /// Counts a message of `bytes` sent in `frame` against `budget` bytes
    /// per frame; the error says by how much it goes past.
    pub fn charge(&mut self, frame: u64, bytes: usize, budget: usize) -> Result<(), String> {
        if self.frame != frame {
            self.frame = frame;
            self.spent = 0;
        }
        let spent = self.spent.saturating_add(bytes);
        if spent > budget {
            return Err(format!(
                "quota exceeded: messages to players of {spent} bytes in frame {frame}, past the \
                 world's budget of {budget} bytes per frame (player-bytes-per-frame)"
            ));
        }
        self.spent = spent;
        Ok(())
    }

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_budget_is_per_frame() {
        let mut outbox = Outbox::default();
        assert!(outbox.charge(1, 60, 100).is_ok());
        let over = outbox.charge(1, 41, 100).unwrap_err();
        assert!(over.contains("101 bytes in frame 1"), "{over}");
        assert!(outbox.charge(1, 40, 100).is_ok());
        assert!(outbox.charge(2, 100, 100).is_ok());
    }
}
