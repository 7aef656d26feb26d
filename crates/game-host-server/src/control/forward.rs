//! A player's stream asked of a node that does not hold its world, in a
//! fleet: the node connects to the world's node and forwards the stream
//! both ways, so that a client that cannot follow a redirect (a browser's
//! `WebSocket`) reaches its world through any node. The world's node
//! checks the token; its refusal is passed on as it came.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use futures_util::{SinkExt, StreamExt};
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::header::{
    CONNECTION, HeaderValue, SEC_WEBSOCKET_ACCEPT, SEC_WEBSOCKET_PROTOCOL, UPGRADE,
};
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::Error as WsError;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::handshake::derive_accept_key;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::protocol::{Role, WebSocketConfig};

use super::routes::Answer;
use super::state::ControlState;
use super::upgrade::{stream_slot, websocket_key};

/// How long connecting to the world's node may take.
const CONNECT_WITHIN: Duration = Duration::from_secs(5);

/// Forwards the stream `request` asks for to the node at `address`.
pub(super) async fn forward(
    context: &Arc<ControlState>,
    address: &str,
    mut request: Request<Incoming>,
) -> Result<Response<Full<Bytes>>, Answer> {
    let key = websocket_key(request.headers())?;
    let limits = context.streams;
    let slot = stream_slot(context)?;
    let unreachable =
        |why: String| Answer::error(502, format!("the world's node at {address} {why}"));
    let path = request
        .uri()
        .path_and_query()
        .map_or("/", |p| p.as_str())
        .to_owned();
    let mut upstream_request = format!("ws://{address}{path}")
        .into_client_request()
        .map_err(|error| unreachable(format!("cannot be asked: {error}")))?;
    if let Some(offer) = request.headers().get(SEC_WEBSOCKET_PROTOCOL) {
        upstream_request
            .headers_mut()
            .insert(SEC_WEBSOCKET_PROTOCOL, offer.clone());
    }
    let config = WebSocketConfig::default()
        .max_message_size(Some(limits.max_message))
        .max_frame_size(Some(limits.max_message));
    let connected = tokio::time::timeout(CONNECT_WITHIN, async {
        let tcp = tokio::net::TcpStream::connect(address).await?;
        tokio_tungstenite::client_async_with_config(upstream_request, tcp, Some(config))
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
    tokio::spawn(async move {
        let Ok(upgraded) = upgrading.await else {
            return;
        };
        let client =
            WebSocketStream::from_raw_socket(TokioIo::new(upgraded), Role::Server, Some(config))
                .await;
        pump(client, upstream).await;
        drop(slot);
    });
    let mut response = Response::new(Full::new(Bytes::new()));
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

/// Passes every message both ways until either side closes (a close
/// frame goes through, with its code and reason). When the world's node is
/// lost without one, the client is told to reconnect: the world resumes on
/// another node, and this one forwards there.
async fn pump<A, B>(client: WebSocketStream<A>, upstream: WebSocketStream<B>)
where
    A: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
    B: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
{
    let (mut to_client, mut from_client) = client.split();
    let (mut to_upstream, mut from_upstream) = upstream.split();
    loop {
        tokio::select! {
            message = from_client.next() => match message {
                Some(Ok(message)) => {
                    let closing = message.is_close();
                    if to_upstream.send(message).await.is_err() || closing {
                        break;
                    }
                }
                _ => break,
            },
            message = from_upstream.next() => match message {
                Some(Ok(message)) => {
                    let closing = message.is_close();
                    if to_client.send(message).await.is_err() || closing {
                        break;
                    }
                }
                _ => {
                    let lost = CloseFrame {
                        code: CloseCode::Restart,
                        reason: "the world's node was lost: reconnect with your token".into(),
                    };
                    let _ = to_client.send(Message::Close(Some(lost))).await;
                    break;
                }
            },
        }
    }
    let _ = to_client.close().await;
    let _ = to_upstream.close().await;
}
