//! Where a new world goes: the loop thread with the least measured load.
//!
//! Each loop thread publishes how long its last frames took (a moving
//! average) and how many worlds those frames ticked. Worlds placed since
//! then are not in that measurement yet, so each is counted at the
//! thread's own cost per world (or, on a thread that has measured nothing,
//! at the average cost per world over all threads). The thread with the
//! smallest estimate gets the world; ties go to the fewest worlds, then to
//! the lowest index.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

/// The load one loop thread publishes.
#[derive(Debug, Default)]
pub struct ThreadLoad {
    /// Worlds placed on the thread and not yet ended.
    assigned: AtomicUsize,
    /// Worlds the measured frames ticked.
    measured_worlds: AtomicUsize,
    /// Moving average of the thread's frame time, in nanoseconds.
    frame_ns: AtomicU64,
}

impl ThreadLoad {
    /// Counts a world placed on this thread.
    pub fn assign(&self) {
        self.assigned.fetch_add(1, Ordering::Relaxed);
    }

    /// Counts a world that ended on this thread.
    pub fn unassign(&self) {
        self.assigned.fetch_sub(1, Ordering::Relaxed);
    }

    /// Worlds on the thread, placed or running.
    pub fn assigned(&self) -> usize {
        self.assigned.load(Ordering::Relaxed)
    }

    /// Publishes a frame that ticked `worlds` worlds in `time`, folded into
    /// a moving average over about the last 16 frames.
    pub fn measured(&self, worlds: usize, time: Duration) {
        let old = self.frame_ns.load(Ordering::Relaxed);
        let new = time.as_nanos().min(u128::from(u64::MAX)) as u64;
        let average = if self.measured_worlds.load(Ordering::Relaxed) == 0 {
            new
        } else {
            old - old / 16 + new / 16
        };
        self.frame_ns.store(average, Ordering::Relaxed);
        self.measured_worlds.store(worlds, Ordering::Relaxed);
    }

    /// Average frame time of the last frames.
    pub fn frame_time(&self) -> Duration {
        Duration::from_nanos(self.frame_ns.load(Ordering::Relaxed))
    }

    fn snapshot(&self) -> (f64, usize, usize) {
        (
            self.frame_ns.load(Ordering::Relaxed) as f64,
            self.measured_worlds.load(Ordering::Relaxed),
            self.assigned.load(Ordering::Relaxed),
        )
    }
}

/// The index of the least loaded thread (`loads` must not be empty).
pub fn least_loaded(loads: &[ThreadLoad]) -> usize {
    let snapshots: Vec<_> = loads.iter().map(ThreadLoad::snapshot).collect();
    let (total_ns, total_worlds) = snapshots
        .iter()
        .filter(|(_, measured, _)| *measured > 0)
        .fold((0.0, 0), |(ns, n), (t, m, _)| (ns + t, n + m));
    let average_per_world = if total_worlds > 0 {
        total_ns / total_worlds as f64
    } else {
        0.0
    };
    let estimate = |&(ns, measured, assigned): &(f64, usize, usize)| {
        let per_world = if measured > 0 {
            ns / measured as f64
        } else {
            average_per_world
        };
        if measured == 0 {
            per_world * assigned as f64
        } else {
            ns + per_world * assigned.saturating_sub(measured) as f64
        }
    };
    (0..snapshots.len())
        .min_by(|&a, &b| {
            let (ea, eb) = (estimate(&snapshots[a]), estimate(&snapshots[b]));
            ea.total_cmp(&eb)
                .then(snapshots[a].2.cmp(&snapshots[b].2))
                .then(a.cmp(&b))
        })
        .expect("at least one loop thread")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(assigned: usize, measured: usize, frame_us: u64) -> ThreadLoad {
        let load = ThreadLoad::default();
        for _ in 0..assigned {
            load.assign();
        }
        if measured > 0 {
            load.measured(measured, Duration::from_micros(frame_us));
        }
        load
    }

    #[test]
    fn empty_threads_fill_evenly() {
        let loads = [load(0, 0, 0), load(0, 0, 0)];
        assert_eq!(least_loaded(&loads), 0);
        loads[0].assign();
        assert_eq!(least_loaded(&loads), 1);
        loads[1].assign();
        assert_eq!(least_loaded(&loads), 0);
    }

    #[test]
    fn measured_time_beats_world_count() {
        // Thread 0 runs 2 heavy worlds (10 ms); thread 1 runs 10 light
        // ones (1 ms): the next world goes to thread 1.
        let loads = [load(2, 2, 10_000), load(10, 10, 1_000)];
        assert_eq!(least_loaded(&loads), 1);
    }

    #[test]
    fn worlds_placed_since_the_measurement_count_at_their_cost() {
        // Both measured 1 ms for 10 worlds; thread 0 got 5 more since.
        let loads = [load(15, 10, 1_000), load(10, 10, 1_000)];
        assert_eq!(least_loaded(&loads), 1);
        // A thread that measured nothing yet is charged the average cost.
        let loads = [load(10, 10, 1_000), load(20, 0, 0)];
        assert_eq!(least_loaded(&loads), 0);
    }
}
