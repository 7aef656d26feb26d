//! The HTTP control surface of a [`Server`], for operators, fleet managers
//! and tests: hyper on a small tokio runtime of its own thread, built for
//! clients that may be hostile. Bodies are JSON.
//!
//! | request | answer |
//! | --- | --- |
//! | `GET /healthz` | 200 while the process runs |
//! | `GET /readyz` | 200 while it accepts worlds; 503 `starting`, `draining` or `full` |
//! | `GET /metrics` | Prometheus metrics (text exposition format) |
//! | `GET /worlds` | the running worlds: id, thread, frame, instances, ...; and each world of the state directory that could not be resumed: `{"id": 3, "failed": "why"}` |
//! | `GET /worlds/7` | one world's status, and each script's milliseconds per frame (p50, p99, last) |
//! | `POST /worlds` `{"scripts": ["name"], "frames": 600}` (both optional) | 201 `{"id": 7, "thread": 1}` |
//! | `DELETE /worlds/7` | 200 and the world's report (frames, reason, errors, scene) |
//! | `POST /worlds/7/events` `{"press": "enter"}`, `{"release": "e"}` or `{"send": {"channel": "c", "payload": "p"}}` | 202 |
//! | `POST /worlds/7/players` | 201 `{"player": 1, "token": "...", "stream": "/worlds/7/stream?token=...", "view": ...}` |
//! | `DELETE /worlds/7/players/1` | 200; the player leaves the world |
//! | `GET /worlds/7/stream?token=T` | a WebSocket: the player's stream (see [`crate::stream`]) |
//! | `GET /worlds/7/view?token=T` | a page that draws the world from the stream and sends its keys |
//! | `GET /client/index.js` (and the files it imports) | the players' client library the page runs on |
//!
//! A node of a fleet answers for every world of the fleet: a request for a
//! world another node holds, or a new world that another node has more
//! room for, is redirected there (`307`, see `redirect`), and a player's
//! stream is forwarded there (`forward`).
//!
//! What no client can do, whatever it sends ([`ControlLimits`]):
//! - hold a connection open without sending: headers (and the idle time
//!   between requests) have a timeout, bodies another;
//! - make the host read or allocate a large body: a declared length over
//!   the limit is answered 413 before a byte of it is read, and a body that
//!   grows past it while arriving likewise;
//! - exhaust threads or descriptors: connections past a cap are closed on
//!   accept, and a failed accept (EMFILE) is logged and survived;
//! - crowd out health probes by holding every connection open with slow
//!   headers or bodies: when all are taken, the one that waited longest on
//!   its client is closed to make room ([`shed`]), so a probe gets through
//!   a flood of slow clients;
//! - hold up a shutdown: answers under way get a short drain, then every
//!   connection is closed;
//! - change the worlds without the bearer token ([`ControlToken`]), when
//!   one is set; without one, the surface only listens on loopback.
//!
//! A body that is cut off, or not UTF-8, is refused with 400; nothing of it
//! is used.

mod auth;
mod client_files;
mod cross_site;
mod forward;
mod limits;
mod redirect;
mod routes;
mod shed;
mod state;
mod upgrade;

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use bytes::Bytes;
use http_body_util::{BodyExt, Full, LengthLimitError, Limited};
use hyper::body::Incoming;
use hyper::header::{
    CACHE_CONTROL, CONTENT_LENGTH, CONTENT_SECURITY_POLICY, CONTENT_TYPE, HeaderValue,
    REFERRER_POLICY, WWW_AUTHENTICATE,
};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::sync::{Semaphore, watch};

use super::Server;
use crate::stream::StreamLimits;
use routes::{Answer, Asked, Route};
use shed::{Connection, Connections, Waiting};
use state::ControlState;

pub use auth::ControlToken;
pub use limits::ControlLimits;
pub use routes::Catalog;

