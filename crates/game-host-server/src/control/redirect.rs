//! A fleet's node answers for every world of the fleet: a layer over the
//! routes that name a world (and over `POST /worlds`) sends the request to
//! the node that should answer it. A request for a world another node
//! holds is redirected there (`307`, which keeps the method and body), a
//! player's stream is forwarded there instead (`forward`: a browser's
//! WebSocket cannot follow a redirect), and `POST /worlds` goes to the node
//! with the most room. The fleet's Redis is asked off the event loop.
//! Each layer sits inside its routes' guards: what needs the token is not
//! sent on (nor is where it would go said) without it.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{FromRequestParts, RawPathParams, Request, State};
use axum::http::header::{CONTENT_TYPE, HeaderValue, LOCATION};
use axum::http::{Method, Response, StatusCode};
use axum::middleware::Next;
use axum::response::IntoResponse;

use super::extract::world_id;
use super::forward;
use super::state::ControlState;

/// Where a request goes instead of this node, if anywhere: the node's
/// address, and whether it places a new world there. The request comes
/// back whole.
async fn elsewhere(
    state: &Arc<ControlState>,
    request: Request,
) -> (Request, Option<(String, bool)>) {
    let Some(directory) = state.server.directory().cloned() else {
        return (request, None);
    };
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

/// Redirects a request for a world (or a new world) another node should
/// answer there.
pub(super) async fn redirect(
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
    let location = match (placing, query.is_empty()) {
        (true, true) => format!("http://{address}{}?placed", uri.path()),
        (true, false) => format!("http://{address}{}?{query}&placed", uri.path()),
        (false, true) => format!("http://{address}{}", uri.path()),
        (false, false) => format!("http://{address}{}?{query}", uri.path()),
    };
    let Ok(value) = HeaderValue::from_str(&location) else {
        return next.run(request).await;
    };
    let body = format!("{{\"redirect\":{}}}\n", serde_json::json!(location));
    let mut response = Response::new(Body::from(body));
    *response.status_mut() = StatusCode::TEMPORARY_REDIRECT;
    let headers = response.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    headers.insert(LOCATION, value);
    response
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
