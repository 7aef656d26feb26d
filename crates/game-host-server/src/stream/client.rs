//! [`Session`]: one player's client on a WebSocket, for as long as it
//! stays: a snapshot first, then the world's updates and the messages for
//! the player, while its keys and messages go to the world.
//!
//! What a client cannot do ([`StreamLimits`]):
//! - slow the world, or fill the server's memory: it reads updates from
//!   the world's backlog at its own pace; one that falls behind by more
//!   than the backlog keeps (a count and a byte budget) gets a fresh
//!   snapshot, and one that falls behind `falls_behind` times within a
//!   minute, or leaves a write waiting `write_timeout`, is dropped;
//! - flood the world: each message it sends is at most `max_message`
//!   bytes, and its player's messages beyond `events_per_second` (with a
//!   burst; kept across reconnections) are refused, with an error message
//!   at most once a second; its commands apply one a frame (`controls`);
//! - hold a slot while gone: it is pinged every 15 s, and one silent
//!   through three pings is dropped (`liveness`, as a forwarded client
//!   is).

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::protocol::frame::Utf8Bytes;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::{Error as WsError, Message};

use super::backlog::{Follower, Missed};
use super::hub::{Update, WorldHub};
use super::liveness::{Closed, Liveness, close, send_within};
use super::seats::MAILBOX;
use super::wire::{Format, Wire, WireMessage, is_leave, parse_commands, parse_event};
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

