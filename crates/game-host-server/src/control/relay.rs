//! A control request for a world another node of a fleet holds (or for a
//! new world another node has more room for): this node asks that node and
//! passes its answer back. A client talks to one address and follows no
//! redirect, so its token never goes to an address it did not choose
//! (`curl -L` and most HTTP clients drop `Authorization` on a redirect to
//! another host; some send it on), and an address that is private to the
//! fleet is never handed to it.
//!
//! The request goes on as it came, within this surface's limits: its
//! method, path and query, its body (read whole, within `max_body` and
//! `body_timeout`), and of its headers `Authorization` and `Content-Type`
//! alone (the world's node checks the token again). `Host` names the
//! world's node, and [`RELAYED`] tells it to answer itself, so a request
//! is relayed once at most, even while the fleet's directory is behind.
//! The answer comes back with its status, its `Content-Type` and its body
//! (at most [`MAX_ANSWER`] bytes, within [`ANSWER_WITHIN`]). A node that
//! cannot be reached is a 502 naming it; one that does not answer in time
//! a 504.

use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::extract::Request;
use axum::http::header::{AUTHORIZATION, CONTENT_TYPE, HOST};
use axum::http::{HeaderValue, Response};
use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;

use super::answer::Answer;
use super::extract::read_body;
use super::forward::CONNECT_WITHIN;
use super::state::ControlState;

/// The header a relayed request carries: its node answers it itself.
pub(crate) const RELAYED: &str = "x-game-host-relayed";

/// How long the world's node may take to answer (a world stopped or
/// started there answers when it has).
const ANSWER_WITHIN: Duration = Duration::from_secs(60);

/// The largest answer taken from the world's node: a stopped world's
/// report holds its scene (a world of 5,000 entities reports in about
/// 1 MB).
const MAX_ANSWER: usize = 64 << 20;

/// Asks the node at `address` for `path_and_query` with `request`'s
/// method, token and body, and answers with what it answered.
pub(super) async fn relay(
    state: &Arc<ControlState>,
    address: &str,
    path_and_query: &str,
    request: Request,
) -> Result<Response<Body>, Answer> {
    let (parts, body) = request.into_parts();
    let body = read_body(&parts.headers, body, &state.limits).await?;
    let unreachable =
        |why: String| Answer::error(502, format!("the world's node at {address} {why}"));
    let stream = tokio::time::timeout(CONNECT_WITHIN, TcpStream::connect(address))
        .await
        .map_err(|_| {
            unreachable(format!(
                "did not answer within {} s",
                CONNECT_WITHIN.as_secs()
            ))
        })?
        .map_err(|error| unreachable(format!("cannot be reached: {error}")))?;
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(|error| unreachable(format!("cannot be asked: {error}")))?;
    // The connection ends with the exchange (the sender is dropped).
    tokio::spawn(connection);

    let mut upstream = axum::http::Request::builder()
        .method(parts.method)
        .uri(path_and_query)
        .header(RELAYED, HeaderValue::from_static("1"));
    if let Ok(host) = HeaderValue::from_str(address) {
        upstream = upstream.header(HOST, host);
    }
    for name in [AUTHORIZATION, CONTENT_TYPE] {
        if let Some(value) = parts.headers.get(&name) {
            upstream = upstream.header(name, value);
        }
    }
    let upstream = upstream
        .body(Full::new(Bytes::from(body)))
        .map_err(|error| unreachable(format!("cannot be asked: {error}")))?;

    let exchange = async {
        let response = sender.send_request(upstream).await?;
        let (answer, body) = response.into_parts();
        let bytes = Limited::new(body, MAX_ANSWER)
            .collect()
            .await
            .map_err(|error| anyhow::anyhow!("{error}"))?
            .to_bytes();
        anyhow::Ok((answer, bytes))
    };
    let (answer, bytes) = tokio::time::timeout(ANSWER_WITHIN, exchange)
        .await
        .map_err(|_| {
            Answer::error(
                504,
                format!(
                    "the world's node at {address} did not answer within {} s",
                    ANSWER_WITHIN.as_secs()
                ),
            )
        })?
        .map_err(|error| unreachable(format!("answered nothing whole: {error:#}")))?;
    let mut response = Response::new(Body::from(bytes));
    *response.status_mut() = answer.status;
    if let Some(kind) = answer.headers.get(CONTENT_TYPE) {
        response.headers_mut().insert(CONTENT_TYPE, kind.clone());
    }
    Ok(response)
}
