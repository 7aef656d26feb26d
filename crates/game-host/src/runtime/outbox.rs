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
    /// The frame `spent` counts, the bytes sent to players in it, and by
    /// which slots (in the order they first sent).
    frame: u64,
    spent: usize,
    senders: Vec<(u32, usize)>,
    /// Whether the frame went past its budget (a script was stopped, and
    /// every later message of the frame is dropped).
    over: bool,
}

/// A frame's budget for messages to players, gone past.
pub(crate) struct OverBudget {
    /// The slot that sent the most bytes in the frame (the first of them on
    /// a tie), to be stopped; `None` once one was for this frame.
    pub stop: Option<u32>,
    /// Why, for its error.
    pub cause: String,
}

impl Outbox {
    /// Counts a message of `bytes` that slot `slot` sent in `frame`
    /// against `budget` bytes per frame. Past the budget the message is
    /// not to be sent, and the script that sent the most in the frame is
    /// named (once a frame): a hostile script cannot spend the budget and
    /// have another stopped for the message that crosses it.
    pub fn charge(
        &mut self,
        frame: u64,
        slot: u32,
        bytes: usize,
        budget: usize,
    ) -> Result<(), OverBudget> {
        if self.frame != frame {
            self.frame = frame;
            self.spent = 0;
            self.senders.clear();
            self.over = false;
        }
        let at = match self.senders.iter().position(|(sender, _)| *sender == slot) {
            Some(at) => at,
            None => {
                self.senders.push((slot, 0));
                self.senders.len() - 1
            }
        };
        let spent = self.spent.saturating_add(bytes);
        if spent <= budget && !self.over {
            self.spent = spent;
            self.senders[at].1 += bytes;
            return Ok(());
        }
        if std::mem::replace(&mut self.over, true) {
            return Err(OverBudget {
                stop: None,
                cause: String::new(),
            });
        }
        self.senders[at].1 += bytes;
        let (most, sent) =
            self.senders.iter().fold(
                (slot, 0),
                |best, &(sender, sent)| {
                    if sent > best.1 { (sender, sent) } else { best }
                },
            );
        Err(OverBudget {
            stop: Some(most),
            cause: format!(
                "quota exceeded: the world's scripts sent {spent} bytes to players in frame \
                 {frame}, past its budget of {budget} bytes per frame (player-bytes-per-frame), \
                 and this script sent the most ({sent} bytes)"
            ),
        })
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
    fn past_the_budget_the_biggest_sender_is_named_once_a_frame() {
        let mut outbox = Outbox::default();
        // Slot 3 spends most of the budget; slot 1's message crosses it.
        assert!(outbox.charge(1, 3, 90, 100).is_ok());
        let over = outbox.charge(1, 1, 20, 100).unwrap_err();
        assert_eq!(over.stop, Some(3));
        assert!(
            over.cause.contains("110 bytes to players in frame 1"),
            "{}",
            over.cause
        );
        assert!(
            over.cause.contains("sent the most (90 bytes)"),
            "{}",
            over.cause
        );
        // The rest of the frame's messages are dropped, naming no one.
        let later = outbox.charge(1, 1, 1, 100).unwrap_err();
        assert_eq!(later.stop, None);
        // A new frame, a new budget.
        assert!(outbox.charge(2, 1, 100, 100).is_ok());
    }
}