impl Session {
    /// Serves the client until it leaves, is dropped, or the world ends.
    pub async fn run<S>(self, mut socket: WebSocketStream<S>)
    where
        S: AsyncRead + AsyncWrite + Unpin,
    {
        // Subscribed before the seat counts as connected: from then on a
        // message for the player goes out in an update this client gets.
        let updates = self.hub.subscribe();
        let connected = self.hub.connect(self.player);
        let Some((number, told, kept)) = connected else {
            let closed = self.ended(&mut socket).await.unwrap_or(Closed(
                CloseCode::Normal,
                "no longer a player of this world".into(),
            ));
            close(&mut socket, closed).await;
            return;
        };
        self.metrics.open.inc();
        let closed = match self.serve(&mut socket, number, updates, told, kept).await {
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
        close(&mut socket, closed).await;
    }

    /// If the world ended, tells the client why and returns the reason to
    /// close with; `None` while it runs.
    async fn ended<S>(&self, socket: &mut WebSocketStream<S>) -> Option<Closed>
    where
        S: AsyncRead + AsyncWrite + Unpin,
    {
        let (frame, why, resumes) = self.hub.ended()?;
        // A durable world the server stopped is not over: its clients
        // are told to come back.
        let moves_to = self.hub.moves_to().filter(|_| resumes);
        let restarting = match &moves_to {
            Some(address) => {
                format!("the world moves to another node: reconnect with your token at {address}")
            }
            None => "the server is restarting: reconnect with your token".to_owned(),
        };
        let wire = Wire {
            frame: Some(frame),
            ended: (!resumes).then_some(why.as_str()),
            restarting: resumes.then_some(restarting.as_str()),
            reconnect: moves_to.as_deref(),
            ..Wire::default()
        };
        if let Err(closed) = self.send(socket, wire.encode(self.format)).await {
            return Some(closed);
        }
        Some(match resumes {
            true => Closed(CloseCode::Restart, restarting),
            false => Closed(CloseCode::Away, format!("the world ended: {why}")),
        })
    }

    async fn serve<S>(
        &self,
        socket: &mut WebSocketStream<S>,
        number: u64,
        mut updates: Follower<Update>,
        mut told: tokio::sync::oneshot::Receiver<&'static str>,
        kept: Vec<PlayerMessage>,
    ) -> Result<std::convert::Infallible, Closed>
    where
        S: AsyncRead + AsyncWrite + Unpin,
    {
        let mut snapshot = Some(self.hub.snapshot(self.player));
        // Messages that arrive before the snapshot is sent, with their
        // frame (the newest `MAILBOX`).
        let mut held: VecDeque<(u64, PlayerMessage)> = kept.into_iter().map(|m| (0, m)).collect();
        let mut shown = 0;
        let mut behind: Vec<Instant> = Vec::new();
        let mut liveness = Liveness::new();
        loop {
            tokio::select! {
                biased;
                why = &mut told => {
                    let why = Closed(CloseCode::Normal, why.unwrap_or("closed").to_owned());
                    return Err(self.ended(socket).await.unwrap_or(why));
                }
                taken = async { snapshot.as_mut().expect("guarded").await }, if snapshot.is_some() => {
                    snapshot = None;
                    let Ok((frame, entities, applied)) = taken else {
                        let gone = Closed(CloseCode::Away, "the world ended".into());
                        return Err(self.ended(socket).await.unwrap_or(gone));
                    };
                    shown = frame;
                    let wire = Wire {
                        frame: Some(frame),
                        player: Some(self.player),
                        precision: Some(self.hub.precision()),
                        entities: Some(&entities),
                        ..Wire::default()
                    };
                    self.send(socket, wire.encode(self.format)).await?;
                    // The commands the snapshot shows (to a player that sent
                    // any: an older client knows no ack): a client numbers
                    // on from there, and replays only those after.
                    if let Some(applied) = applied {
                        let ack = Wire { frame: Some(frame), ack: Some(applied), ..Wire::default() };
                        self.send(socket, ack.encode(self.format)).await?;
                    }
                    for (frame, message) in std::mem::take(&mut held) {
                        self.send(socket, message_bytes(frame.max(shown), &message, self.format)).await?;
                    }
                }
                update = updates.recv() => match update {
                    Ok(update) => {
                        let mine = update.messages.iter().filter(|m| m.to.is_none_or(|to| to == self.player));
                        if snapshot.is_some() {
                            for message in mine {
                                if held.len() == MAILBOX {
                                    held.pop_front();
                                }
                                held.push_back((update.frame, message.clone()));
                            }
                            continue;
                        }
                        if update.frame > shown && let Some(view) = update.routes.of(self.player) {
                            let bytes = view.bytes(update.frame, self.format, self.hub.precision());
                            self.send(socket, bytes).await?;
                        }
                        // After the update it speaks of (a snapshot taken
                        // at or after its frame came with its own ack).
                        if update.frame > shown
                            && let Some((_, seq)) = update.acks.iter().find(|(p, _)| *p == self.player)
                        {
                            let wire = Wire { frame: Some(update.frame), ack: Some(*seq), ..Wire::default() };
                            self.send(socket, wire.encode(self.format)).await?;
                        }
                        for message in mine {
                            self.send(socket, message_bytes(update.frame, message, self.format)).await?;
                        }
                    }
                    Err(Missed::Behind) => {
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
                            snapshot = Some(self.hub.snapshot(self.player));
                        }
                    }
                    Err(Missed::Closed) => {
                        let gone = Closed(CloseCode::Away, "the world ended".into());
                        return Err(self.ended(socket).await.unwrap_or(gone));
                    }
                },
                incoming = socket.next() => {
                    liveness.heard();
                    match incoming {
                        Some(Ok(Message::Text(text))) => {
                            if let Some(refused) = self.take(number, &text) {
                                let wire = Wire { error: Some(&refused), ..Wire::default() };
                                self.send(socket, wire.encode(self.format)).await?;
                            }
                        }
                        Some(Ok(Message::Binary(_))) => {
                            if let Some(refused) = self.take(number, "binary") {
                                let wire = Wire { error: Some(&refused), ..Wire::default() };
                                self.send(socket, wire.encode(self.format)).await?;
                            }
                        }
                        Some(Ok(Message::Close(_))) | None => return Err(Closed(CloseCode::Normal, "bye".into())),
                        Some(Ok(_)) => {}
                        // Past the size cap, or not the protocol: the server
                        // drops it. Gone (reset, closed without a close frame):
                        // the client left.
                        Some(Err(error @ (WsError::Capacity(_) | WsError::Protocol(_) | WsError::Utf8(_)))) => {
                            return Err(Closed(CloseCode::Policy, format!("{error}")));
                        }
                        Some(Err(error)) => return Err(Closed(CloseCode::Away, format!("{error}"))),
                    }
                }
                due = liveness.due() => {
                    due?;
                    let ping = Message::Ping(bytes::Bytes::new());
                    send_within(socket, ping, self.limits.write_timeout).await?;
                }
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
        let message = match self.format.binary() {
            false => Message::Text(Utf8Bytes::try_from(bytes).expect("JSON is UTF-8")),
            true => Message::Binary(bytes),
        };
        send_within(socket, message, self.limits.write_timeout).await
    }

    /// Takes one message from the client, within its rate: an event for
    /// the world, or `{"leave": true}`. Returns why it was refused, if it
    /// was and the client is to be told (at most once a second when over
    /// the rate).
    fn take(&self, number: u64, text: &str) -> Option<String> {
        let limits = &self.limits;
        let token = self.hub.seats.lock_unpoisoned().take_token(
            self.player,
            limits.events_per_second,
            limits.burst,
        );
        if let Some(refused) = token {
            return refused;
        }
        if is_leave(text) {
            self.hub.remove(self.player, "left the world");
            return None;
        }
        if let Some(commands) = parse_commands(text) {
            let taken =
                commands.and_then(|commands| self.hub.commands(self.player, number, commands));
            return taken.err().map(|e| format!("{e:#}"));
        }
        let event = match parse_event(text) {
            Ok(event) => event,
            Err(error) => return Some(format!("{error:#}")),
        };
        let input = PlayerEvent::Input(PlayerInput {
            player: self.player,
            event,
        });
        self.hub.input(input).err().map(|e| format!("{e:#}"))
    }
}

fn message_bytes(frame: u64, message: &PlayerMessage, format: Format) -> bytes::Bytes {
    Wire {
        frame: Some(frame),
        message: Some(WireMessage::of(message)),
        ..Wire::default()
    }
    .encode(format)
}
