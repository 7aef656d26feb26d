//! Game time: the frame clock, and waiting for frames and seconds.

use std::future::Future;

use crate::bindings::game::engine::runtime;
use crate::bindings::game::engine::tasks::{self, WakeData};
use crate::wait::HostWait;

/// Seconds of game time the current frame advances (the fixed timestep).
pub fn delta_time() -> f32 {
    runtime::delta_time()
}

/// Number of the current frame: 1 on the first frame, 0 during `entrypoint`.
pub fn frame() -> u64 {
    runtime::frame()
}

/// Game time in seconds at the end of the current frame.
pub fn time() -> f64 {
    runtime::time()
}

/// Completes at the start of the next frame.
pub fn next_frame() -> impl Future<Output = ()> {
    wait_frames(1)
}

/// Completes at the start of the frame `frames` frames from now (0 counts
/// as 1).
pub fn wait_frames(frames: u32) -> impl Future<Output = ()> {
    let wait = HostWait::once(move |token| tasks::wait_frames(token, frames));
    async move {
        wait.await;
    }
}

/// Completes at the first frame at least `seconds` of game time from now
/// and returns the game time actually waited (a whole number of frames).
pub fn wait_seconds(seconds: f64) -> impl Future<Output = f64> {
    let wait = HostWait::once(move |token| tasks::wait_seconds(token, seconds));
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
