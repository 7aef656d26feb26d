//! Waiting for frames and game time.

use std::future::Future;

use crate::bindings::game::engine::tasks::{self, WakeData};
use crate::wait::HostWait;

/// Completes at the start of the next frame.
pub fn next_frame() -> impl Future<Output = ()> {
    wait_frames(1)
}

/// Completes at the start of the frame `frames` frames from now (0 counts
/// as 1).
pub fn wait_frames(frames: u32) -> impl Future<Output = ()> {
    let wait = HostWait::new(move |token| tasks::wait_frames(token, frames));
    async move {
        wait.await;
    }
}

/// Completes at the first frame at least `seconds` of game time from now
/// and returns the game time actually waited (a whole number of frames).
pub fn wait_seconds(seconds: f64) -> impl Future<Output = f64> {
    let wait = HostWait::new(move |token| tasks::wait_seconds(token, seconds));
    async move {
        match wait.await {
            WakeData::Timer(waited) => waited,
            _ => seconds,
        }
    }
}

/// Completes once `condition` holds; checked now, then once per frame.
pub async fn wait_until(mut condition: impl FnMut() -> bool) {
    while !condition() {
        next_frame().await;
    }
}
