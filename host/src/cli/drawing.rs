//! What `host run` draws, through the renderer (the CLI's `render`
//! feature, on by default): a window, a screenshot, and the overlay's
//! lines. A host built without it (`drawing_absent`) runs headless alone,
//! and carries no wgpu, winit or Vulkan loader: what a server's image
//! needs.

use std::path::Path;

use anyhow::Result;
use game_host::Runtime;
use game_host::sync::LockExt;
use game_host_render::Offscreen;

/// This host draws: `what` (a window, a screenshot) can be asked for.
pub fn draws(_what: &str) -> Result<()> {
    Ok(())
}

/// A window, as `host run` opens one: the renderer's.
pub use game_host_render::WindowRunner as Window;

/// The overlay's lines: frame time and each script's cost.
pub use game_host_render::overlay_lines;

/// Renders the scene offscreen and writes it as a PNG.
pub fn screenshot(
    runtime: &Runtime,
    file: &Path,
    (width, height): (u32, u32),
    overlay: Vec<String>,
) -> Result<()> {
    let mut offscreen = Offscreen::new(width, height)?;
    offscreen.set_overlay(overlay);
    let image = { offscreen.capture(&mut *runtime.scene().lock_unpoisoned())? };
    image.save_png(file)?;
    tracing::info!(
        file = %file.display(),
        width,
        height,
        adapter = %offscreen.gpu().describe(),
        "wrote screenshot"
    );
    Ok(())
}
