//! What each request of the control surface does: a method and a path
//! in, an [`Answer`] out. Plain synchronous code on the [`Server`]; the
//! HTTP side (`super`) decides which of these may block and reads bodies.
//!
//! New worlds run only scripts the server was started with, by name: the
//! control surface never loads code.

use anyhow::Result;
use hyper::Method;
use serde::Deserialize;
use serde_json::json;

use crate::stream::parse_event;
use crate::{Server, StartError, WorldId, WorldSpec};
use game_host::GrantFile;
use game_host::guest::engine::ScriptComponent;

/// What `POST /worlds` may start.
#[derive(Clone, Default)]
pub struct Catalog {
    /// Scripts by name; a world with no `scripts` in its body runs all.
    pub scripts: Vec<ScriptComponent>,
    /// Frames of a world whose body names none (`None`: until stopped).
    pub frames: Option<u64>,
}

/// An answer: status, body and its type.
pub(crate) struct Answer {
    pub status: u16,
    pub body: String,
    pub content_type: &'static str,
    /// Ask for a bearer token (`WWW-Authenticate: Bearer`), with a 401.
    pub challenge: bool,
}

impl Answer {
    pub fn json(status: u16, value: serde_json::Value) -> Answer {
        Answer {
            status,
            body: format!("{value}\n"),
            content_type: "application/json",
            challenge: false,
        }
    }

    pub fn text(status: u16, body: impl Into<String>) -> Answer {
        Answer {
            status,
            body: body.into(),
            content_type: "text/plain; charset=utf-8",
            challenge: false,
        }
    }

    pub fn error(status: u16, error: impl std::fmt::Display) -> Answer {
        Answer::json(status, json!({ "error": format!("{error:#}") }))
    }
}

/// The endpoint a request names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Route {
    Health,
    Ready,
    Metrics,
    ListWorlds,
    /// One world: its status and its scripts' times.
    World(WorldId),
    StartWorld,
    StopWorld(WorldId),
    SendEvent(WorldId),
    AdmitPlayer(WorldId),
    RemovePlayer(WorldId, u64),
    /// A player's WebSocket (answered by the `upgrade` module).
    Stream(WorldId),
    /// The page that watches and plays a world.
    View(WorldId),
    /// A file of the players' client library (its index in
    /// `client_files`), which the view page loads.
    ClientFile(usize),
}

impl Route {
    /// The endpoint of `method` on `path`, or the answer that says why
    /// there is none.
    pub fn of(method: &Method, path: &str) -> Result<Route, Answer> {
        let parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty()).collect();
        Ok(match (method, parts.as_slice()) {
            (&Method::GET, ["healthz"]) => Route::Health,
            (&Method::GET, ["readyz"]) => Route::Ready,
            (&Method::GET, ["metrics"]) => Route::Metrics,
            (&Method::GET, ["worlds"]) => Route::ListWorlds,
            (&Method::POST, ["worlds"]) => Route::StartWorld,
            (&Method::GET, ["worlds", id]) => Route::World(parse_id(id)?),
            (&Method::DELETE, ["worlds", id]) => Route::StopWorld(parse_id(id)?),
            (&Method::POST, ["worlds", id, "events"]) => Route::SendEvent(parse_id(id)?),
            (&Method::POST, ["worlds", id, "players"]) => Route::AdmitPlayer(parse_id(id)?),
            (&Method::DELETE, ["worlds", id, "players", player]) => {
                let player = player
                    .parse()
                    .map_err(|_| Answer::error(400, format!("`{player}` is not a player id")))?;
                Route::RemovePlayer(parse_id(id)?, player)
            }
            (&Method::GET, ["worlds", id, "stream"]) => Route::Stream(parse_id(id)?),
            (&Method::GET, ["worlds", id, "view"]) => Route::View(parse_id(id)?),
            (&Method::GET, ["client", name]) => match super::client_files::index(name) {
                Some(index) => Route::ClientFile(index),
                None => return Err(Answer::error(404, format!("no such endpoint: {path}"))),
            },
            (
                _,
                ["healthz" | "readyz" | "metrics" | "worlds"]
                | ["worlds", _]
                | ["worlds", _, "events" | "players" | "stream" | "view"]
                | ["worlds", _, "players", _]
                | ["client", _],
            ) => {
                return Err(Answer::error(
                    405,
                    format!("{method} is not allowed on {path}"),
                ));
            }
            _ => return Err(Answer::error(404, format!("no such endpoint: {path}"))),
        })
    }

    /// The world it names, if any.
    pub fn world(self) -> Option<WorldId> {
        match self {
            Route::World(id)
            | Route::StopWorld(id)
            | Route::SendEvent(id)
            | Route::AdmitPlayer(id)
            | Route::RemovePlayer(id, _)
            | Route::Stream(id)
            | Route::View(id) => Some(id),
            _ => None,
        }
    }

    /// Whether it changes the worlds (and so needs the token, if any).
    pub fn mutates(self) -> bool {
        matches!(
            self,
            Route::StartWorld
                | Route::StopWorld(_)
                | Route::SendEvent(_)
                | Route::AdmitPlayer(_)
                | Route::RemovePlayer(..)
        )
    }

    /// Whether answering may wait on the loop threads or start a world
    /// (the HTTP side runs those off its event loop).
    pub fn may_block(self) -> bool {
        !matches!(
            self,
            Route::Health | Route::Ready | Route::View(_) | Route::ClientFile(_)
        )
    }
}

