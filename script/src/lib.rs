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
//! ## Modules
//! - [`bindings`]: the raw generated bindings, for anything not re-exported.
//! - the crate root: engine functions ([`log`], [`subscribe_update`],
//!   [`delta_time`], ...), scene access ([`cube_transform`], [`spawn`],
//!   [`find`]), [`TransformExt`] for glam-typed transforms, and the
//!   [`Script`] trait with its [`export!`] macro.

pub mod bindings;
mod engine;
mod export;
mod math;

pub use bindings::game::engine::log::Level;
pub use bindings::game::engine::scene::{TransformComponent, cube_transform, find, spawn};
pub use bindings::game::engine::types::{Quat, Vec3};
pub use engine::{
    debug, delta_time, error, frame, info, log, subscribe_update, time, trace, unsubscribe_update,
    warn,
};
pub use export::Script;
pub use glam;
pub use math::TransformExt;
