//! `POST /play`: players join from any page, with no operator token. The
//! server's game is named ([`Play::game`]); a join is admitted into the
//! first running world with room, and when none has room a new world of
//! the server's scripts starts for it (what `POST /worlds` with no body
//! starts). The route is public: its guard (`guard::public`) refuses pages
//! of origins not allowed and counts joins per client address
//! ([`JoinRate`](super::JoinRate)).

use std::sync::{Arc, Mutex};

use axum::extract::State;
use serde::Deserialize;
use serde_json::json;

use super::answer::Answer;
use super::extract::Asked;
use super::handlers::off_loop;
use super::rate::{Buckets, JoinRate};
use super::state::{Catalog, ControlState};
use crate::{Server, StartError, WorldId, WorldSpec};
use game_host::sync::LockExt;

/// The public join, when the server has one (`--play GAME`).
#[derive(Debug, Clone, PartialEq)]
pub struct Play {
    /// The name players join by (`{"game": "arena"}`).
    pub game: String,
    /// How often one client address may join.
    pub rate: JoinRate,
}

/// A server's public join, as it runs.
pub(crate) struct Playing {
    pub play: Play,
    pub buckets: Buckets,
    /// One join at a time looks for room, so that two joins that find
    /// none start one world between them, not two.
    joining: Mutex<()>,
}

impl Playing {
    pub fn new(play: Play) -> Self {
        Playing {
            buckets: Buckets::new(play.rate),
            play,
            joining: Mutex::new(()),
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PlayBody {
    game: String,
}

/// `POST /play` `{"game": "arena"}`: 201 and the player's seat, in a
/// world with room or a new one.
pub(crate) async fn play(State(state): State<Arc<ControlState>>, asked: Asked) -> Answer {
    let Some(playing) = &state.play else {
        return Answer::error(
            404,
            "this server lets players join only through its operator (it was started without \
             --play GAME)",
        );
    };
    let body: PlayBody = match serde_json::from_str(&asked.body) {
        Ok(body) => body,
        Err(error) => {
            return Answer::error(
                400,
                format!("bad join body ({error}): send {{\"game\": \"NAME\"}}"),
            );
        }
    };
    if body.game != playing.play.game {
        return Answer::error(
            404,
            format!(
                "no game `{}` here (this server's is `{}`)",
                body.game, playing.play.game
            ),
        );
    }
    if asked.starting {
        return Answer::error(503, "the server is starting: join again in a moment");
    }
    off_loop(&state, |state| {
        let Some(playing) = &state.play else {
            return Answer::error(500, "the public join went away");
        };
        let _one_at_a_time = playing.joining.lock_unpoisoned();
        join_or_start(&state.server, &state.catalog)
    })
    .await
}

/// `OPTIONS /play`: a page's preflight, answered by the route's guard.
pub(crate) async fn preflight() -> Answer {
    Answer::text(204, "")
}

/// Admits a player into the first running world with room, or into a new
/// world of the server's scripts.
fn join_or_start(server: &Server, catalog: &Catalog) -> Answer {
    let mut ids = server.world_ids();
    ids.sort();
    for id in ids {
        if let Ok((player, token)) = server.admit_public_player(id) {
            return seat(id, player, &token);
        }
    }
    let spec = WorldSpec {
        scripts: catalog.scripts.clone(),
        frames: catalog.frames,
        ..WorldSpec::default()
    };
    let id = match server.start_world(&spec) {
        Ok(id) => id,
        Err(StartError::Invalid(error)) => return Answer::error(500, error),
        Err(StartError::Unavailable(error)) => {
            return Answer::error(
                503,
                format!("every world is full and no new one can start: {error:#}"),
            );
        }
    };
    match server.admit_public_player(id) {
        Ok((player, token)) => seat(id, player, &token),
        Err(error) => Answer::error(503, format!("the new world took no player: {error:#}")),
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
