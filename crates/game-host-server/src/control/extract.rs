//! What a handler takes from its request besides the server:
//! - [`WorldParam`], [`PlayerParam`]: the world (and player) its path
//!   names, or a 400 saying the id is none;
//! - [`Asked`]: the request's body, read whole within the surface's limits
//!   (413 on a declared length over them before a byte is read, 413 as
//!   soon as it grows past them, 408 when it is too slow, 400 when it is
//!   cut off or not UTF-8), once the request's guards let it through; from
//!   then on the connection is being answered and is never the one closed
//!   to make room ([`shed`](super::shed)).

use std::sync::Arc;
use std::sync::atomic::Ordering;

use axum::extract::{FromRequest, FromRequestParts, RawPathParams, Request};
use axum::http::HeaderMap;
use axum::http::header::CONTENT_LENGTH;
use axum::http::request::Parts;
use http_body_util::{BodyExt, LengthLimitError, Limited};

use super::answer::Answer;
use super::guard::Authorized;
use super::limits::ControlLimits;
use super::shed::Waiting;
use super::state::ControlState;
use crate::WorldId;

/// The world a path names (its `{id}`).
pub(crate) struct WorldParam(pub WorldId);

/// The world and player a path names (`{id}`, `{player}`).
pub(crate) struct PlayerParam(pub WorldId, pub u64);

/// A path's parameter `name`, as matched.
async fn param(parts: &mut Parts, name: &str) -> Result<String, Answer> {
    let params = RawPathParams::from_request_parts(parts, &())
        .await
        .map_err(|error| Answer::error(400, error.body_text()))?;
    params
        .iter()
        .find(|(key, _)| *key == name)
        .map(|(_, value)| value.to_owned())
        .ok_or_else(|| Answer::error(500, format!("the route has no `{name}`")))
}

/// World id `text`, or why not.
pub(crate) fn world_id(text: &str) -> Result<WorldId, Answer> {
    text.parse()
        .map(WorldId)
        .map_err(|_| Answer::error(400, format!("`{text}` is not a world id")))
}

impl<S: Send + Sync> FromRequestParts<S> for WorldParam {
    type Rejection = Answer;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Answer> {
        Ok(WorldParam(world_id(&param(parts, "id").await?)?))
    }
}

impl<S: Send + Sync> FromRequestParts<S> for PlayerParam {
    type Rejection = Answer;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Answer> {
        let id = world_id(&param(parts, "id").await?)?;
        let player = param(parts, "player").await?;
        let player = player
            .parse()
            .map_err(|_| Answer::error(400, format!("`{player}` is not a player id")))?;
        Ok(PlayerParam(id, player))
    }
}

/// The world and file a path names (`{id}`, `{name}`).
pub(crate) struct WorldFileParam(pub WorldId, pub String);

impl<S: Send + Sync> FromRequestParts<S> for WorldFileParam {
    type Rejection = Answer;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Answer> {
        let id = world_id(&param(parts, "id").await?)?;
        Ok(WorldFileParam(id, param(parts, "name").await?))
    }
}

/// A request let through its guards: its body, and what its answer
/// depends on besides.
#[derive(Debug, Clone)]
pub(crate) struct Asked {
    /// The whole body, UTF-8.
    pub body: String,
    /// The server is still launching its first worlds.
    pub starting: bool,
    /// The asker may see the server's own details (why a world failed,
    /// with its paths): it carries the token, or none is set (and the
    /// surface listens on loopback alone).
    pub trusted: bool,
}

impl FromRequest<Arc<ControlState>> for Asked {
    type Rejection = Answer;

    async fn from_request(request: Request, state: &Arc<ControlState>) -> Result<Self, Answer> {
        let (parts, body) = request.into_parts();
        let body = take_body(&parts, body, &state.limits).await?;
        Ok(Asked {
            body,
            starting: state.starting.load(Ordering::Relaxed),
            // A change's token was checked by its guard; a read's is
            // checked here, once.
            trusted: parts.extensions.get::<Authorized>().is_some()
                || state
                    .token
                    .as_ref()
                    .is_none_or(|token| token.check(&parts.headers).is_ok()),
        })
    }
}

/// The whole body as UTF-8 text, within the limits; from then on the
/// connection is being answered (here, or by the world's node a request is
/// relayed to), and is never the one shed. One closed to make room for
/// another client while its body arrived is answered 503, and nothing of
/// it is used.
pub(super) async fn take_body(
    parts: &Parts,
    body: axum::body::Body,
    limits: &ControlLimits,
) -> Result<String, Answer> {
    let body = read_body(&parts.headers, body, limits).await?;
    if let Some(waiting) = parts.extensions.get::<Waiting>()
        && !waiting.answering()
    {
        return Err(Answer::error(
            503,
            "the connection was closed to make room for another client",
        ));
    }
    Ok(body)
}

/// The whole body as UTF-8 text, within the limits.
async fn read_body(
    headers: &HeaderMap,
    body: axum::body::Body,
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
