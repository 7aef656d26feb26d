//! The wgpu renderer: every scene entity drawn as a lit, coloured cube (one
//! instanced draw call for the whole scene), with a camera that fits the
//! scene. It renders offscreen (screenshots, tests, benchmarks) or into a
//! winit window ([`WindowRunner`]), which steps the same [`Runtime`] the
//! headless runner does.
//!
//! Nothing here is touched by a headless run without `--screenshot`.
//!
//! [`Runtime`]: crate::Runtime

mod camera;
mod cube;
mod gpu;
mod image;
mod offscreen;
mod window;

pub use camera::Camera;
pub use cube::{BACKGROUND, entity_color};
pub use gpu::Gpu;
pub use image::Image;
pub use offscreen::Offscreen;
pub use window::WindowRunner;