/// How the control surface is set up.
#[derive(Clone, Default)]
pub struct ControlConfig {
    /// Where to listen, e.g. `127.0.0.1:9464` (port 0 picks a free one).
    pub listen: String,
    /// The bearer token `POST` and `DELETE` need. Without one the surface
    /// refuses to listen anywhere but on loopback.
    pub token: Option<ControlToken>,
    pub limits: ControlLimits,
    /// What each player's stream may do.
    pub streams: StreamLimits,
    /// Start with `/readyz` answering `starting` and `POST /worlds`
    /// refused, until [`ControlServer::launched`].
    pub starting: bool,
}

/// The HTTP listener and the thread that serves it; dropping it stops
/// serving (after the drain).
pub struct ControlServer {
    addr: SocketAddr,
    context: Arc<ControlState>,
    stop: watch::Sender<bool>,
    thread: Option<JoinHandle<()>>,
}

impl ControlServer {
    /// Listens on `config.listen` and serves requests on a thread of its
    /// own. Fails at once if the address cannot be bound, or is not
    /// loopback while no token is set.
    pub fn start(config: ControlConfig, server: Arc<Server>, catalog: Catalog) -> Result<Self> {
        let listener = std::net::TcpListener::bind(&config.listen)
            .with_context(|| format!("cannot listen on {}", config.listen))?;
        let addr = listener.local_addr()?;
        if config.token.is_none() && !addr.ip().is_loopback() {
            bail!(
                "refusing to serve the control surface on {addr} without a token: anyone who \
                 reaches it could start and stop worlds; give --control-token-file FILE (or \
                 {}), or listen on loopback",
                auth::TOKEN_ENV
            );
        }
        listener.set_nonblocking(true)?;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_io()
            .enable_time()
            // Requests that wait on loop threads or start a world run here.
            .max_blocking_threads(4)
            .thread_name("control-worker")
            .build()
            .context("failed to start the control surface's runtime")?;
        let context = Arc::new(ControlState {
            listen: addr,
            server,
            catalog,
            token: config.token,
            limits: config.limits,
            streams: config.streams,
            stream_slots: Arc::new(Semaphore::new(config.streams.max_streams)),
            starting: AtomicBool::new(config.starting),
            fleet: std::sync::OnceLock::new(),
        });
        let (stop, stopped) = watch::channel(false);
        let serving = context.clone();
        let thread = std::thread::Builder::new()
            .name("control".into())
            .spawn(move || {
                runtime.block_on(async move {
                    match tokio::net::TcpListener::from_std(listener) {
                        Ok(listener) => serve(listener, serving, stopped).await,
                        Err(error) => tracing::error!("control: cannot serve: {error}"),
                    }
                });
                // A request still starting a world on a worker thread is
                // not waited for.
                runtime.shutdown_background();
            })
            .context("failed to start the control thread")?;
        Ok(ControlServer {
            addr,
            context,
            stop,
            thread: Some(thread),
        })
    }

    /// Where it listens.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The server joined a fleet as `node`: requests for worlds other nodes
    /// hold are redirected there, and new worlds may go elsewhere.
    pub fn join_fleet(&self, node: Arc<crate::fleet::Node>) {
        let _ = self.context.fleet.set(node);
    }

    /// The server has launched its first worlds: `/readyz` may answer
    /// ready and `POST /worlds` start worlds.
    pub fn launched(&self) {
        self.context.starting.store(false, Ordering::Relaxed);
    }
}

