//! `POST /play`: players join from any page, with no operator token. The
//! server's game is named ([`Play::game`](super::Play)); a join is admitted
//! into the first world the join started that has room, and when none has
//! room a new world of the server's scripts starts for it (what `POST
//! /worlds` with no body starts). Worlds the operator started are never
//! joined this way, and those the join started are stopped once no client
//! has been connected to them for a while ([`keep_tidy`]). On a fleet, a
//! node that has no room for a new world passes the join on to the other
//! nodes in turn, those with the most room first, until one seats the
//! player the same way in its own worlds (and passes it on no further); the player keeps the address it
//! joined through, which forwards its stream. The route is public: its
//! guard (`guard::public`) refuses pages of origins not allowed and counts
//! joins per client address ([`JoinRate`](super::JoinRate)), but for a join
//! another node passed on, proven with the fleet's token. What the server
//! was started with is [`Play`](super::Play) (`playing`).

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::State;
use serde::Deserialize;
use serde_json::json;

use axum::body::Body;
use axum::http::header::CONTENT_TYPE;
use axum::http::{HeaderMap, HeaderName, HeaderValue, Method, Response};
use axum::response::IntoResponse;

use super::answer::Answer;
use super::auth::PEER_PROOF;
use super::extract::Asked;
use super::peer::RELAYED;
use super::relay::ask_node;
use super::state::ControlState;
use super::warned::Warned;
use crate::{StartError, WorldId, WorldSpec};
use game_host::sync::LockExt;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PlayBody {
    game: String,
}

/// `POST /play` `{"game": "arena"}`: 201 and the player's seat, in a
/// world with room or a new one.
pub(crate) async fn play(
    State(state): State<Arc<ControlState>>,
    headers: HeaderMap,
    asked: Asked,
) -> Response<Body> {
    let refused = |status: u16, why: String| Answer::error(status, why).into_response();
    let Some(playing) = &state.play else {
        return refused(
            404,
            "this server lets players join only through its operator (it was started without \
             --play GAME)"
                .into(),
        );
    };
    let body: PlayBody = match serde_json::from_str(&asked.body) {
        Ok(body) => body,
        Err(error) => {
            return refused(
                400,
                format!("bad join body ({error}): send {{\"game\": \"NAME\"}}"),
            );
        }
    };
    if body.game != playing.play.game {
        return refused(
            404,
            format!(
                "no game `{}` here (this server's is `{}`)",
                body.game, playing.play.game
            ),
        );
    }
    if asked.starting {
        return refused(503, "the server is starting: join again in a moment".into());
    }
    // Passed on by another node (or said to be): seated here, never
    // passed on again, so no join goes round the fleet.
    let may_pass_on = !headers.contains_key(RELAYED);
    let joining = {
        // Its turn, waited for here rather than on a worker thread.
        let _turn = playing.turn.lock().await;
        let state = state.clone();
        tokio::task::spawn_blocking(move || match &state.play {
            Some(playing) => join_or_start(&state, &playing.play.game, asked.trusted, may_pass_on),
            None => Joining::Answered(Answer::error(500, "the public join went away")),
        })
        .await
        .unwrap_or_else(|error| {
            Joining::Answered(Answer::error(500, format!("the join failed: {error}")))
        })
    };
    // Passed on after its turn here: two nodes passing joins to each other
    // at once each wait on the other's turn, never on their own.
    match joining {
        Joining::Answered(answer) => answer.into_response(),
        Joining::PassOn(others) => pass_on(&state, &others, asked.body).await,
    }
}

/// The most nodes a join is passed on to before it is refused.
const PASSED_ON_TO_AT_MOST: usize = 8;

/// How long passing a join on may take in all, before it is refused.
const PASSING_ON_WITHIN: Duration = Duration::from_secs(15);

