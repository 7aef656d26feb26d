//! What keeps a player's client from holding a stream it no longer uses,
//! the same for a client served here ([`Session`](super::Session)) and one
//! forwarded to the world's node (`control::forward`):
//!
//! - every write to it must finish within the write timeout
//!   ([`send_within`]): one that stops reading is dropped;
//! - it is pinged every [`PING_EVERY`], and one silent for three times that
//!   is dropped ([`Liveness`]): a half-open connection would otherwise hold
//!   its slot.

use std::time::Duration;

use futures_util::{Sink, SinkExt};
use tokio::time::{Instant, Interval};
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::protocol::frame::Utf8Bytes;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::{Error as WsError, Message};

/// How often a client is pinged; one silent for three times this is
/// dropped.
pub(crate) const PING_EVERY: Duration = Duration::from_secs(15);

/// Why a client's stream ended, as its close frame says.
#[derive(Debug)]
pub(crate) struct Closed(pub CloseCode, pub String);

/// Sends `message` to a client, within `within`: a client that leaves a
/// write waiting longer reads nothing, and is dropped.
pub(crate) async fn send_within<S>(
    sink: &mut S,
    message: Message,
    within: Duration,
) -> Result<(), Closed>
where
    S: Sink<Message, Error = WsError> + Unpin,
{
    match tokio::time::timeout(within, sink.send(message)).await {
        Ok(Ok(())) => Ok(()),
        Ok(Err(error)) => Err(Closed(CloseCode::Away, format!("{error}"))),
        Err(_) => Err(Closed(
            CloseCode::Policy,
            format!("the client read nothing for {} s", within.as_secs_f64()),
        )),
    }
}

/// Sends the close frame saying why, within a second (a client that reads
/// nothing does not get it).
pub(crate) async fn close<S>(sink: &mut S, closed: Closed)
where
    S: Sink<Message, Error = WsError> + Unpin,
{
    let frame = CloseFrame {
        code: closed.0,
        reason: Utf8Bytes::from(closed.1),
    };
    let _ = tokio::time::timeout(Duration::from_secs(1), async {
        sink.send(Message::Close(Some(frame))).await?;
        sink.close().await
    })
    .await;
}

/// When a client was last heard from, and when it is pinged next.
pub(crate) struct Liveness {
    heard: Instant,
    ping: Interval,
}

impl Liveness {
    pub fn new() -> Liveness {
        let first = Instant::now() + PING_EVERY;
        Liveness {
            heard: Instant::now(),
            ping: tokio::time::interval_at(first, PING_EVERY),
        }
    }

    /// The client sent something (a message, a pong, a close).
    pub fn heard(&mut self) {
        self.heard = Instant::now();
    }

    /// Waits until the client is to be pinged: `Ok` then, or why it is
    /// dropped instead (silent for three pings).
    pub async fn due(&mut self) -> Result<(), Closed> {
        self.ping.tick().await;
        let silent = self.heard.elapsed();
        if silent > 3 * PING_EVERY {
            return Err(Closed(
                CloseCode::Policy,
                format!("the client answered nothing for {} s", silent.as_secs()),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use std::pin::Pin;
    use std::task::{Context, Poll};

    /// A sink that never takes what it is given (a client that reads
    /// nothing, its buffers full).
    struct Stalled;

    impl Sink<Message> for Stalled {
        type Error = WsError;
        fn poll_ready(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Result<(), WsError>> {
            Poll::Pending
        }
        fn start_send(self: Pin<&mut Self>, _: Message) -> Result<(), WsError> {
            unreachable!("never ready")
        }
        fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Result<(), WsError>> {
            Poll::Pending
        }
        fn poll_close(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Result<(), WsError>> {
            Poll::Pending
        }
    }

    #[tokio::test(start_paused = true)]
    async fn a_write_the_client_never_takes_ends_at_the_timeout() {
        let within = Duration::from_secs(5);
        let started = Instant::now();
        let closed = send_within(&mut Stalled, Message::text("x"), within)
            .await
            .unwrap_err();
        assert_eq!(started.elapsed(), within);
        assert_eq!(closed.0, CloseCode::Policy);
        assert_eq!(closed.1, "the client read nothing for 5 s");
    }

    #[tokio::test(start_paused = true)]
    async fn a_silent_client_is_dropped_at_its_fourth_ping() {
        let mut liveness = Liveness::new();
        for _ in 0..3 {
            liveness.due().await.unwrap();
        }
        let closed = liveness.due().await.unwrap_err();
        assert_eq!(closed.0, CloseCode::Policy);
        assert!(closed.1.starts_with("the client answered nothing for 60 s"));
        // One heard from is pinged again.
        liveness.heard();
        liveness.due().await.unwrap();
    }
}
