//! A fleet's node answers for every world of the fleet: a layer over the
//! routes that name a world (and over `POST /worlds`) sends the request to
//! the node that should answer it. A request for a world another node
//! holds is relayed there and its answer passed back (`relay`), a player's
//! stream is forwarded there (`forward`), and `POST /worlds` goes to the
//! node with the most room: a client needs one address, and follows no
//! redirect with its token. The fleet's Redis is asked off the event loop.
//! Each layer sits inside its routes' guards: what needs the token is not
//! sent on without it.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{FromRequestParts, RawPathParams, Request, State};
use axum::http::{Method, Response};
use axum::middleware::Next;
use axum::response::IntoResponse;

use super::extract::world_id;
use super::forward;
use super::relay::{RELAYED, relay};
use super::state::ControlState;

/// Where a request goes instead of this node, if anywhere: the node's
/// address, and whether it places a new world there. The request comes
/// back whole. One another node relayed here is answered here.
async fn elsewhere(
    state: &Arc<ControlState>,
    request: Request,
) -> (Request, Option<(String, bool)>) {
    let Some(directory) = state.server.directory().cloned() else {
        return (request, None);
    };
    if request.headers().contains_key(RELAYED) {
        return (request, None);
    }
    let (mut parts, body) = request.into_parts();
    let world = RawPathParams::from_request_parts(&mut parts, &())
        .await
        .ok()
        .and_then(|params| {
            let id = params.iter().find(|(key, _)| *key == "id")?.1;
            world_id(id).ok()
        });
    let request = Request::from_parts(parts, body);
    let placing = request.method() == Method::POST
        && request.uri().path() == "/worlds"
        && !request
            .uri()
            .query()
            .unwrap_or_default()
            .split('&')
            .any(|p| p == "placed");
    if world.is_none() && !placing {
        return (request, None);
    }
    let server = state.server.clone();
    let address = tokio::task::spawn_blocking(move || match world {
        // A world this server runs is answered here.
        Some(id) if server.thread_of_world(id).is_some() => None,
        Some(id) => directory.locate(id.0),
        None => directory.place_elsewhere(server.free_slots()),
    })
    .await
    .ok()
    .flatten();
    (request, address.map(|address| (address, placing)))
}

/// Relays a request for a world (or a new world) another node should
/// answer there, and answers with its answer.
pub(super) async fn answer_there(
    State(state): State<Arc<ControlState>>,
    request: Request,
    next: Next,
) -> Response<Body> {
    let (request, elsewhere) = elsewhere(&state, request).await;
    let Some((address, placing)) = elsewhere else {
        return next.run(request).await;
    };
    let uri = request.uri();
    let query = uri.query().unwrap_or_default();
    // A placed world is not placed again by the node it goes to.
    let path = match (placing, query.is_empty()) {
        (true, true) => format!("{}?placed", uri.path()),
        (true, false) => format!("{}?{query}&placed", uri.path()),
        (false, true) => uri.path().to_owned(),
        (false, false) => format!("{}?{query}", uri.path()),
    };
    match relay(&state, &address, &path, request).await {
        Ok(response) => response,
        Err(answer) => answer.into_response(),
    }
}

/// Forwards a player's stream for a world another node holds there.
pub(super) async fn forward_stream(
    State(state): State<Arc<ControlState>>,
    request: Request,
    next: Next,
) -> Response<Body> {
    match elsewhere(&state, request).await {
        (request, Some((address, _))) => match forward::forward(&state, &address, request).await {
            Ok(response) => response,
            Err(answer) => answer.into_response(),
        },
        (request, None) => next.run(request).await,
    }
}
