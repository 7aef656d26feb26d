//! Async tasks: logic that spans frames, written with `async`/`.await`.
//!
//! ```ignore
//! use script::prelude::*;
//!
//! script::task::spawn(async {
//!     script::time::wait_frames(20).await;
//!     script::events::wait_event(EventFilter::KeyPressed(Key::Enter)).await;
//!     let waited = script::time::wait_seconds(1.5).await; // game time waited
//! })
//! .detach();
//! ```
//!
//! Waits are kept by the host; a script whose tasks all wait gets no call
//! until one is due. Dropping a [`Task`] cancels it and withdraws its waits.

pub use crate::executor::{Task, spawn, task_count};
pub use crate::wait::pending_waits;
