//! A control request for a world another node of a fleet holds (or for a
//! new world another node has more room for): this node asks that node and
//! passes its answer back. A client talks to one address and follows no
//! redirect, so its token never goes to an address it did not choose
//! (`curl -L` and most HTTP clients drop `Authorization` on a redirect to
//! another host; some send it on), and it needs no other node's address.
//! The token crosses the fleet's own network in the clear: that network,
//! and Redis's password (whoever holds it can list a node), are trusted as
//! the token is.
//!
//! The request goes on as it came, within this surface's limits: its
//! method, path and query, its body (read whole, within `max_body` and
//! `body_timeout`), and of its headers `Authorization` and `Content-Type`
//! alone (the world's node checks the token again), and a read's `Origin`
//! (so the world's node answers a page of an allowed origin with CORS, as
//! it would have directly; a change's `Origin` this node checked, and to
//! the world's node the page's own would be another site's). `Host` names
//! the world's node, and [`RELAYED`] tells it to answer itself, so a
//! request is relayed once at most, even while the fleet's directory is
//! behind. The answer comes back with its status, the headers of
//! [`PASSED_BACK`] (the view page's security headers and the CORS headers
//! among them) and its body (at most [`MAX_ANSWER`] bytes, within
//! [`ANSWER_WITHIN`]). While it is relayed, the connection is being
//! answered, and is never the one shed. A node that cannot be reached is a
//! 502, one that does not answer in time a 504; the client is not told its
//! address (the log is).

use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::extract::Request;
use axum::http::header::{
    ACCESS_CONTROL_ALLOW_ORIGIN, ACCESS_CONTROL_EXPOSE_HEADERS, AUTHORIZATION, CACHE_CONTROL,
    CONTENT_SECURITY_POLICY, CONTENT_TYPE, HOST, HeaderName, ORIGIN, REFERRER_POLICY, RETRY_AFTER,
    VARY, WWW_AUTHENTICATE,
};
use axum::http::{HeaderValue, Method, Response};
use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper_util::rt::TokioIo;

use super::answer::Answer;
use super::extract::take_body;
use super::peer::{CONNECT_WITHIN, RELAYED, warn_unreached};
use super::peer_link::PeerLink;
use super::state::ControlState;

/// How long the world's node may take to answer (a world stopped or
/// started there answers when it has).
const ANSWER_WITHIN: Duration = Duration::from_secs(60);

/// The largest answer taken from the world's node: a stopped world's
/// report holds its scene (a world of 5,000 entities reports in about
/// 1 MB).
const MAX_ANSWER: usize = 16 << 20;

/// The headers of the world's node's answer that come back with it.
const PASSED_BACK: [HeaderName; 9] = [
    CONTENT_TYPE,
    CACHE_CONTROL,
    REFERRER_POLICY,
    CONTENT_SECURITY_POLICY,
    WWW_AUTHENTICATE,
    RETRY_AFTER,
    ACCESS_CONTROL_ALLOW_ORIGIN,
    ACCESS_CONTROL_EXPOSE_HEADERS,
    VARY,
];

/// Asks the node at `address` for `path_and_query` with `request`'s
/// method, token and body, and answers with what it answered.
pub(super) async fn relay(
    state: &Arc<ControlState>,
    address: &str,
    path_and_query: &str,
    request: Request,
) -> Result<Response<Body>, Answer> {
    let (parts, body) = request.into_parts();
    let body = take_body(&parts, body, &state.limits).await?;
    let read = parts.method == Method::GET || parts.method == Method::HEAD;
    let origin = read.then_some(ORIGIN);
    let passed = [AUTHORIZATION, CONTENT_TYPE]
        .into_iter()
        .chain(origin)
        .filter_map(|name| Some((name.clone(), parts.headers.get(&name)?.clone())))
        .collect();
    ask_node(
        &state.peers,
        address,
        parts.method,
        path_and_query,
        passed,
        body,
    )
    .await
}

/// Asks the node at `address` for `path_and_query` with `method`, the
/// headers `passed` and `body`, marked [`RELAYED`], and answers with what
/// it answered.
pub(super) async fn ask_node(
    peers: &PeerLink,
    address: &str,
    method: Method,
    path_and_query: &str,
    passed: Vec<(HeaderName, HeaderValue)>,
    body: String,
) -> Result<Response<Body>, Answer> {
    // The client is told what failed; the log, where.
    let path = path_and_query.split('?').next().unwrap_or_default();
    let failed = |status: u16, why: String| {
        warn_unreached(format_args!(
            "relaying {path} to the world's node at {address}: {why}"
        ));
        Answer::error(status, format!("the world's node {why}"))
    };
    let unreachable = |why: String| failed(502, why);
    let stream = tokio::time::timeout(CONNECT_WITHIN, peers.connect(address))
        .await
        .map_err(|_| {
            failed(
                504,
                format!("did not answer within {} s", CONNECT_WITHIN.as_secs()),
            )
        })?
        .map_err(|error| unreachable(format!("cannot be reached: {error}")))?;
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(|error| unreachable(format!("cannot be asked: {error}")))?;
    // The connection ends with the exchange (the sender is dropped).
    tokio::spawn(connection);

    let mut upstream = axum::http::Request::builder()
        .method(method)
        .uri(path_and_query)
        .header(RELAYED, HeaderValue::from_static("1"));
    if let Ok(host) = HeaderValue::from_str(address) {
        upstream = upstream.header(HOST, host);
    }
    for (name, value) in passed {
        upstream = upstream.header(name, value);
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
            failed(
                504,
                format!("did not answer within {} s", ANSWER_WITHIN.as_secs()),
            )
        })?
        .map_err(|error| unreachable(format!("answered nothing whole: {error:#}")))?;
    let mut response = Response::new(Body::from(bytes));
    *response.status_mut() = answer.status;
    for name in PASSED_BACK {
        if let Some(value) = answer.headers.get(&name) {
            response.headers_mut().insert(name, value.clone());
        }
    }
    Ok(response)
}
