//! What each route of the control surface does, once its guards let the
//! request through: plain synchronous code on the [`Server`], an
//! [`Answer`] out. Those that may wait on the loop threads or start a
//! world run off the event loop ([`off_loop`]).
//!
//! New worlds run only scripts the server was started with, by name: the
//! control surface never loads code.

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::http::header::ORIGIN;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::json;

use super::answer::Answer;
use super::client_files;
use super::extract::{Asked, PlayerParam, WorldFileParam, WorldParam};
use super::state::{Catalog, ControlState};
use crate::stream::parse_event;
use crate::{Server, StartError, WorldId, WorldSpec};
use game_host::GrantFile;

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

/// Runs `answer` on a blocking thread of the control surface's runtime:
/// what may wait on the loop threads, or start a world.
pub(super) async fn off_loop(
    state: &Arc<ControlState>,
    answer: impl FnOnce(&ControlState) -> Answer + Send + 'static,
) -> Answer {
    let state = state.clone();
    tokio::task::spawn_blocking(move || answer(&state))
        .await
        .unwrap_or_else(|error| Answer::error(500, format!("the request failed: {error}")))
}

/// `GET /healthz`.
pub(super) async fn health(_: Asked) -> Answer {
    Answer::text(200, "ok\n")
}

/// `GET /readyz`: 200 while the server takes worlds, else 503 and why.
pub(super) async fn ready(State(state): State<Arc<ControlState>>, asked: Asked) -> Answer {
    if !asked.starting
        && let Some(why) = state.server.directory().and_then(|d| d.unready())
    {
        return Answer::text(503, format!("{why}\n"));
    }
    match unready(&state.server, asked.starting) {
        Some(why) => Answer::text(503, format!("{why}\n")),
        None => Answer::text(200, "ready\n"),
    }
}

/// `GET /metrics`: the Prometheus text exposition.
pub(super) async fn metrics(State(state): State<Arc<ControlState>>, _: Asked) -> Answer {
    off_loop(&state, |state| {
        if let Some(directory) = state.server.directory() {
            directory.publish(state.server.metrics.fleet());
        }
        Answer {
            status: 200,
            body: state.server.metrics_text(),
            content_type: "application/openmetrics-text; version=1.0.0; charset=utf-8",
            challenge: false,
        }
    })
    .await
}

/// `GET /worlds`.
pub(super) async fn worlds(State(state): State<Arc<ControlState>>, asked: Asked) -> Answer {
    off_loop(&state, move |state| {
        Answer::json(200, list_worlds(&state.server, asked.trusted))
    })
    .await
}

/// `GET /worlds/{id}`.
pub(super) async fn world_status(
    State(state): State<Arc<ControlState>>,
    WorldParam(id): WorldParam,
    asked: Asked,
) -> Answer {
    off_loop(&state, move |state| world(&state.server, id, asked.trusted)).await
}

/// `POST /worlds`.
pub(super) async fn start(State(state): State<Arc<ControlState>>, asked: Asked) -> Answer {
    if asked.starting {
        return Answer::error(
            503,
            "the server is starting and accepts no new worlds yet (see /readyz)",
        );
    }
    off_loop(&state, move |state| {
        start_world(&state.server, &state.catalog, &asked.body)
    })
    .await
}

/// `DELETE /worlds/{id}`.
pub(super) async fn stop(
    State(state): State<Arc<ControlState>>,
    WorldParam(id): WorldParam,
    _: Asked,
) -> Answer {
    off_loop(&state, move |state| match state.server.stop_world(id) {
        Ok(report) => Answer::json(200, json!(report)),
        Err(error) => Answer::error(404, error),
    })
    .await
}

/// `POST /worlds/{id}/events`.
pub(super) async fn send_event(
    State(state): State<Arc<ControlState>>,
    WorldParam(id): WorldParam,
    asked: Asked,
) -> Answer {
    let event = match parse_event(&asked.body) {
        Ok(event) => event,
        Err(error) => return Answer::error(400, error),
    };
    off_loop(&state, move |state| match state.server.send(id, event) {
        Ok(()) => Answer::json(202, json!({ "queued": true })),
        Err(error) => Answer::error(404, error),
    })
    .await
}

