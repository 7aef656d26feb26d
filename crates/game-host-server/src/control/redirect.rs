//! A fleet's node answers for every world of the fleet: a request for a
//! world another node holds is redirected to that node (`307`, which
//! keeps the method and body; a player's stream is forwarded instead, see
//! `forward`), and `POST /worlds` goes to the node with the most room. The
//! engine is asked off the event loop.

use std::sync::Arc;

use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::header::{CONTENT_TYPE, HeaderValue, LOCATION};
use hyper::{Request, Response, StatusCode};

use super::routes::Route;
use super::state::ControlState;

/// The node that should answer a request instead of this one, when
/// another node of the fleet should (its address), with the redirect to it;
/// `None` to answer here. (A stream is forwarded there instead, by the
/// `forward` module, for clients that cannot follow a redirect.)
pub(super) async fn elsewhere(
    context: &Arc<ControlState>,
    route: Option<&Route>,
    request: &Request<Incoming>,
) -> Option<(String, Response<Full<Bytes>>)> {
    let node = context.fleet.get()?.clone();
    let route = *route?;
    // What needs the token is not sent on (nor is where it would go said)
    // without it: the request is answered here, with its refusal.
    if route.mutates()
        && let Some(token) = &context.token
        && token.check(request.headers()).is_err()
    {
        return None;
    }
    let uri = request.uri();
    let query = uri.query().unwrap_or_default();
    let placing = route == Route::StartWorld && !query.split('&').any(|p| p == "placed");
    let world = route.world();
    if world.is_none() && !placing {
        return None;
    }
    let server = context.server.clone();
    let address = tokio::task::spawn_blocking(move || match world {
        Some(id) => node.redirect_for(&server, id),
        None => node.place_elsewhere(&server),
    })
    .await
    .ok()??;
    // A placed world is not placed again by the node it goes to.
    let location = match (placing, query.is_empty()) {
        (true, true) => format!("http://{address}{}?placed", uri.path()),
        (true, false) => format!("http://{address}{}?{query}&placed", uri.path()),
        (false, true) => format!("http://{address}{}", uri.path()),
        (false, false) => format!("http://{address}{}?{query}", uri.path()),
    };
    let body = format!("{{\"redirect\":{}}}\n", serde_json::json!(location));
    let mut response = Response::new(Full::new(Bytes::from(body)));
    *response.status_mut() = StatusCode::TEMPORARY_REDIRECT;
    let headers = response.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    headers.insert(LOCATION, HeaderValue::from_str(&location).ok()?);
    Some((address, response))
}
