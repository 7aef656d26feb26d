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
use axum::http::header::{HeaderValue, RETRY_AFTER};
use axum::http::{Method, Response};
use axum::middleware::Next;
use axum::response::IntoResponse;

use super::answer::Answer;
use super::extract::world_id;
use super::forward;
use super::peer::RELAYED;
use super::relay::relay;
use super::state::ControlState;

/// Where a request is answered.
enum Where {
    /// By this node.
    Here,
    /// By the node at this address; `placing`: a new world placed there.
    There { address: String, placing: bool },
    /// Nowhere yet: another node relayed it here for a world this node
    /// does not hold (its directory was behind while the world moved).
    Moving(u64),
}

/// Where a request is answered. The request comes back whole.
async fn elsewhere(state: &Arc<ControlState>, request: Request) -> (Request, Where) {
    let Some(directory) = state.server.directory().cloned() else {
        return (request, Where::Here);
    };
    let relayed = request.headers().contains_key(RELAYED);
    let (mut parts, body) = request.into_parts();
    let world = RawPathParams::from_request_parts(&mut parts, &())
        .await
        .ok()
        .and_then(|params| {
            let id = params.iter().find(|(key, _)| *key == "id")?.1;
            world_id(id).ok()
        });
    let request = Request::from_parts(parts, body);
    if relayed {
        // Answered here, once: not sent on again.
        return match world {
            Some(id) if state.server.thread_of_world(id).is_none() => {
                (request, Where::Moving(id.0))
            }
            _ => (request, Where::Here),
        };
    }
    let placing = request.method() == Method::POST
        && request.uri().path() == "/worlds"
        && !request
            .uri()
            .query()
            .unwrap_or_default()
            .split('&')
            .any(|p| p == "placed");
    if world.is_none() && !placing {
        return (request, Where::Here);
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
    match address {
        Some(address) => (request, Where::There { address, placing }),
        None => (request, Where::Here),
    }
}

/// The answer to a request relayed here for a world on its way between
/// nodes: ask again in a second.
fn moving(world: u64) -> Response<Body> {
    let mut response = Answer::error(
        503,
        format!("world {world} is moving between nodes: ask again"),
    )
    .into_response();
    response
        .headers_mut()
        .insert(RETRY_AFTER, HeaderValue::from_static("1"));
    response
}

/// Relays a request for a world (or a new world) another node should
/// answer there, and answers with its answer.
pub(super) async fn answer_there(
    State(state): State<Arc<ControlState>>,
    request: Request,
    next: Next,
) -> Response<Body> {
    let (request, place) = elsewhere(&state, request).await;
    let (address, placing) = match place {
        Where::Here => return next.run(request).await,
        Where::Moving(world) => return moving(world),
        Where::There { address, placing } => (address, placing),
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
        (request, Where::There { address, .. }) => {
            match forward::forward(&state, &address, request).await {
                Ok(response) => response,
                Err(answer) => answer.into_response(),
            }
        }
        (_, Where::Moving(world)) => moving(world),
        (request, Where::Here) => next.run(request).await,
    }
}
