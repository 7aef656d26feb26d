//! A player's stream asked of a node that does not hold its world, in a
//! fleet: the node connects to the world's node and forwards the stream
//! both ways, so that a client (a browser's `WebSocket`, which could not
//! follow a redirect) reaches its world through any node. The world's node
//! checks the token; its refusal is passed on as it came.
//!
//! Each side is bounded as a reverse proxy bounds it: what the client
//! sends keeps a client's size cap, while the world's node (a node the
//! fleet trusts) may send what it sends any client directly. The client
//! gets what a client of the world's node gets: the same write timeout,
//! pings and silence rule, so one that stops reading frees its slot here
//! as it would there; and each side is closed when the other goes.

use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::extract::Request;
use axum::http::header::{
    CONNECTION, HeaderValue, SEC_WEBSOCKET_ACCEPT, SEC_WEBSOCKET_PROTOCOL, UPGRADE,
};
use axum::http::{Response, StatusCode};
use bytes::Bytes;
use futures_util::{SinkExt, StreamExt};
use hyper_util::rt::TokioIo;
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::Error as WsError;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::handshake::derive_accept_key;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::protocol::{CloseFrame, Role, WebSocketConfig};

use super::answer::Answer;
use super::peer::{CONNECT_WITHIN, RELAYED, warn_unreached};
use super::state::ControlState;
use super::upgrade::{stream_slot, websocket_key};
use crate::stream::{Closed, Liveness, StreamLimits, close, send_within};

/// The largest message (and frame) taken from the world's node: what a
/// server sends a client whole, a snapshot of a large world included
/// (a world of 5,000 entities snapshots in under 1 MB of JSON).
const MAX_FROM_WORLD_NODE: usize = 64 << 20;

/// The two sockets' settings: what the client may send is capped as a
/// direct client's is; what the world's node sends, only by
/// [`MAX_FROM_WORLD_NODE`].
fn configs(limits: &StreamLimits) -> (WebSocketConfig, WebSocketConfig) {
    let client = WebSocketConfig::default()
        .max_message_size(Some(limits.max_message))
        .max_frame_size(Some(limits.max_message));
    let upstream = WebSocketConfig::default()
        .max_message_size(Some(MAX_FROM_WORLD_NODE))
        .max_frame_size(Some(MAX_FROM_WORLD_NODE));
    (client, upstream)
}

/// Forwards the stream `request` asks for to the node at `address`.
pub(super) async fn forward(
    context: &Arc<ControlState>,
    address: &str,
    mut request: Request,
) -> Result<Response<Body>, Answer> {
    let key = websocket_key(request.headers())?;
    let limits = context.streams;
    let slot = stream_slot(context)?;
    // The client is told what failed; the log, where.
    let unreachable = |why: String| {
        warn_unreached(format_args!(
            "forwarding a stream to the world's node at {address}: {why}"
        ));
        Answer::error(502, format!("the world's node {why}"))
    };
    let path = request
        .uri()
        .path_and_query()
        .map_or("/", |p| p.as_str())
        .to_owned();
    let mut upstream_request = format!("{}://{address}{path}", context.peers.ws())
        .into_client_request()
        .map_err(|error| unreachable(format!("cannot be asked: {error}")))?;
    if let Some(offer) = request.headers().get(SEC_WEBSOCKET_PROTOCOL) {
        upstream_request
            .headers_mut()
            .insert(SEC_WEBSOCKET_PROTOCOL, offer.clone());
    }
    // Forwarded once at most: the world's node answers it itself.
    upstream_request
        .headers_mut()
        .insert(RELAYED, HeaderValue::from_static("1"));
    let (client_config, upstream_config) = configs(&limits);
    let connected = tokio::time::timeout(CONNECT_WITHIN, async {
        let stream = context.peers.connect(address).await?;
        tokio_tungstenite::client_async_with_config(upstream_request, stream, Some(upstream_config))
            .await
            .map_err(|error| match error {
                WsError::Http(response) => {
                    let status = response.status().as_u16();
                    let body = response
                        .body()
                        .as_deref()
                        .map(|b| String::from_utf8_lossy(b).into_owned())
                        .unwrap_or_default();
                    std::io::Error::other(format!("{status}\u{0}{body}"))
                }
                other => std::io::Error::other(other.to_string()),
            })
    })
    .await;
    let (upstream, answered) = match connected {
        Err(_) => return Err(unreachable("did not answer in time".into())),
        Ok(Err(error)) => {
            let text = error.to_string();
            // The world's node refused the stream: its answer, as it came.
            if let Some((status, body)) = text.split_once('\u{0}')
                && let Ok(status) = status.parse::<u16>()
            {
                return Err(Answer {
                    status,
                    body: body.to_owned(),
                    content_type: "application/json",
                    challenge: false,
                });
            }
            return Err(unreachable(format!("cannot be reached: {text}")));
        }
        Ok(Ok(connected)) => connected,
    };
    let protocol = answered.headers().get(SEC_WEBSOCKET_PROTOCOL).cloned();
    let upgrading = hyper::upgrade::on(&mut request);
    let address = address.to_owned();
    tokio::spawn(async move {
        let Ok(upgraded) = upgrading.await else {
            return;
        };
        let client = WebSocketStream::from_raw_socket(
            TokioIo::new(upgraded),
            Role::Server,
            Some(client_config),
        )
        .await;
        let closed = pump(client, upstream, limits.write_timeout).await;
        if closed.0 != CloseCode::Normal {
            tracing::debug!("a forwarded stream from {address}: {}", closed.1);
        }
        drop(slot);
    });
    let mut response = Response::new(Body::empty());
    *response.status_mut() = StatusCode::SWITCHING_PROTOCOLS;
    let headers = response.headers_mut();
    headers.insert(CONNECTION, HeaderValue::from_static("upgrade"));
    headers.insert(UPGRADE, HeaderValue::from_static("websocket"));
    headers.insert(
        SEC_WEBSOCKET_ACCEPT,
        HeaderValue::from_str(&derive_accept_key(key.as_bytes()))
            .expect("base64 is a header value"),
    );
    if let Some(protocol) = protocol {
        headers.insert(SEC_WEBSOCKET_PROTOCOL, protocol);
    }
    Ok(response)
}

