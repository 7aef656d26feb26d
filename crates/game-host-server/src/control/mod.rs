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
//! | `GET /worlds/7/players` | its players: `[{"player": 1, "connected": true}, ...]` |
//! | `DELETE /worlds/7/players/1` | 200; the player leaves the world |
//! | `GET /worlds/7/stream?token=T` | a WebSocket: the player's stream (see [`crate::stream`]) |
//! | `GET /worlds/7/view?token=T` | a page that draws the world from the stream and sends its keys |
//! | `GET /client/index.js` (and the files it imports) | the players' client library the page runs on |
//! | `POST /play` `{"game": "arena"}` (no token; with `--play`) | 201 `{"world": 7, "player": 1, "token": "...", "stream": ..., "view": ...}`: a seat in a world with room, or in a new one |
//!
//! A node of a fleet answers for every world of the fleet: a request for a
//! world another node holds, or a new world that another node has more
//! room for, is relayed there and its answer passed back (`elsewhere`,
//! `relay`), and a player's stream is forwarded there (`forward`).
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
//!   one is set; without one, the surface only listens on loopback;
//! - take seats without end through the public join (`POST /play`, off
//!   unless the server has a game to [`Play`]): joins are counted per
//!   client address ([`JoinRate`]), and a page of an origin the operator
//!   did not allow ([`AllowedOrigins`]) is refused.
//!
//! A body that is cut off, or not UTF-8, is refused with 400; nothing of it
//! is used.

mod answer;
mod auth;
mod client_files;
mod cross_site;
mod elsewhere;
mod extract;
mod forward;
mod guard;
mod handlers;
mod limits;
mod origins;
mod peer;
mod peer_link;
#[cfg(feature = "tls")]
mod peer_tls;
mod play;
mod playing;
mod rate;
mod relay;
mod routes;
mod shed;
mod state;
#[cfg(feature = "tls")]
mod tls;
#[cfg(not(feature = "tls"))]
mod tls_absent;
mod tls_files;
mod upgrade;
mod warned;

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use hyper::Request;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::sync::{Semaphore, watch};
use tower::ServiceExt;

use super::Server;
use crate::stream::StreamLimits;
use rate::ClientAddress;
use shed::{Connection, Connections};
use state::ControlState;
#[cfg(feature = "tls")]
use tls::Tls;
#[cfg(not(feature = "tls"))]
use tls_absent::Tls;
use warned::Warned;

pub use auth::ControlToken;
pub use limits::ControlLimits;
pub use origins::AllowedOrigins;
pub use playing::{EMPTY_WORLD_ENDS, Play};
pub use rate::JoinRate;
pub use state::Catalog;
pub use tls_files::TlsFiles;

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
    /// Serve https and wss (only) with this certificate and key, read
    /// again when they change; `None`: plain http and ws. A node of a
    /// fleet that serves TLS relays to the others over TLS too.
    pub tls: Option<TlsFiles>,
    /// The CA that issued the fleet's nodes' certificates, which a node
    /// that serves TLS trusts the others under (`None`: the platform's
    /// roots); they must be valid for a name of its own certificate.
    pub peer_ca: Option<std::path::PathBuf>,
    /// Let players join without a token (`POST /play`); `None`: only the
    /// operator admits players.
    pub play: Option<Play>,
    /// Pages of these origins may let players in, besides the server's
    /// own (CORS on `POST /play`; their players' streams taken).
    pub allow_origins: AllowedOrigins,
}

