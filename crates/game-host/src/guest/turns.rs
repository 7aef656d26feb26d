//! [`Turns`]: the order of a frame's tasks (one per instance called), for
//! the calls that must happen in that order whatever thread runs them.
//!
//! A task that spawns, looks an entity up by name, or touches the game's
//! data waits for its turn: every task before it in the frame has ended.
//! Those calls then happen in exactly the order one thread would make
//! them. Each worker takes tasks in increasing order and says which one it
//! is on, so a task's turn has come when no worker is on an earlier one;
//! the earliest unfinished task never waits, so the frame always ends.
//!
//! A lookup by name that finds an entity needs no turn: spawns happen in
//! task order, each after every earlier task has ended, so the first entity
//! of that name is already there, and despawns wait for the frame's end.
//! Only a lookup that finds nothing waits, then looks again.
//!
//! Outside a parallel dispatch every place is idle (each pool worker leaves
//! its place idle when it ends, even by a panic), so a task of a frame on
//! the calling thread never waits for its turn.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use crate::sync::LockExt;

/// A worker's place, on a cache line of its own.
#[repr(align(64))]
#[derive(Default)]
struct Place(AtomicUsize);

/// Looks at the workers' places before sleeping (a few microseconds).
const SPINS: u32 = 2_000;

/// No task: the worker has none left.
const IDLE: usize = usize::MAX;

/// Where each worker of one runtime's frame is.
pub(crate) struct Turns {
    /// The task each worker is on (or a lower bound of the one it is
    /// taking), by worker.
    places: Box<[Place]>,
    waiting: AtomicUsize,
    /// Whether a task has waited for its turn in this dispatch, and in the
    /// one before.
    waited: AtomicBool,
    waited_before: AtomicBool,
    lock: Mutex<()>,
    woken: Condvar,
}

impl Turns {
    /// Places for `workers` workers.
    pub fn new(workers: usize) -> Self {
        Turns {
            places: (0..workers.max(1))
                .map(|_| Place(AtomicUsize::new(IDLE)))
                .collect(),
            waiting: AtomicUsize::new(0),
            waited: AtomicBool::new(false),
            waited_before: AtomicBool::new(false),
            lock: Mutex::new(()),
            woken: Condvar::new(),
        }
    }

    /// A dispatch begins: no worker is on any task.
    pub fn begin(&self) {
        for place in &self.places {
            place.0.store(IDLE, Ordering::SeqCst);
        }
        let waited = self.waited.swap(false, Ordering::Relaxed);
        self.waited_before.store(waited, Ordering::Relaxed);
    }

    /// Whether a task waited for its turn in this dispatch or the one
    /// before: then workers take one task at a time (`runtime::claims`), as
    /// a task waiting in a run would hold the rest of its run back.
    pub fn waits_seen(&self) -> bool {
        self.waited.load(Ordering::Relaxed) || self.waited_before.load(Ordering::Relaxed)
    }

    /// Number of workers there are places for.
    pub fn places(&self) -> usize {
        self.places.len()
    }

    /// Worker `worker` is on task `task` (or on none: [`Turns::idle`]); a
    /// worker about to take a task first says the lowest it can get.
    pub fn at(&self, worker: usize, task: usize) {
        self.places[worker].0.store(task, Ordering::SeqCst);
        if self.waiting.load(Ordering::SeqCst) > 0 {
            let _held = self.lock.lock_unpoisoned();
            self.woken.notify_all();
        }
    }

    /// Worker `worker` has no task left.
    pub fn idle(&self, worker: usize) {
        self.at(worker, IDLE);
    }

    fn turn_of(&self, task: usize) -> bool {
        self.places
            .iter()
            .all(|place| place.0.load(Ordering::SeqCst) >= task)
    }

    /// Waits until every task before `task` has ended; returns how long it
    /// waited (zero when it did not).
    pub fn wait_for(&self, task: usize) -> Duration {
        if self.turn_of(task) {
            return Duration::ZERO;
        }
        self.waited.store(true, Ordering::Relaxed);
        let start = Instant::now();
        // The task before is often about to end: look again for a while
        // before sleeping (a sleep and a wake cost several microseconds).
        for _ in 0..SPINS {
            std::hint::spin_loop();
            if self.turn_of(task) {
                return start.elapsed();
            }
        }
        self.waiting.fetch_add(1, Ordering::SeqCst);
        let mut held = self.lock.lock_unpoisoned();
        while !self.turn_of(task) {
            held = self
                .woken
                .wait(held)
                .unwrap_or_else(std::sync::PoisonError::into_inner);
        }
        drop(held);
        self.waiting.fetch_sub(1, Ordering::SeqCst);
        start.elapsed()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn a_task_goes_on_only_once_no_worker_is_on_an_earlier_one() {
        let turns = Arc::new(Turns::new(2));
        turns.at(0, 0);
        turns.at(1, 2);
        assert_eq!(turns.wait_for(0), Duration::ZERO);
        let waiter = {
            let turns = turns.clone();
            std::thread::spawn(move || turns.wait_for(2))
        };
        std::thread::sleep(Duration::from_millis(20));
        assert!(!waiter.is_finished(), "worker 0 is still on task 0");
        turns.at(0, 3);
        assert!(waiter.join().unwrap() > Duration::ZERO);
        turns.idle(0);
        turns.idle(1);
        assert_eq!(turns.wait_for(7), Duration::ZERO);
    }
}
