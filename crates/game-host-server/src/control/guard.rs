//! The guards of the control surface, each a layer on the group of routes
//! it guards (`routes`), so what a request is checked for is decided by
//! where its route is declared, not by a list kept beside it:
//! - [`hosts`], on every request (unknown paths too): without a token, a
//!   `Host` that is not a loopback name or the listen address is refused
//!   (DNS rebinding);
//! - [`players`], on a player's stream: without a token, another site's
//!   `Origin` is refused;
//! - [`changes`], on every route that changes the worlds: without a token,
//!   another site's `Origin` or a `Content-Type` other than JSON's is
//!   refused; with one, the token is checked, before the body is read.
//!
//! And [`answered`], on every request: once its answer is on its way (any
//! but a stream's upgrade), the connection waits on its client again.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::cross_site;
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
/// (its token is the player's, checked by the world's hub).
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
        && let Err(refused) = cross_site::check(request.headers(), changes, state.listen)
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
        None => cross_site::check(request.headers(), true, state.listen),
    };
    match checked {
        Ok(()) => {
            request.extensions_mut().insert(Authorized);
            next.run(request).await
        }
        Err(refused) => refused.into_response(),
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
