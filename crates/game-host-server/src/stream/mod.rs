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
//! leaves an update in the world's [`WorldHub`] (a bounded broadcast), and
//! each client's task (`client`, on the control surface's runtime) takes
//! it from there at its own pace. A client that falls behind loses
//! updates and gets a fresh snapshot; one that keeps falling behind, or
//! stops reading, is dropped.
//!
//! Files: `wire` (the message formats), `tracker` (what changed since the
//! last update), `seats` (the players admitted and their tokens),
//! `bucket` (the rate of a player's messages), `hub`
//! (the world's side), `client` (one client's session).

mod bucket;
mod client;
mod hub;
mod seats;
mod tracker;
mod wire;

pub(crate) use client::Session;
pub use client::StreamLimits;
pub(crate) use hub::WorldHub;
pub(crate) use seats::Seats;
pub(crate) use tracker::SceneTracker;
pub use wire::Format;
pub(crate) use wire::parse_event;