/// The HTTP listener and the thread that serves it; dropping it stops
/// serving (after the drain).
pub struct ControlServer {
    addr: SocketAddr,
    /// Whether it serves https and wss.
    secure: bool,
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
        let in_fleet = server.directory().is_some();
        let peers = peer_link(config.tls.as_ref(), config.peer_ca.as_deref(), in_fleet)?;
        let tls = config.tls.map(Tls::load).transpose()?.map(Arc::new);
        let secure = tls.is_some();
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
            play: config.play.map(playing::Playing::new),
            origins: config.allow_origins,
            peers,
        });
        let (stop, stopped) = watch::channel(false);
        let serving = context.clone();
        let thread = std::thread::Builder::new()
            .name("control".into())
            .spawn(move || {
                runtime.block_on(async move {
                    if let Some(tls) = &tls {
                        tokio::spawn(tls.clone().keep_fresh(stopped.clone()));
                    }
                    if serving.play.is_some() {
                        tokio::spawn(play::keep_tidy(serving.clone()));
                    }
                    match tokio::net::TcpListener::from_std(listener) {
                        Ok(listener) => serve(listener, serving, tls, stopped).await,
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
            secure,
            context,
            stop,
            thread: Some(thread),
        })
    }

    /// Where it listens.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Its URL's scheme: `https` with TLS, else `http`.
    pub fn scheme(&self) -> &'static str {
        if self.secure { "https" } else { "http" }
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

/// How a node of a fleet (`in_fleet`) that serves TLS (`tls`) reaches the
/// others: over TLS, under `ca` or the platform's roots; otherwise over
/// TCP (a server alone reaches none).
fn peer_link(
    tls: Option<&TlsFiles>,
    ca: Option<&std::path::Path>,
    in_fleet: bool,
) -> Result<peer_link::PeerLink> {
    match (tls, ca, in_fleet) {
        (_, Some(ca), false) => bail!(
            "--peer-ca `{}` without --fleet: a server alone relays to no other node",
            ca.display()
        ),
        (None, Some(ca), true) => bail!(
            "--peer-ca `{}` without --tls-cert: the nodes speak TLS to each other only when \
             they serve it",
            ca.display()
        ),
        #[cfg(feature = "tls")]
        (Some(files), ca, true) => Ok(peer_link::PeerLink::tls(peer_tls::PeerTls::load(
            files, ca,
        )?)),
        _ => Ok(peer_link::PeerLink::default()),
    }
}

/// Accepts connections until told to stop, then drains.
async fn serve(
    listener: tokio::net::TcpListener,
    context: Arc<ControlState>,
    tls: Option<Arc<Tls>>,
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
    let router = routes::router(context.clone());
    let mut warned = Warned::new();
    loop {
        tokio::select! {
            _ = stop.changed() => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, peer)) => {
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
                    let router = router.clone();
                    let Connection { waiting, mut shed, place } = connections.open();
                    let http = http.clone();
                    let tls = tls.clone();
                    let stop = stop.clone();
                    tokio::spawn(async move {
                        match tls {
                            None => answer(&http, stream, peer, router, waiting, stop, shed).await,
                            Some(tls) => {
                                // The handshake within the headers' time,
                                // and shed like a connection waiting on them.
                                let handshake =
                                    tokio::time::timeout(limits.header_timeout, tls.accept(stream));
                                let stream = tokio::select! {
                                    done = handshake => done.ok().and_then(Result::ok),
                                    _ = &mut shed => None,
                                };
                                if let Some(stream) = stream {
                                    answer(&http, stream, peer, router, waiting, stop, shed).await;
                                }
                            }
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

/// Answers one connection's requests (over TCP or TLS) until it closes,
/// the surface stops (after its answers under way), or it is shed to make
/// room for a new client.
async fn answer<S>(
    http: &http1::Builder,
    io: S,
    peer: SocketAddr,
    router: axum::Router,
    waiting: shed::Waiting,
    stop: watch::Receiver<bool>,
    shed: tokio::sync::oneshot::Receiver<()>,
) where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let connection = http
        .serve_connection(
            TokioIo::new(io),
            // Each request knows its connection's state (`shed`), for the
            // guards and the body reader.
            service_fn(move |mut request: Request<Incoming>| {
                request.extensions_mut().insert(waiting.clone());
                request.extensions_mut().insert(ClientAddress(peer.ip()));
                router.clone().oneshot(request)
            }),
        )
        // A player's stream leaves as a WebSocket (`upgrade`).
        .with_upgrades();
    tokio::pin!(connection);
    tokio::select! {
        _ = connection.as_mut() => {}
        () = stopped(stop) => {
            connection.as_mut().graceful_shutdown();
            let _ = connection.await;
        }
        // Closed to make room for a new client.
        _ = shed => {}
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
