//! The players' numbered commands this frame applies
//! (`game:engine/controls`): the keys each player's client held in each of
//! its frames, applied once each, in order. A script that moves players'
//! entities by these alone (and reads nothing but their transforms, the
//! clock and log) can predict them in the players' browsers: build it with
//! `host build --predictor`.
//!
//! ```ignore
//! use script::controls;
//! use script::events::Key;
//! use script::scene::TransformExt;
//!
//! // On each update: one step per command, in the direction held.
//! for control in controls::commands() {
//!     let Some(avatar) = script::scene::find(&format!("player-{}", control.player)) else {
//!         continue;
//!     };
//!     for command in &control.commands {
//!         if command.held.contains(&Key::Right) {
//!             avatar.translate(script::glam::Vec3::X * 0.1);
//!         }
//!     }
//! }
//! ```
//!
//! Outside a server, and for a script without the `keys` grant, there are
//! none.

pub use crate::bindings::game::engine::controls::{Command, Control};

/// The commands this frame applies, per player (only players with
/// commands this frame, in the order they joined).
pub fn commands() -> Vec<Control> {
    crate::bindings::game::engine::controls::commands()
}
