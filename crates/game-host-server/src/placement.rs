//! Where a new world goes: the loop thread with the least measured load.
//!
//! Each loop thread publishes how long its last frames took (a moving
//! average) and how many worlds those frames ticked; the registry knows
//! how many worlds each thread has. Worlds placed since the measurement
//! are not in it yet, so each is counted at the
//! thread's own cost per world (or, on a thread that has measured nothing,
//! at the average cost per world over all threads). The thread with the
//! smallest estimate gets the world; ties go to the fewest worlds, then to
//! the lowest index.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

/// The load one loop thread publishes.
#[derive(Debug, Default)]
pub(crate) struct ThreadLoad {
    /// Worlds the measured frames ticked.
    measured_worlds: AtomicUsize,
    /// Moving average of the thread's frame time, in nanoseconds.
    frame_ns: AtomicU64,
}

impl ThreadLoad {
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

    fn snapshot(&self, assigned: usize) -> (f64, usize, usize) {
        (
            self.frame_ns.load(Ordering::Relaxed) as f64,
            self.measured_worlds.load(Ordering::Relaxed),
            assigned,
        )
    }
}

/// The index of the least loaded thread, given each thread's measured
/// load and its worlds (`loads` must not be empty; `assigned` is as long).
pub(crate) fn least_loaded(loads: &[ThreadLoad], assigned: &[usize]) -> usize {
    let snapshots: Vec<_> = loads
        .iter()
        .zip(assigned)
        .map(|(load, &assigned)| load.snapshot(assigned))
        .collect();
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

    fn load(measured: usize, frame_us: u64) -> ThreadLoad {
        let load = ThreadLoad::default();
        if measured > 0 {
            load.measured(measured, Duration::from_micros(frame_us));
        }
        load
    }

    #[test]
    fn empty_threads_fill_evenly() {
        let loads = [load(0, 0), load(0, 0)];
        assert_eq!(least_loaded(&loads, &[0, 0]), 0);
        assert_eq!(least_loaded(&loads, &[1, 0]), 1);
        assert_eq!(least_loaded(&loads, &[1, 1]), 0);
    }

    #[test]
    fn measured_time_beats_world_count() {
        // Thread 0 runs 2 heavy worlds (10 ms); thread 1 runs 10 light
        // ones (1 ms): the next world goes to thread 1.
        let loads = [load(2, 10_000), load(10, 1_000)];
        assert_eq!(least_loaded(&loads, &[2, 10]), 1);
    }

    #[test]
    fn worlds_placed_since_the_measurement_count_at_their_cost() {
        // Both measured 1 ms for 10 worlds; thread 0 got 5 more since.
        let loads = [load(10, 1_000), load(10, 1_000)];
        assert_eq!(least_loaded(&loads, &[15, 10]), 1);
        // A thread that measured nothing yet is charged the average cost.
        let loads = [load(10, 1_000), load(0, 0)];
        assert_eq!(least_loaded(&loads, &[10, 20]), 0);
    }
}
