//! # script — the guest SDK for game scripts
//!
//! A script is a WebAssembly component that targets the `game:engine` WIT
//! world (`wit/engine.wit` at the workspace root). This crate binds that one
//! copy of the WIT, converts its math records to and from [`glam`], and turns
//! a plain Rust type into a component with one trait and one macro:
//!
//! ```ignore
//! use script::{Script, TransformExt, glam::Quat};
//!
//! struct Spinner;
//!
//! impl Script for Spinner {
//!     fn entrypoint() -> Self {
//!         script::subscribe_update(0);
//!         Spinner
//!     }
//!
//!     fn on_message(&mut self, _id: u32) {
//!         let angle = 1.0 * script::delta_time();
//!         script::cube_transform().rotate(Quat::from_rotation_y(angle));
//!     }
//! }
//!
//! script::export!(Spinner);
//! ```
//!
//! Build it with `cargo build --release --target wasm32-wasip2` (the output
//! is a component) or with `cargo component build --release`.
//!
//! ## Async tasks
//!
//! Logic that spans frames is written straight, with `async`/`.await`:
//!
//! ```ignore
//! script::spawn(async {
//!     script::wait_frames(20).await;                          // 20 frames later
//!     script::wait_event(EventFilter::KeyPressed(Key::Enter)).await;
//!     let waited = script::wait_seconds(1.5).await;            // game time waited
//!     let tile = script::terrain::request_tile(key).await;     // made on host threads
//! })
//! .detach();
//! ```
//!
//! Waits are kept by the host; a script whose tasks all wait gets no call
//! until one is due. Dropping a [`Task`] cancels it and withdraws its waits.
//! [`join!`], [`select!`] and the rest of the `futures` combinators are
//! re-exported.
//!
//! ## Modules
//! - [`bindings`]: the raw generated bindings, for anything not re-exported.
//! - the crate root: engine functions ([`log`], [`subscribe_update`],
//!   [`delta_time`], ...), scene access ([`cube_transform`], [`spawn_entity`],
//!   [`find`]), [`TransformExt`] for glam-typed transforms, the [`Script`]
//!   trait with its [`export!`] macro, and tasks ([`spawn`], [`next_frame`],
//!   [`wait_frames`], [`wait_seconds`], [`wait_until`], [`wait_event`],
//!   [`events`], [`send`], [`move_to`]).
//! - [`terrain`]: heightmap tiles generated on the host.

pub mod bindings;
mod engine;
mod events;
mod executor;
mod export;
mod math;
mod motion;
pub mod terrain;
mod time;
mod wait;

pub use bindings::game::engine::events::{Event, EventFilter, ScriptMessage};
pub use bindings::game::engine::input::Key;
pub use bindings::game::engine::log::Level;
pub use bindings::game::engine::scene::{
    TransformComponent, cube_transform, find, spawn as spawn_entity,
};
pub use bindings::game::engine::terrain::{TileInfo, TileKey};
pub use bindings::game::engine::types::{Quat, Vec3};
pub use engine::{
    debug, delta_time, error, frame, info, log, subscribe_update, time, trace, unsubscribe_update,
    warn,
};
pub use events::{EventStream, events, send, wait_event};
pub use executor::{Task, spawn, task_count};
pub use export::Script;
pub use futures::{
    self, FutureExt, StreamExt, future, join, pin_mut, select, select_biased, stream,
};
pub use glam;
pub use math::TransformExt;
pub use motion::move_to;
pub use time::{next_frame, wait_frames, wait_seconds, wait_until};
pub use wait::pending_waits;

/// The `on-message` id the host reserves for wake messages.
pub const WAKE_MESSAGE: u32 = u32::MAX;

#[doc(hidden)]
pub mod __private {
    pub use crate::executor::run_until_stalled;
    pub use crate::wait::deliver_wakes;
}
