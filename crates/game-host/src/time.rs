//! Game time: the fixed-timestep frame clock, the timing of one frame, and
//! the `on-message` id reserved for wakes. A leaf: every layer may use it.

/// The `on-message` id reserved for wake messages (see the WIT `tasks`
/// interface): the script's waits completed and it should take its wakes.
pub const WAKE_MESSAGE: u32 = u32::MAX;

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

impl FrameTime {
    /// Before any frame: frame 0, no time (for throwaway instances).
    pub const ZERO: FrameTime = FrameTime {
        frame: 0,
        delta: 0.0,
        time: 0.0,
    };
}

/// Counts frames at a fixed timestep of `1 / hz` seconds.
#[derive(Debug, Clone)]
pub struct FrameClock {
    frame: u64,
    dt: f64,
}

impl FrameClock {
    /// A clock at frame 0 ticking `hz` times per game second.
    pub fn new(hz: f64) -> Self {
        FrameClock {
            frame: 0,
            dt: 1.0 / hz,
        }
    }

    /// The timestep in seconds.
    pub fn dt(&self) -> f64 {
        self.dt
    }

    /// Timing of the current frame.
    pub fn now(&self) -> FrameTime {
        FrameTime {
            frame: self.frame,
            delta: self.dt as f32,
            time: self.frame as f64 * self.dt,
        }
    }

    /// Moves to the next frame and returns its timing.
    pub fn advance(&mut self) -> FrameTime {
        self.frame += 1;
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
    }
}
