//! [`Session`]: one player's client on a WebSocket, for as long as it
//! stays: a snapshot first, then the world's updates and the messages for
//! the player, while its keys and messages go to the world.
//!
//! What a client cannot do ([`StreamLimits`]):
//! - slow the world: it reads updates from the world's hub at its own
//!   pace; one that falls behind by more than the hub keeps gets a fresh
//!   snapshot, and one that falls behind `falls_behind` times within a
//!   minute, or leaves a write waiting `write_timeout`, is dropped;
//! - flood the world: each message it sends is at most `max_message`
//!   bytes, and its events beyond `events_per_second` (with a burst) are
//!   refused, with an error message at most once a second.

use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::broadcast::error::RecvError;
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::protocol::frame::Utf8Bytes;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;

use super::hub::{Update, WorldHub};
use super::wire::{Format, Wire, WireMessage, parse_event};
use crate::metrics::StreamMetrics;
use game_host::players::{PlayerEvent, PlayerId, PlayerInput, PlayerMessage};
use game_host::sync::LockExt;

/// What one client may do.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StreamLimits {
    /// Streams open at once, over all worlds.
    pub max_streams: usize,
    /// Largest message a client may send, in bytes.
    pub max_message: usize,
    /// Events a player may send per second, on average...
    pub events_per_second: f64,
    /// ...and at once.
    pub burst: f64,
    /// Longest a write to the client may wait before it is dropped.
    pub write_timeout: Duration,
    /// Fresh snapshots a client may need within a minute before it is
    /// dropped.
    pub falls_behind: usize,
}

impl Default for StreamLimits {
    fn default() -> Self {
        StreamLimits {
            max_streams: 4096,
            max_message: 4 << 10,
            events_per_second: 30.0,
            burst: 60.0,
            write_timeout: Duration::from_secs(5),
            falls_behind: 3,
        }
    }
}

/// One client of one player.
pub(crate) struct Session {
    pub hub: Arc<WorldHub>,
    pub player: PlayerId,
    pub format: Format,
    pub limits: StreamLimits,
    pub metrics: StreamMetrics,
}

/// Why a session ended, as its close frame says.
struct Closed(CloseCode, String);

impl Session {
    /// Serves the client until it leaves, is dropped, or the world ends.
    pub async fn run<S>(self, mut socket: WebSocketStream<S>)
    where
        S: AsyncRead + AsyncWrite + Unpin,
    {
        let connected = self.hub.seats.lock_unpoisoned().connect(self.player);
        let Some((number, told, kept)) = connected else {
            let _ = socket.close(None).await;
            return;
        };
        self.metrics.open.inc();
        let closed = match self.serve(&mut socket, told, kept).await {
            Err(closed) => closed,
            Ok(never) => match never {},
        };
        self.metrics.open.dec();
        if closed.0 == CloseCode::Policy {
            self.metrics.dropped.inc();
        }
        self.hub
            .seats
            .lock_unpoisoned()
            .disconnect(self.player, number);
        if closed.0 != CloseCode::Normal {
            tracing::debug!("stream of player {}: {}", self.player, closed.1);
        }
        let frame = CloseFrame {
            code: closed.0,
            reason: Utf8Bytes::from(closed.1),
        };
        let _ = tokio::time::timeout(Duration::from_secs(1), socket.close(Some(frame))).await;
    }

    async fn serve<S>(
        &self,
        socket: &mut WebSocketStream<S>,
        mut told: tokio::sync::oneshot::Receiver<&'static str>,
        kept: Vec<PlayerMessage>,
    ) -> Result<std::convert::Infallible, Closed>
    where
        S: AsyncRead + AsyncWrite + Unpin,
    {
        let mut updates = self.hub.subscribe();
        let mut snapshot = Some(self.hub.snapshot());
        // Messages that arrive before the snapshot is sent, with their frame.
        let mut held: Vec<(u64, PlayerMessage)> = kept.into_iter().map(|m| (0, m)).collect();
        let mut shown = 0;
        let mut behind: Vec<Instant> = Vec::new();
        let mut bucket = Bucket::new(self.limits);
        loop {
            tokio::select! {
                biased;
                why = &mut told => {
                    return Err(Closed(CloseCode::Normal, why.unwrap_or("closed").to_owned()));
                }
                taken = async { snapshot.as_mut().expect("guarded").await }, if snapshot.is_some() => {
                    snapshot = None;
                    let Ok((frame, entities)) = taken else {
                        return Err(Closed(CloseCode::Away, "the world ended".into()));
                    };
                    shown = frame;
                    let wire = Wire {
                        frame: Some(frame),
                        player: Some(self.player),
                        entities: Some(&entities),
                        ..Wire::default()
                    };
                    self.send(socket, wire.encode(self.format)).await?;
                    for (frame, message) in std::mem::take(&mut held) {
                        self.send(socket, message_bytes(frame.max(shown), &message, self.format)).await?;
                    }
                }
                update = updates.recv() => match update {
                    Ok(update) => {
                        if let Some(why) = &update.ended {
                            let wire = Wire { frame: Some(update.frame), ended: Some(why), ..Wire::default() };
                            let _ = self.send(socket, wire.encode(self.format)).await;
                            return Err(Closed(CloseCode::Away, format!("the world ended: {why}")));
                        }
                        let mine = update.messages.iter().filter(|m| m.to.is_none_or(|to| to == self.player));
                        if snapshot.is_some() {
                            held.extend(mine.map(|m| (update.frame, m.clone())));
                            continue;
                        }
                        if update.frame > shown && update.changed.is_some() {
                            self.send(socket, changed_bytes(&update, self.format)).await?;
                        }
                        for message in mine {
                            self.send(socket, message_bytes(update.frame, message, self.format)).await?;
                        }
                    }
                    Err(RecvError::Lagged(_)) => {
                        let now = Instant::now();
                        behind.retain(|at| now - *at < Duration::from_secs(60));
                        behind.push(now);
                        if behind.len() > self.limits.falls_behind {
                            return Err(Closed(
                                CloseCode::Policy,
                                format!("fell behind the world {} times within a minute", behind.len()),
                            ));
                        }
                        if snapshot.is_none() {
                            snapshot = Some(self.hub.snapshot());
                        }
                    }
                    Err(RecvError::Closed) => return Err(Closed(CloseCode::Away, "the world ended".into())),
                },
                incoming = socket.next() => match incoming {
                    Some(Ok(Message::Text(text))) => {
                        if let Some(refused) = self.take(&text, &mut bucket) {
                            let wire = Wire { error: Some(&refused), ..Wire::default() };
                            self.send(socket, wire.encode(self.format)).await?;
                        }
                    }
                    Some(Ok(Message::Binary(_))) => {
                        let wire = Wire { error: Some("send JSON text messages"), ..Wire::default() };
                        self.send(socket, wire.encode(self.format)).await?;
                    }
                    Some(Ok(Message::Close(_))) | None => return Err(Closed(CloseCode::Normal, "bye".into())),
                    Some(Ok(_)) => {}
                    Some(Err(error)) => return Err(Closed(CloseCode::Policy, format!("{error}"))),
                },
            }
        }
    }

