//! The window runner: a winit window that draws the scene and steps the
//! runtime by the core's pacing policy (`game_host::runner`).

mod keys;
mod window;

pub use game_host::runner::{HeadlessRunner, MAX_CATCH_UP_STEPS, Pacing};
pub use window::WindowRunner;
