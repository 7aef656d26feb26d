//! The control surface's routes, each declared once ([`table`]): its
//! method, its path and its handler, whose extractors say what it reads.
//! What guards a route follows from how it is declared, never from a list
//! kept beside it:
//!
//! | declared with | methods | guards (outermost first) |
//! | --- | --- | --- |
//! | [`read`] | `GET` alone | the fleet's relay to the world's node (`elsewhere`) |
//! | [`stream`] | `GET` (a WebSocket) | another site refused (`guard::players`), the fleet's forward |
//! | [`change`] | any | the token, or another site refused (`guard::changes`), then the fleet's relay |
//! | [`public`] | `POST` (and its preflight) | sites not allowed refused, joins counted per address (`guard::public`) |
//!
//! So a route that changes the worlds cannot be declared unguarded: `read`
//! makes only `GET` routes, every other method comes through `change`,
//! and `public` only for the public join, which its guard rate-limits. On every request, before its route: `Host` checked without a
//! token (`guard::hosts`), and the connection marked waiting again once
//! answered (`guard::answered`). 404 and 405 come from the router, in the
//! surface's JSON.

use std::sync::Arc;

use axum::Router;
use axum::handler::Handler;
use axum::http::{Method, Uri};
use axum::middleware::{from_fn, from_fn_with_state};
use axum::routing::{MethodFilter, MethodRouter, get, on};

use super::answer::Answer;
use super::state::ControlState;
use super::{elsewhere, guard, handlers, upgrade};

/// What guards a route.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Guard {
    /// Open to probes, scrapers and players: it changes nothing.
    Read,
    /// A player's stream: the player's token, checked by the world's hub.
    Stream,
    /// It changes the worlds: the control token.
    Change,
    /// It lets a player in without a token: pages of allowed origins,
    /// joins counted per client address.
    Public,
}

type State = Arc<ControlState>;

/// One route, as declared.
pub(crate) struct Declared {
    pub guard: Guard,
    /// Its method, as its route takes it (what the route test enumerates).
    #[cfg_attr(not(test), expect(dead_code, reason = "read by the route test"))]
    pub method: Method,
    pub path: &'static str,
    route: MethodRouter<State>,
}