    /// Sends one message, within the write timeout.
    async fn send<S>(
        &self,
        socket: &mut WebSocketStream<S>,
        bytes: bytes::Bytes,
    ) -> Result<(), Closed>
    where
        S: AsyncRead + AsyncWrite + Unpin,
    {
        self.metrics.messages.inc();
        self.metrics.bytes.inc_by(bytes.len() as u64);
        let message = match self.format {
            Format::Json => Message::Text(Utf8Bytes::try_from(bytes).expect("JSON is UTF-8")),
            Format::MessagePack => Message::Binary(bytes),
        };
        match tokio::time::timeout(self.limits.write_timeout, socket.send(message)).await {
            Ok(Ok(())) => Ok(()),
            Ok(Err(error)) => Err(Closed(CloseCode::Away, format!("{error}"))),
            Err(_) => Err(Closed(
                CloseCode::Policy,
                format!(
                    "the client read nothing for {} s",
                    self.limits.write_timeout.as_secs_f64()
                ),
            )),
        }
    }

    /// Takes one message from the client: an event for the world, or
    /// `{"leave": true}`. Returns why it was refused, if it was.
    fn take(&self, text: &str, bucket: &mut Bucket) -> Option<String> {
        if let Ok(serde_json::Value::Object(map)) = serde_json::from_str(text)
            && map.get("leave") == Some(&serde_json::Value::Bool(true))
        {
            self.hub.remove(self.player, "left the world");
            return None;
        }
        let event = match parse_event(text) {
            Ok(event) => event,
            Err(error) => return Some(format!("{error:#}")),
        };
        if let Some(refused) = bucket.take() {
            return refused;
        }
        let input = PlayerEvent::Input(PlayerInput {
            player: self.player,
            event,
        });
        self.hub.input(input).err().map(|e| format!("{e:#}"))
    }
}

/// The bytes of an update's `changed`, encoded once per format.
fn changed_bytes(update: &Update, format: Format) -> bytes::Bytes {
    let slot = match format {
        Format::Json => &update.encoded[0],
        Format::MessagePack => &update.encoded[1],
    };
    slot.get_or_init(|| {
        let (changed, removed) = update.changed.as_ref().expect("checked");
        Wire {
            frame: Some(update.frame),
            changed: Some(changed),
            removed: (!removed.is_empty()).then_some(removed.as_slice()),
            ..Wire::default()
        }
        .encode(format)
    })
    .clone()
}

fn message_bytes(frame: u64, message: &PlayerMessage, format: Format) -> bytes::Bytes {
    Wire {
        frame: Some(frame),
        message: Some(WireMessage::of(message)),
        ..Wire::default()
    }
    .encode(format)
}

/// A player's events: a token bucket, refilled at `events_per_second` up
/// to `burst`.
struct Bucket {
    tokens: f64,
    rate: f64,
    burst: f64,
    at: Instant,
    /// When the client was last told it was over the rate.
    told: Option<Instant>,
}

impl Bucket {
    fn new(limits: StreamLimits) -> Self {
        Bucket {
            tokens: limits.burst,
            rate: limits.events_per_second,
            burst: limits.burst,
            at: Instant::now(),
            told: None,
        }
    }

    /// Takes one event's token. `None`: taken; `Some(None)`: refused
    /// quietly; `Some(Some(why))`: refused, and the client is told (at most
    /// once a second).
    fn take(&mut self) -> Option<Option<String>> {
        let now = Instant::now();
        self.tokens = (self.tokens + (now - self.at).as_secs_f64() * self.rate).min(self.burst);
        self.at = now;
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            return None;
        }
        if self
            .told
            .is_some_and(|at| now - at < Duration::from_secs(1))
        {
            return Some(None);
        }
        self.told = Some(now);
        Some(Some(format!(
            "over {} events per second: events are dropped",
            self.rate
        )))
    }
}