/// Whether the server takes new worlds: `None` when it does, else why not.
pub(crate) fn unready(server: &Server, starting: bool) -> Option<&'static str> {
    if server.is_resuming() {
        Some("resuming worlds from the state directory")
    } else if starting {
        Some("starting")
    } else if !server.is_accepting() {
        Some("draining")
    } else if server.is_full() {
        Some("full")
    } else {
        None
    }
}

/// What an answer depends on besides the request's route and body.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Asked {
    /// The server is still launching its first worlds.
    pub starting: bool,
    /// The asker may see the server's own details (why a world failed, with
    /// its paths): it carries the token, or none is set (and the surface
    /// listens on loopback alone).
    pub trusted: bool,
}

/// Answers `route` with the request's `body` (already read, UTF-8).
pub(crate) fn answer(
    server: &Server,
    catalog: &Catalog,
    route: Route,
    body: &str,
    asked: Asked,
) -> Answer {
    let starting = asked.starting;
    match route {
        Route::Health => Answer::text(200, "ok\n"),
        Route::Ready => match unready(server, starting) {
            Some(why) => Answer::text(503, format!("{why}\n")),
            None => Answer::text(200, "ready\n"),
        },
        Route::Metrics => Answer {
            status: 200,
            body: server.metrics_text(),
            content_type: "application/openmetrics-text; version=1.0.0; charset=utf-8",
            challenge: false,
        },
        Route::ListWorlds => Answer::json(200, list_worlds(server, asked.trusted)),
        Route::World(id) => world(server, id, asked.trusted),
        Route::StartWorld if starting => Answer::error(
            503,
            "the server is starting and accepts no new worlds yet (see /readyz)",
        ),
        Route::StartWorld => start_world(server, catalog, body),
        Route::StopWorld(id) => match server.stop_world(id) {
            Ok(report) => Answer::json(200, json!(report)),
            Err(error) => Answer::error(404, error),
        },
        Route::SendEvent(id) => match parse_event(body) {
            Ok(event) => match server.send(id, event) {
                Ok(()) => Answer::json(202, json!({ "queued": true })),
                Err(error) => Answer::error(404, error),
            },
            Err(error) => Answer::error(400, error),
        },
        Route::AdmitPlayer(id) => match server.admit_player(id) {
            Ok((player, token)) => Answer::json(
                201,
                json!({
                    "player": player,
                    "token": token,
                    "stream": format!("/worlds/{}/stream?token={token}", id.0),
                    "view": format!("/worlds/{}/view?token={token}", id.0),
                }),
            ),
            Err(error) if server.thread_of_world(id).is_none() => Answer::error(404, error),
            Err(error) => Answer::error(409, error),
        },
        Route::RemovePlayer(id, player) => match server.remove_player(id, player) {
            Ok(()) => Answer::json(200, json!({ "removed": player })),
            Err(error) => Answer::error(404, error),
        },
        Route::View(_) => Answer {
            status: 200,
            body: VIEW_PAGE.to_owned(),
            content_type: "text/html; charset=utf-8",
            challenge: false,
        },
        Route::ClientFile(index) => Answer {
            status: 200,
            body: super::client_files::text(index).to_owned(),
            content_type: "text/javascript; charset=utf-8",
            challenge: false,
        },
        // Answered before the body is read, by the `upgrade` module.
        Route::Stream(_) => Answer::error(400, "a stream is a WebSocket upgrade"),
    }
}

