//! Players' streams: what a served world sends its players' clients while
//! it runs, and what they send it, over a WebSocket each.
//!
//! A player admitted to a world (`POST /worlds/{id}/players`) connects to
//! `GET /worlds/{id}/stream?token=T`. It gets a snapshot of the world's
//! entities, then the entities that change (every frame, or every k-th),
//! and the messages scripts send to it or to all players (`wire`). What it
//! sends (keys, messages) reaches the world's next frame as that player's
//! input.
//!
//! The world's loop thread never waits on a client: after each frame it
//! leaves an update in the world's [`WorldHub`] (a backlog bounded in
//! updates and bytes), and
//! each client's task (`client`, on the control surface's runtime) takes
//! it from there at its own pace. A client that falls behind loses
//! updates and gets a fresh snapshot; one that keeps falling behind, or
//! stops reading, is dropped.
//!
//! Each player sees what the world's scripts let it see (`views`: per
//! entity, or a radius around its own entity): its snapshot and updates
//! hold only that, and an entity that leaves its view is `removed`.
//! Players whose view is the same share one update, encoded once per
//! format.
//!
//! Files: `wire` (the message formats), `delta` (the binary form),
//! `encode` (a message in its client's form),
//! `tracker` (what changed since the last update, field by field), `view`
//! (what each player sees, and each view's update), `seats` (the players
//! admitted and their tokens), `controls` (their numbered commands, and
//! what each was told was applied), `bucket` (the rate of a player's messages),
//! `backlog` (the updates kept for clients to catch up on), `hub` (the
//! world's side), `client` (one client's session), `liveness`
//! (the write timeout and pings every client gets, here or forwarded);
//! `book`, for the tests, holds the book's stream reference to them.

mod backlog;
#[cfg(test)]
mod book;
mod bucket;
mod client;
mod controls;
mod delta;
mod encode;
mod hub;
mod liveness;
mod seats;
mod tracker;
mod view;
mod wire;

/// The step positions and scales are rounded to in the binary form, by
/// default: a millimetre.
pub const DEFAULT_PRECISION: f32 = 0.001;

pub use backlog::DEFAULT_KEPT_BYTES;
pub(crate) use client::Session;
pub use client::StreamLimits;
pub use hub::StreamSettings;
pub(crate) use hub::WorldHub;
pub(crate) use liveness::{Closed, Liveness, close, send_within};
pub(crate) use seats::Seats;
pub(crate) use tracker::SceneTracker;
pub(crate) use view::PlayerViews;
pub use wire::Format;
pub(crate) use wire::parse_event;
