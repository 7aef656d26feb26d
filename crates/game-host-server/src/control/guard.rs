//! The guards of the control surface, each a layer on the group of routes
//! it guards (`routes`), so what a request is checked for is decided by
//! where its route is declared, not by a list kept beside it:
//! - [`hosts`], on every request (unknown paths too): without a token, a
//!   `Host` that is not a loopback name or the listen address is refused
//!   (DNS rebinding);
//! - [`players`], on a player's stream: without a token, another site's
//!   `Origin` is refused, but for the origins the operator allowed;
//! - [`changes`], on every route that changes the worlds: without a token,
//!   another site's `Origin` or a `Content-Type` other than JSON's is
//!   refused; with one, the token is checked, before the body is read.
//!
//! - [`public`], on the public join (`POST /play`): a page of another
//!   site is refused unless the operator allowed its origin, and answered
//!   CORS when it did; a `Content-Type` other than JSON's is refused; joins
//!   are counted per client address (429 and `Retry-After` past the rate);
//!   a join another node of the fleet passed on, proven with the fleet's
//!   token, was checked there.
//!
//! And [`answered`], on every request: once its answer is on its way (any
//! but a stream's upgrade), the connection waits on its client again.

use std::sync::Arc;

use std::net::IpAddr;
use std::time::Instant;

use axum::extract::{Request, State};
use axum::http::header::{ORIGIN, RETRY_AFTER};
use axum::http::{HeaderMap, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::answer::Answer;
use super::cross_site;
use super::origins::AllowedOrigins;
use super::peer::RELAYED;
use super::rate::ClientAddress;
use super::shed::Waiting;
use super::state::ControlState;

/// Without a token, only this server's own names are answered.
pub(super) async fn hosts(
    state: State<Arc<ControlState>>,
    request: Request,
    next: Next,
) -> Response {
    without_token(state, request, next, false).await
}

/// A player's stream: without a token, only from this server's own pages
/// and those of the origins allowed (its token is the player's, checked by
/// the world's hub).
pub(super) async fn players(
    state: State<Arc<ControlState>>,
    request: Request,
    next: Next,
) -> Response {
    without_token(state, request, next, true).await
}

/// The cross-site checks a surface without a token makes (`changes`: of
/// `Origin` too, not only of `Host`).
async fn without_token(
    State(state): State<Arc<ControlState>>,
    request: Request,
    next: Next,
    changes: bool,
) -> Response {
    if state.token.is_none()
        && let Err(refused) =
            cross_site::check(request.headers(), changes, state.listen, &state.origins)
    {
        return refused.into_response();
    }
    next.run(request).await
}

/// Set on a request whose control token was checked and found right, so
/// that nothing checks it again.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Authorized;

/// A request that changes the worlds: the token, when one is set;
/// otherwise no other site's.
pub(super) async fn changes(
    State(state): State<Arc<ControlState>>,
    mut request: Request,
    next: Next,
) -> Response {
    let checked = match &state.token {
        Some(token) => token.check(request.headers()),
        None => cross_site::check(
            request.headers(),
            true,
            state.listen,
            &AllowedOrigins::none(),
        ),
    };
    match checked {
        Ok(()) => {
            request.extensions_mut().insert(Authorized);
            next.run(request).await
        }
        Err(refused) => refused.into_response(),
    }
}

/// The public join: no token, but only pages of the origins allowed (and,
/// without a token, of this server's own loopback names); joins counted
/// per client address. Every answer to an allowed page, a refusal of its
/// join included, carries CORS, so the page can read why.
pub(super) async fn public(
    State(state): State<Arc<ControlState>>,
    request: Request,
    next: Next,
) -> Response {
    let headers = request.headers();
    // A join another node of the fleet passed on: that node checked its
    // page and counted its client (here it would count as the node).
    if passed_on_by_a_peer(&state, headers) {
        return next.run(request).await;
    }
    let origin = headers
        .get(ORIGIN)
        .map(|origin| origin.to_str().unwrap_or("?").to_owned());
    let checked = match &state.token {
        None => cross_site::check(headers, true, state.listen, &state.origins),
        Some(_) => allowed_origin(origin.as_deref(), &state.origins)
            .and_then(|()| cross_site::json_only(headers)),
    };
    if let Err(refused) = checked {
        return refused.into_response();
    }
    let preflight = request.method() == Method::OPTIONS;
    // A request that came some other way than a connection (none does
    // today) is counted as one client, never let through uncounted.
    let address = request
        .extensions()
        .get::<ClientAddress>()
        .map_or(IpAddr::from([0, 0, 0, 0]), |ClientAddress(address)| {
            *address
        });
    let mut response = match &state.play {
        Some(playing) if !preflight => match playing.buckets.take(address, Instant::now()) {
            Ok(()) => next.run(request).await,
            Err(wait) => {
                let seconds = wait.as_secs_f64().ceil().max(1.0) as u64;
                let mut refused = Answer::error(
                    429,
                    format!("too many joins from this address: join again in {seconds} s"),
                )
                .into_response();
                refused.headers_mut().insert(RETRY_AFTER, seconds.into());
                refused
            }
        },
        _ => next.run(request).await,
    };
    (state.origins).answer(origin.as_deref(), response.headers_mut(), preflight);
    response
}

/// Whether `headers` are those of a request another node of the fleet
/// passed on ([`RELAYED`]), proven with the fleet's token
/// ([`ControlToken::peer_proof`](super::auth::ControlToken::peer_proof));
/// without a token, the surface is reached from this machine alone.
pub(super) fn passed_on_by_a_peer(state: &ControlState, headers: &HeaderMap) -> bool {
    headers.contains_key(RELAYED)
        && state.server.directory().is_some()
        && state
            .token
            .as_ref()
            .is_none_or(|token| token.proves_peer(headers))
}

/// With a token the server may be reached under any name, and serves no
/// page that joins: a request from a page must come from an allowed origin.
fn allowed_origin(origin: Option<&str>, allowed: &AllowedOrigins) -> Result<(), Answer> {
    match origin {
        Some(origin) if !allowed.allows(origin) => Err(Answer::error(
            403,
            format!(
                "a page from `Origin: {origin}` may not let players in here (the operator allows \
                 the origins of --allow-origin)"
            ),
        )),
        _ => Ok(()),
    }
}

/// Marks the connection waiting on its client again once the answer is on
/// its way (a stream's upgrade leaves the connection instead).
pub(super) async fn answered(request: Request, next: Next) -> Response {
    let waiting = request.extensions().get::<Waiting>().cloned();
    let response = next.run(request).await;
    if response.status() != StatusCode::SWITCHING_PROTOCOLS
        && let Some(waiting) = waiting
    {
        waiting.waiting();
    }
    response
}
