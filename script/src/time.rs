//! Game time: the frame clock, and waiting for frames and seconds.
//!
//! The host passes the frame clock with every call of a frame (`on-update`
//! and `on-wake`), so [`delta_time`], [`frame`] and [`time`] cost no call
//! into the host there. Outside those calls (`entrypoint`, the state
//! hand-over) they ask the host, once per call.

use std::cell::Cell;
use std::future::Future;

use crate::bindings::game::engine::runtime;
pub use crate::bindings::game::engine::runtime::FrameClock;
use crate::bindings::game::engine::tasks::{self, WakeData};
use crate::wait::HostWait;

thread_local! {
    /// The clock the host passed with the call being run, if it passed one.
    static CLOCK: Cell<Option<FrameClock>> = const { Cell::new(None) };
}

/// Sets (or, with `None`, forgets) the clock of the call being run.
#[inline]
pub(crate) fn set_clock(clock: Option<FrameClock>) {
    CLOCK.set(clock);
}

/// The clock of the current frame: the one passed with this call, or the
/// host's (asked once, then kept for the rest of the call).
#[inline]
pub fn clock() -> FrameClock {
    CLOCK.get().unwrap_or_else(|| {
        let clock = runtime::clock();
        CLOCK.set(Some(clock));
        clock
    })
}

/// Seconds of game time the current frame advances (the fixed timestep).
#[inline]
pub fn delta_time() -> f32 {
    clock().delta_time
}

/// Number of the current frame: 1 on the first frame, 0 during the first
/// `entrypoint` calls.
#[inline]
pub fn frame() -> u64 {
    clock().frame
}

/// Game time in seconds at the end of the current frame.
#[inline]
pub fn time() -> f64 {
    clock().time
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
