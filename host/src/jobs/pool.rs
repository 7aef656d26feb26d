//! A pool of worker threads for CPU-heavy work that scripts request, shared
//! by every job kind.
//!
//! Each job is a boxed closure under a ticket. A worker runs it and hands
//! `(ticket, output)` back to the frame thread, which collects outputs at a
//! frame boundary. A job still in the queue can be withdrawn; one already
//! running finishes.

use std::any::Any;
use std::collections::VecDeque;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;

use crate::sync::LockExt;

/// What a job produced, as the pool carries it (each kind downcasts its own).
pub(crate) type Output = Box<dyn Any + Send>;

/// The work of one job, run once on a worker.
pub(crate) type Work = Box<dyn FnOnce() -> Output + Send>;

struct Queue {
    /// Queued jobs: ticket and work.
    jobs: VecDeque<(u64, Work)>,
    shutdown: bool,
}

struct Shared {
    queue: Mutex<Queue>,
    ready: Condvar,
}

pub(crate) struct JobPool {
    shared: Arc<Shared>,
    results_tx: Sender<(u64, Output)>,
    results: Receiver<(u64, Output)>,
    threads: usize,
    workers: Vec<JoinHandle<()>>,
}

impl JobPool {
    /// A pool of `threads` workers (0: one per available core), started on
    /// the first submitted job.
    pub fn new(threads: usize) -> Self {
        let threads = if threads == 0 {
            std::thread::available_parallelism().map_or(1, |n| n.get())
        } else {
            threads
        };
        let (results_tx, results) = channel();
        JobPool {
            shared: Arc::new(Shared {
                queue: Mutex::new(Queue {
                    jobs: VecDeque::new(),
                    shutdown: false,
                }),
                ready: Condvar::new(),
            }),
            results_tx,
            results,
            threads,
            workers: Vec::new(),
        }
    }

    /// Number of worker threads.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Queues `work` under `ticket`.
    pub fn submit(&mut self, ticket: u64, work: Work) {
        if self.workers.is_empty() {
            self.start_workers();
        }
        self.lock().jobs.push_back((ticket, work));
        self.shared.ready.notify_one();
    }

    /// Removes a job that has not started yet; returns whether it was queued.
    pub fn withdraw(&self, ticket: u64) -> bool {
        let mut queue = self.lock();
        match queue.jobs.iter().position(|(t, _)| *t == ticket) {
            Some(index) => {
                queue.jobs.remove(index);
                true
            }
            None => false,
        }
    }

    /// A finished job, without waiting.
    pub fn try_result(&self) -> Option<(u64, Output)> {
        self.results.try_recv().ok()
    }

    /// The next finished job, waiting for it.
    pub fn wait_result(&self) -> Option<(u64, Output)> {
        self.results.recv().ok()
    }

    fn lock(&self) -> MutexGuard<'_, Queue> {
        self.shared.queue.lock_unpoisoned()
    }

    fn start_workers(&mut self) {
        for index in 0..self.threads {
            let shared = self.shared.clone();
            let results = self.results_tx.clone();
            let worker = std::thread::Builder::new()
                .name(format!("job-worker-{index}"))
                .spawn(move || worker_loop(&shared, &results))
                .expect("failed to start a job worker thread");
            self.workers.push(worker);
        }
    }
}

fn worker_loop(shared: &Shared, results: &Sender<(u64, Output)>) {
    loop {
        let (ticket, work) = {
            let mut queue = shared.queue.lock_unpoisoned();
            loop {
                if queue.shutdown {
                    return;
                }
                if let Some(job) = queue.jobs.pop_front() {
                    break job;
                }
                queue = shared
                    .ready
                    .wait(queue)
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
            }
        };
        if results.send((ticket, work())).is_err() {
            return;
        }
    }
}

impl Drop for JobPool {
    fn drop(&mut self) {
        {
            let mut queue = self.lock();
            queue.shutdown = true;
            queue.jobs.clear();
        }
        self.shared.ready.notify_all();
        for worker in self.workers.drain(..) {
            let _ = worker.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_jobs_and_withdraws_queued_ones() {
        let gate = Arc::new((Mutex::new(false), Condvar::new()));
        let mut pool = JobPool::new(1);
        for n in 1..=3u32 {
            let gate = gate.clone();
            pool.submit(
                u64::from(n),
                Box::new(move || {
                    let (open, cv) = &*gate;
                    let mut open = open.lock().unwrap();
                    while !*open {
                        open = cv.wait(open).unwrap();
                    }
                    Box::new(n * 2)
                }),
            );
        }
        // Job 1 may already be running on the single worker; 3 is queued.
        assert!(pool.withdraw(3));
        assert!(!pool.withdraw(3));
        {
            let (open, cv) = &*gate;
            *open.lock().unwrap() = true;
            cv.notify_all();
        }
        let mut results: Vec<(u64, u32)> = (0..2)
            .map(|_| {
                let (ticket, output) = pool.wait_result().unwrap();
                (ticket, *output.downcast::<u32>().unwrap())
            })
            .collect();
        results.sort();
        assert_eq!(results, [(1, 2), (2, 4)]);
        assert!(pool.try_result().is_none());
    }
}
