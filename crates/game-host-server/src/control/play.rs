//! `POST /play`: players join from any page, with no operator token. The
//! server's game is named ([`Play::game`](super::Play)); a join is admitted
//! into the first world the join started that has room, and when none has
//! room a new world of the server's scripts starts for it (what `POST
//! /worlds` with no body starts). Worlds the operator started are never
//! joined this way, and those the join started are stopped once no client
//! has been connected to them for a while ([`keep_tidy`]). The route is public: its guard (`guard::public`) refuses pages
//! of origins not allowed and counts joins per client address
//! ([`JoinRate`](super::JoinRate)). What the server was started with is
//! [`Play`](super::Play) (`playing`).

use std::sync::Arc;
use std::time::Instant;

use axum::extract::State;
use serde::Deserialize;
use serde_json::json;

use super::answer::Answer;
use super::extract::Asked;
use super::handlers::off_loop;
use super::playing::Playing;
use super::state::{Catalog, ControlState};
use crate::{Server, StartError, WorldId, WorldSpec};

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
    // Its turn, waited for here rather than on a worker thread.
    let _turn = playing.turn.lock().await;
    off_loop(&state, move |state| match &state.play {
        Some(playing) => join_or_start(&state.server, &state.catalog, playing, asked.trusted),
        None => Answer::error(500, "the public join went away"),
    })
    .await
}

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
        let state = state.clone();
        let _ = tokio::task::spawn_blocking(move || {
            if let Some(playing) = &state.play {
                playing.sweep(&state.server, Instant::now());
            }
        })
        .await;
    }
}

/// Admits a player into the first world the join started that has room,
/// or into a new world of the server's scripts. What failed is told in
/// full to a trusted asker only (it may name paths or the fleet's Redis);
/// the log has it.
fn join_or_start(server: &Server, catalog: &Catalog, playing: &Playing, trusted: bool) -> Answer {
    let failed = |status: u16, what: &str, error: &dyn std::fmt::Display| {
        tracing::warn!("a public join failed: {what}: {error:#}");
        match trusted {
            true => Answer::error(status, format!("{what}: {error:#}")),
            false => Answer::error(status, format!("{what} (the server's log says why)")),
        }
    };
    for id in playing.worlds() {
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
        Err(StartError::Invalid(error)) => {
            return failed(500, "the game's world could not start", &error);
        }
        Err(StartError::Unavailable(error)) => {
            return failed(503, "every world is full and no new one can start", &error);
        }
    };
    playing.started(id);
    match server.admit_public_player(id) {
        Ok((player, token)) => seat(id, player, &token),
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