/// Why a world could not be resumed, as `asker` may see it: the whole line
/// (which names files and scripts by path) only to a trusted one.
fn failure(why: String, trusted: bool) -> String {
    match trusted {
        true => why,
        false => "it could not be resumed (the server's log says why)".to_owned(),
    }
}

/// `GET /worlds`: every running world's status, and each world of the
/// state directory that could not be resumed, with why (`failed`), by id.
fn list_worlds(server: &Server, trusted: bool) -> serde_json::Value {
    let mut listed: Vec<(WorldId, serde_json::Value)> = server
        .worlds()
        .into_iter()
        .map(|status| (status.id, json!(status)))
        .collect();
    listed.extend(
        server
            .not_resumed()
            .into_iter()
            .map(|(id, why)| (id, json!({ "id": id, "failed": failure(why, trusted) }))),
    );
    listed.sort_by_key(|(id, _)| *id);
    listed.into_iter().map(|(_, world)| world).collect()
}

/// `GET /worlds/{id}`: the world's status, and each script's time per
/// frame in milliseconds (median, 99th percentile, last) and in total; a
/// world that could not be resumed answers 404 with why.
fn world(server: &Server, id: WorldId, trusted: bool) -> Answer {
    let Some((status, times)) = server.world(id) else {
        if let Some((_, why)) = server.not_resumed().into_iter().find(|(of, _)| *of == id) {
            let why = failure(why, trusted);
            return Answer::error(404, format!("world {} could not be resumed: {why}", id.0));
        }
        return Answer::error(404, format!("no world {}", id.0));
    };
    let ms = |d: std::time::Duration| (d.as_secs_f64() * 1e6).round() / 1e3;
    let scripts: Vec<_> = times
        .iter()
        .map(|t| {
            json!({
                "script": t.script,
                "ms_per_frame": { "p50": ms(t.p50), "p99": ms(t.p99), "last": ms(t.last) },
                "seconds": t.total.as_secs_f64(),
                "frames": t.frames,
            })
        })
        .collect();
    let mut body = json!(status);
    body["scripts"] = json!(scripts);
    Answer::json(200, body)
}

/// The page `/worlds/{id}/view` serves: it reads the world and the token
/// from its own address and connects to the stream.
const VIEW_PAGE: &str = include_str!("view.html");

fn parse_id(text: &str) -> Result<WorldId, Answer> {
    text.parse()
        .map(WorldId)
        .map_err(|_| Answer::error(400, format!("`{text}` is not a world id")))
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct StartBody {
    scripts: Option<Vec<String>>,
    frames: Option<u64>,
    seed: Option<u64>,
    stream_every: Option<u32>,
    stream_precision: Option<f32>,
    grants: Option<GrantFile>,
    open_to_players: Option<game_host::players::OpenToPlayers>,
}

/// Reads the body and finds its scripts in the catalog; every check of the
/// world itself, and of room for it, is [`Server::start_world`]'s.
fn start_world(server: &Server, catalog: &Catalog, body: &str) -> Answer {
    let body: StartBody = if body.trim().is_empty() {
        StartBody::default()
    } else {
        match serde_json::from_str(body) {
            Ok(body) => body,
            Err(error) => return Answer::error(400, format!("bad world body: {error}")),
        }
    };
    let scripts = match body.scripts {
        None => catalog.scripts.clone(),
        Some(names) => {
            let mut scripts = Vec::new();
            for name in names {
                match catalog.scripts.iter().find(|s| s.name() == name) {
                    Some(script) => scripts.push(script.clone()),
                    None => {
                        let known: Vec<_> = catalog.scripts.iter().map(|s| s.name()).collect();
                        return Answer::error(
                            400,
                            format!(
                                "no script `{name}` on this server (it has: {})",
                                known.join(", ")
                            ),
                        );
                    }
                }
            }
            scripts
        }
    };
    let spec = WorldSpec {
        scripts,
        frames: body.frames.or(catalog.frames),
        seed: body.seed,
        stream_every: body.stream_every,
        stream_precision: body.stream_precision,
        grants: body.grants,
        open_to_players: body.open_to_players,
    };
    match server.start_world(&spec) {
        Ok(id) => Answer::json(
            201,
            json!({ "id": id, "thread": server.thread_of_world(id) }),
        ),
        Err(StartError::Invalid(error)) => Answer::error(400, error),
        Err(StartError::Unavailable(error)) => {
            Answer::error(503, format!("{error:#} (see /readyz)"))
        }
    }
}
