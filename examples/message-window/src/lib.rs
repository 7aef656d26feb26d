//! Message window: an entity named `window` opens (its y scale grows from 0
//! to 1) over [`OPEN_FRAMES`] frames, waits for Enter, then closes over
//! [`CLOSE_FRAMES`] frames, logging each step. One async task, written
//! straight; between steps the script gets no calls at all.
//!
//! Build and run (from the workspace root), pressing Enter at frame 40:
//! ```text
//! printf '40 press enter\n' > enter.txt
//! cargo run --release --bin host -- run examples/message-window --frames 60 --input enter.txt
//! cargo build --release --target wasm32-wasip2 -p message-window
//! ```
//! Log: `window opening` (frame 0), `window open` (frame 20),
//! `enter pressed` (frame 40), `window closed` (frame 50).

use script::Script;
use script::events::EventFilter;
use script::events::Key;
use script::glam::Vec3;
use script::scene::TransformComponent;
use script::scene::TransformExt;

/// Frames the opening animation takes.
pub const OPEN_FRAMES: u32 = 20;
/// Frames the closing animation takes.
pub const CLOSE_FRAMES: u32 = 10;

struct MessageWindow;

impl Script for MessageWindow {
    fn entrypoint() -> Self {
        script::task::spawn(show_window()).detach();
        MessageWindow
    }
}

async fn show_window() {
    let window = script::scene::spawn("window");
    window.set_scaling(Vec3::new(1.0, 0.0, 1.0));
    script::log::info("window opening");
    animate(&window, 0.0, 1.0, OPEN_FRAMES).await;
    script::log::info("window open: press Enter to close");
    script::events::wait_event(EventFilter::KeyPressed(Key::Enter)).await;
    script::log::info("enter pressed: closing");
    animate(&window, 1.0, 0.0, CLOSE_FRAMES).await;
    script::log::info("window closed");
}

/// Scales the window's height from `from` to `to`, one step per frame.
async fn animate(window: &TransformComponent, from: f32, to: f32, frames: u32) {
    for step in 1..=frames {
        script::time::next_frame().await;
        let t = step as f32 / frames as f32;
        window.set_scaling(Vec3::new(1.0, from + (to - from) * t, 1.0));
    }
}

script::export!(MessageWindow);
