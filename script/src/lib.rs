//! # script — the guest SDK for game scripts
//!
//! A script is a WebAssembly component that targets the `game:engine` WIT
//! world (`wit/` at the workspace root). This crate binds that one copy of
//! the WIT, converts its math records to and from [`glam`], and turns a
//! plain Rust type into a component with one trait and one macro:
//!
//! ```ignore
//! use script::prelude::*;
//!
//! struct Spinner;
//!
//! impl Script for Spinner {
//!     fn entrypoint() -> Self {
//!         script::update::subscribe();
//!         Spinner
//!     }
//!
//!     fn on_update(&mut self) {
//!         let angle = 1.0 * script::time::delta_time();
//!         script::scene::cube().rotate(Quat::from_rotation_y(angle));
//!     }
//! }
//!
//! script::export!(Spinner);
//! ```
//!
//! Build it with `cargo build --release --target wasm32-wasip2`; the output
//! is a component.
//!
//! ## Modules
//! - [`update`]: subscribe to the per-frame [`Script::on_update`] call.
//! - [`time`]: the frame clock; waiting for frames and game seconds.
//! - [`scene`]: entities and their transforms ([`scene::TransformExt`] for
//!   glam types); spawning and despawning.
//! - [`entities`]: many transforms per host call, by entity id, with
//!   buffered writes.
//! - [`data`]: a game's own components on its entities (`Spin.speed`,
//!   `Health.value`), by name with typed values.
//! - [`query`]: every entity with a set of components, its fields as
//!   columns, and columns written back, one call each.
//! - [`game`]: the game's resources (`Time` in every game) and messages.
//! - [`behaviour`]: per-entity game logic, thousands of entities served by
//!   one instance in one call per frame.
//! - [`task`]: async tasks ([`task::spawn`], [`task::Task`]).
//! - [`events`]: input events and messages between scripts.
//! - [`motion`]: host-driven movement.
//! - [`players`]: the players of a served world, and messages to their
//!   clients.
//! - [`views`]: which entities each player sees, and the components that
//!   stream to players.
//! - [`log`]: the host log.
//! - [`wait`]: awaiting any host wait by token: what an extension's guest
//!   half (such as `game-terrain`) builds its async calls on.
//! - [`prelude`]: the trait, types and combinators most scripts use.
//! - [`bindings`]: the raw generated bindings.
//!
//! [`futures`] is re-exported for `join!`, `select!` and the stream
//! combinators; [`glam`] for math.

#![warn(missing_docs)]

pub mod behaviour;
#[allow(missing_docs)] // generated from the WIT, documented there
pub mod bindings;
pub mod controls;
pub mod data;
pub mod entities;
pub mod events;
mod executor;
mod export;
pub mod game;
pub mod log;
mod math;
pub mod motion;
pub mod players;
pub mod prelude;
pub mod query;
pub mod scene;
pub mod task;
pub mod time;
pub mod update;
pub mod views;
pub mod wait;

pub use export::Script;
pub use futures;
pub use glam;
/// The bindings generator, for a game's own types: a project made with
/// `host new --game FILE` binds `wit/game.wit` with
/// `script::wit_bindgen::generate!` (`runtime_path:
/// "script::wit_bindgen::rt"`), needing no dependency of its own.
pub use wit_bindgen;

#[doc(hidden)]
pub mod __private {
    pub use crate::executor::run_until_stalled;
    pub use crate::wait::deliver_wakes;

    use crate::time::FrameClock;

    /// Before a call into the script: the clock it came with, if any.
    #[inline]
    pub fn begin_call(clock: Option<FrameClock>) {
        crate::time::set_clock(clock);
    }

    /// The frame's update: the script's own `on_update` if it subscribed,
    /// then the attached behaviours.
    #[inline]
    pub fn update(on_update: impl FnOnce()) {
        let (script, behaviours) = crate::update::wanted();
        if script {
            on_update();
        }
        if behaviours {
            crate::behaviour::run_all(&crate::time::clock());
        }
    }

    /// After a call: runs woken tasks, then sends buffered entity writes.
    #[inline]
    pub fn end_call() {
        run_until_stalled();
        crate::entities::flush();
    }
}