/// Passes a join on to the fleet's other nodes in turn (at most
/// [`PASSED_ON_TO_AT_MOST`], within [`PASSING_ON_WITHIN`]), until one seats
/// the player as this node would have (in its own worlds), and answers
/// with its seat: the seat's stream and view paths are answered by any
/// node, so the player keeps the address it joined through. When none
/// seats it, the player is told every world is full; what each node
/// answered is in the log (at most once a second).
async fn pass_on(state: &ControlState, others: &[String], body: String) -> Response<Body> {
    let mut passed = vec![(CONTENT_TYPE, HeaderValue::from_static("application/json"))];
    if let Some(token) = &state.token
        && let Ok(proof) = HeaderValue::from_str(&token.peer_proof())
    {
        passed.push((HeaderName::from_static(PEER_PROOF), proof));
    }
    let deadline = tokio::time::Instant::now() + PASSING_ON_WITHIN;
    let mut answered = Vec::new();
    for address in others.iter().take(PASSED_ON_TO_AT_MOST) {
        let asked = ask_node(
            &state.peers,
            address,
            Method::POST,
            "/play",
            passed.clone(),
            body.clone(),
        );
        match tokio::time::timeout_at(deadline, asked).await {
            Ok(Ok(response)) if response.status().is_success() => return response,
            Ok(Ok(response)) => answered.push(format!("{address}: {}", response.status())),
            Ok(Err(answer)) => answered.push(format!("{address}: {}", answer.status)),
            Err(_) => {
                answered.push(format!(
                    "no answer within {} s",
                    PASSING_ON_WITHIN.as_secs()
                ));
                break;
            }
        }
    }
    NO_SEAT.lock_unpoisoned().warn(format_args!(
        "a public join passed on found no seat ({})",
        answered.join(", ")
    ));
    Answer::error(503, "every world is full and no new one can start").into_response()
}

/// Joins passed on that found no seat: the fleet is full, and each would
/// say so.
static NO_SEAT: Mutex<Warned> = Mutex::new(Warned::new());

/// `OPTIONS /play`: a page's preflight, answered by the route's guard.
pub(crate) async fn preflight() -> Answer {
    Answer::text(204, "")
}

/// Stops the worlds the join started that no client has been connected
/// to for a while, every few seconds, for as long as the surface runs.
pub(super) async fn keep_tidy(state: Arc<ControlState>) {
    let Some(playing) = &state.play else {
        return;
    };
    // Often enough that a world is stopped within half its time again.
    let every = (playing.play.empty_world_ends / 2).clamp(
        std::time::Duration::from_millis(100),
        std::time::Duration::from_secs(5),
    );
    let mut every = tokio::time::interval(every);
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        every.tick().await;
        // The joins' turn: no join is seated in a world as it is stopped.
        let _turn = playing.turn.lock().await;
        let state = state.clone();
        let _ = tokio::task::spawn_blocking(move || {
            if let Some(playing) = &state.play {
                playing.sweep(&state.server, Instant::now());
            }
        })
        .await;
    }
}

/// What a join came to on this node.
enum Joining {
    /// Seated here, or refused.
    Answered(Answer),
    /// This node of a fleet is full: the fleet's other nodes, those with
    /// the most room for worlds first, to ask in turn.
    PassOn(Vec<String>),
}

/// Admits a player into the first world the join started that has room,
/// or into a new world of the server's scripts. A node of a fleet with no
/// room for a new world passes the join on (`may_pass_on`) to the node
/// with the most room. What failed is told in full to a trusted asker only
/// (it may name paths or the fleet's Redis); the log has it.
fn join_or_start(state: &ControlState, game: &str, trusted: bool, may_pass_on: bool) -> Joining {
    let server = &state.server;
    let failed = |status: u16, what: &str, error: &dyn std::fmt::Display| {
        tracing::warn!("a public join failed: {what}: {error:#}");
        Joining::Answered(match trusted {
            true => Answer::error(status, format!("{what}: {error:#}")),
            false => Answer::error(status, format!("{what} (the server's log says why)")),
        })
    };
    for id in server.public_worlds(game) {
        if let Ok((player, token)) = server.admit_public_player(id, game) {
            return Joining::Answered(seat(id, player, &token));
        }
    }
    let spec = WorldSpec {
        scripts: state.catalog.scripts.clone(),
        frames: state.catalog.frames,
        play: Some(game.to_owned()),
        ..WorldSpec::default()
    };
    let id = match server.start_world(&spec) {
        Ok(id) => id,
        Err(StartError::Invalid(error)) => {
            return failed(500, "the game's world could not start", &error);
        }
        Err(StartError::Unavailable(error)) => {
            // Full (or draining): other nodes of the fleet may have room.
            let others = match (may_pass_on, server.directory()) {
                (true, Some(directory)) => directory.others(),
                _ => Vec::new(),
            };
            return match others.is_empty() {
                false => Joining::PassOn(others),
                true => failed(503, "every world is full and no new one can start", &error),
            };
        }
    };
    match server.admit_public_player(id, game) {
        Ok((player, token)) => Joining::Answered(seat(id, player, &token)),
        Err(error) => failed(503, "the new world took no player", &error),
    }
}

/// The answer to a join: where the player's seat is.
fn seat(id: WorldId, player: u64, token: &str) -> Answer {
    Answer::json(
        201,
        json!({
            "world": id,
            "player": player,
            "token": token,
            "stream": format!("/worlds/{}/stream?token={token}", id.0),
            "view": format!("/worlds/{}/view?token={token}", id.0),
        }),
    )
}
