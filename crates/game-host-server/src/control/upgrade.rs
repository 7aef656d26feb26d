//! `GET /worlds/{id}/stream?token=T`: a player's WebSocket. The request is
//! checked (the world, the player's token, the WebSocket handshake, a free
//! stream slot), answered with `101 Switching Protocols`, and the
//! connection handed to a [`Session`] of its own, outside the control
//! surface's connection cap: streams have theirs
//! ([`StreamLimits::max_streams`]).

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::header::{
    CONNECTION, HeaderMap, HeaderValue, SEC_WEBSOCKET_ACCEPT, SEC_WEBSOCKET_KEY,
    SEC_WEBSOCKET_PROTOCOL, SEC_WEBSOCKET_VERSION, UPGRADE,
};
use axum::http::{Response, StatusCode};
use axum::response::IntoResponse;
use hyper_util::rt::TokioIo;
use tokio::sync::OwnedSemaphorePermit;
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::handshake::derive_accept_key;
use tokio_tungstenite::tungstenite::protocol::{Role, WebSocketConfig};

use super::answer::Answer;
use super::extract::WorldParam;
use super::state::ControlState;
use crate::WorldId;
use crate::stream::{Format, Session};

/// `GET /worlds/{id}/stream`: `101` and a session, or why not.
pub(super) async fn stream(
    State(context): State<Arc<ControlState>>,
    WorldParam(id): WorldParam,
    request: Request,
) -> Response<Body> {
    match upgrade(&context, id, request) {
        Ok(response) => response,
        Err(answer) => answer.into_response(),
    }
}

/// Answers a stream request: `101` and a session, or why not.
fn upgrade(
    context: &Arc<ControlState>,
    id: WorldId,
    mut request: Request,
) -> Result<Response<Body>, Answer> {
    let hub = context
        .server
        .hub(id)
        .map_err(|error| Answer::error(404, error))?;
    let key = websocket_key(request.headers())?;
    let token = token_of(request.uri().query()).unwrap_or("");
    let player = match hub.may_connect(token) {
        Ok(player) => player,
        Err(true) => {
            return Err(Answer::error(
                429,
                "this player connected too often in the last seconds; wait and connect again",
            ));
        }
        Err(false) => {
            return Err(Answer::error(
                403,
                format!(
                    "a stream needs the token of a player of world {} (`?token=T`, from POST \
                     /worlds/{}/players)",
                    id.0, id.0
                ),
            ));
        }
    };
    let limits = context.streams;
    let slot = stream_slot(context)?;
    let offer = request
        .headers()
        .get(SEC_WEBSOCKET_PROTOCOL)
        .and_then(|v| v.to_str().ok());
    let format = Format::offered(offer);
    let upgrading = hyper::upgrade::on(&mut request);
    let metrics = context.server.stream_metrics();
    tokio::spawn(async move {
        let upgraded = match upgrading.await {
            Ok(upgraded) => upgraded,
            Err(error) => {
                tracing::debug!("stream of player {player}: the upgrade failed: {error}");
                return;
            }
        };
        let config = WebSocketConfig::default()
            .max_message_size(Some(limits.max_message))
            .max_frame_size(Some(limits.max_message));
        let socket =
            WebSocketStream::from_raw_socket(TokioIo::new(upgraded), Role::Server, Some(config))
                .await;
        let session = Session {
            hub,
            player,
            format,
            limits,
            metrics,
        };
        session.run(socket).await;
        drop(slot);
    });
    let mut response = Response::new(Body::empty());
    *response.status_mut() = StatusCode::SWITCHING_PROTOCOLS;
    let headers = response.headers_mut();
    headers.insert(CONNECTION, HeaderValue::from_static("upgrade"));
    headers.insert(UPGRADE, HeaderValue::from_static("websocket"));
    let accept = derive_accept_key(key.as_bytes());
    headers.insert(
        SEC_WEBSOCKET_ACCEPT,
        HeaderValue::from_str(&accept).expect("base64 is a header value"),
    );
    if let Some(protocol) = format.protocol() {
        headers.insert(SEC_WEBSOCKET_PROTOCOL, HeaderValue::from_static(protocol));
    }
    Ok(response)
}

/// One of the streams the server may have open at once, or why there is
/// none.
pub(super) fn stream_slot(context: &ControlState) -> Result<OwnedSemaphorePermit, Answer> {
    context
        .stream_slots
        .clone()
        .try_acquire_owned()
        .map_err(|_| {
            Answer::error(
                503,
                format!(
                    "the server has its maximum of {} streams open",
                    context.streams.max_streams
                ),
            )
        })
}

/// The `token` of a query string.
fn token_of(query: Option<&str>) -> Option<&str> {
    query?
        .split('&')
        .find_map(|pair| pair.strip_prefix("token="))
        .filter(|token| !token.is_empty())
}

/// The client's `Sec-WebSocket-Key`, once the request is a WebSocket
/// handshake of version 13.
pub(super) fn websocket_key(headers: &HeaderMap) -> Result<String, Answer> {
    let has = |name, value: &str| {
        headers.get_all(name).iter().any(|v| {
            v.to_str().is_ok_and(|v| {
                v.split(',')
                    .any(|part| part.trim().eq_ignore_ascii_case(value))
            })
        })
    };
    if !has(UPGRADE, "websocket") || !has(CONNECTION, "upgrade") {
        return Err(Answer::error(
            426,
            "a stream is a WebSocket: connect with `Upgrade: websocket`",
        ));
    }
    if !has(SEC_WEBSOCKET_VERSION, "13") {
        return Err(Answer::error(
            426,
            "this server speaks WebSocket version 13",
        ));
    }
    headers
        .get(SEC_WEBSOCKET_KEY)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
        .ok_or_else(|| Answer::error(400, "the handshake has no `Sec-WebSocket-Key`"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_token_comes_from_the_query() {
        assert_eq!(token_of(Some("token=abc")), Some("abc"));
        assert_eq!(token_of(Some("x=1&token=abc")), Some("abc"));
        assert_eq!(token_of(Some("token=")), None);
        assert_eq!(token_of(None), None);
    }
}