impl Drop for ControlServer {
    fn drop(&mut self) {
        let _ = self.stop.send(true);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Accepts connections until told to stop, then drains.
async fn serve(
    listener: tokio::net::TcpListener,
    context: Arc<ControlState>,
    mut stop: watch::Receiver<bool>,
) {
    let limits = context.limits;
    let slots = Arc::new(Semaphore::new(limits.max_connections));
    let connections = Arc::new(Connections::default());
    let mut http = http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout)
        // Headers and pipelined requests a client may make the host buffer.
        .max_buf_size(64 << 10);
    let mut warned = Warned::default();
    loop {
        tokio::select! {
            _ = stop.changed() => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, _peer)) => {
                    let slot = match slots.clone().try_acquire_owned() {
                        Ok(slot) => slot,
                        Err(_) if connections.shed_slowest() => {
                            warned.warn(format_args!(
                                "control: {} connections open, the most allowed; closing the \
                                 ones that waited longest on their clients ({} so far)",
                                limits.max_connections,
                                connections.shed_count()
                            ));
                            // The closed one gives its slot back as soon as
                            // its task runs.
                            let freed = slots.clone().acquire_owned();
                            match tokio::time::timeout(Duration::from_millis(100), freed).await {
                                Ok(Ok(slot)) => slot,
                                _ => continue,
                            }
                        }
                        Err(_) => {
                            warned.warn(format_args!(
                                "control: {} connections are being answered, the most \
                                 allowed; closing new ones",
                                limits.max_connections
                            ));
                            continue;
                        }
                    };
                    let _ = stream.set_nodelay(true);
                    let context = context.clone();
                    let Connection { waiting, shed, place } = connections.open();
                    let connection = http
                        .serve_connection(
                            TokioIo::new(stream),
                            service_fn(move |request| {
                                handle(context.clone(), waiting.clone(), request)
                            }),
                        )
                        // A player's stream leaves as a WebSocket (`upgrade`).
                        .with_upgrades();
                    let stopped = stopped(stop.clone());
                    tokio::spawn(async move {
                        tokio::pin!(connection);
                        tokio::select! {
                            _ = connection.as_mut() => {}
                            () = stopped => {
                                connection.as_mut().graceful_shutdown();
                                let _ = connection.await;
                            }
                            // Closed to make room for a new client.
                            _ = shed => {}
                        }
                        drop(place);
                        drop(slot);
                    });
                }
                Err(error) => {
                    // Out of descriptors (EMFILE) or a connection reset
                    // before it was accepted: wait a little and go on.
                    warned.warn(format_args!("control: accepting a connection failed: {error}"));
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            },
        }
    }
    drop(listener);
    // Every connection gives its slot back once its answers are out.
    let all = limits.max_connections as u32;
    if tokio::time::timeout(limits.drain, slots.acquire_many(all))
        .await
        .is_err()
    {
        tracing::debug!("control: closing connections still open after the drain");
    }
}

/// Resolves once the surface is told to stop.
async fn stopped(mut stop: watch::Receiver<bool>) {
    loop {
        if *stop.borrow() {
            return;
        }
        if stop.changed().await.is_err() {
            return;
        }
    }
}

/// Logs a warning at most once a second.
#[derive(Default)]
struct Warned(Option<Instant>);

impl Warned {
    fn warn(&mut self, message: std::fmt::Arguments) {
        if self
            .0
            .is_none_or(|at| at.elapsed() >= Duration::from_secs(1))
        {
            self.0 = Some(Instant::now());
            tracing::warn!("{message}");
        }
    }
}

