//! A host built without the renderer (the CLI's `render` feature off, as
//! in a server's image): `host run` runs headless alone, and a window or a
//! screenshot is refused in one line saying how to get a host that draws.

use std::path::Path;

use anyhow::{Result, bail};
use game_host::Runtime;

/// A window, as `host run` would open one.
pub struct Window {
    pub frames: Option<u64>,
    pub title: String,
    pub size: (u32, u32),
    pub overlay: bool,
}

const WITHOUT: &str = "this host was built without the renderer (a server's build): run with \
                       --headless, or install a host with it (`cargo install --path host`, whose \
                       default features draw)";

/// Refuses `what` (a window, a screenshot) in one line.
pub fn draws(what: &str) -> Result<()> {
    bail!("{what}: {WITHOUT}")
}

impl Window {
    /// Refuses: there is no window to open.
    pub fn run(&self, _: &mut Runtime, _: &mut dyn FnMut(&mut Runtime)) -> Result<u64> {
        let _ = (self.frames, &self.title, self.size, self.overlay);
        draws("a window").map(|()| 0)
    }
}

/// No overlay is drawn.
pub fn overlay_lines(_: &Runtime, _: f64) -> Vec<String> {
    Vec::new()
}

/// Refuses: there is nothing to draw with.
pub fn screenshot(_: &Runtime, _: &Path, _: (u32, u32), _: Vec<String>) -> Result<()> {
    draws("--screenshot")
}
