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
//! Over the scene, an overlay can show the frame's time and the scripts
//! that take the most of it ([`overlay_lines`]): toggled with F3 in the
//! window, or drawn into a screenshot.
//!
//! Nothing here is touched by a headless run without a screenshot.

mod camera;
mod cube;
mod font;
mod gpu;
mod image;
mod keys;
mod offscreen;
mod overlay;
mod window;

pub use camera::Camera;
pub use cube::{BACKGROUND, entity_color};
pub use gpu::Gpu;
pub use image::Image;
pub use keys::key_for_code;
pub use offscreen::Offscreen;
pub use overlay::overlay_lines;
pub use window::WindowRunner;