/// A route that changes nothing: `GET` alone.
fn read<H, T>(path: &'static str, handler: H) -> Declared
where
    H: Handler<T, State>,
    T: 'static,
{
    change_nothing(Guard::Read, path, handler)
}

/// A player's stream.
fn stream<H, T>(path: &'static str, handler: H) -> Declared
where
    H: Handler<T, State>,
    T: 'static,
{
    change_nothing(Guard::Stream, path, handler)
}

/// A `GET` route under `guard`.
fn change_nothing<H, T>(guard: Guard, path: &'static str, handler: H) -> Declared
where
    H: Handler<T, State>,
    T: 'static,
{
    Declared {
        guard,
        method: Method::GET,
        path,
        route: get(handler),
    }
}

/// A route that changes the worlds.
fn change<H, T>(method: Method, path: &'static str, handler: H) -> Declared
where
    H: Handler<T, State>,
    T: 'static,
{
    let filter = MethodFilter::try_from(method.clone()).expect("a method routes can take");
    Declared {
        guard: Guard::Change,
        method,
        path,
        route: on(filter, handler),
    }
}

/// The public join: `POST` without a token, and the preflight of a page
/// of another origin (`OPTIONS`), both through `guard::public`.
fn public<H, T>(path: &'static str, handler: H) -> Declared
where
    H: Handler<T, State>,
    T: 'static,
{
    Declared {
        guard: Guard::Public,
        method: Method::POST,
        path,
        route: axum::routing::post(handler).options(crate::control::play::preflight),
    }
}

/// Every route of the control surface.
pub(crate) fn table() -> Vec<Declared> {
    use handlers::*;
    vec![
        read("/healthz", health),
        read("/readyz", ready),
        read("/metrics", metrics),
        read("/worlds", worlds),
        read("/worlds/{id}", world_status),
        read("/worlds/{id}/view", view),
        read("/worlds/{id}/players", players),
        read("/worlds/{id}/predictor/{name}", predictor_file),
        read("/client/{name}", client_file),
        stream("/worlds/{id}/stream", upgrade::stream),
        change(Method::POST, "/worlds", start),
        change(Method::DELETE, "/worlds/{id}", stop),
        change(Method::POST, "/worlds/{id}/events", send_event),
        change(Method::POST, "/worlds/{id}/players", admit),
        change(Method::DELETE, "/worlds/{id}/players/{player}", remove),
        public("/play", super::play::play),
    ]
}

/// The router of [`table`], each group under its guards.
pub(super) fn router(state: State) -> Router {
    let mut reads = Router::new();
    let mut streams = Router::new();
    let mut changes = Router::new();
    let mut public = Router::new();
    for declared in table() {
        let group = match declared.guard {
            Guard::Read => &mut reads,
            Guard::Stream => &mut streams,
            Guard::Change => &mut changes,
            Guard::Public => &mut public,
        };
        *group = std::mem::take(group).route(declared.path, declared.route);
    }
    // Layers added later run first: a guard before the fleet's layer.
    let reads = reads.route_layer(from_fn_with_state(state.clone(), elsewhere::answer_there));
    let streams = streams
        .route_layer(from_fn_with_state(state.clone(), elsewhere::forward_stream))
        .route_layer(from_fn_with_state(state.clone(), guard::players));
    let changes = changes
        .route_layer(from_fn_with_state(state.clone(), elsewhere::answer_there))
        .route_layer(from_fn_with_state(state.clone(), guard::changes));
    let public = public.route_layer(from_fn_with_state(state.clone(), guard::public));
    Router::new()
        .merge(reads)
        .merge(streams)
        .merge(changes)
        .merge(public)
        .fallback(not_found)
        .method_not_allowed_fallback(not_allowed)
        .layer(from_fn_with_state(state.clone(), guard::hosts))
        .layer(from_fn(guard::answered))
        .with_state(state)
}

async fn not_found(uri: Uri) -> Answer {
    Answer::error(404, format!("no such endpoint: {}", uri.path()))
}

async fn not_allowed(method: Method, uri: Uri) -> Answer {
    Answer::error(405, format!("{method} is not allowed on {}", uri.path()))
}

#[cfg(test)]
mod tests {
    use super::*;

    use std::sync::atomic::AtomicBool;

    use axum::body::Body;
    use axum::http::{Request, StatusCode};
    use tokio::sync::Semaphore;
    use tower::ServiceExt;

    use crate::control::{Catalog, ControlLimits, ControlToken};
    use crate::{Server, ServerConfig, StreamLimits};

    /// A surface on a server of no worlds, with a control token.
    fn state() -> State {
        Arc::new(ControlState {
            listen: "127.0.0.1:9464".parse().unwrap(),
            server: Arc::new(
                Server::start(ServerConfig {
                    threads: 1,
                    ..ServerConfig::default()
                })
                .unwrap(),
            ),
            catalog: Catalog::default(),
            token: Some(ControlToken::new("a-token-of-sixteen-chars").unwrap()),
            limits: ControlLimits::default(),
            streams: StreamLimits::default(),
            stream_slots: Arc::new(Semaphore::new(1)),
            starting: AtomicBool::new(false),
            play: None,
            origins: crate::control::AllowedOrigins::none(),
            peers: Default::default(),
        })
    }

    /// A declared path with its parameters filled in.
    fn concrete(path: &str) -> String {
        path.replace("{id}", "1")
            .replace("{player}", "1")
            .replace("{name}", "index.js")
    }

    async fn status(router: &Router, method: Method, path: &str) -> StatusCode {
        let request = Request::builder()
            .method(method)
            .uri(path)
            .header("host", "127.0.0.1:9464")
            .body(Body::empty())
            .unwrap();
        router.clone().oneshot(request).await.unwrap().status()
    }

    #[tokio::test]
    async fn no_route_that_changes_the_worlds_is_reachable_without_the_token() {
        let declared = table();
        for route in &declared {
            assert!(
                route.method == Method::GET || matches!(route.guard, Guard::Change | Guard::Public),
                "{} {} changes the worlds and is not declared with `change`",
                route.method,
                route.path
            );
        }
        // The one public route is the join, and it is off by default.
        let public: Vec<_> = declared
            .iter()
            .filter(|route| route.guard == Guard::Public)
            .map(|route| route.path)
            .collect();
        assert_eq!(public, ["/play"]);
        // Every path, with every method that could change something, and
        // no token: refused (401), or not a route (405).
        let router = router(state());
        let mut paths: Vec<&str> = declared
            .iter()
            .filter(|route| route.guard != Guard::Public)
            .map(|route| route.path)
            .collect();
        paths.dedup();
        for path in paths {
            let path = concrete(path);
            for method in [Method::POST, Method::PUT, Method::PATCH, Method::DELETE] {
                let status = status(&router, method.clone(), &path).await;
                assert!(
                    status == StatusCode::UNAUTHORIZED || status == StatusCode::METHOD_NOT_ALLOWED,
                    "{method} {path} answered {status} without the token"
                );
            }
        }
        assert_eq!(
            status(&router, Method::POST, "/play").await,
            StatusCode::NOT_FOUND,
            "a server without --play lets no player in without its operator"
        );
        // The reads stay open, and an unknown path is a 404.
        assert_eq!(
            status(&router, Method::GET, "/healthz").await,
            StatusCode::OK
        );
        assert_eq!(
            status(&router, Method::GET, "/worlds").await,
            StatusCode::OK
        );
        assert_eq!(
            status(&router, Method::GET, "/worlds/1").await,
            StatusCode::NOT_FOUND
        );
        assert_eq!(
            status(&router, Method::GET, "/nope").await,
            StatusCode::NOT_FOUND
        );
    }

    /// The book's HTTP reference lists every route with its guard, and no
    /// route the server does not have.
    #[test]
    fn the_books_http_reference_lists_every_route_and_only_those() {
        let declared: Vec<(String, String)> = table()
            .iter()
            .map(|route| {
                let guard = match route.guard {
                    Guard::Read => "open",
                    Guard::Stream => "stream",
                    Guard::Change => "change",
                    Guard::Public => "public",
                };
                (format!("{} {}", route.method, route.path), guard.to_owned())
            })
            .collect();
        game_host::book_tables::assert_lists_exactly("http.md", None, &declared);
    }
}