/// Passes the players' messages both ways until either side closes (a
/// close frame goes through, with its code and reason), and says why it
/// ended. Each hop keeps itself alive: the world's node's pings are
/// answered here, and each side is pinged from here. A client that leaves
/// a write waiting `write_timeout`, or is silent for three pings, is
/// dropped, and the world's node told it left. When the world's node is
/// lost (its socket fails, or it is silent for three pings: a machine
/// gone without a word sends no reset), the client is told to reconnect:
/// the world resumes on another node, and this one forwards there.
async fn pump<A, B>(
    client: WebSocketStream<A>,
    upstream: WebSocketStream<B>,
    write_timeout: Duration,
) -> Closed
where
    A: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
    B: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
{
    let (mut to_client, mut from_client) = client.split();
    let (mut to_upstream, mut from_upstream) = upstream.split();
    let mut liveness = Liveness::new();
    let mut upstream_liveness = Liveness::new();
    // What each side is told as it is closed: `None` for the side that
    // closed (its close frame is answered as it is read).
    let (for_client, for_upstream) = loop {
        tokio::select! {
            message = from_client.next() => {
                liveness.heard();
                match message {
                    Some(Ok(Message::Close(frame))) => break (None, Some(closed_by(frame, "the client left"))),
                    Some(Ok(message @ (Message::Text(_) | Message::Binary(_)))) => {
                        if send_within(&mut to_upstream, message, write_timeout).await.is_err() {
                            break (Some(upstream_lost()), None);
                        }
                    }
                    // Pings and pongs are this hop's own.
                    Some(Ok(_)) => {}
                    // Past the size cap, or not the protocol: dropped, as
                    // the world's node drops it.
                    Some(Err(error @ (WsError::Capacity(_) | WsError::Protocol(_) | WsError::Utf8(_)))) => {
                        break dropped(Closed(CloseCode::Policy, format!("{error}")));
                    }
                    Some(Err(_)) | None => break (None, Some(Closed(CloseCode::Away, "the client left".into()))),
                }
            }
            message = from_upstream.next() => {
                if let Some(Ok(_)) = &message {
                    upstream_liveness.heard();
                }
                match message {
                    Some(Ok(Message::Close(frame))) => break (Some(closed_by(frame, "closed")), None),
                    Some(Ok(message @ (Message::Text(_) | Message::Binary(_)))) => {
                        if let Err(why) = send_within(&mut to_client, message, write_timeout).await {
                            break dropped(why);
                        }
                    }
                    Some(Ok(_)) => {}
                    Some(Err(_)) | None => break (Some(upstream_lost()), None),
                }
            }
            due = liveness.due() => {
                let ping = Message::Ping(Bytes::new());
                let pinged = match due {
                    Ok(()) => send_within(&mut to_client, ping, write_timeout).await,
                    Err(silent) => Err(silent),
                };
                if let Err(why) = pinged {
                    break dropped(why);
                }
            }
            due = upstream_liveness.due() => {
                let ping = Message::Ping(Bytes::new());
                let pinged = match due {
                    Ok(()) => send_within(&mut to_upstream, ping, write_timeout).await,
                    Err(silent) => Err(silent),
                };
                if let Err(silent) = pinged {
                    tracing::debug!("a forwarded stream's world node: {}", silent.1);
                    break (Some(upstream_lost()), Some(silent));
                }
            }
        }
    };
    let ended = match (&for_client, &for_upstream) {
        (Some(why), _) | (None, Some(why)) => Closed(why.0, why.1.clone()),
        (None, None) => Closed(CloseCode::Normal, "closed".into()),
    };
    // Both within a second: a side that reads nothing is not waited for.
    let quickly = Duration::from_secs(1);
    match for_upstream {
        Some(why) => close(&mut to_upstream, why).await,
        None => drop(tokio::time::timeout(quickly, to_upstream.close()).await),
    }
    match for_client {
        Some(why) => {
            close(&mut to_client, why).await;
            // The closing handshake: the client's own close frame (its
            // answers to what it read before ours, a pong, come first),
            // within a second.
            let _ = tokio::time::timeout(quickly, async {
                while let Some(Ok(message)) = from_client.next().await {
                    if message.is_close() {
                        break;
                    }
                }
            })
            .await;
        }
        None => drop(tokio::time::timeout(quickly, to_client.close()).await),
    }
    ended
}