/// `POST /worlds/{id}/players`.
pub(super) async fn admit(
    State(state): State<Arc<ControlState>>,
    WorldParam(id): WorldParam,
    _: Asked,
) -> Answer {
    off_loop(&state, move |state| {
        let server = &state.server;
        match server.admit_player(id) {
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
        }
    })
    .await
}

/// `GET /worlds/{id}/players`: its players, each with whether a client of
/// its is connected.
pub(super) async fn players(
    State(state): State<Arc<ControlState>>,
    WorldParam(id): WorldParam,
    _: Asked,
) -> Answer {
    off_loop(&state, move |state| match state.server.players(id) {
        Ok(players) => {
            let players: Vec<_> = players
                .into_iter()
                .map(|(player, connected)| json!({ "player": player, "connected": connected }))
                .collect();
            Answer::json(200, json!(players))
        }
        Err(error) => Answer::error(404, error),
    })
    .await
}

/// `DELETE /worlds/{id}/players/{player}`.
pub(super) async fn remove(
    State(state): State<Arc<ControlState>>,
    PlayerParam(id, player): PlayerParam,
    _: Asked,
) -> Answer {
    off_loop(&state, move |state| {
        match state.server.remove_player(id, player) {
            Ok(()) => Answer::json(200, json!({ "removed": player })),
            Err(error) => Answer::error(404, error),
        }
    })
    .await
}

/// `GET /worlds/{id}/view`: the page that watches and plays a world.
pub(super) async fn view(WorldParam(_): WorldParam, _: Asked) -> Answer {
    Answer {
        status: 200,
        body: VIEW_PAGE.to_owned(),
        content_type: "text/html; charset=utf-8",
        challenge: false,
    }
}

/// `GET /client/{name}`: a file of the players' client library, which a
/// page of an allowed origin may import too.
pub(super) async fn client_file(
    State(state): State<Arc<ControlState>>,
    Path(name): Path<String>,
    headers: HeaderMap,
    _: Asked,
) -> Response {
    let mut answer = match client_files::text(&name) {
        Some(text) => Answer {
            status: 200,
            body: text.to_owned(),
            content_type: "text/javascript; charset=utf-8",
            challenge: false,
        },
        None => Answer::error(404, format!("no such endpoint: /client/{name}")),
    }
    .into_response();
    let origin = headers.get(ORIGIN).and_then(|origin| origin.to_str().ok());
    (state.origins).answer(origin, answer.headers_mut(), false);
    answer
}

/// `GET /worlds/{id}/predictor/{name}`: a file of the predictor of one of
/// the world's scripts (`predictor.json` first, with the world's frame
/// rate), for its players' pages.
pub(super) async fn predictor_file(
    State(state): State<Arc<ControlState>>,
    WorldFileParam(id, name): WorldFileParam,
    headers: HeaderMap,
    _: Asked,
) -> Response {
    let scripts = match state.server.world_scripts(id) {
        Ok(scripts) => scripts,
        Err(error) => return Answer::error(404, format!("{error:#}")).into_response(),
    };
    let predictor = (state.catalog.predictors.iter())
        .find(|predictor| scripts.contains(&predictor.manifest.sha256));
    let hz = state.server.hz();
    let mut answer = match predictor.map(|predictor| predictor.served(&name, hz)) {
        None => Answer::error(404, format!("{id} runs no script with a predictor")).into_response(),
        Some(None) => Answer::error(404, format!("the predictor of {id} has no file `{name}`"))
            .into_response(),
        Some(Some(bytes)) => {
            let content_type = match name.rsplit_once('.').map(|(_, ext)| ext) {
                Some("js") => "text/javascript; charset=utf-8",
                Some("wasm") => "application/wasm",
                _ => "application/json",
            };
            (
                [(axum::http::header::CONTENT_TYPE, content_type)],
                bytes::Bytes::from_owner(bytes),
            )
                .into_response()
        }
    };
    let origin = headers.get(ORIGIN).and_then(|origin| origin.to_str().ok());
    (state.origins).answer(origin, answer.headers_mut(), false);
    answer
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
        // The operator's worlds are never the public join's.
        play: None,
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
