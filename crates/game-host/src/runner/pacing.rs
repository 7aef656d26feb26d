//! [`Pacing`]: the one policy by which every real-time runner maps wall
//! time onto fixed simulation steps.
//!
//! Real time accumulates in a backlog; each whole timestep in it is one
//! step due. The remainder carries over, so the simulation does not drift
//! from the wall clock over minutes. When the runner falls more than
//! [`MAX_CATCH_UP_STEPS`] behind (a stall, a slow frame, a debugger), it
//! runs that many steps and drops the rest of the backlog instead of
//! bursting through it: game time then runs slower than wall time, and the
//! dropped steps are counted.

use std::time::{Duration, Instant};

/// Most steps run at one tick to catch up; more behind than that is dropped.
pub const MAX_CATCH_UP_STEPS: u32 = 5;

/// Maps wall time onto fixed steps.
#[derive(Debug, Clone)]
pub struct Pacing {
    dt: Duration,
    backlog: Duration,
    last: Instant,
    dropped: u64,
}

impl Pacing {
    /// Pacing at a fixed step of `dt`, starting at `now` with nothing due.
    pub fn new(dt: Duration, now: Instant) -> Self {
        assert!(!dt.is_zero(), "the timestep must be positive");
        Pacing {
            dt,
            backlog: Duration::ZERO,
            last: now,
            dropped: 0,
        }
    }

    /// Adds the wall time since the last tick and returns how many steps
    /// are due now (at most [`MAX_CATCH_UP_STEPS`]).
    pub fn tick(&mut self, now: Instant) -> u32 {
        self.backlog += now.saturating_duration_since(self.last);
        self.last = self.last.max(now);
        let due = (self.backlog.as_nanos() / self.dt.as_nanos()) as u64;
        self.backlog -= self.dt * due.min(u64::from(u32::MAX)) as u32;
        if due > u64::from(MAX_CATCH_UP_STEPS) {
            self.dropped += due - u64::from(MAX_CATCH_UP_STEPS);
            return MAX_CATCH_UP_STEPS;
        }
        due as u32
    }

    /// Wall time from the last tick until the next step is due: how long a
    /// runner with nothing else to do sleeps.
    pub fn until_next(&self) -> Duration {
        self.dt.saturating_sub(self.backlog)
    }

    /// Steps dropped so far because the runner was too far behind.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DT: Duration = Duration::from_millis(10);

    #[test]
    fn steps_follow_wall_time_without_drift() {
        let start = Instant::now();
        let mut pacing = Pacing::new(DT, start);
        assert_eq!(pacing.tick(start), 0);
        assert_eq!(pacing.until_next(), DT);
        // Ticks at uneven intervals: 7 ms, 7 ms, 7 ms, ... for one second.
        let mut steps = 0;
        for i in 1..=143 {
            steps += pacing.tick(start + Duration::from_millis(7 * i));
        }
        // 1001 ms of wall time: exactly 100 steps, 1 ms carried over.
        assert_eq!(steps, 100);
        assert_eq!(pacing.until_next(), Duration::from_millis(9));
        assert_eq!(pacing.dropped(), 0);
    }

    #[test]
    fn a_stall_runs_a_bounded_catch_up_and_drops_the_rest() {
        let start = Instant::now();
        let mut pacing = Pacing::new(DT, start);
        assert_eq!(pacing.tick(start + Duration::from_millis(25)), 2);
        // A 1 s stall: 100 steps due, 5 run, 95 dropped.
        let stalled = start + Duration::from_millis(1025);
        assert_eq!(pacing.tick(stalled), MAX_CATCH_UP_STEPS);
        assert_eq!(pacing.dropped(), 95);
        // The remainder (5 ms) carries over; pacing goes on normally.
        assert_eq!(pacing.until_next(), Duration::from_millis(5));
        assert_eq!(pacing.tick(stalled + Duration::from_millis(5)), 1);
        // Time going backwards adds nothing.
        assert_eq!(pacing.tick(start), 0);
    }
}
