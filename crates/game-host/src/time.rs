//! Game time: the fixed-timestep frame clock, the timing of one frame, and
//! the update key of a script's frame subscription. A leaf: every layer may
//! use it.
//!
//! The frame exists in one form on the host: a runtime's [`FrameClock`],
//! shared (by cloning) with everything that reads it: its instances' store
//! data (the WIT `runtime` functions, WASI clocks and timers) and their log
//! identities. [`FrameTime`] is a reading of it; the WIT `frame-clock`
//! record is the copy a script gets with `on-update` and `on-wake`.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// The key of a script's one frame subscription (`subscribe-update`). The
/// runtime keeps subscriptions as (instance, key): a script of the newest
/// API has at most one, under this key; a 0.1 script one per id it
/// subscribed (`guest::v0_1`), in the order it made them.
pub const UPDATE: u32 = 0;

/// Timing of one frame, the same for every call made during it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FrameTime {
    /// Frame number: 1 for the first frame, 0 before any frame ran.
    pub frame: u64,
    /// Seconds the frame advances game time (the fixed timestep).
    pub delta: f32,
    /// Game time in seconds at the end of this frame: `frame * delta`.
    pub time: f64,
}

/// Counts frames at a fixed timestep of `1 / hz` seconds. Clones share the
/// count: the runtime advances it, everything else reads it.
#[derive(Debug, Clone)]
pub struct FrameClock {
    frame: Arc<AtomicU64>,
    dt: f64,
}

impl FrameClock {
    /// A clock at frame 0 ticking `hz` times per game second.
    pub fn new(hz: f64) -> Self {
        FrameClock {
            frame: Arc::default(),
            dt: 1.0 / hz,
        }
    }

    /// The timestep in seconds.
    pub fn dt(&self) -> f64 {
        self.dt
    }

    /// The current frame's number (0 before the first frame).
    #[inline]
    pub fn frame(&self) -> u64 {
        self.frame.load(Ordering::Relaxed)
    }

    /// Game time in seconds: the frame number times the timestep.
    pub fn seconds(&self) -> f64 {
        self.frame() as f64 * self.dt
    }

    /// Timing of the current frame.
    #[inline]
    pub fn now(&self) -> FrameTime {
        let frame = self.frame();
        FrameTime {
            frame,
            delta: self.dt as f32,
            time: frame as f64 * self.dt,
        }
    }

    /// Moves to the next frame and returns its timing: every clone sees the
    /// new frame. Only the runtime's step advances its clock (only this
    /// crate can call this), so a load and a store suffice; a locked add
    /// cost several nanoseconds a frame. Readers need only a whole value.
    pub(crate) fn advance(&mut self) -> FrameTime {
        let next = self.frame.load(Ordering::Relaxed) + 1;
        self.frame.store(next, Ordering::Relaxed);
        self.now()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_is_frame_times_dt() {
        let mut clock = FrameClock::new(60.0);
        assert_eq!(clock.now().frame, 0);
        let mut last = clock.now();
        for _ in 0..120 {
            last = clock.advance();
        }
        assert_eq!(last.frame, 120);
        assert!((last.time - 2.0).abs() < 1e-12);
        assert!((last.delta - 1.0 / 60.0).abs() < 1e-9);
        let reader = clock.clone();
        clock.advance();
        assert_eq!(reader.now().frame, 121, "clones share the count");
    }
}
