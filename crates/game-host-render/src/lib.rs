//! # game-host-render — draws a `game-host` scene with wgpu, and runs it in
//! a window
//!
//! Every scene entity is drawn as a lit, coloured cube (one instanced draw
//! call for the whole scene), with a camera that fits the scene. It only
//! draws a [`Scene`](game_host::Scene): offscreen ([`Offscreen`], for
//! screenshots, tests and benchmarks) or into the window of
//! [`WindowRunner`], which steps the runtime by the core's pacing policy
//! and sends key presses to scripts.
//!
//! Nothing here is touched by a headless run without a screenshot.

mod camera;
mod cube;
mod gpu;
mod image;
mod keys;
mod offscreen;
mod window;

pub use camera::Camera;
pub use cube::{BACKGROUND, entity_color};
pub use gpu::Gpu;
pub use image::Image;
pub use keys::key_for_code;
pub use offscreen::Offscreen;
pub use window::WindowRunner;
