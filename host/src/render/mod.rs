//! The wgpu renderer: every scene entity drawn as a lit, coloured cube (one
//! instanced draw call for the whole scene), with a camera that fits the
//! scene. It only draws a [`Scene`](crate::scene::Scene): offscreen
//! ([`Offscreen`], for screenshots, tests and benchmarks) or into a surface
//! that a runner owns (the window runner).
//!
//! Nothing here is touched by a headless run without `--screenshot`.

mod camera;
mod cube;
mod gpu;
mod image;
mod offscreen;

pub use camera::Camera;
pub use cube::{BACKGROUND, entity_color};
pub use gpu::Gpu;
pub use image::Image;
pub use offscreen::Offscreen;

pub(crate) use cube::CubeRenderer;
pub(crate) use gpu::depth_view;