async fn handle(
    context: Arc<ControlState>,
    waiting: Waiting,
    request: Request<Incoming>,
) -> Result<Response<Full<Bytes>>, Infallible> {
    let route = Route::of(request.method(), request.uri().path());
    let changes = route
        .as_ref()
        .is_ok_and(|route| route.mutates() || matches!(route, Route::Stream(_)));
    let refused = match context.token {
        None => cross_site::check(request.headers(), changes, context.listen).err(),
        Some(_) => None,
    };
    let elsewhere = match refused {
        None => redirect::elsewhere(&context, route.as_ref().ok(), &request).await,
        Some(_) => None,
    };
    let answer = match (refused, route, elsewhere) {
        (_, Ok(Route::Stream(_)), Some((address, _))) => {
            match forward::forward(&context, &address, request).await {
                // As for a stream of this server's own (`upgrade`).
                Ok(response) => return Ok(response),
                Err(answer) => answer,
            }
        }
        (_, _, Some((_, response))) => {
            waiting.waiting();
            return Ok(response);
        }
        (Some(refused), _, None) => refused,
        (None, Ok(Route::Stream(id)), None) => match upgrade::upgrade(&context, id, request) {
            Ok(response) => return Ok(response),
            Err(answer) => answer,
        },
        (None, _, None) => answer(&context, &waiting, request).await,
    };
    // The answer is on its way: the connection waits on its client again.
    waiting.waiting();
    let mut response = Response::new(Full::new(Bytes::from(answer.body)));
    *response.status_mut() =
        StatusCode::from_u16(answer.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let headers = response.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static(answer.content_type));
    if answer.challenge {
        headers.insert(WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
    }
    if answer.content_type.starts_with("text/html") {
        // The view page's address holds a player's token: no referrer, no
        // cache, and nothing loaded or connected to but this server.
        headers.insert(REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
        headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
        headers.insert(
            CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(
                "default-src 'none'; script-src 'self' 'unsafe-inline'; \
                 style-src 'unsafe-inline'; connect-src 'self'; img-src 'self'",
            ),
        );
    }
    Ok(response)
}

/// Checks the request (route, token, body) in that order, each before
/// anything later is read, then answers it.
async fn answer(
    context: &Arc<ControlState>,
    waiting: &Waiting,
    request: Request<Incoming>,
) -> Answer {
    let (parts, body) = request.into_parts();
    let route = match Route::of(&parts.method, parts.uri.path()) {
        Ok(route) => route,
        Err(answer) => return answer,
    };
    if route.mutates()
        && let Some(token) = &context.token
        && let Err(answer) = token.check(&parts.headers)
    {
        return answer;
    }
    let body = match read_body(&parts.headers, body, &context.limits).await {
        Ok(body) => body,
        Err(answer) => return answer,
    };
    if !waiting.answering() {
        // Closed to make room for another client: answer nothing.
        return Answer::error(
            503,
            "the connection was closed to make room for another client",
        );
    }
    let starting = context.starting.load(Ordering::Relaxed);
    if route == Route::Metrics
        && let Some(node) = context.fleet.get()
    {
        node.publish(&context.server);
    }
    if route == Route::Ready
        && !starting
        && let Some(why) = context.fleet.get().and_then(|node| node.unready())
    {
        return Answer::text(503, format!("{why}\n"));
    }
    let asked = Asked {
        starting,
        trusted: context
            .token
            .as_ref()
            .is_none_or(|token| token.check(&parts.headers).is_ok()),
    };
    if !route.may_block() {
        return routes::answer(&context.server, &context.catalog, route, &body, asked);
    }
    let context = context.clone();
    tokio::task::spawn_blocking(move || {
        routes::answer(&context.server, &context.catalog, route, &body, asked)
    })
    .await
    .unwrap_or_else(|error| Answer::error(500, format!("the request failed: {error}")))
}

/// The whole body as UTF-8 text, within the limits.
async fn read_body(
    headers: &hyper::HeaderMap,
    body: Incoming,
    limits: &ControlLimits,
) -> Result<String, Answer> {
    let too_large = || {
        Answer::error(
            413,
            format!("the body is larger than {} bytes", limits.max_body),
        )
    };
    let declared = headers
        .get(CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|length| length > limits.max_body as u64) {
        return Err(too_large());
    }
    let collected = tokio::time::timeout(
        limits.body_timeout,
        Limited::new(body, limits.max_body).collect(),
    )
    .await
    .map_err(|_| {
        Answer::error(
            408,
            format!(
                "the body did not arrive within {} s",
                limits.body_timeout.as_secs_f64()
            ),
        )
    })?
    .map_err(|error| {
        if error.downcast_ref::<LengthLimitError>().is_some() {
            too_large()
        } else {
            Answer::error(400, format!("the body could not be read whole: {error}"))
        }
    })?;
    String::from_utf8(collected.to_bytes().to_vec())
        .map_err(|_| Answer::error(400, "the body is not UTF-8 text"))
}