/// A close frame as it came, or `otherwise` where it had none.
fn closed_by(frame: Option<CloseFrame>, otherwise: &str) -> Closed {
    match frame {
        Some(frame) => Closed(frame.code, frame.reason.to_string()),
        None => Closed(CloseCode::Normal, otherwise.to_owned()),
    }
}

/// The client dropped (why), and the world's node told it left.
fn dropped(why: Closed) -> (Option<Closed>, Option<Closed>) {
    let left = Closed(
        CloseCode::Away,
        format!("the client was dropped: {}", why.1),
    );
    (Some(why), Some(left))
}

/// What the client is told when the world's node is lost.
fn upstream_lost() -> Closed {
    Closed(
        CloseCode::Restart,
        "the world's node was lost: reconnect with your token".into(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    use tokio::io::DuplexStream;

    /// A WebSocket pair over an in-memory pipe: the side `pump` holds, and
    /// its peer.
    async fn pair(role: Role) -> (WebSocketStream<DuplexStream>, WebSocketStream<DuplexStream>) {
        let (near, far) = tokio::io::duplex(1 << 20);
        let other = match role {
            Role::Server => Role::Client,
            Role::Client => Role::Server,
        };
        (
            WebSocketStream::from_raw_socket(near, role, None).await,
            WebSocketStream::from_raw_socket(far, other, None).await,
        )
    }

    #[tokio::test(start_paused = true)]
    async fn a_world_node_gone_silent_sends_the_client_to_reconnect() {
        let (client_side, mut client) = pair(Role::Server).await;
        let (upstream_side, upstream) = pair(Role::Client).await;
        let pumping = tokio::spawn(pump(client_side, upstream_side, Duration::from_secs(5)));
        // The client answers every ping (reading answers them); the world's
        // node, its machine gone, never reads nor writes again.
        let reading = tokio::spawn(async move {
            let mut close = None;
            while let Some(Ok(message)) = client.next().await {
                if let Message::Close(frame) = message {
                    close = frame;
                }
            }
            close
        });
        let ended = pumping.await.unwrap();
        assert_eq!(ended.0, CloseCode::Restart, "{}", ended.1);
        let told = reading.await.unwrap().expect("a close frame");
        assert_eq!(told.code, CloseCode::Restart);
        assert!(
            told.reason.contains("reconnect with your token"),
            "{}",
            told.reason
        );
        drop(upstream);
    }

    #[tokio::test(start_paused = true)]
    async fn messages_pass_both_ways_and_a_close_goes_through() {
        let (client_side, mut client) = pair(Role::Server).await;
        let (upstream_side, mut upstream) = pair(Role::Client).await;
        let pumping = tokio::spawn(pump(client_side, upstream_side, Duration::from_secs(5)));
        // Far over a client's own 4 KiB cap: the world's node sends it.
        let big = "x".repeat(100 << 10);
        upstream.send(Message::text(big.clone())).await.unwrap();
        assert_eq!(client.next().await.unwrap().unwrap(), Message::text(big));
        client
            .send(Message::text("{\"press\": \"up\"}"))
            .await
            .unwrap();
        assert_eq!(
            upstream.next().await.unwrap().unwrap(),
            Message::text("{\"press\": \"up\"}")
        );
        let frame = CloseFrame {
            code: CloseCode::Away,
            reason: "the world ended".into(),
        };
        upstream.send(Message::Close(Some(frame))).await.unwrap();
        let ended = pumping.await.unwrap();
        assert_eq!(
            (ended.0, ended.1.as_str()),
            (CloseCode::Away, "the world ended")
        );
        match client.next().await.unwrap().unwrap() {
            Message::Close(Some(frame)) => assert_eq!(frame.reason, "the world ended"),
            other => panic!("{other:?}"),
        }
    }
}
